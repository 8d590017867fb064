/* GPU-vs-reference checks shared by `nvfp4 verify` and the GPU test suite (not part of libnvfp4). */
#ifndef NVFP4_TOOLS_VERIFY_H
#define NVFP4_TOOLS_VERIFY_H

#include "nvfp4.h"

typedef struct nvfp4i_gemv_case {
  int64_t m, k, l;
  nvfp4_sf_layout a_layout, x_layout;
  nvfp4_dtype dtype;
  float alpha;
  uint64_t seed;
  int64_t a_pad;  /* extra bytes per row of A (multiple of 16): strided operands */
  int64_t y_ld;   /* elements between outputs of consecutive rows; 0 means 1 */
  int64_t nan_row; /* >= 0: that row of batch 0 gets a NaN scale and must come out NaN, alone */
  /* W4A16 only (nvfp4i_verify_gemv_w4a16; x_layout is not read): x's type (F16 or BF16), its first element
   * x_offset elements past a 16-byte boundary, and x_batch_pad elements more than K between its batches
   * (any counts: x of some batches may be 16-byte aligned and of others not). */
  nvfp4_dtype x_dtype;
  int64_t x_offset, x_batch_pad;
} nvfp4i_gemv_case;

typedef struct nvfp4i_verdict {
  nvfp4_status status;  /* of the library call (or of the set-up); SUCCESS when the check ran */
  int64_t checked;      /* outputs compared with the reference */
  int64_t failures;     /* outputs outside the accuracy bar */
  int64_t clobbered;    /* output-buffer elements outside the result that changed (must be 0) */
  double worst_ratio;   /* max |out - ref| / tolerance (<= 1 passes) */
  char detail[256];     /* the worst element: index, got, expected */
} nvfp4i_verdict;

/* Random operands from c->seed, poisoned output, nvfp4_gemv on the stream 0, reference, comparison.
 * Returns 1 when the call succeeded and every output passed. */
int nvfp4i_verify_gemv(nvfp4_handle *h, const nvfp4i_gemv_case *c, nvfp4i_verdict *v);

/* The same for nvfp4_gemv_w4a16: dense x (testdata.h's nvfp4i_random_activation, garbage around and between
 * its batches) laid out as the case says, against the same A and the reference of x's exact values. */
int nvfp4i_verify_gemv_w4a16(nvfp4_handle *h, const nvfp4i_gemv_case *c, nvfp4i_verdict *v);

/* A grouped GEMM check. Group g has M = m[g % m_count] rows of A, N = n[g % n_count] rows of B and
 * K = k[g % k_count]. */
typedef struct nvfp4i_grouped_case {
  int groups;
  const int64_t *m, *n, *k;
  int m_count, n_count, k_count;
  nvfp4_sf_layout a_layout, b_layout;
  nvfp4_dtype dtype;
  float alpha;
  uint64_t seed;
  int64_t pad;   /* extra bytes per data row of A and B (multiple of 16): strided operands */
  int64_t c_pad; /* extra elements per output row */
  int nan;       /* 1: a NaN scale in one row of A of group 0 and one row of B of the last group */
  /* Optional: groups that differ in output type or scale layouts. With dtype_count > 0, group g's output
   * type is dtypes[g % dtype_count] (instead of dtype); with layout_count > 0, its A and B scale layouts are
   * a_layouts[g % layout_count] and b_layouts[g % layout_count] (instead of a_layout, b_layout). */
  const nvfp4_dtype *dtypes;
  int dtype_count;
  const nvfp4_sf_layout *a_layouts, *b_layouts;
  int layout_count;
  int64_t sf_misalign; /* > 0: every operand's device scales start this many bytes past a 16-byte boundary */
  /* W4A16 only: group g's activations are act_dtypes[g % act_dtype_count] (F16 or BF16; F16 where
   * act_dtype_count is 0). The activations have no scales: a_layout and a_layouts are not read and
   * sf_misalign moves B's scales alone; pad adds pad/2 elements to their rows; nan puts group 0's NaN scale
   * in a row of its B. */
  const nvfp4_dtype *act_dtypes;
  int act_dtype_count;
  float alpha2; /* the dual GEMM only: its up product's alpha (alpha is the gate's) */
  int64_t b2_pad; /* the dual GEMM only: bytes b2's rows have beyond b's (pad): b2 addressed unlike b */
} nvfp4i_grouped_case;

/* Random operands, poisoned outputs, nvfp4_grouped_gemm on the stream 0, float64 reference, comparison.
 * Every output is checked where M*N*K <= 2e8 per group; else every row for a sample of columns (B rows)
 * that always holds the first 16, the last 40 and any NaN column. Every output element must be written
 * and no byte around them. Returns 1 when the call succeeded and everything passed. */
int nvfp4i_verify_grouped_gemm(nvfp4_handle *h, const nvfp4i_grouped_case *c, nvfp4i_verdict *v);

/* The same for nvfp4_grouped_gemm_w4a16: random dense activations (testdata.h's nvfp4i_random_activation,
 * garbage in row padding) against the same NVFP4 weights, the reference of their exact values. */
int nvfp4i_verify_grouped_gemm_w4a16(nvfp4_handle *h, const nvfp4i_grouped_case *c, nvfp4i_verdict *v);

/* The same for nvfp4_grouped_dual_gemm_silu: a second NVFP4 weight operand per group (b2, the up projection,
 * with b's shape and scale layout; b is the gate's), alpha and alpha2, every checked output against the
 * float64 silu(alpha a b^T) * (alpha2 a b2^T) under SPEC section 2's bar for it. nan puts the NaN scales in
 * a row of a of group 0 and of b of the last group, as for nvfp4_grouped_gemm. */
int nvfp4i_verify_dual_gemm(nvfp4_handle *h, const nvfp4i_grouped_case *c, nvfp4i_verdict *v);

/* A dense GEMM check (nvfp4_gemm): A (m x k) and B (n x k), l batches each, from testdata.h's
 * nvfp4i_operand_create (pad as there: strided rows, gaps between batches); C rows n + c_pad elements apart,
 * batches m * (n + c_pad) + c_batch_pad elements apart, poisoned guard bytes around it. nan: a NaN scale in a
 * row of A's first batch and in a row of B's last batch. */
typedef struct nvfp4i_gemm_case {
  int64_t m, n, k, l;
  nvfp4_sf_layout a_layout, b_layout;
  nvfp4_dtype dtype;
  float alpha;
  uint64_t seed;
  int64_t pad, c_pad, c_batch_pad;
  int nan;
} nvfp4i_gemm_case;

/* Random operands, the output buffer poisoned, nvfp4_gemm on the stream 0, then every element of every batch
 * against the float64 reference under the docs/ACCURACY.md bar (NaN exactly where the reference is) and every
 * other byte of the buffer untouched. Returns 1 when the call succeeded and everything passed. */
int nvfp4i_verify_gemm(nvfp4_handle *h, const nvfp4i_gemm_case *c, nvfp4i_verdict *v);

/* A dequantize check: in (rows x k x batch, scale layout `layout`) from testdata.h's nvfp4i_operand_create,
 * pad bytes more per data row (a multiple of 16; also 3 per LINEAR scale row and 16 between batches); out of
 * `dtype` with ld = k + out_pad elements, out_batch_pad elements more between batches, starting out_offset
 * bytes (a multiple of the element size) past a 16-byte boundary. special_rows: one block of every fifth row
 * (from row 1) gets a NaN scale (0x7F or 0xFF) and one of every fifth (from row 3) a zero (0x00 or 0x80). */
typedef struct nvfp4i_dequantize_case {
  int64_t rows, k, batch;
  nvfp4_sf_layout layout;
  nvfp4_dtype dtype;
  uint64_t seed;
  int64_t pad, out_pad, out_batch_pad, out_offset;
  int special_rows;
} nvfp4i_dequantize_case;

/* Random operand, poisoned output (and poisoned bytes before and after it), nvfp4_dequantize on the stream 0,
 * then every element against nvfp4i_dequantize_ref bit for bit (any NaN matches any NaN, the payload not
 * being part of the contract, except the poison's all-ones NaN, which means unwritten) and every other byte
 * of the buffer untouched. Returns 1 when the call succeeded and
 * everything matched. */
int nvfp4i_verify_dequantize(nvfp4_handle *h, const nvfp4i_dequantize_case *c, nvfp4i_verdict *v);

/* A grouped dequantize check, of the library's internal nvfp4i_grouped_dequantize (host/dequantize.h): `groups`
 * tensors of batch 1, group g with rows[g % rows_count] rows (0: an empty group, its pointers NULL), K =
 * k[g % k_count] and scale layout layouts[g % layout_count], each from testdata.h's nvfp4i_operand_create (pad
 * as there) with special_rows' NaN and zero scales as nvfp4i_dequantize_case's; all into `dtype` in one
 * buffer, each group's destination rows ld = K + out_pad elements apart, 16-byte aligned on even groups and
 * out_offset bytes (a multiple of the element size) past a 16-byte boundary on odd ones, poisoned guard bytes
 * around every destination (an empty group's too). */
typedef struct nvfp4i_grouped_dequantize_case {
  int groups;
  const int64_t *rows, *k;
  int rows_count, k_count;
  const nvfp4_sf_layout *layouts;
  int layout_count;
  nvfp4_dtype dtype;
  uint64_t seed;
  int64_t pad, out_pad, out_offset;
  int special_rows;
  int b_tiles; /* nvfp4i_grouped_dequantize_b_tiles instead (16-bit dtype; out_pad, out_offset unused): each
                * destination 16-byte aligned, its K padding +0 */
} nvfp4i_grouped_dequantize_case;

/* Random operands, the buffer poisoned, one nvfp4i_grouped_dequantize call on the stream 0, then every element
 * of every group against nvfp4i_dequantize_ref bit for bit (as nvfp4i_verify_dequantize) and every other byte
 * of the buffer (between rows, between destinations, an empty group's) untouched. Returns 1 when the call
 * succeeded and everything matched. */
int nvfp4i_verify_grouped_dequantize(nvfp4_handle *h, const nvfp4i_grouped_dequantize_case *c,
                                     nvfp4i_verdict *v);

/* A quantize check: a dense input (rows x k x batch of `dtype`, ld = k + in_pad elements, in_batch_pad more
 * between batches, starting in_offset bytes, a multiple of the element size, past a 16-byte boundary: the
 * element-load path) of random blocks, a third of them adversarial (amax / 6 on an e4m3 value or midpoint and
 * every element on an e2m1 boundary times the scale, give or take an ulp of the input type; zero and -0
 * blocks; NaN and infinities; tiny blocks whose scales are subnormal or zero), quantized with global_scale
 * into out (scale layout `layout`, pad bytes more per data row, a multiple of 16, and 3 per LINEAR scale
 * row, 16 between batches). */
typedef struct nvfp4i_quantize_case {
  int64_t rows, k, batch;
  nvfp4_sf_layout layout;
  nvfp4_dtype dtype;
  float global_scale;
  uint64_t seed;
  int64_t in_pad, in_batch_pad, in_offset, pad;
} nvfp4i_quantize_case;

/* Output data and scale buffers poisoned (0xFF), nvfp4_quantize on the stream 0, and every byte of both
 * buffers against nvfp4i_quantize_ref run on buffers poisoned alike: the results bit for bit, and every byte
 * the recipe does not write still 0xFF. v->checked counts the bytes compared, v->failures those that
 * differ. Returns 1 when the call succeeded and every byte matched. */
int nvfp4i_verify_quantize(nvfp4_handle *h, const nvfp4i_quantize_case *c, nvfp4i_verdict *v);

/* A scale relayout check: source scales (rows x k x batch, from_layout; LINEAR rows 3 bytes longer than k/16,
 * batches 16 bytes apart, every byte random, gaps included) relaid into to_layout (LINEAR rows to_sf_ld_pad
 * bytes longer, batches 16 bytes apart); and_back: that result relaid into from's layout and strides again.
 * sf_misalign: every source and destination starts that many bytes past a 16-byte boundary. aligned_strides:
 * every LINEAR sf_ld and every batch stride rounded up to a multiple of 16 (the kernel's word and vector
 * accesses; the rows and batches keep gaps). */
typedef struct nvfp4i_relayout_case {
  int64_t rows, k, batch;
  nvfp4_sf_layout from_layout, to_layout;
  int64_t to_sf_ld_pad;
  int and_back;
  uint64_t seed;
  int64_t sf_misalign;
  int aligned_strides;
} nvfp4i_relayout_case;

/* The scales a relayout check lays out (no pointer): shape's rows, k and batch in `layout`, LINEAR rows
 * sf_ld_pad bytes longer than k/16, batches 16 bytes apart; aligned: sf_ld and the batch stride then rounded
 * up to multiples of 16. */
nvfp4_tensor nvfp4i_relayout_target(const nvfp4_tensor *shape, nvfp4_sf_layout layout, int64_t sf_ld_pad,
                                    int aligned);

/* Each destination poisoned (0xFF) with poisoned guards around it, nvfp4_scales_relayout on the stream 0, and
 * every byte of the buffer against nvfp4i_scales_relayout_ref of the source on a buffer poisoned alike (the
 * way back against the source itself): the scales bit for bit, BLOCKED padding 0, every other byte still
 * 0xFF. Returns 1 when every call succeeded and every byte matched. */
int nvfp4i_verify_scales_relayout(nvfp4_handle *h, const nvfp4i_relayout_case *c, nvfp4i_verdict *v);

/* quantize (rows x k f32, global scale 1, blocks built so that every scale is a normal e4m3) -> dequantize to
 * f32 (exact) -> quantize again with global scale 1: the second tensor's data and scale bytes must equal the
 * first's (each block's largest code is 6 there, so amax / 6 gives the same scale back), and every scale of
 * the first is checked normal. Returns 1 when every call succeeded and every byte matched. */
int nvfp4i_verify_quantize_round_trip(nvfp4_handle *h, int64_t rows, int64_t k, nvfp4_sf_layout layout,
                                      uint64_t seed, nvfp4i_verdict *v);

/* Random bf16 A (m x k) and B (n x k) quantized on the GPU with global scales 3 and 0.5 (scale layout
 * `layout`), nvfp4_grouped_gemm of one group with alpha = 1 / (3 * 0.5) into a poisoned f16 C, and every
 * element of C against the float64 GEMM of the quantized values (downloaded) under SPEC section 4's bar.
 * Returns 1 when every call succeeded and every element passed. */
int nvfp4i_verify_quantize_gemm(nvfp4_handle *h, int64_t m, int64_t n, int64_t k, nvfp4_sf_layout layout,
                                uint64_t seed, nvfp4i_verdict *v);

#endif
