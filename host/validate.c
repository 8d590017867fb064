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

/* The shape every operand shares: rows and k below 2^31, K a multiple of 32, at least one batch. */
static nvfp4_status validate_shape(const char *name, int64_t rows, int64_t k, int64_t batch, int64_t min_rows) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  if (rows < min_rows || rows > INT32_MAX)
    return nvfp4i_fail(bad, "%s.rows = %lld: must be in [%lld, 2^31)", name, (long long)rows, (long long)min_rows);
  if (k <= 0 || k > INT32_MAX) return nvfp4i_fail(bad, "%s.k = %lld: must be in [1, 2^31)", name, (long long)k);
  if (k % 32 != 0)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "%s.k = %lld: only multiples of 32 are supported", name,
                       (long long)k);
  if (batch < 1) return nvfp4i_fail(bad, "%s.batch = %lld: must be >= 1", name, (long long)batch);
  return NVFP4_STATUS_SUCCESS;
}

/* Dense rows x cols batches, in elements: the last element of one batch comes before the next one starts. */
static nvfp4_status validate_batches_apart(const char *name, int64_t rows, int64_t cols, int64_t ld, int64_t batch,
                                           int64_t batch_stride) {
  int64_t span = (rows - 1) * ld + cols; /* elements one batch covers */
  if (batch > 1 && batch_stride < span)
    return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "%s.batch_stride = %lld: must be >= %lld so batches do not "
                       "overlap", name, (long long)batch_stride, (long long)span);
  return NVFP4_STATUS_SUCCESS;
}

/* The fields that place an operand's scales: sf_batch_stride, sf_layout and (LINEAR) sf_ld. */
static nvfp4_status validate_scale_fields(const char *name, const nvfp4_tensor *t) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
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

nvfp4_status nvfp4i_validate_tensor(const char *name, const nvfp4_tensor *t, int64_t min_rows) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  nvfp4_status status = validate_shape(name, t->rows, t->k, t->batch, min_rows);
  if (status != NVFP4_STATUS_SUCCESS || t->rows == 0) return status; /* an empty operand is never read */
  if (t->data == NULL) return nvfp4i_fail(bad, "%s.data is NULL", name);
  if (t->scales == NULL) return nvfp4i_fail(bad, "%s.scales is NULL", name);
  if (t->ld < t->k / 2)
    return nvfp4i_fail(bad, "%s.ld = %lld: must be >= k/2 = %lld", name, (long long)t->ld, (long long)(t->k / 2));
  if (t->batch_stride < 0)
    return nvfp4i_fail(bad, "%s.batch_stride = %lld: must be >= 0", name, (long long)t->batch_stride);
  return validate_scale_fields(name, t);
}

nvfp4_status nvfp4i_validate_scales(const char *name, const nvfp4_tensor *t) {
  nvfp4_status status = validate_shape(name, t->rows, t->k, t->batch, 1);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  if (t->scales == NULL) return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "%s.scales is NULL", name);
  return validate_scale_fields(name, t);
}

nvfp4_status nvfp4i_validate_dense_input(const char *name, const nvfp4_dense *d, int64_t min_rows) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  if (d == NULL) return nvfp4i_fail(bad, "%s is NULL", name);
  int size = nvfp4i_dtype_size(d->dtype);
  if (size == 0) return nvfp4i_fail(bad, "%s.dtype = %d: not a nvfp4_dtype", name, (int)d->dtype);
  nvfp4_status status = validate_shape(name, d->rows, d->k, d->batch, min_rows);
  if (status != NVFP4_STATUS_SUCCESS || d->rows == 0) return status; /* an empty operand is never read */
  if (d->data == NULL) return nvfp4i_fail(bad, "%s.data is NULL", name);
  if ((uintptr_t)d->data % (uintptr_t)size != 0)
    return nvfp4i_fail(bad, "%s.data = %p: not aligned to its %d-byte elements", name, d->data, size);
  if (d->rows > 1 && d->ld < d->k)
    return nvfp4i_fail(bad, "%s.ld = %lld: must be >= k = %lld", name, (long long)d->ld, (long long)d->k);
  return validate_batches_apart(name, d->rows, d->k, d->ld, d->batch, d->batch_stride);
}

nvfp4_status nvfp4i_validate_dense(const char *name, const nvfp4_dense *d, int64_t min_rows) {
  if (d != NULL && d->dtype == NVFP4_DTYPE_F32)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "%s.dtype = NVFP4_DTYPE_F32: f32 activations are not supported "
                       "(F16 or BF16)", name);
  return nvfp4i_validate_dense_input(name, d, min_rows);
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
  return validate_batches_apart(name, rows, cols, o->ld, batch, o->batch_stride);
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

nvfp4_status nvfp4i_validate_dense_alignment(const char *name, const nvfp4_dense *d) {
  const nvfp4_status no = NVFP4_STATUS_NOT_SUPPORTED;
  int64_t per_16_bytes = 16 / nvfp4i_dtype_size(d->dtype);
  if ((uintptr_t)d->data % 16 != 0)
    return nvfp4i_fail(no, "%s.data = %p: must be 16-byte aligned (the kernels copy 16 bytes at a time)", name,
                       d->data);
  if (d->rows > 1 && d->ld % per_16_bytes != 0)
    return nvfp4i_fail(no, "%s.ld = %lld: must be a multiple of %lld elements (16 bytes) with two rows or more",
                       name, (long long)d->ld, (long long)per_16_bytes);
  if (d->batch > 1 && d->batch_stride % per_16_bytes != 0)
    return nvfp4i_fail(no, "%s.batch_stride = %lld: must be a multiple of %lld elements (16 bytes) with two "
                       "batches or more", name, (long long)d->batch_stride, (long long)per_16_bytes);
  return NVFP4_STATUS_SUCCESS;
}
