#include "validate.h"

#include <stddef.h>
#include <stdint.h>

#include "error.h"

int nvfp4i_dtype_size(nvfp4_dtype dtype) {
  switch (dtype) {
    case NVFP4_DTYPE_F16:
    case NVFP4_DTYPE_BF16:
      return 2;
    case NVFP4_DTYPE_F32:
      return 4;
  }
  return 0;
}

nvfp4_status nvfp4i_validate_tensor(const char *name, const nvfp4_tensor *t, int64_t min_rows) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  if (t->rows < min_rows || t->rows > INT32_MAX)
    return nvfp4i_fail(bad, "%s.rows = %lld: must be in [%lld, 2^31)", name, (long long)t->rows,
                       (long long)min_rows);
  if (t->k <= 0 || t->k > INT32_MAX)
    return nvfp4i_fail(bad, "%s.k = %lld: must be in [1, 2^31)", name, (long long)t->k);
  if (t->k % 32 != 0)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "%s.k = %lld: only multiples of 32 are supported", name,
                       (long long)t->k);
  if (t->batch < 1) return nvfp4i_fail(bad, "%s.batch = %lld: must be >= 1", name, (long long)t->batch);
  if (t->rows == 0) return NVFP4_STATUS_SUCCESS; /* an empty operand is never read */
  if (t->data == NULL) return nvfp4i_fail(bad, "%s.data is NULL", name);
  if (t->scales == NULL) return nvfp4i_fail(bad, "%s.scales is NULL", name);
  if (t->ld < t->k / 2)
    return nvfp4i_fail(bad, "%s.ld = %lld: must be >= k/2 = %lld", name, (long long)t->ld, (long long)(t->k / 2));
  if (t->batch_stride < 0)
    return nvfp4i_fail(bad, "%s.batch_stride = %lld: must be >= 0", name, (long long)t->batch_stride);
  if (t->sf_batch_stride < 0)
    return nvfp4i_fail(bad, "%s.sf_batch_stride = %lld: must be >= 0", name, (long long)t->sf_batch_stride);
  switch (t->sf_layout) {
    case NVFP4_SF_LINEAR:
      if (t->sf_ld < t->k / 16)
        return nvfp4i_fail(bad, "%s.sf_ld = %lld: must be >= k/16 = %lld for NVFP4_SF_LINEAR", name,
                           (long long)t->sf_ld, (long long)(t->k / 16));
      return NVFP4_STATUS_SUCCESS;
    case NVFP4_SF_BLOCKED_128x4:
      return NVFP4_STATUS_SUCCESS;
  }
  return nvfp4i_fail(bad, "%s.sf_layout = %d: not a nvfp4_sf_layout", name, (int)t->sf_layout);
}

nvfp4_status nvfp4i_validate_output(const char *name, const nvfp4_output *o, int64_t rows, int64_t cols,
                                    int64_t batch) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  int size = nvfp4i_dtype_size(o->dtype);
  if (size == 0) return nvfp4i_fail(bad, "%s.dtype = %d: not a nvfp4_dtype", name, (int)o->dtype);
  if (rows == 0 || cols == 0) return NVFP4_STATUS_SUCCESS; /* nothing is written */
  if (o->data == NULL) return nvfp4i_fail(bad, "%s.data is NULL", name);
  if ((uintptr_t)o->data % (uintptr_t)size != 0)
    return nvfp4i_fail(bad, "%s.data = %p: not aligned to its %d-byte elements", name, o->data, size);
  if (rows > 1 && o->ld < cols)
    return nvfp4i_fail(bad, "%s.ld = %lld: must be >= %lld (the row length)", name, (long long)o->ld,
                       (long long)cols);
  int64_t span = (rows - 1) * o->ld + cols; /* elements one batch covers */
  if (batch > 1 && o->batch_stride < span)
    return nvfp4i_fail(bad, "%s.batch_stride = %lld: must be >= %lld so batches do not overlap", name,
                       (long long)o->batch_stride, (long long)span);
  return NVFP4_STATUS_SUCCESS;
}

nvfp4_status nvfp4i_validate_vector_alignment(const char *name, const nvfp4_tensor *t) {
  /* ld matters only between rows, batch_stride only between batches */
  if ((uintptr_t)t->data % 16 != 0 || (t->rows > 1 && t->ld % 16 != 0) ||
      (t->batch > 1 && t->batch_stride % 16 != 0))
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED,
                       "%s: data (%p), ld (%lld) and batch_stride (%lld) must be multiples of 16 bytes", name,
                       t->data, (long long)t->ld, (long long)t->batch_stride);
  return NVFP4_STATUS_SUCCESS;
}
