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
