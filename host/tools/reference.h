/* Float64 CPU reference of every operation, and the accuracy bar (docs/ACCURACY.md) the GPU results must
 * meet. */
#ifndef NVFP4_TOOLS_REFERENCE_H
#define NVFP4_TOOLS_REFERENCE_H

#include <stdint.h>

#include "nvfp4.h"

/* Decodes row `row` of batch `batch` of t (whose data and scales are HOST pointers) into k doubles. */
void nvfp4i_decode_row(const nvfp4_tensor *t, int64_t batch, int64_t row, double *out);

/* Reads row `row` of batch `batch` of dense d (F16, BF16 or F32; data a HOST pointer) into k doubles, exactly. */
void nvfp4i_decode_dense_row(const nvfp4_dense *d, int64_t batch, int64_t row, double *out);

/* ref = alpha * sum_k a[k]*b[k] and mag = |alpha| * sum_k |a[k]*b[k]|, in float64. */
void nvfp4i_dot(const double *a, const double *b, int64_t k, double alpha, double *ref, double *mag);

/* nvfp4i_dot of a against each of `count` rows b + c * k (c < count): ref[c * stride], mag[c * stride], one
 * after the other while a is in the cache, so that a matrix of such rows larger than the caches is read from
 * memory once a block of b rows, not once a b row. */
void nvfp4i_dot_rows(const double *a, const double *b, int count, int64_t k, double alpha, double *ref, double *mag,
                     int64_t stride);

/* GEMV on host copies: ref[l*M + m], mag[l*M + m] for every row m and batch l. */
void nvfp4i_reference_gemv(const nvfp4_tensor *a, const nvfp4_tensor *x, double alpha, double *ref, double *mag);

/* The same with dense x (F16 or BF16, one row per batch; a HOST pointer), as nvfp4_gemv_w4a16 takes it. */
void nvfp4i_reference_gemv_w4a16(const nvfp4_tensor *a, const nvfp4_dense *x, double alpha, double *ref,
                                 double *mag);

/* One element C[m, n] = alpha * sum_k A[m, k] * B[n, k] of a GEMM on host copies. */
void nvfp4i_reference_gemm_element(const nvfp4_tensor *a, const nvfp4_tensor *b, int64_t m, int64_t n,
                                   double alpha, double *ref, double *mag);

/* The accuracy bar: |out - ref| <= rel*|ref| + 2^-16*mag (rel = 2^-10 f16, 2^-8 bf16, 2^-20 f32), or out
 * is ref rounded to its type; NaN exactly where ref is NaN, and an infinity only where ref rounds to one.
 * Returns 1 when out passes;
 * *ratio is |out - ref| / tolerance (0 for an exact match, INFINITY for a NaN or infinity mismatch). */
int nvfp4i_check_value(nvfp4_dtype dtype, double out, double ref, double mag, double *ratio);

/* The dual GEMM's bar (SPEC section 2): as nvfp4i_check_value, with 2^-18 as the relative term of f32 outputs;
 * mag is the gated output's S = 1.1 * S1 * |g2| + S2 * |silu(g1)|. */
int nvfp4i_check_gated_value(nvfp4_dtype dtype, double out, double ref, double mag, double *ratio);

/* Reads element i of an f16, bf16 or f32 buffer (an output copied to the host, or a dense input), as a double. */
double nvfp4i_output_value(nvfp4_dtype dtype, const void *buffer, int64_t i);

/* Stores v as element i of an f16, bf16 or f32 buffer, rounded to nearest even (overflow to +-inf). */
void nvfp4i_output_store(nvfp4_dtype dtype, void *buffer, int64_t i, double v);

#endif
