#include "testdata.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "format.h"

uint64_t nvfp4i_rng_next(nvfp4i_rng *rng) {
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint8_t nvfp4i_random_scale(nvfp4i_rng *rng) {
  uint64_t r = nvfp4i_rng_next(rng);
  unsigned biased_exponent = 1 + (unsigned)(r % 10); /* 2^-6 .. 2^3, times 1 + m/8 < 2 */
  unsigned mantissa = (unsigned)(r >> 8) & 7u;
  unsigned sign = (unsigned)(r >> 16) & 1u;
  return (uint8_t)(sign << 7 | biased_exponent << 3 | mantissa);
}

static void fill_random(uint8_t *p, int64_t n, nvfp4i_rng *rng) {
  for (int64_t i = 0; i < n; i += 8) {
    uint64_t r = nvfp4i_rng_next(rng);
    for (int64_t j = i; j < n && j < i + 8; j++, r >>= 8) p[j] = (uint8_t)r;
  }
}

nvfp4_status nvfp4i_operand_create(nvfp4i_operand *op, int64_t rows, int64_t k, int64_t batch,
                                   nvfp4_sf_layout layout, int64_t pad_bytes, nvfp4i_rng *rng) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  memset(op, 0, sizeof *op);
  nvfp4_tensor *t = &op->host;
  t->rows = rows;
  t->k = k;
  t->batch = batch;
  t->sf_layout = layout;
  t->ld = k / 2 + pad_bytes;
  t->batch_stride = rows * t->ld + (pad_bytes ? 16 : 0);
  t->sf_ld = layout == NVFP4_SF_LINEAR ? k / 16 + (pad_bytes ? 3 : 0) : 0;
  t->sf_batch_stride = nvfp4i_sf_batch_bytes(layout, t->sf_ld, rows, k) + (pad_bytes ? 16 : 0);
  op->data_bytes = t->batch_stride * batch;
  op->sf_bytes = t->sf_batch_stride * batch;
  uint8_t *data = malloc((size_t)op->data_bytes), *scales = malloc((size_t)op->sf_bytes);
  if (data == NULL || scales == NULL) {
    free(data);
    free(scales);
    return nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "no host memory for a %lldx%lldx%lld operand",
                       (long long)rows, (long long)k, (long long)batch);
  }
  fill_random(data, op->data_bytes, rng);
  fill_random(scales, op->sf_bytes, rng); /* garbage wherever no scale goes */
  for (int64_t l = 0; l < batch; l++)
    for (int64_t r = 0; r < rows; r++)
      for (int64_t j = 0; j < k / 16; j++)
        scales[l * t->sf_batch_stride + nvfp4i_sf_offset(layout, t->sf_ld, k, r, j)] = nvfp4i_random_scale(rng);
  t->data = data;
  t->scales = scales;
  op->dev = *t;
  CUdeviceptr d_data = 0, d_scales = 0;
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_data, (size_t)op->data_bytes), status, fail);
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_scales, (size_t)op->sf_bytes), status, fail);
  op->dev.data = (const void *)(uintptr_t)d_data;
  op->dev.scales = (const void *)(uintptr_t)d_scales;
  status = nvfp4i_operand_upload(op);
  if (status == NVFP4_STATUS_SUCCESS) return status;
fail:
  if (d_data) cu->cuMemFree(d_data);
  if (d_scales) cu->cuMemFree(d_scales);
  free(data);
  free(scales);
  memset(op, 0, sizeof *op);
  return status;
}

nvfp4_status nvfp4i_operand_upload(const nvfp4i_operand *op) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  NVFP4_CU_TRY(cu->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)op->dev.data, op->host.data, (size_t)op->data_bytes),
               status, out);
  NVFP4_CU_TRY(cu->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)op->dev.scales, op->host.scales, (size_t)op->sf_bytes),
               status, out);
out:
  return status;
}

nvfp4_status nvfp4i_operand_download(nvfp4i_operand *op) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  NVFP4_CU_TRY(cu->cuMemcpyDtoH((void *)op->host.data, (CUdeviceptr)(uintptr_t)op->dev.data, (size_t)op->data_bytes),
               status, out);
  NVFP4_CU_TRY(cu->cuMemcpyDtoH((void *)op->host.scales, (CUdeviceptr)(uintptr_t)op->dev.scales,
                                (size_t)op->sf_bytes),
               status, out);
out:
  return status;
}

nvfp4_status nvfp4i_operand_misalign_scales(nvfp4i_operand *op, int64_t bytes) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  CUdeviceptr moved = 0; /* cuMemAlloc's addresses are 256-byte aligned */
  NVFP4_CU_TRY(cu->cuMemAlloc(&moved, (size_t)(op->sf_bytes + bytes)), status, out);
  NVFP4_CU_TRY(cu->cuMemcpyHtoD(moved + (CUdeviceptr)bytes, op->host.scales, (size_t)op->sf_bytes), status, out);
  cu->cuMemFree((CUdeviceptr)(uintptr_t)op->dev.scales - (CUdeviceptr)op->sf_misalign);
  op->dev.scales = (const void *)(uintptr_t)(moved + (CUdeviceptr)bytes);
  op->sf_misalign = bytes;
  moved = 0;
out:
  if (moved) cu->cuMemFree(moved);
  return status;
}

void nvfp4i_operand_destroy(nvfp4i_operand *op) {
  if (op->dev.data) nvfp4i_cuda()->cuMemFree((CUdeviceptr)(uintptr_t)op->dev.data);
  if (op->dev.scales)
    nvfp4i_cuda()->cuMemFree((CUdeviceptr)(uintptr_t)op->dev.scales - (CUdeviceptr)op->sf_misalign);
  free((void *)op->host.data);
  free((void *)op->host.scales);
  memset(op, 0, sizeof *op);
}

uint16_t nvfp4i_random_activation(nvfp4i_rng *rng, nvfp4_dtype dtype) {
  uint64_t r = nvfp4i_rng_next(rng);
  unsigned mantissa_bits = dtype == NVFP4_DTYPE_F16 ? 10 : 7, bias = dtype == NVFP4_DTYPE_F16 ? 15 : 127;
  unsigned sign = (unsigned)(r & 1) << 15, kind = (unsigned)(r >> 1) & 0xFF;
  unsigned mantissa = (unsigned)(r >> 32) & ((1u << mantissa_bits) - 1);
  int exponent = -8 + (int)((r >> 9 & 0xFFFF) % 12); /* [2^-8, 2^4) */
  if (kind < 4) return (uint16_t)sign;                         /* +-0 */
  if (kind == 4) return (uint16_t)(sign | mantissa | 1);       /* a subnormal: exponent field 0 */
  if (kind == 5) exponent = 4 + (int)((r >> 9 & 0xFFFF) % 4);  /* [2^4, 2^8) */
  return (uint16_t)(sign | (unsigned)(exponent + (int)bias) << mantissa_bits | mantissa);
}

nvfp4_status nvfp4i_dense_operand_create(nvfp4i_dense_operand *op, int64_t rows, int64_t k, int64_t batch,
                                         nvfp4_dtype dtype, int64_t pad, nvfp4i_rng *rng) {
  return nvfp4i_dense_operand_create_laid_out(op, rows, k, batch, dtype, k + pad, rows * (k + pad) + (pad ? 8 : 0),
                                              0, rng);
}

nvfp4_status nvfp4i_dense_operand_create_laid_out(nvfp4i_dense_operand *op, int64_t rows, int64_t k,
                                                  int64_t batch, nvfp4_dtype dtype, int64_t ld,
                                                  int64_t batch_stride, int64_t offset, nvfp4i_rng *rng) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  memset(op, 0, sizeof *op);
  nvfp4_dense *d = &op->host;
  *d = (nvfp4_dense){NULL, rows, k, batch, ld, batch_stride, dtype};
  int64_t span = batch_stride * (batch - 1) + (rows - 1) * ld + k; /* the last batch's last row ends here */
  int64_t elements = offset + (batch_stride * batch > span ? batch_stride * batch : span);
  op->bytes = elements * (int64_t)sizeof(uint16_t);
  op->offset = offset;
  uint16_t *buffer = malloc((size_t)op->bytes);
  if (buffer == NULL)
    return nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "no host memory for %lldx%lldx%lld activations",
                       (long long)rows, (long long)k, (long long)batch);
  fill_random((uint8_t *)buffer, op->bytes, rng); /* garbage wherever no element goes */
  uint16_t *data = buffer + offset;
  for (int64_t l = 0; l < batch; l++)
    for (int64_t r = 0; r < rows; r++)
      for (int64_t kk = 0; kk < k; kk++)
        data[l * batch_stride + r * ld + kk] = nvfp4i_random_activation(rng, dtype);
  d->data = data;
  op->dev = *d;
  CUdeviceptr d_buffer = 0;
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_buffer, (size_t)op->bytes), status, fail);
  NVFP4_CU_TRY(cu->cuMemcpyHtoD(d_buffer, buffer, (size_t)op->bytes), status, fail);
  op->dev.data = (const uint16_t *)(uintptr_t)d_buffer + offset;
  return status;
fail:
  if (d_buffer) cu->cuMemFree(d_buffer);
  free(buffer);
  memset(op, 0, sizeof *op);
  return status;
}

void nvfp4i_dense_operand_destroy(nvfp4i_dense_operand *op) {
  if (op->dev.data) nvfp4i_cuda()->cuMemFree((CUdeviceptr)(uintptr_t)((const uint16_t *)op->dev.data - op->offset));
  if (op->host.data) free((uint16_t *)(uintptr_t)op->host.data - op->offset);
  memset(op, 0, sizeof *op);
}
