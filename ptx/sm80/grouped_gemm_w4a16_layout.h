/* ptx/sm80/grouped_gemm_w4a16_layout.h - the portable W4A16 grouped GEMM's own numbers (ptx/sm80/
 * grouped_gemm_w4a16.ptx): entry names, launch shape, token tile, pipeline depth, shared-memory map. Its
 * parameter block and descriptors are the sm_90a kernel's (ptx/sm90a/grouped_gemm_layout.h: GG_P_*, GG_D_*),
 * so host/grouped_gemm.c fills one block for either path. Included by the PTX through cpp and by the host.
 * Plain #defines only: the PTX side has no C. */
#ifndef NVFP4_GROUPED_GEMM_W4A16_SM80_LAYOUT_H
#define NVFP4_GROUPED_GEMM_W4A16_SM80_LAYOUT_H

#define PG_ENTRY_F16 nvfp4_grouped_gemm_w4a16_f16_sm80
#define PG_ENTRY_BF16 nvfp4_grouped_gemm_w4a16_bf16_sm80
/* activations in B tiles (dequantize_layout.h), weights decoded in their permuted K order */
#define PG_ENTRY_F16_TILES nvfp4_grouped_gemm_w4a16_f16_tiles_sm80
#define PG_ENTRY_BF16_TILES nvfp4_grouped_gemm_w4a16_bf16_tiles_sm80
/* the same for launches whose tiles all have t = 32 (half the mma: host/grouped_gemm.c picks them) */
#define PG_ENTRY_F16_TILES_T32 nvfp4_grouped_gemm_w4a16_f16_tiles_t32_sm80
#define PG_ENTRY_BF16_TILES_T32 nvfp4_grouped_gemm_w4a16_bf16_tiles_t32_sm80

/* --- launch: 4 warps, every one loads and computes (no warp specialisation); .maxnreg PG_MAX_REGS keeps three
 * CTAs on an SM (3 x 128 x 168 of the 64K registers of every SM from sm_80 on), which the H100 / H200's 228 KB
 * of shared memory hold exactly (3 x (PG_SMEM_BYTES + the driver's 1 KB)); an A100 holds two, an sm_86 / sm_89
 * SM one. Grid: up to blocks-per-SM x SMs persistent CTAs, CTA i taking tiles i, i + grid, ... */
#define PG_THREADS 128
#define PG_MAX_REGS 168

/* --- tiles: GG_TILE_N (128) weight rows x t token rows, t <= PG_T_MAX (the host caps the descriptor's t there:
 * t is 32 or 64); K in stages of GG_K_STEP (128) elements, as the sm_90a kernel (split-K slices are runs of
 * whole stages on both paths). */
#define PG_T_MAX 64

/* --- shared memory: PG_STAGES slots of PG_SLOT_BYTES from the dynamic window (128-byte aligned). A slot:
 *   [PG_S_A, +16384)    tokens: PG_T_MAX rows x 256 bytes (128 f16/bf16 of K); 16-byte unit u of row r at
 *                       r*256 + (u ^ r%8)*16, so that ldmatrix's eight row addresses hit eight bank groups
 *   [PG_S_W, +8192)     weights: 128 rows x 64 bytes; 16-byte piece p of row r at r*64 + (p ^ (r/2)%4)*16, so
 *                       that a warp's eight rows g = 0..7 of one piece hit eight bank groups
 *   [PG_S_WSF, +1024)   weight scales: the stage's 8 blocks of row r at r*8 (block j at byte j), 0 past N and K;
 *                       a LINEAR row's 8 bytes come by one copy, and a warp's eight rows g of its reads lie in 64
 *                       contiguous bytes
 * PG_STAGES is a literal of cp.async.wait_group: one edit changes the pipeline depth. Three slots (75 KB) fit
 * the 99 KB a block may have on sm_86 / sm_89, and three CTAs an sm_90 SM (launch, above). */
#define PG_STAGES 3
#define PG_S_A 0
#define PG_S_W 16384
#define PG_S_WSF 24576
#define PG_SLOT_BYTES 25600
#define PG_SMEM_BYTES (PG_STAGES * PG_SLOT_BYTES)
/* The most a launch asks for (an H100's 227 KB a block; less where the GPU has less): a grid of fewer CTAs
 * than the SMs hold asks each for a larger share, so that they spread over the SMs (host/grouped_gemm.c). */
#define PG_SMEM_LIMIT (227 * 1024)

#endif
