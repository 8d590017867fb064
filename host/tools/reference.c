#include "reference.h"

#include <math.h>
#include <stdlib.h>

#include "format.h"

void nvfp4i_decode_row(const nvfp4_tensor *t, int64_t batch, int64_t row, double *out) {
  const uint8_t *data = (const uint8_t *)t->data + batch * t->batch_stride;
  const uint8_t *scales = (const uint8_t *)t->scales + batch * t->sf_batch_stride;
  for (int64_t block = 0; block < t->k / 16; block++) {
    double scale = nvfp4i_e4m3_value(scales[nvfp4i_sf_offset(t->sf_layout, t->sf_ld, t->k, row, block)]);
    for (int64_t kk = block * 16; kk < block * 16 + 16; kk++)
      out[kk] = nvfp4i_e2m1_value(nvfp4i_e2m1_code_at(data, t->ld, row, kk)) * scale;
  }
}

void nvfp4i_decode_dense_row(const nvfp4_dense *d, int64_t batch, int64_t row, double *out) {
  int64_t first = batch * d->batch_stride + row * d->ld;
  for (int64_t kk = 0; kk < d->k; kk++) out[kk] = nvfp4i_output_value(d->dtype, d->data, first + kk);
}

void nvfp4i_dot(const double *a, const double *b, int64_t k, double alpha, double *ref, double *mag) {
  double sum = 0.0, abs_sum = 0.0;
  for (int64_t i = 0; i < k; i++) {
    double p = a[i] * b[i];
    sum += p;
    abs_sum += fabs(p);
  }
  *ref = alpha * sum;
  *mag = fabs(alpha) * abs_sum;
}

void nvfp4i_dot_rows(const double *a, const double *b, int count, int64_t k, double alpha, double *ref, double *mag,
                     int64_t stride) {
  for (int c = 0; c < count; c++) nvfp4i_dot(a, b + (int64_t)c * k, k, alpha, &ref[c * stride], &mag[c * stride]);
}

/* Both GEMVs: every row of A against x's row of each batch, decoded by decode_x. */
static void reference_gemv(const nvfp4_tensor *a, const void *x, void (*decode_x)(const void *, int64_t, double *),
                           double alpha, double *ref, double *mag) {
  double *xrow = malloc(sizeof(double) * (size_t)a->k);
  double *arow = malloc(sizeof(double) * (size_t)a->k);
  for (int64_t l = 0; l < a->batch; l++) {
    decode_x(x, l, xrow);
    for (int64_t m = 0; m < a->rows; m++) {
      nvfp4i_decode_row(a, l, m, arow);
      nvfp4i_dot(arow, xrow, a->k, alpha, &ref[l * a->rows + m], &mag[l * a->rows + m]);
    }
  }
  free(arow);
  free(xrow);
}

static void decode_nvfp4_x(const void *x, int64_t batch, double *out) { nvfp4i_decode_row(x, batch, 0, out); }
static void decode_dense_x(const void *x, int64_t batch, double *out) { nvfp4i_decode_dense_row(x, batch, 0, out); }

void nvfp4i_reference_gemv(const nvfp4_tensor *a, const nvfp4_tensor *x, double alpha, double *ref, double *mag) {
  reference_gemv(a, x, decode_nvfp4_x, alpha, ref, mag);
}

void nvfp4i_reference_gemv_w4a16(const nvfp4_tensor *a, const nvfp4_dense *x, double alpha, double *ref,
                                 double *mag) {
  reference_gemv(a, x, decode_dense_x, alpha, ref, mag);
}

void nvfp4i_reference_gemm_element(const nvfp4_tensor *a, const nvfp4_tensor *b, int64_t m, int64_t n,
                                   double alpha, double *ref, double *mag) {
  double *arow = malloc(sizeof(double) * (size_t)a->k);
  double *brow = malloc(sizeof(double) * (size_t)a->k);
  nvfp4i_decode_row(a, 0, m, arow);
  nvfp4i_decode_row(b, 0, n, brow);
  nvfp4i_dot(arow, brow, a->k, alpha, ref, mag);
  free(brow);
  free(arow);
}

/* Round ref to the output type: where that overflows, an infinity of the same sign is the right answer. */
static double rounded(nvfp4_dtype dtype, double v) {
  switch (dtype) {
    case NVFP4_DTYPE_F16:
      return nvfp4i_f16_value(nvfp4i_f16_from_double(v));
    case NVFP4_DTYPE_BF16:
      return nvfp4i_bf16_value(nvfp4i_bf16_from_double(v));
    case NVFP4_DTYPE_F32:
      return (double)(float)v;
  }
  return v;
}

/* The bar with relative term `f32_rel` for f32 outputs (f16's and bf16's are fixed). */
static int check_with(nvfp4_dtype dtype, double f32_rel, double out, double ref, double mag, double *ratio) {
  double rel = dtype == NVFP4_DTYPE_F16 ? ldexp(1.0, -10) : dtype == NVFP4_DTYPE_BF16 ? ldexp(1.0, -8) : f32_rel;
  double tolerance = rel * fabs(ref) + ldexp(1.0, -16) * mag;
  *ratio = INFINITY;
  if (isnan(ref) || isnan(out)) return isnan(ref) && isnan(out) ? (*ratio = 0.0, 1) : 0;
  if (isinf(out)) {
    /* An overflow is right when ref, moved by the tolerance toward the infinity, rounds to it. */
    double edge = rounded(dtype, ref + copysign(tolerance, out));
    if (edge == out) *ratio = 0.0;
    return edge == out;
  }
  double err = fabs(out - ref);
  if (err > tolerance && out == rounded(dtype, ref)) { /* the type holds nothing closer */
    *ratio = 0.0;
    return 1;
  }
  *ratio = err == 0.0 ? 0.0 : err / tolerance;
  return err <= tolerance;
}

int nvfp4i_check_value(nvfp4_dtype dtype, double out, double ref, double mag, double *ratio) {
  return check_with(dtype, ldexp(1.0, -20), out, ref, mag, ratio);
}

int nvfp4i_check_gated_value(nvfp4_dtype dtype, double out, double ref, double mag, double *ratio) {
  return check_with(dtype, ldexp(1.0, -18), out, ref, mag, ratio);
}

double nvfp4i_output_value(nvfp4_dtype dtype, const void *buffer, int64_t i) {
  switch (dtype) {
    case NVFP4_DTYPE_F16:
      return nvfp4i_f16_value(((const uint16_t *)buffer)[i]);
    case NVFP4_DTYPE_BF16:
      return nvfp4i_bf16_value(((const uint16_t *)buffer)[i]);
    case NVFP4_DTYPE_F32:
      return ((const float *)buffer)[i];
  }
  return NAN;
}

void nvfp4i_output_store(nvfp4_dtype dtype, void *buffer, int64_t i, double v) {
  switch (dtype) {
    case NVFP4_DTYPE_F16:
      ((uint16_t *)buffer)[i] = nvfp4i_f16_from_double(v);
      return;
    case NVFP4_DTYPE_BF16:
      ((uint16_t *)buffer)[i] = nvfp4i_bf16_from_double(v);
      return;
    case NVFP4_DTYPE_F32:
      ((float *)buffer)[i] = (float)v;
      return;
  }
}
