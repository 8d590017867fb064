/* ptx/sm90a/grouped_gemm_layout.h - the one source of the grouped GEMM's layout: launch shape, parameter
 * block, per-group descriptor, shared-memory map. Included by ptx/sm90a/grouped_gemm.ptx (through cpp) and by
 * host/grouped_gemm.c, which _Static_asserts its C structs against these numbers. Plain #defines only: the
 * PTX side has no C. */
#ifndef NVFP4_GROUPED_GEMM_LAYOUT_H
#define NVFP4_GROUPED_GEMM_LAYOUT_H

/* --- launch: warpgroup 0 produces (its 128 threads load stages and decode activations), warpgroups 1 and 2
 * consume (64 weight rows each). Registers: 168 per thread at launch (384 x 168 = 64512); setmaxnreg moves them to
 * the consumers: 128 x GG_PRODUCER_REGS + 256 x GG_CONSUMER_REGS must stay 64512. */
#define GG_THREADS 384
#define GG_LAUNCH_REGS 168
#define GG_PRODUCER_REGS 72
#define GG_CONSUMER_REGS 216
#define GG_PRODUCERS 128
#define GG_CONSUMERS 256

/* --- tiles: GG_TILE_N weight rows (output columns) x t token rows (output rows), t a multiple of
 * GG_T_GRAIN up to GG_T_MAX, chosen per group; K walked in stages of GG_K_STEP elements. */
#define GG_TILE_N 128
#define GG_T_GRAIN 32
#define GG_T_MAX 256
#define GG_K_STEP 128
#define GG_K_STEP_BYTES 64
#define GG_MAX_GROUPS 256 /* groups per launch; a call with more launches again */

/* --- parameter block: one .param of GG_PARAM_BYTES (over 4 KB: PTX ISA 8.1, sm_70 and later) */
#define GG_P_NUM_GROUPS 0 /* u32 */
#define GG_P_TOTAL_TILES 4 /* u32: sum over groups of ceil(N/128) * ceil(M/t) */
#define GG_P_ALPHA 8 /* f32 */
#define GG_P_RING 12 /* u32: load stages | decoded stages << 8 | t_max << 16 (t_max: largest t of the launch) */
#define GG_P_DESCS 16 /* GG_MAX_GROUPS descriptors of GG_DESC_BYTES, in tile order */
#define GG_DESC_BYTES 120
#define GG_PARAM_BYTES 30736 /* GG_P_DESCS + GG_MAX_GROUPS * GG_DESC_BYTES, a literal for the PTX array size */

/* --- one group's descriptor. "a" is the activation operand (tokens, C's rows), "b" the weights (C's columns).
 * The scale byte of (row r, block j) lies at
 *   sf + (r/128)*step128 + ((r%128)/32)*step32 + (r%32)*step1 + (j/4)*qstep + j%4
 * (LINEAR: 128*sf_ld, 32*sf_ld, sf_ld, 4; BLOCKED_128x4: ceil(K/64)*512, 4, 16, 512). */
#define GG_D_A 0 /* u64 activation data */
#define GG_D_B 8 /* u64 weight data */
#define GG_D_A_SF 16 /* u64 */
#define GG_D_B_SF 24 /* u64 */
#define GG_D_C 32 /* u64 output */
#define GG_D_LDC 40 /* u64 elements between output rows */
#define GG_D_A_STEP128 48 /* u64 */
#define GG_D_B_STEP128 56 /* u64 */
#define GG_D_A_LD 64 /* u32 bytes between data rows */
#define GG_D_B_LD 68 /* u32 */
#define GG_D_A_STEP32 72 /* u32 */
#define GG_D_A_STEP1 76 /* u32 */
#define GG_D_B_STEP32 80 /* u32 */
#define GG_D_B_STEP1 84 /* u32 */
#define GG_D_A_QSTEP 88 /* u32 */
#define GG_D_B_QSTEP 92 /* u32 */
#define GG_D_M 96 /* u32 rows of a */
#define GG_D_N 100 /* u32 rows of b */
#define GG_D_KBYTES 104 /* u32 K/2: data bytes per row */
#define GG_D_TILE_START 108 /* u32 first tile of the group */
#define GG_D_T 112 /* u32 token rows per tile */
#define GG_D_FLAGS 116 /* u32 GG_F_* */
#define GG_F_DTYPE_MASK 3 /* nvfp4_dtype of the output */
#define GG_F_A_SF_WORDS 4 /* a's scales can be copied row by row as aligned 4-byte words */
#define GG_F_B_SF_WORDS 8 /* b's likewise */
#define GG_F_A_SF_BULK 16 /* a's scales are BLOCKED with a 16-byte aligned base: whole row blocks by bulk copy */
#define GG_F_B_SF_BULK 32 /* b's likewise */
/* W4A16: a is in the B-tile layout (dequantize_layout.h: 64-element column blocks of M rows x 128 bytes,
 * swizzled as the B tile, K padded with zeros to a multiple of GG_K_STEP), GG_D_A_LD the column block's bytes
 * (M * 128): a tile's half stage is one contiguous run of its rows, moved by one bulk copy */
#define GG_F_A_B_TILES 64
/* The dual GEMM's paired tiles (W4A16 entries reading B tiles, whole K): a tile's weight rows 0-63 are rows
 * n0 .. n0 + 63 of b (the gate projection), rows 64-127 the same rows of b2 (the up projection), so the tile
 * covers GG_PAIR_N output columns (ceil(N / GG_PAIR_N) tiles across N) and its epilogue gates:
 * C = silu(alpha * a b^T) * (alpha2 * a b2^T). b2 has b's row pitch and scale steps; its scales are copied
 * row by row (GG_F_B_SF_WORDS says whether both operands' may go as words; never GG_F_B_SF_BULK, whose row
 * blocks interleave the two halves). The activation-scale fields, which those entries do not read, hold b2. */
#define GG_F_PAIRED 128
/* b's scales are LINEAR with base and row pitch 8-byte aligned: the W4A16 kernel copies a row's two words of
 * a stage as one 8-byte pair (its weight scales' row path, B_SF_PACKED in grouped_gemm_common.inc) */
#define GG_F_B_SF_PAIRS 256
/* C's base and row pitch let 4 adjacent elements go as one store (base a multiple of 4 elements' bytes, ldc of
 * 4 elements, or one row): the W4A16 kernel's epilogue stores a tile whose columns all lie inside N that way
 * (its vector way). The other kernels ignore the flag. */
#define GG_F_C_VEC 512
#define GG_PAIR_N 64
#define GG_D_B2 GG_D_A_SF /* u64 b2's data */
#define GG_D_B2_SF GG_D_A_STEP128 /* u64 b2's scales */
#define GG_D_ALPHA2 GG_D_A_STEP32 /* f32 the up product's alpha (alpha, GG_P_ALPHA, is the gate's) */

/* --- shared memory, from the dynamic window rounded up to GG_SMEM_ALIGN:
 *   [0, 1024)                barriers: full[16] at 0, empty[16] at 128, dfull[4] at 256, dempty[4] at 288
 *   [1024, ...)              decoded ring: dec_stages slots of GG_DEC_SLOT_BYTES(t_max), 1024-aligned
 *   then                     load ring: load_stages slots of GG_LOAD_SLOT_BYTES(t_max)
 * A load slot: weights 128 rows x 64 bytes | weight scales | activations t_max rows x 64 bytes | activation
 * scales | a 16-byte stage header (GG_H_*), for the decoders. Scales are kept in BLOCKED_128x4 form in
 * shared memory, one 1024-byte row block (128 rows x the stage's 8 blocks, as two 512-byte tiles: block j of
 * row r at (j/4)*512 + (r%32)*16 + ((r%128)/32)*4 + j%4) per 128 rows counted from the row block of the
 * tile's first row: one for the weights (tiles start on a multiple of 128), up to GG_ASF_BLOCKS(t_max) for
 * the activations (m0 need not). BLOCKED scales arrive as whole row blocks; LINEAR ones row by row.
 * A decoded slot: the stage's activations as f16, wgmma's B operand: two halves (K 0-63, 64-127 of the
 * stage, in the kernel's K order) of t rows x 128 bytes, 128-byte swizzled. */
#define GG_SMEM_ALIGN 1024
#define GG_MAX_LOAD_STAGES 16
#define GG_MAX_DEC_STAGES 4
#define GG_BAR_FULL 0
#define GG_BAR_EMPTY 128
#define GG_BAR_DFULL 256
#define GG_BAR_DEMPTY 288
#define GG_DEC_RING 1024
#define GG_SF_BLOCK_BYTES 1024 /* one row block of a stage's scales */
#define GG_LS_W 0
#define GG_LS_WSF 8192
#define GG_LS_A 9216
#define GG_ASF_BLOCKS(t_max) (((t_max) + 127) / 128 + 1)
#define GG_LS_ASF(t_max) (GG_LS_A + 64 * (t_max))
#define GG_LS_HDR(t_max) (GG_LS_ASF(t_max) + GG_SF_BLOCK_BYTES * GG_ASF_BLOCKS(t_max))
#define GG_LOAD_SLOT_BYTES(t_max) (GG_LS_HDR(t_max) + 128)
#define GG_H_T 0 /* u32 token rows of the stage's tile */
#define GG_H_MOFF 4 /* u32 m0 % 128: the tile's first activation row inside its scale row block */
#define GG_H_NVALID 8 /* s32 blocks of the stage inside K: K/16 - 8*kt (8 or more: all) */
#define GG_DEC_SLOT_BYTES(t_max) (256 * (t_max))
#define GG_SMEM_BYTES(load_stages, dec_stages, t_max)                                                      \
  (GG_SMEM_ALIGN + GG_DEC_RING + (dec_stages)*GG_DEC_SLOT_BYTES(t_max) +                                  \
   (load_stages)*GG_LOAD_SLOT_BYTES(t_max))
#define GG_SMEM_LIMIT (227 * 1024) /* the sm_90 dynamic shared memory limit per CTA */

/* --- mbarrier arrivals per phase (literals: they are PTX operands; the host checks them) */
#define GG_FULL_ARRIVALS 256 /* 2 * GG_PRODUCERS: one plain, one on cp.async completion, per producer thread */
#define GG_EMPTY_ARRIVALS 384 /* GG_CONSUMERS + GG_PRODUCERS */
#define GG_DFULL_ARRIVALS 128 /* GG_PRODUCERS */
#define GG_DEMPTY_ARRIVALS 256 /* GG_CONSUMERS */

/* --- W4A16 entries (ptx/sm90a/grouped_gemm_w4a16.ptx): the same launch, parameter block and descriptor, with
 * dense f16 or bf16 activations (one entry per type; a launch's groups share it). Descriptor fields that
 * differ: GG_D_A = the activations (16-byte aligned), GG_D_A_LD = bytes between their rows (a multiple of 16),
 * the A_SF / A_STEP* / A_QSTEP fields and the GG_F_A_* flags unused (0). GG_P_RING = load stages | t_max << 16.
 * There is no decoded ring: the producers copy the activations straight into wgmma's B tile in the load slot,
 * and the consumers release a slot once the wgmmas that read it retired.
 * Shared memory, from the dynamic window rounded up to GG_SMEM_ALIGN:
 *   [0, 1024)   barriers: full[16] at GG_BAR_FULL, empty[16] at GG_BAR_EMPTY
 *   [1024, ...) load ring: load stages slots of GW_SLOT_BYTES(t_max), 1024-aligned
 * A slot: the B tile (two halves, K 0-63 and 64-127 of the stage, of t rows x 128 bytes, 128-byte swizzled:
 * half h, row n, 16-byte unit u at h*t*128 + n*128 + (u ^ n%8)*16) | weights 128 rows x 64 bytes, the
 * 16-byte pieces of row r swizzled (piece p at r*64 + (p ^ (r/2)%4)*16) so that the consumers' loads are
 * free of bank conflicts | weight scales (one GG_SF_BLOCK_BYTES row block). */
/* Entries (grouped_gemm_w4a16.ptx): per activation type one of mixed widths (every group its own t, the
 * tiles' widths dispatched inside the K loop) and one per width t (GG_D_T = t in every descriptor). */
#define GW_MIXED_ENTRY_NAME(type) GW_MIXED_ENTRY_NAME2(type)
#define GW_MIXED_ENTRY_NAME2(type) nvfp4_grouped_gemm_w4a16_##type##_sm90a
#define GW_ENTRY_NAME(type, t) GW_ENTRY_NAME2(type, t)
#define GW_ENTRY_NAME2(type, t) nvfp4_grouped_gemm_w4a16_##type##_t##t##_sm90a
#define GW_RING 1024
#define GW_LS_B 0
#define GW_LS_W(t_max) (256 * (t_max))
#define GW_LS_WSF(t_max) (GW_LS_W(t_max) + 8192)
#define GW_SLOT_BYTES(t_max) (GW_LS_WSF(t_max) + GG_SF_BLOCK_BYTES)
#define GW_SMEM_BYTES(load_stages, t_max) (GG_SMEM_ALIGN + GW_RING + (load_stages)*GW_SLOT_BYTES(t_max))
#define GW_FULL_ARRIVALS 256 /* 2 * GG_PRODUCERS, as GG_FULL_ARRIVALS */
#define GW_EMPTY_ARRIVALS 256 /* GG_CONSUMERS, once the stage's wgmmas retired */

#endif
