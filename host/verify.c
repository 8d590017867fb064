#include "verify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_driver.h"
#include "error.h"
#include "format.h"
#include "reference.h"
#include "testdata.h"
#include "validate.h"

enum { POISON_BYTE = 0xFF }; /* NaN in f16, bf16 and f32: an unwritten output can never pass */

/* Compares out[index[i]] with ref[i] for n results; v keeps the first failure (else the worst result). */
static void compare(nvfp4_dtype dtype, const void *out, const int64_t *index, const double *ref,
                    const double *mag, int64_t n, nvfp4i_verdict *v) {
  for (int64_t i = 0; i < n; i++) {
    double got = nvfp4i_output_value(dtype, out, index[i]), ratio;
    int ok = nvfp4i_check_value(dtype, got, ref[i], mag[i], &ratio);
    v->checked++;
    int first_failure = !ok && v->failures++ == 0;
    if (ratio > v->worst_ratio) v->worst_ratio = ratio;
    if (first_failure || (v->failures == 0 && ratio == v->worst_ratio))
      snprintf(v->detail, sizeof v->detail, "result %lld: got %.9g, expected %.9g (error/tolerance %.3g)",
               (long long)i, got, ref[i], ratio);
  }
}

/* Counts bytes of a poisoned output buffer that are not part of the result yet changed. */
static int64_t count_clobbered(const uint8_t *buf, int64_t bytes, const uint8_t *is_result) {
  int64_t n = 0;
  for (int64_t i = 0; i < bytes; i++)
    if (!is_result[i] && buf[i] != POISON_BYTE) n++;
  return n;
}

int nvfp4i_verify_gemv(nvfp4_handle *h, const nvfp4i_gemv_case *c, nvfp4i_verdict *v) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  memset(v, 0, sizeof *v);
  nvfp4i_rng rng = {c->seed};
  nvfp4i_operand a, x;
  memset(&x, 0, sizeof x);
  int64_t y_ld = c->y_ld > 0 ? c->y_ld : 1;
  int esize = nvfp4i_dtype_size(c->dtype);
  int64_t y_bs = (c->m - 1) * y_ld + 1 + (c->l > 1 ? 3 : 0); /* a gap between batches too */
  int64_t y_elems = y_bs * c->l, n = c->m * c->l;
  size_t y_bytes = (size_t)(y_elems * esize);
  double *ref = malloc(sizeof(double) * (size_t)n), *mag = malloc(sizeof(double) * (size_t)n);
  int64_t *index = malloc(sizeof(int64_t) * (size_t)n);
  uint8_t *out = malloc(y_bytes), *is_result = calloc(y_bytes, 1);
  CUdeviceptr d_y = 0;
  if (!ref || !mag || !index || !out || !is_result) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    goto free_host;
  }
  v->status = nvfp4i_operand_create(&a, c->m, c->k, c->l, c->a_layout, c->a_pad, &rng);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_host;
  v->status = nvfp4i_operand_create(&x, 1, c->k, c->l, c->x_layout, 0, &rng);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_a;
  if (c->nan_row >= 0 && c->nan_row < c->m) {
    uint8_t *scales = (uint8_t *)a.host.scales;
    int64_t block = (int64_t)(nvfp4i_rng_next(&rng) % (uint64_t)(c->k / 16));
    scales[nvfp4i_sf_offset(c->a_layout, a.host.sf_ld, c->k, c->nan_row, block)] = 0x7F;
    v->status = nvfp4i_operand_upload(&a);
    if (v->status != NVFP4_STATUS_SUCCESS) goto free_x;
  }
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_y, y_bytes), v->status, free_x);
  NVFP4_CU_TRY(cu->cuMemsetD8(d_y, POISON_BYTE, y_bytes), v->status, free_y);

  nvfp4_output y = {(void *)(uintptr_t)d_y, y_ld, y_bs, c->dtype};
  v->status = nvfp4_gemv(h, &a.dev, &x.dev, &y, c->alpha, NULL);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_y;
  NVFP4_CU_TRY(cu->cuCtxSynchronize(), v->status, free_y);
  NVFP4_CU_TRY(cu->cuMemcpyDtoH(out, d_y, y_bytes), v->status, free_y);

  nvfp4i_reference_gemv(&a.host, &x.host, c->alpha, ref, mag);
  for (int64_t l = 0; l < c->l; l++)
    for (int64_t m = 0; m < c->m; m++) {
      int64_t e = l * y_bs + m * y_ld;
      index[l * c->m + m] = e;
      memset(is_result + e * esize, 1, (size_t)esize);
    }
  compare(c->dtype, out, index, ref, mag, n, v);
  v->clobbered = count_clobbered(out, (int64_t)y_bytes, is_result);

free_y:
  cu->cuMemFree(d_y);
free_x:
  nvfp4i_operand_destroy(&x);
free_a:
  nvfp4i_operand_destroy(&a);
free_host:
  free(ref);
  free(mag);
  free(index);
  free(out);
  free(is_result);
  return v->status == NVFP4_STATUS_SUCCESS && v->failures == 0 && v->clobbered == 0 && v->checked == n;
}
