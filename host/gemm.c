/* nvfp4_gemm: one problem with batches, run on the grouped GEMM's path. The whole call is validated first,
 * naming the fields of a, b and c; then batch l becomes group l (a's and b's data advanced by l * batch_stride
 * bytes, their scales by l * sf_batch_stride, c's data by l * batch_stride elements, batch 1) and the groups
 * go through nvfp4i_grouped_gemm, GEMM_CHUNK at a time from a stack array: no allocation per call. */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "grouped_gemm.h"
#include "validate.h"

enum { GEMM_CHUNK = 64 }; /* batches handed to the grouped GEMM at a time */

static nvfp4_status validate(const nvfp4_handle *h, const nvfp4_tensor *a, const nvfp4_tensor *b,
                             const nvfp4_output *c) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  if (h == NULL) return nvfp4i_fail(bad, "h is NULL");
  if (a == NULL) return nvfp4i_fail(bad, "a is NULL");
  if (b == NULL) return nvfp4i_fail(bad, "b is NULL");
  if (c == NULL) return nvfp4i_fail(bad, "c is NULL");
  nvfp4_status status = nvfp4i_validate_tensor("a", a, 1);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  status = nvfp4i_validate_tensor("b", b, 1);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  if (b->batch != a->batch)
    return nvfp4i_fail(bad, "b.batch = %lld: must equal a.batch = %lld", (long long)b->batch, (long long)a->batch);
  if (b->k != a->k) return nvfp4i_fail(bad, "b.k = %lld: must equal a.k = %lld", (long long)b->k, (long long)a->k);
  status = nvfp4i_validate_output("c", c, a->rows, b->rows, a->batch);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  /* with batch_stride a multiple of 16, every batch's group is as aligned as batch 0's */
  status = nvfp4i_grouped_gemm_check_copies("a", a);
  return status == NVFP4_STATUS_SUCCESS ? nvfp4i_grouped_gemm_check_copies("b", b) : status;
}

/* A device address `bytes` past p (device memory: no host object to do pointer arithmetic in). */
static uintptr_t past(const void *p, int64_t bytes) { return (uintptr_t)p + (uintptr_t)bytes; }

/* Batch l of an NVFP4 operand as a tensor of batch 1. */
static nvfp4_tensor batch_of(const nvfp4_tensor *t, int64_t l) {
  nvfp4_tensor one = *t;
  one.data = (const void *)past(t->data, l * t->batch_stride);
  one.scales = (const void *)past(t->scales, l * t->sf_batch_stride);
  one.batch = 1;
  one.batch_stride = 0;
  one.sf_batch_stride = 0;
  return one;
}

NVFP4_API nvfp4_status nvfp4_gemm(nvfp4_handle *h, const nvfp4_tensor *a, const nvfp4_tensor *b,
                                  const nvfp4_output *c, float alpha, CUstream stream) {
  nvfp4i_clear_error();
  nvfp4_status status = validate(h, a, b, c);
  int64_t c_step = c != NULL ? c->batch_stride * nvfp4i_dtype_size(c->dtype) : 0; /* bytes */
  nvfp4_tensor ga[GEMM_CHUNK], gb[GEMM_CHUNK];
  nvfp4_output gc[GEMM_CHUNK];
  for (int64_t first = 0; status == NVFP4_STATUS_SUCCESS && first < a->batch; first += GEMM_CHUNK) {
    int count = a->batch - first < GEMM_CHUNK ? (int)(a->batch - first) : GEMM_CHUNK;
    for (int i = 0; i < count; i++) {
      ga[i] = batch_of(a, first + i);
      gb[i] = batch_of(b, first + i);
      gc[i] = (nvfp4_output){(void *)past(c->data, (first + i) * c_step), c->ld, 0, c->dtype};
    }
    status = nvfp4i_grouped_gemm(h, count, ga, gb, gc, alpha, stream);
  }
  return status;
}
