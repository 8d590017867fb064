/* ptx/sm90a/grouped_finish_layout.h - the layout of the grouped GEMM's finishing kernel (grouped_finish.ptx):
 * entry name, launch shape and parameter block. Included by the PTX through cpp and by host/grouped_gemm.c,
 * which _Static_asserts its C structs against these numbers. Plain #defines only: the PTX side has no C.
 *
 * What it finishes: a grouped GEMM whose K was split into slices (split-K), or the dual GEMM with SiLU, writes
 * each group's raw f32 products ("partials": the W4A16 kernel's accumulators times its decode scale, alpha
 * not applied) into scratch, slice after slice, each slice m rows of ldp floats; this kernel sums a group's
 * slices in slice order (a fixed order: results are the same bit for bit from run to run), applies alpha
 * and, for the dual GEMM, the gating silu(alpha1 * gate) * (alpha2 * up), and writes the group's output. */
#ifndef NVFP4_GROUPED_FINISH_LAYOUT_H
#define NVFP4_GROUPED_FINISH_LAYOUT_H

#define GF_ENTRY nvfp4_grouped_finish_sm90a
#define GF_SM80_ENTRY nvfp4_grouped_finish_sm80 /* the portable target's (ptx/sm80/grouped_finish.ptx) */

/* Launch: block (GF_THREADS, 1, 1); a thread finishes GF_COLS consecutive columns of one row (a "unit"), a
 * group's units numbered row by row (ldp / GF_COLS to a row); CTA i takes units (i - block_start) * GF_THREADS
 * + tid of the group whose block_start is the largest <= i. */
#define GF_THREADS 256
#define GF_COLS 4
#define GF_MAX_GROUPS 256 /* groups per launch; a call with more launches again */

/* Modes (GF_P_MODE) */
#define GF_MODE_SUM 0      /* c = alpha1 * sum of the gate partials */
#define GF_MODE_SILU_MUL 1 /* c = silu(alpha1 * sum of the gate partials) * (alpha2 * sum of the up partials) */

/* --- parameter block: one .param of GF_PARAM_BYTES */
#define GF_P_NUM_GROUPS 0  /* u32 */
#define GF_P_TOTAL_BLOCKS 4 /* u32: the grid */
#define GF_P_ALPHA1 8      /* f32 */
#define GF_P_ALPHA2 12     /* f32 */
#define GF_P_MODE 16       /* u32 GF_MODE_* */
#define GF_P_DESCS 24      /* GF_MAX_GROUPS descriptors of GF_DESC_BYTES, in block order (4 bytes unused before) */
#define GF_DESC_BYTES 56
#define GF_PARAM_BYTES 14360 /* GF_P_DESCS + GF_MAX_GROUPS * GF_DESC_BYTES, a literal for the PTX array size */

/* --- one group's descriptor. Partials: slice s, row r, column n at base + ((s * m + r) * ldp + n) * 4,
 * 16-byte aligned, ldp a multiple of GF_COLS (the columns past n unused). */
#define GF_D_GATE 0         /* u64 the (gate) product's partials */
#define GF_D_UP 8           /* u64 the up product's partials (GF_MODE_SILU_MUL), else unused */
#define GF_D_C 16           /* u64 output */
#define GF_D_LDC 24         /* u64 elements between output rows */
#define GF_D_M 32           /* u32 rows */
#define GF_D_N 36           /* u32 columns */
#define GF_D_LDP 40         /* u32 floats between partial rows */
#define GF_D_SLICES 44      /* u32 K slices, >= 1 */
#define GF_D_DTYPE 48       /* u32 nvfp4_dtype of the output */
#define GF_D_BLOCK_START 52 /* u32 first CTA of the group */

#endif
