/* ptx/sm90a/scales_relayout_layout.h - the scale relayout kernel's layout: entry name, launch shape, the work
 * of a thread and of a CTA, the access modes and the parameter block. scales_relayout.ptx includes it through
 * cpp and host/scales_relayout.c through the C compiler, which checks its parameter struct against these
 * offsets. Only #defines: PTX reads them too. */
#ifndef NVFP4_PTX_SM90A_SCALES_RELAYOUT_LAYOUT_H
#define NVFP4_PTX_SM90A_SCALES_RELAYOUT_LAYOUT_H

#define RLY_ENTRY nvfp4_scales_relayout_sm90a
#define RLY_SM80_ENTRY nvfp4_scales_relayout_sm80 /* the portable target's (ptx/sm80/scales_relayout.ptx) */

/* Launch: block (RLY_THREADS, 1, 1); grid (P, 1, 1), P CTAs that grid-stride over the items (see
 * scales_relayout.ptx). No shared memory. */
#define RLY_THREADS 256

/* The work. A quad is the 4 scales of blocks 4q..4q+3 of one row (4 contiguous bytes in both layouts). A
 * thread moves the quads q0 + RLY_QUAD_SPACING * c (c < RLY_THREAD_QUADS) of rows r0 + 32 * g (g < 4), the
 * rows whose quads a BLOCKED tile keeps side by side (16 contiguous bytes per quad). Thread t of a CTA takes
 * r0 = 128 * tile + t / RLY_QUAD_SPACING, q0 = RLY_ITEM_QUADS * group + t % RLY_QUAD_SPACING: an item, one
 * CTA's, is a tile row (128 rows) x RLY_ITEM_QUADS quads of one batch. */
#define RLY_THREAD_QUADS 4
#define RLY_QUAD_SPACING 8
#define RLY_ITEM_QUADS (RLY_THREAD_QUADS * RLY_QUAD_SPACING)

/* Access modes (RLY_P_FROM_ACCESS, RLY_P_TO_ACCESS), the widest the side's addresses allow (the host
 * decides per launch from the base, sf_ld and batch stride): a quad as 4 single bytes; as one 4-byte word
 * (2 bytes for a LINEAR row's last quad when K/16 is not a multiple of 4); a quad's 4 rows as one 16-byte
 * vector (BLOCKED only). */
#define RLY_ACCESS_BYTES 0
#define RLY_ACCESS_WORDS 1
#define RLY_ACCESS_VEC16 2

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
#define RLY_P_BATCH 80              /* u64  batches */
#define RLY_P_FROM_QUAD_STEP 88     /* u32  source bytes from blocks 4i.. to 4i+4..: LINEAR 4, BLOCKED 512 */
#define RLY_P_TO_QUAD_STEP 92       /* u32  the same for the destination */
#define RLY_P_ROWS 96               /* u32  rows per batch with scales: the rows the source holds */
/* u32  rows per batch the destination stores: ROWS (LINEAR), TILES * 128 (BLOCKED: padding rows 0) */
#define RLY_P_TO_ROWS 100
#define RLY_P_TILES 104             /* u32  tile rows per batch the items walk: ceil(ROWS / 128) */
#define RLY_P_QUADS 108             /* u32  quads per row the items walk: ceil(K / 64) */
#define RLY_P_WHOLE_QUADS 112       /* u32  quads per row the source holds whole: floor(K / 64) */
/* u32  quads per row the destination stores whole: WHOLE_QUADS (LINEAR: the last quad of a row with K/16 % 4
 * == 2 is its first 2 bytes alone), QUADS (BLOCKED: the padding blocks 0) */
#define RLY_P_TO_WHOLE_QUADS 116
#define RLY_P_GROUPS 120            /* u32  items per tile row: ceil(QUADS / RLY_ITEM_QUADS) */
/* u32 x3: the grid's stride, P items, as a step of (batch, tile row, group): P % GROUPS,
 * (P / GROUPS) % TILES, (P / GROUPS) / TILES, so that CTAs advance without dividing */
#define RLY_P_STEP_GROUPS 124
#define RLY_P_STEP_TILES 128
#define RLY_P_STEP_BATCHES 132
#define RLY_P_FROM_ACCESS 136       /* u32  RLY_ACCESS_* the source is read with */
#define RLY_P_TO_ACCESS 140         /* u32  RLY_ACCESS_* the destination is written with */
#define RLY_PARAM_BYTES 144         /* RLY_P_TO_ACCESS + 4 */

#endif
