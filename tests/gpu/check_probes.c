/* The measuring kernels the benchmarks divide by. The read probe must read every byte it is given, once:
 * each thread's xor of its vectors is checked against the CPU's on random data whose length leaves a tail
 * (not a multiple of four grid strides), and a thread must store only when its xor equals `never`. */
#include <stdlib.h>

#include "bench.h"
#include "handle.h"
#include "suites.h"
#include "testdata.h"

/* xor of the 32-bit words of vectors i, i + stride, ... < count: what thread i of the probe computes */
static uint32_t thread_xor(const uint32_t *words, uint64_t count, uint64_t stride, uint64_t i) {
  uint32_t acc = 0;
  for (uint64_t v = i; v < count; v += stride)
    acc ^= words[4 * v] ^ words[4 * v + 1] ^ words[4 * v + 2] ^ words[4 * v + 3];
  return acc;
}

/* Launches the probe with `never` and returns what out[i] holds afterwards (out starts as `poison`). */
static uint32_t probe_output(const nvfp4i_probes *probes, CUdeviceptr src, uint64_t count, CUdeviceptr out,
                             uint32_t *host_out, uint32_t threads, uint64_t i, uint32_t never, uint32_t poison) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  for (uint32_t t = 0; t < threads; t++) host_out[t] = poison;
  ck_assert_int_eq(cu->cuMemcpyHtoD(out, host_out, sizeof(uint32_t) * threads), CUDA_SUCCESS);
  ck_assert_int_eq(nvfp4i_read_probe(probes, src, count, out, never, NULL), NVFP4_STATUS_SUCCESS);
  ck_assert_int_eq(cu->cuCtxSynchronize(), CUDA_SUCCESS);
  uint32_t value;
  ck_assert_int_eq(cu->cuMemcpyDtoH(&value, out + sizeof(uint32_t) * i, sizeof value), CUDA_SUCCESS);
  return value;
}

START_TEST(read_probe_reads_every_vector_once) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4i_probes probes;
  ck_assert_msg(nvfp4i_probes_load(gpu_handle, &probes) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  uint32_t threads = nvfp4i_read_probe_threads(&probes);
  uint64_t count = 8 * (uint64_t)threads + threads / 2 + 37; /* two trips of four, then a one-vector tail */
  nvfp4i_rng rng = {gpu_seed(0x9E0BE000)};
  uint32_t *words = malloc(16 * count), *host_out = malloc(sizeof(uint32_t) * threads);
  ck_assert_ptr_nonnull(words);
  ck_assert_ptr_nonnull(host_out);
  for (uint64_t w = 0; w < 4 * count; w++) words[w] = (uint32_t)nvfp4i_rng_next(&rng);
  CUdeviceptr src, out;
  ck_assert_int_eq(cu->cuMemAlloc(&src, 16 * count), CUDA_SUCCESS);
  ck_assert_int_eq(cu->cuMemAlloc(&out, sizeof(uint32_t) * threads), CUDA_SUCCESS);
  ck_assert_int_eq(cu->cuMemcpyHtoD(src, words, 16 * count), CUDA_SUCCESS);
  /* the first thread, the last with a tail vector, the first without, the last */
  const uint64_t probed[] = {0, threads / 2 + 36, threads / 2 + 37, threads - 1};
  for (size_t p = 0; p < sizeof probed / sizeof probed[0]; p++) {
    uint64_t i = probed[p];
    uint32_t expected = thread_xor(words, count, threads, i);
    ck_assert_msg(probe_output(&probes, src, count, out, host_out, threads, i, expected, ~expected) == expected,
                  "thread %llu did not store its xor %08x (NVFP4_TEST_SEED=%llu)", (unsigned long long)i, expected,
                  (unsigned long long)gpu_run_seed());
    ck_assert_msg(
        probe_output(&probes, src, count, out, host_out, threads, i, expected ^ 1u, ~expected) == ~expected,
        "thread %llu stored although its xor differs from never", (unsigned long long)i);
  }
  cu->cuMemFree(src);
  cu->cuMemFree(out);
  free(words);
  free(host_out);
  nvfp4i_probes_unload(&probes);
}
END_TEST

Suite *probes_gpu_suite(void) {
  Suite *s = suite_create("probes gpu");
  TCase *read = gpu_tcase("read probe", 120);
  tcase_add_test(read, read_probe_reads_every_vector_once);
  suite_add_tcase(s, read);
  return s;
}
