/* ptx/sm90a/scales_relayout_layout.h - the scale relayout kernel's layout: entry name, launch shape and the
 * parameter block. scales_relayout.ptx includes it through cpp and host/scales_relayout.c through the C
 * compiler, which checks its parameter struct against these offsets. Only #defines: PTX reads them too. */
#ifndef NVFP4_PTX_SM90A_SCALES_RELAYOUT_LAYOUT_H
#define NVFP4_PTX_SM90A_SCALES_RELAYOUT_LAYOUT_H

#define RLY_ENTRY nvfp4_scales_relayout_sm90a

/* Launch: block (RLY_THREADS, 1, 1); grid (P, 1, 1), P CTAs whose threads grid-stride over the destination's
 * scale bytes (see scales_relayout.ptx). No shared memory. */
#define RLY_THREADS 256

/* The parameter block, one .param .b8 array of RLY_PARAM_BYTES (byte offset: meaning). A scale's offset in
 * either layout is (r/128)*step128 + ((r%128)/32)*step32 + (r%32)*step1 + (j/4)*quad_step + j%4;
 * LINEAR: 128*sf_ld, 32*sf_ld, sf_ld, 4; BLOCKED_128x4: ceil(K/64)*512, 4, 16, 512 (host/format.h). */
#define RLY_P_FROM_SF 0             /* u64  source scales */
#define RLY_P_TO_SF 8               /* u64  destination scales */
#define RLY_P_FROM_BATCH_STRIDE 16  /* u64  bytes between batches of source scales */
#define RLY_P_TO_BATCH_STRIDE 24    /* u64  bytes between batches of destination scales */
#define RLY_P_FROM_STEP128 32       /* u64 x3: the source's row steps */
#define RLY_P_FROM_STEP32 40
#define RLY_P_FROM_STEP1 48
#define RLY_P_TO_STEP128 56         /* u64 x3: the destination's row steps */
#define RLY_P_TO_STEP32 64
#define RLY_P_TO_STEP1 72
/* u64  scale bytes the threads write: batch * WALK_ROWS * WALK_BLOCKS */
#define RLY_P_TOTAL 80
#define RLY_P_ROWS 88               /* u32  rows per batch with scales */
#define RLY_P_BLOCKS 92             /* u32  scales per row: K / 16 */
/* u32 x2: the destination's rows and blocks per batch the threads walk: ROWS and BLOCKS (LINEAR), rounded
 * up to 128 and 4 (BLOCKED: its padding bytes are written 0) */
#define RLY_P_WALK_ROWS 96
#define RLY_P_WALK_BLOCKS 100
#define RLY_P_FROM_QUAD_STEP 104    /* u32  source bytes from blocks 4i.. to 4i+4..: LINEAR 4, BLOCKED 512 */
#define RLY_P_TO_QUAD_STEP 108      /* u32  the same for the destination */
#define RLY_PARAM_BYTES 112         /* RLY_P_TO_QUAD_STEP + 4 */

#endif
