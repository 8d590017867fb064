/* ptx/sm90a/gemv_layout.h - the GEMV kernel families' layout: entry names, launch shape, shared memory and
 * the parameter block. gemv.ptx and gemv_w4a16.ptx include it through cpp and host/gemv.c through the C
 * compiler, which checks its parameter struct against these offsets; nothing here is copied by hand. Only
 * #defines: PTX reads them too. Where PTX takes no expression (an array size, .maxntid) the value is a
 * literal, and the host checks it against what it stands for. */
#ifndef NVFP4_PTX_SM90A_GEMV_LAYOUT_H
#define NVFP4_PTX_SM90A_GEMV_LAYOUT_H

/* The entries: the NVFP4 GEMV's two (gemv.ptx; see gemv_common.inc, "Ragged chunk counts") and the W4A16
 * GEMV's one, x dense f16 or bf16 (gemv_w4a16.ptx, tensor cores). All three take the same parameter block
 * and block shape; the launch shapes differ (below). */
#define GEMV_ENTRY_PLAIN nvfp4_gemv_sm90a
#define GEMV_ENTRY_EQUAL_STEPS nvfp4_gemv_equal_steps_sm90a
#define GEMV_W4A16_ENTRY nvfp4_gemv_w4a16_sm90a
/* The same three assembled for the portable target (ptx/sm80/gemv.ptx, ptx/sm80/gemv_w4a16.ptx) */
#define GEMV_SM80_ENTRY_PLAIN nvfp4_gemv_sm80
#define GEMV_SM80_ENTRY_EQUAL_STEPS nvfp4_gemv_equal_steps_sm80
#define GEMV_W4A16_SM80_ENTRY nvfp4_gemv_w4a16_sm80

/* Launch: block (GEMV_THREADS, 1, 1) = 8 warps; grid (P, L, 1), persistent (NVFP4: see gemv_common.inc;
 * W4A16: gemv_w4a16.ptx). */
#define GEMV_THREADS 256
#define GEMV_THREADS_LOG2 8
#define GEMV_ROWS_PER_QUAD 4 /* a thread group owns 4 rows of a tile: a quad */

/* The W4A16 GEMV's work (gemv_w4a16.ptx): tiles of 16 rows (one mma.m16n8k16's A), a warp's step 256 of K
 * (8 chunks of 32; x in shared memory is zero-padded to whole steps). */
#define GEMV_W4A16_TILE_ROWS 16
#define GEMV_W4A16_STEP_CHUNKS 8

/* Shared memory. Dynamic: x of the CTA's batch. NVFP4: decoded, per 32-element chunk GEMV_X_CHUNK_BYTES
 * signed bytes 2*e2m1 and then, after all chunks, GEMV_X_SF_CHUNK_BYTES of two f32 scales times 1/4.
 * W4A16: as it is (f16 or bf16), per chunk 64 bytes and 16 of padding (GEMV_W4A16_SMEM_PER_CHUNK), so that
 * the 16-byte loads of a warp's four chunks fall on different banks; ceil(chunks / 8) * 8 chunks. Static:
 * NVFP4: warp_partials, [2 buffers][8 warps][4 rows] of f32 (GEMV_WARP_PARTIALS of them), for groups wider
 * than a warp; W4A16: tile_partials, [2 buffers][8 warps][16 rows] of f32, for tiles shared by warps. */
#define GEMV_X_CHUNK_BYTES 32
#define GEMV_X_SF_CHUNK_BYTES 8
#define GEMV_SMEM_PER_CHUNK (GEMV_X_CHUNK_BYTES + GEMV_X_SF_CHUNK_BYTES)
#define GEMV_W4A16_SMEM_PER_CHUNK 80
#define GEMV_WARP_PARTIALS 64
#define GEMV_PARTIALS_BUFFER_BYTES 128 /* one buffer: 8 warps x 4 rows x 4 bytes */
#define GEMV_STATIC_SMEM (GEMV_WARP_PARTIALS * 4)
#define GEMV_MAX_DYNAMIC_SMEM (227 * 1024 - GEMV_STATIC_SMEM) /* the sm_90 limit per block, less the static */
#define GEMV_W4A16_PARTIALS 256
#define GEMV_W4A16_PARTIALS_BUFFER_BYTES 512 /* one buffer: 8 warps x 16 rows x 4 bytes */
#define GEMV_W4A16_STATIC_SMEM (GEMV_W4A16_PARTIALS * 4)
#define GEMV_W4A16_MAX_DYNAMIC_SMEM (227 * 1024 - GEMV_W4A16_STATIC_SMEM)

/* The parameter block, one .param .b8 array of GEMV_PARAM_BYTES (byte offset: meaning). Literal offsets, so
 * that build/ptx reads [p_gemv + 152]; host/gemv.c checks every one against its struct. A's data, ld and
 * batch stride are 16-byte aligned; so are x's in the NVFP4 entries (the W4A16 ones take x at any element
 * address). The W4A16 entry reads no x scales (GEMV_P_X_SF, _X_SF_BATCH_STRIDE, _X_SF_PAIR_STEP) and no
 * NVFP4 launch shape (_LANES_PER_ROW_LOG2, _QUADS_*); the NVFP4 ones no x type (GEMV_P_X_DTYPE) and no W4A16
 * launch shape (_TILES_*, _WARPS_PER_TILE_LOG2). */
#define GEMV_P_A_DATA 0                           /* u64  A, packed e2m1 (even k in the low nibble) */
#define GEMV_P_A_SF 8                             /* u64  A's e4m3 block scales */
#define GEMV_P_X_DATA 16                          /* u64  x: packed e2m1, or (W4A16) f16 / bf16 elements */
#define GEMV_P_X_SF 24                            /* u64  x's e4m3 block scales */
#define GEMV_P_Y 32                               /* u64  output */
#define GEMV_P_A_LD 40                            /* u64  bytes between rows of A */
#define GEMV_P_A_BATCH_STRIDE 48                  /* u64  bytes between batches of A */
#define GEMV_P_A_SF_BATCH_STRIDE 56               /* u64  bytes between batches of A's scales */
/* u64 x3: scale-row offset = (r/128)*step128 + ((r%128)/32)*step32 + (r%32)*step1;
 * LINEAR: 128*sf_ld, 32*sf_ld, sf_ld; BLOCKED_128x4: ceil(K/64)*512, 4, 16 */
#define GEMV_P_A_SF_ROW_STEP128 64
#define GEMV_P_A_SF_ROW_STEP32 72
#define GEMV_P_A_SF_ROW_STEP1 80
#define GEMV_P_X_BATCH_STRIDE 88                  /* u64  bytes between batches of x */
#define GEMV_P_X_SF_BATCH_STRIDE 96               /* u64  bytes between batches of x's scales */
#define GEMV_P_Y_LD 104                           /* u64  elements between consecutive m of y */
#define GEMV_P_Y_BATCH_STRIDE 112                 /* u64  elements between batches of y */
#define GEMV_P_M 120                              /* u32  rows of A */
#define GEMV_P_CHUNKS_PER_ROW 124                 /* u32  K / 32 (a chunk: 16 bytes of A, 2 scales) */
/* u32 x2: bytes from the scales of chunk pair c/2 to the next: LINEAR 4, BLOCKED 512 (the two scales of one
 * chunk are adjacent in both layouts) */
#define GEMV_P_A_SF_PAIR_STEP 128
#define GEMV_P_X_SF_PAIR_STEP 132
/* u32  NVFP4: 1..8: threads that split one row's K (a group of 2..256 threads; above 32 a group spans several
 * warps and reduces through shared memory) */
#define GEMV_P_LANES_PER_ROW_LOG2 136
#define GEMV_P_QUADS_PER_BATCH 140                /* u32  NVFP4: ceil(M / 4) */
#define GEMV_P_QUADS_PER_CTA 144                  /* u32  NVFP4: consecutive quads per CTA */
#define GEMV_P_Y_DTYPE 148                        /* u32  0 f16, 1 bf16, 2 f32 */
#define GEMV_P_ALPHA 152                          /* f32 */
#define GEMV_P_X_DTYPE 156                        /* u32  W4A16: x's type, 0 f16, 1 bf16 */
/* u32  1: A and its scales are not written by the kernels before this one on the stream
 * (nvfp4_set_weights_stable): the first tile's loads of them go out before griddepcontrol.wait;
 * 0: everything waits (gemv_entry.inc, "Programmatic dependent launch") */
#define GEMV_P_WEIGHTS_STABLE 160
#define GEMV_P_TILES_PER_BATCH 164                /* u32  W4A16: ceil(M / 16) */
#define GEMV_P_TILES_PER_CTA 168                  /* u32  W4A16: consecutive tiles per CTA */
#define GEMV_P_WARPS_PER_TILE_LOG2 172            /* u32  W4A16: 0..3: warps that split one tile's K steps */
#define GEMV_PARAM_BYTES 176                      /* GEMV_P_WARPS_PER_TILE_LOG2 + 4 */

#endif
