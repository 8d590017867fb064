/* ptx/sm90a/quantize_layout.h - the quantize kernel's layout: entry name, launch shape and the parameter
 * block. quantize.ptx includes it through cpp and host/quantize.c through the C compiler, which checks its
 * parameter struct against these offsets. Only #defines: PTX reads them too. */
#ifndef NVFP4_PTX_SM90A_QUANTIZE_LAYOUT_H
#define NVFP4_PTX_SM90A_QUANTIZE_LAYOUT_H

#define QNT_ENTRY nvfp4_quantize_sm90a
#define QNT_SM80_ENTRY nvfp4_quantize_sm80 /* the portable target's (ptx/sm80/quantize.ptx) */

/* Launch: block (QNT_THREADS, 1, 1) = QNT_WARPS warps; grid (P, 1, 1), P CTAs of resident warps that
 * grid-stride over the strips (see quantize.ptx). No shared memory. */
#define QNT_THREADS 256
#define QNT_WARPS 8

/* The work: a block is the 16 elements of one scale, one lane's; a strip is QNT_STRIP_BLOCKS blocks of one
 * row (1024 elements), one warp's: lane l takes blocks l and l + 32. A group (QNT_P_GROUPS_PER_ROW's unit)
 * is 8 elements, half a block. */
#define QNT_GROUP_ELEMS 8
#define QNT_BLOCKS_PER_LANE 2
#define QNT_STRIP_BLOCKS (32 * QNT_BLOCKS_PER_LANE)
#define QNT_STRIP_ELEMS (QNT_STRIP_BLOCKS * 16)

/* Input types (QNT_P_IN_DTYPE): nvfp4_dtype's values. */
#define QNT_DTYPE_F16 0
#define QNT_DTYPE_BF16 1
#define QNT_DTYPE_F32 2

/* The parameter block, one .param .b8 array of QNT_PARAM_BYTES (byte offset: meaning). The output data
 * pointer, ld and batch stride are multiples of 16 (validated); the input is element-aligned. */
#define QNT_P_IN 0                 /* u64  dense input */
#define QNT_P_OUT 8                /* u64  packed e2m1 out, even k in the low nibble */
#define QNT_P_OUT_SF 16            /* u64  e4m3 block scales out */
#define QNT_P_IN_LD_BYTES 24       /* u64  bytes between input rows */
#define QNT_P_IN_BATCH_BYTES 32    /* u64  bytes between input batches */
#define QNT_P_OUT_LD 40            /* u64  bytes between rows of data */
#define QNT_P_OUT_BATCH_STRIDE 48  /* u64  bytes between batches of data */
#define QNT_P_SF_BATCH_STRIDE 56   /* u64  bytes between batches of scales */
/* u64 x3: scale-row offset = (r/128)*step128 + ((r%128)/32)*step32 + (r%32)*step1;
 * LINEAR: 128*sf_ld, 32*sf_ld, sf_ld; BLOCKED_128x4: ceil(K/64)*512, 4, 16 */
#define QNT_P_SF_ROW_STEP128 64
#define QNT_P_SF_ROW_STEP32 72
#define QNT_P_SF_ROW_STEP1 80
#define QNT_P_BATCH 88             /* u64  batches */
#define QNT_P_ROWS 96              /* u32  rows per batch with data */
/* u32  rows per batch the warps walk: ROWS (LINEAR), ROWS rounded up to 128 (BLOCKED: the padding rows'
 * scales are written 0) */
#define QNT_P_WALK_ROWS 100
#define QNT_P_GROUPS_PER_ROW 104   /* u32  K / 8 */
/* u32  scale blocks written per row: K / 16 (LINEAR), ceil(K / 64) * 4 (BLOCKED: the padding blocks 0) */
#define QNT_P_SF_BLOCKS 108
#define QNT_P_STRIPS_PER_ROW 112   /* u32  ceil(SF_BLOCKS * 16 / 1024) */
#define QNT_P_SF_QUAD_STEP 116     /* u32  bytes from the scales of blocks 4i.. to 4i+4..: LINEAR 4, BLOCKED 512 */
/* u32 x3: the grid's stride, W = grid * QNT_WARPS strips, as a step of (batch, walk row, strip):
 * W % strips, (W / strips) % walk_rows, (W / strips) / walk_rows, so that warps advance without dividing */
#define QNT_P_STEP_STRIPS 120
#define QNT_P_STEP_ROWS 124
#define QNT_P_STEP_BATCHES 128
#define QNT_P_IN_DTYPE 132         /* u32  QNT_DTYPE_* */
/* u32  1: every input row starts 16-byte aligned (16-byte loads); 0: element loads */
#define QNT_P_VECTOR_LOADS 136
#define QNT_P_GLOBAL_SCALE 140     /* f32  g: t = x * g */
#define QNT_PARAM_BYTES 144        /* QNT_P_GLOBAL_SCALE + 4 */

#endif
