/* ptx/sm90a/dequantize_layout.h - the dequantize kernels' layout: entry names, launch shape, shared memory and
 * the parameter blocks of the single-tensor entry and the grouped one. dequantize.ptx includes it through cpp
 * and host/dequantize.c through the C compiler, which checks its parameter structs against these offsets.
 * Only #defines: PTX reads them too. */
#ifndef NVFP4_PTX_SM90A_DEQUANTIZE_LAYOUT_H
#define NVFP4_PTX_SM90A_DEQUANTIZE_LAYOUT_H

#define DEQ_ENTRY nvfp4_dequantize_sm90a
#define DEQ_SM80_ENTRY nvfp4_dequantize_sm80 /* the portable target's (ptx/sm80/dequantize.ptx) */

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

/* --- The grouped entry (GDQ_ENTRY): G tensors of one batch each, every group with its own data, scales,
 * rows, K, strides, scale layout and destination, one output type per launch. The same launch shape, strips,
 * staging area and output types as DEQ_ENTRY. Only groups with rows are in the block, in the caller's order;
 * their strips are numbered in that order (group, row, strip), group g's from strip_start[g], and warp w of the
 * grid takes strips w, w + W, w + 2W, ... (W warps in the grid), finding each one's group by a binary search
 * over strip_start. */
#define GDQ_ENTRY nvfp4_grouped_dequantize_sm90a
#define GDQ_SM80_ENTRY nvfp4_grouped_dequantize_sm80 /* the portable target's */
#define GDQ_MAX_GROUPS 256         /* groups with rows per launch; a call with more launches again */

/* The parameter block, one .param .b8 array of GDQ_PARAM_BYTES (over 4 KB: PTX ISA 8.1, sm_70 and later). */
#define GDQ_P_NUM_GROUPS 0         /* u32  groups in the block, 1 .. GDQ_MAX_GROUPS */
#define GDQ_P_TOTAL_STRIPS 4       /* u32  strips of every group, below 2^31 */
#define GDQ_P_OUT_DTYPE 8          /* u32  DEQ_DTYPE_* of every destination */
#define GDQ_P_STRIP_START 12       /* u32 x GDQ_MAX_GROUPS: group g's first strip (0 for g = 0), rising */
#define GDQ_P_DESCS 1040           /* GDQ_MAX_GROUPS descriptors of GDQ_DESC_BYTES (4 bytes unused before) */
#define GDQ_DESC_BYTES 96
#define GDQ_PARAM_BYTES 25616      /* GDQ_P_DESCS + GDQ_MAX_GROUPS * GDQ_DESC_BYTES, a literal for the PTX */

/* One group's descriptor: DEQ_P_*'s fields of one batch. The data pointer and ld are multiples of 16. */
#define GDQ_D_IN 0                 /* u64  packed e2m1, even k in the low nibble */
#define GDQ_D_IN_SF 8              /* u64  e4m3 block scales */
#define GDQ_D_OUT 16               /* u64  destination, element-aligned */
#define GDQ_D_IN_LD 24             /* u64  bytes between rows of data */
#define GDQ_D_OUT_LD_BYTES 32      /* u64  bytes between destination rows (B tiles: between column blocks) */
#define GDQ_D_SF_ROW_STEP128 40    /* u64 x3: the scale-row steps, as DEQ_P_SF_ROW_STEP* */
#define GDQ_D_SF_ROW_STEP32 48
#define GDQ_D_SF_ROW_STEP1 56
#define GDQ_D_CHUNKS_PER_ROW 64    /* u32  K / 32 */
#define GDQ_D_STRIPS_PER_ROW 68    /* u32  ceil(K / 1024) */
#define GDQ_D_SF_PAIR_STEP 72      /* u32  as DEQ_P_SF_PAIR_STEP: LINEAR 4, BLOCKED 512 */
#define GDQ_D_VECTOR_STORES 76     /* u32  as DEQ_P_VECTOR_STORES, for this group's destination rows */
#define GDQ_D_OUT_CHUNKS 80        /* u32  chunks written per row: K / 32, or with B tiles K_pad / 32 */
#define GDQ_D_B_TILES 84           /* u32  1: the destination is in the B-tile layout below (16-bit types) */
/* u32  1: the input is dense activations of the output's type (data IN, rows IN_LD bytes apart, no scales),
 * copied into B tiles (B_TILES 1): the grouped W4A16 GEMM's dense activations on sm_90a */
#define GDQ_D_IN_DENSE 88

/* The B-tile layout: the order in which the grouped W4A16 GEMM's producers copy a token tile's K stage into
 * wgmma's 128B-swizzled B tile (grouped_gemm_layout.h, GW_*), so that one bulk copy per half stage moves it.
 * A group of R rows and K elements is stored as K_pad / 64 column blocks of R rows x 128 bytes (K_pad: K
 * rounded up to GDQ_B_TILE_K, the GEMM's K stage; elements past K are +0), in a K order permuted within each
 * 128-element stage: element k = 128S + 32t + 16h + 8j + 4e + s (t, s < 4; h, j, e < 2) goes to position
 *   x = 128S + 64h + 16s + 8j + 2t + e,
 * at (x / 64) * R * 128 + r * 128 + (((x % 64) / 8) ^ (r % 8)) * 16 + (x % 8) * 2 bytes. The GEMM's f16_tiles
 * entries decode the weights in the same order (grouped_gemm_w4a16.ptx): position x is where wgmma's fragment
 * layout puts the element that thread t finds as nibble 4e + s of its word 2h + j, so each thread reads one
 * 16-byte piece of a weight row and one scale pair per stage, and decodes nibble pairs already 16 bits apart.
 * The descriptor's OUT_LD_BYTES is the column block's size R * 128; the destination is 16-byte aligned. */
#define GDQ_B_TILE_K 128
#define GDQ_B_TILE_BLOCK_K 64
#define GDQ_B_TILE_ROW_BYTES 128

#endif
