#include "gemv_chain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "reference.h"
#include "suites.h"

/* The stream's head start: at ~3 TB/s a memset of 8 GB takes over 2 ms, longer than the host takes to
 * enqueue a chain of 200 calls (a few us each). 64 MB where NVFP4_GPU_QUICK=1 (compute-sanitizer runs, whose
 * launches are slow anyway). */
static size_t gate_bytes(void) { return gpu_quick() ? (size_t)64 << 20 : (size_t)8 << 30; }

void gpu_chain_create(gpu_chain *c, int64_t m, int steps, nvfp4_sf_layout layout, uint64_t seed) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  memset(c, 0, sizeof *c);
  c->m = m;
  c->steps = steps;
  c->seed = seed;
  c->rng = (nvfp4i_rng){seed};
  ck_assert_msg(nvfp4_create(&c->h) == NVFP4_STATUS_SUCCESS, "nvfp4_create: %s", nvfp4_last_error());
  ck_assert_int_eq(cu->cuStreamCreate(&c->stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  ck_assert_int_eq(nvfp4i_operand_create(&c->a, m, m, 1, layout, 0, &c->rng), NVFP4_STATUS_SUCCESS);
  size_t slot_count = (size_t)(steps + 1) * (size_t)m;
  c->a_values = malloc(sizeof(double) * (size_t)(m * m));
  c->want = malloc(sizeof(uint16_t) * slot_count);
  c->got = malloc(sizeof(uint16_t) * slot_count);
  c->alpha = malloc(sizeof(float) * (size_t)steps);
  c->z = malloc(sizeof(double) * (size_t)m);
  c->s = malloc(sizeof(double) * (size_t)m);
  ck_assert_msg(c->a_values && c->want && c->got && c->alpha && c->z && c->s, "no host memory for the chain");
  for (int64_t r = 0; r < m; r++) nvfp4i_decode_row(&c->a.host, 0, r, c->a_values + r * m);
  memset(c->want, 0xFF, sizeof(uint16_t) * slot_count);
  for (int64_t k = 0; k < m; k++) c->want[k] = nvfp4i_random_activation(&c->rng, NVFP4_DTYPE_F16);
  ck_assert_int_eq(cu->cuMemAlloc(&c->slots, sizeof(uint16_t) * slot_count), CUDA_SUCCESS);
  ck_assert_int_eq(cu->cuMemcpyHtoD(c->slots, c->want, sizeof(uint16_t) * slot_count), CUDA_SUCCESS);
  c->gate_bytes = gate_bytes();
  ck_assert_int_eq(cu->cuMemAlloc(&c->gate, c->gate_bytes), CUDA_SUCCESS);
}

void gpu_chain_destroy(gpu_chain *c) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  cu->cuMemFree(c->gate);
  cu->cuMemFree(c->slots);
  nvfp4i_operand_destroy(&c->a);
  cu->cuStreamDestroy(c->stream);
  nvfp4_destroy(c->h);
  free(c->a_values);
  free(c->want);
  free(c->got);
  free(c->alpha);
  free(c->z);
  free(c->s);
}

CUdeviceptr gpu_chain_slot(const gpu_chain *c, int i) {
  return c->slots + (CUdeviceptr)i * (CUdeviceptr)c->m * sizeof(uint16_t);
}

void gpu_chain_reference(gpu_chain *c, int i, const double *x) {
  int64_t m = c->m;
  double squares = 0;
  for (int64_t r = 0; r < m; r++) {
    nvfp4i_dot(c->a_values + r * m, x, m, 1.0, &c->z[r], &c->s[r]);
    squares += c->z[r] * c->z[r];
  }
  ck_assert_msg(squares > 0 && isfinite(squares), "chain step %d: A x is %s (seed %llu)", i,
                squares > 0 ? "not finite" : "zero", (unsigned long long)c->seed);
  c->alpha[i] = (float)(1.0 / sqrt(squares / (double)m));
}

void gpu_chain_check_step(gpu_chain *c, int i, const char *what) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  int64_t m = c->m;
  uint16_t *y = c->want + (size_t)(i + 1) * (size_t)m;
  ck_assert_int_eq(cu->cuStreamSynchronize(c->stream), CUDA_SUCCESS);
  ck_assert_int_eq(cu->cuMemcpyDtoH(y, gpu_chain_slot(c, i + 1), sizeof(uint16_t) * (size_t)m), CUDA_SUCCESS);
  double alpha = c->alpha[i];
  for (int64_t r = 0; r < m; r++) {
    double got = nvfp4i_f16_value(y[r]), ratio;
    double ref = alpha * c->z[r], mag = fabs(alpha) * c->s[r];
    ck_assert_msg(nvfp4i_check_value(NVFP4_DTYPE_F16, got, ref, mag, &ratio),
                  "%s, synchronised, step %d, y[%lld]: got %.9g (0x%04X), expected %.9g, error/tolerance %.3g "
                  "(seed %llu, NVFP4_TEST_SEED=%llu)", what, i, (long long)r, got, y[r], ref, ratio,
                  (unsigned long long)c->seed, (unsigned long long)gpu_run_seed());
  }
}

void gpu_chain_begin(gpu_chain *c) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  size_t poisoned = sizeof(uint16_t) * (size_t)c->steps * (size_t)c->m;
  ck_assert_int_eq(cu->cuMemsetD8Async(gpu_chain_slot(c, 1), 0xFF, poisoned, c->stream), CUDA_SUCCESS);
  ck_assert_int_eq(cu->cuMemsetD8Async(c->gate, 0, c->gate_bytes, c->stream), CUDA_SUCCESS);
}

void gpu_chain_end(gpu_chain *c, const char *what) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  size_t bytes = sizeof(uint16_t) * (size_t)(c->steps + 1) * (size_t)c->m;
  ck_assert_int_eq(cu->cuStreamSynchronize(c->stream), CUDA_SUCCESS);
  ck_assert_int_eq(cu->cuMemcpyDtoH(c->got, c->slots, bytes), CUDA_SUCCESS);
  int first = 1;
  while (first <= c->steps && !memcmp(c->got + (size_t)first * (size_t)c->m, c->want + (size_t)first * (size_t)c->m,
                                      sizeof(uint16_t) * (size_t)c->m))
    first++;
  char named[256];
  snprintf(named, sizeof named, "%s, m = K = %lld, %d steps: the y of step %d first differs (seed %llu)", what,
           (long long)c->m, c->steps, first - 1, (unsigned long long)c->seed);
  gpu_assert_bytes((const uint8_t *)c->got, (const uint8_t *)c->want, bytes, named);
}

/* A as the device holds it, decoded into c->a_values. */
static void download_a(gpu_chain *c) {
  ck_assert_int_eq(nvfp4i_operand_download(&c->a), NVFP4_STATUS_SUCCESS);
  for (int64_t r = 0; r < c->m; r++) nvfp4i_decode_row(&c->a.host, 0, r, c->a_values + r * c->m);
}

/* The weights of step i into A: W_(i % 2) quantized, on the chain's stream. */
static nvfp4_status quantize_weights(const gpu_chain *c, const nvfp4i_dense_operand w[2], int i) {
  return nvfp4_quantize(c->h, &w[i % 2].dev, &c->a.dev, 1.0f, c->stream);
}

void gpu_weights_chain(gpu_chain *c, gpu_chain_gemv gemv, const void *x, const double *x_values,
                       const char *what) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  int64_t m = c->m;
  size_t slot_bytes = sizeof(uint16_t) * (size_t)m;
  ck_assert_msg(c->steps >= 3, "a weights chain needs 3 steps or more");
  nvfp4i_dense_operand w[2];
  for (int j = 0; j < 2; j++)
    ck_assert_int_eq(nvfp4i_dense_operand_create(&w[j], m, m, 1, NVFP4_DTYPE_F16, 0, &c->rng), NVFP4_STATUS_SUCCESS);
  for (int i = 0; i < c->steps; i++) {
    ck_assert_msg(quantize_weights(c, w, i) == NVFP4_STATUS_SUCCESS, "step %d: %s", i, nvfp4_last_error());
    ck_assert_int_eq(cu->cuStreamSynchronize(c->stream), CUDA_SUCCESS);
    if (i < 2) {
      download_a(c);
      gpu_chain_reference(c, i, x_values);
    } else {
      c->alpha[i] = c->alpha[i % 2];
    }
    ck_assert_msg(gemv(c, x, i) == NVFP4_STATUS_SUCCESS, "step %d: %s", i, nvfp4_last_error());
    if (i < 2) {
      gpu_chain_check_step(c, i, what);
      continue;
    }
    uint16_t *y = c->want + (size_t)(i + 1) * (size_t)m;
    ck_assert_int_eq(cu->cuStreamSynchronize(c->stream), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuMemcpyDtoH(y, gpu_chain_slot(c, i + 1), slot_bytes), CUDA_SUCCESS);
    char named[200];
    snprintf(named, sizeof named, "%s, synchronised: step %d against step %d (the same weights, seed %llu)", what, i,
             i - 2, (unsigned long long)c->seed);
    gpu_assert_bytes((const uint8_t *)y, (const uint8_t *)(y - 2 * m), slot_bytes, named);
  }
  ck_assert_msg(memcmp(c->want + (size_t)m, c->want + (size_t)2 * (size_t)m, slot_bytes) != 0,
                "%s: both weight sets give the same y, so the chain cannot tell them apart (seed %llu)", what,
                (unsigned long long)c->seed);
  ck_assert_int_eq(nvfp4_set_weights_stable(c->h, 0), NVFP4_STATUS_SUCCESS);
  gpu_chain_begin(c);
  for (int i = 0; i < c->steps; i++) {
    ck_assert_msg(quantize_weights(c, w, i) == NVFP4_STATUS_SUCCESS, "step %d: %s", i, nvfp4_last_error());
    ck_assert_msg(gemv(c, x, i) == NVFP4_STATUS_SUCCESS, "step %d: %s", i, nvfp4_last_error());
  }
  gpu_chain_end(c, what);
  for (int j = 0; j < 2; j++) nvfp4i_dense_operand_destroy(&w[j]);
}
