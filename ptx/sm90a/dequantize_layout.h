/* ptx/sm90a/dequantize_layout.h - the dequantize kernel's layout: entry name, launch shape, shared memory and
 * the parameter block. dequantize.ptx includes it through cpp and host/dequantize.c through the C compiler,
 * which checks its parameter struct against these offsets. Only #defines: PTX reads them too. */
#ifndef NVFP4_PTX_SM90A_DEQUANTIZE_LAYOUT_H
#define NVFP4_PTX_SM90A_DEQUANTIZE_LAYOUT_H

#define DEQ_ENTRY nvfp4_dequantize_sm90a

/* Launch: block (DEQ_THREADS, 1, 1) = DEQ_WARPS warps; grid (P, 1, 1), P CTAs of resident warps that
 * grid-stride over the strips (see dequantize.ptx). */
#define DEQ_THREADS 256
#define DEQ_WARPS 8

/* The work: a chunk is 32 elements of a row (16 bytes of data, two scales), one lane's; a strip is 32
 * consecutive chunks of one row (1024 elements), one warp's. */
#define DEQ_CHUNK_ELEMS 32
#define DEQ_STRIP_CHUNKS 32

/* Dynamic shared memory: each warp stages its strip's output there, DEQ_STAGE_BYTES(element size) bytes
 * (2048 for f16 and bf16, 4096 for f32), so that its global stores are contiguous across the warp. */
#define DEQ_STAGE_BYTES(esize) (DEQ_STRIP_CHUNKS * DEQ_CHUNK_ELEMS * (esize))
#define DEQ_SMEM_BYTES(esize) (DEQ_WARPS * DEQ_STAGE_BYTES(esize))
#define DEQ_MAX_DYNAMIC_SMEM DEQ_SMEM_BYTES(4)

/* Output types (DEQ_P_OUT_DTYPE): nvfp4_dtype's values. */
#define DEQ_DTYPE_F16 0
#define DEQ_DTYPE_BF16 1
#define DEQ_DTYPE_F32 2

/* The parameter block, one .param .b8 array of DEQ_PARAM_BYTES (byte offset: meaning). The data pointer,
 * ld and batch stride are multiples of 16 (validated: the 16-byte loads). */
#define DEQ_P_IN 0                 /* u64  packed e2m1, even k in the low nibble */
#define DEQ_P_IN_SF 8              /* u64  e4m3 block scales */
#define DEQ_P_OUT 16               /* u64  output, element-aligned */
#define DEQ_P_IN_LD 24             /* u64  bytes between rows of data */
#define DEQ_P_IN_BATCH_STRIDE 32   /* u64  bytes between batches of data */
#define DEQ_P_SF_BATCH_STRIDE 40   /* u64  bytes between batches of scales */
/* u64 x3: scale-row offset = (r/128)*step128 + ((r%128)/32)*step32 + (r%32)*step1;
 * LINEAR: 128*sf_ld, 32*sf_ld, sf_ld; BLOCKED_128x4: ceil(K/64)*512, 4, 16 */
#define DEQ_P_SF_ROW_STEP128 48
#define DEQ_P_SF_ROW_STEP32 56
#define DEQ_P_SF_ROW_STEP1 64
#define DEQ_P_OUT_LD_BYTES 72      /* u64  bytes between output rows */
#define DEQ_P_OUT_BATCH_BYTES 80   /* u64  bytes between output batches */
#define DEQ_P_BATCH 88             /* u64  batches */
#define DEQ_P_ROWS 96              /* u32  rows per batch */
#define DEQ_P_CHUNKS_PER_ROW 100   /* u32  K / 32 */
#define DEQ_P_STRIPS_PER_ROW 104   /* u32  ceil(K / 1024) */
/* u32: bytes from the scales of chunk pair c/2 to the next: LINEAR 4, BLOCKED 512 (a chunk's two scales are
 * adjacent in both layouts, at +2 for an odd chunk) */
#define DEQ_P_SF_PAIR_STEP 108
/* u32 x3: the grid's stride, W = grid * DEQ_WARPS strips, as a step of (batch, row, strip): W % strips,
 * (W / strips) % rows, (W / strips) / rows, so that warps advance without dividing */
#define DEQ_P_STEP_STRIPS 112
#define DEQ_P_STEP_ROWS 116
#define DEQ_P_STEP_BATCHES 120
#define DEQ_P_OUT_DTYPE 124        /* u32  DEQ_DTYPE_* */
/* u32  1: every output row starts 16-byte aligned (16-byte stores); 0: 4- or 2-byte stores */
#define DEQ_P_VECTOR_STORES 128
#define DEQ_PARAM_BYTES 132        /* DEQ_P_VECTOR_STORES + 4 */

#endif
