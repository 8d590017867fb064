/* Runs the GPU suites in this process (CUDA does not survive fork). Without a usable GPU it fails: a GPU
 * suite that could not run has not passed. NVFP4_GPU_QUICK=1 keeps only the small cases (for
 * compute-sanitizer runs). NVFP4_FORCE_PORTABLE=1 runs them on the portable kernels (on an H200: their PTX,
 * JIT-compiled); the run fails at once if the handle did not take that path, and tests of operations the
 * path has no kernel for are left out, each with a line saying so. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "handle.h"
#include "suites.h"
#include "testdata.h"

nvfp4_handle *gpu_handle;
static uint64_t run_seed;
static int not_run; /* tests left out for want of a kernel on the handle's path */

int gpu_path_lacks(nvfp4i_kernel_id id, const char *what) {
  if (gpu_handle->kernels[id].fn != NULL) return 0;
  printf("gpu_tests: NOT RUN (the %s path has no %s kernel: NOT_SUPPORTED): %s\n",
         nvfp4i_path_name(gpu_handle->path), nvfp4i_kernel_what(id), what);
  fflush(stdout);
  not_run++;
  return 1;
}

int gpu_path_lacks_nvfp4_grouped_gemm(const char *what) {
  const nvfp4i_kernel *k = gpu_handle->kernels;
  int via_tokens = k[NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16].fn != NULL &&
                   k[NVFP4I_KERNEL_GROUPED_DEQUANTIZE].fn != NULL && gpu_handle->scratch_pool != NULL;
  if (via_tokens) return 0;
  return gpu_path_lacks(NVFP4I_KERNEL_GROUPED_GEMM, what);
}

const char *gpu_family_ptx(const char *family) {
  static _Thread_local char path[256];
  snprintf(path, sizeof path, "ptx/%s/%s.ptx", gpu_handle->path == NVFP4I_PATH_SM90A ? "sm90a" : "sm80", family);
  return test_build_file(path);
}

/* The kernel path the run must take: NVFP4_FORCE_PORTABLE=1 asks for the portable one, and a handle that
 * took sm_90a's anyway would test the wrong kernels while looking green. Prints the path either way. */
static int check_path(void) {
  const char *force = getenv("NVFP4_FORCE_PORTABLE");
  int forced = force != NULL && !strcmp(force, "1");
  printf("gpu_tests: sm_%d%d, kernel path %s%s, image %s in %.1f ms\n", gpu_handle->cc_major,
         gpu_handle->cc_minor, nvfp4i_path_name(gpu_handle->path), forced ? " (NVFP4_FORCE_PORTABLE=1)" : "",
         gpu_handle->jit ? "JIT-compiled from PTX" : "loaded as cubin", gpu_handle->module_load_ms);
  fflush(stdout);
  if (forced && gpu_handle->path != NVFP4I_PATH_PORTABLE) {
    fprintf(stderr, "gpu_tests: NVFP4_FORCE_PORTABLE=1 but the handle runs the %s kernels\n",
            nvfp4i_path_name(gpu_handle->path));
    return 0;
  }
  return 1;
}

uint64_t gpu_run_seed(void) { return run_seed; }

uint64_t gpu_seed(uint64_t salt) {
  nvfp4i_rng rng = {run_seed ^ salt * 0x9E3779B97F4A7C15ull};
  return nvfp4i_rng_next(&rng);
}

int gpu_select_cases(const int *first_small, size_t stride, int count, int *selected) {
  int n = 0;
  for (int i = 0; i < count; i++)
    if (!gpu_quick() || *(const int *)(const void *)((const char *)first_small + (size_t)i * stride)) selected[n++] = i;
  return n;
}

static void *verify_job(void *arg) {
  gpu_verify_job *job = arg;
  nvfp4i_cuda()->cuCtxSetCurrent(gpu_handle->ctx);
  job->pass = job->gemv       ? nvfp4i_verify_gemv(gpu_handle, job->gemv, &job->v)
              : job->relayout ? nvfp4i_verify_scales_relayout(gpu_handle, job->relayout, &job->v)
                              : nvfp4i_verify_grouped_gemm(gpu_handle, job->grouped, &job->v);
  return NULL;
}

void gpu_verify_in_threads(int count, gpu_verify_job *jobs) {
  enum { MAX_THREADS = 16 };
  ck_assert_int_le(count, MAX_THREADS);
  pthread_t threads[MAX_THREADS];
  int started = 0;
  while (started < count && pthread_create(&threads[started], NULL, verify_job, &jobs[started]) == 0) started++;
  for (int t = 0; t < started; t++) pthread_join(threads[t], NULL);
  ck_assert_msg(started == count, "started %d of %d threads", started, count);
}

void gpu_assert_bytes(const uint8_t *got, const uint8_t *want, size_t bytes, const char *what) {
  size_t differ = 0, first = 0;
  for (size_t i = 0; i < bytes; i++)
    if (got[i] != want[i] && differ++ == 0) first = i;
  ck_assert_msg(differ == 0, "%s: %zu of %zu bytes differ, first: byte %zu, got 0x%02X, expected 0x%02X "
                "(NVFP4_TEST_SEED=%llu)", what, differ, bytes, first, got[first], want[first],
                (unsigned long long)run_seed);
}

/* NVFP4_TEST_SEED (a decimal integer), or the time. 0 and a message when the variable is malformed. */
static int choose_run_seed(void) {
  const char *text = getenv("NVFP4_TEST_SEED");
  if (text == NULL || text[0] == '\0') {
    run_seed = (uint64_t)time(NULL);
    return 1;
  }
  char *end;
  errno = 0;
  unsigned long long v = text[0] >= '0' && text[0] <= '9' ? strtoull(text, &end, 10) : 0;
  if (!(text[0] >= '0' && text[0] <= '9') || errno != 0 || *end != '\0') {
    fprintf(stderr, "gpu_tests: NVFP4_TEST_SEED=%s is not a decimal integer\n", text);
    return 0;
  }
  run_seed = v;
  return 1;
}

int gpu_quick(void) {
  const char *quick = getenv("NVFP4_GPU_QUICK");
  return quick != NULL && quick[0] == '1';
}

void gpu_assert_handle_dequantizes_tokens(void) {
  ck_assert_msg(gpu_handle->scratch_pool != NULL && !gpu_handle->grouped_fused,
                "the test handle has no scratch pool (or NVFP4_GROUPED_FUSED is set): it runs the fused kernel");
}

/* A handle created with the environment variable `name` set to `value` (unset again after). */
static nvfp4_handle *handle_with(const char *name, const char *value) {
  nvfp4_handle *h;
  setenv(name, value, 1);
  nvfp4_status status = nvfp4_create(&h);
  unsetenv(name);
  ck_assert_msg(status == NVFP4_STATUS_SUCCESS, "nvfp4_create with %s=%s: %s", name, value, nvfp4_last_error());
  return h;
}

nvfp4_handle *gpu_fused_grouped_handle(void) {
  nvfp4_handle *fused = handle_with("NVFP4_GROUPED_FUSED", "1");
  ck_assert(fused->grouped_fused);
  return fused;
}

nvfp4_handle *gpu_split_k_handle(int slices) {
  char value[16];
  snprintf(value, sizeof value, "%d", slices);
  nvfp4_handle *split = handle_with("NVFP4_SPLIT_K", value);
  ck_assert_int_eq(split->split_k, slices);
  ck_assert_msg(split->scratch_pool != NULL, "no memory pool: the split-K way cannot run");
  return split;
}

const char *const gpu_tile_rows_values[GPU_TILE_ROWS_WAYS] = {"mixed", "64", "128", "256"};

nvfp4_handle *gpu_tile_rows_handle(int way) {
  nvfp4_handle *h = handle_with("NVFP4_TILE_ROWS", gpu_tile_rows_values[way]);
  ck_assert_int_eq(h->tile_rows, way == 0 ? -1 : atoi(gpu_tile_rows_values[way]));
  return h;
}

void gpu_check_on_tile_rows_handle(int way, int count, int (*keep)(int i),
                                   void (*check)(nvfp4_handle *h, int i, const char *what)) {
  nvfp4_handle *h = gpu_tile_rows_handle(way);
  char what[64];
  snprintf(what, sizeof what, "NVFP4_TILE_ROWS=%s", gpu_tile_rows_values[way]);
  for (int i = 0; i < count; i++)
    if (keep(i)) check(h, i, what);
  nvfp4_destroy(h);
}

TCase *gpu_tcase(const char *name, double timeout) {
  TCase *tc = tcase_create(name);
  tcase_set_tags(tc, "gpu");
  tcase_set_timeout(tc, timeout);
  return tc;
}

int main(void) {
  if (!choose_run_seed()) return EXIT_FAILURE;
  printf("gpu_tests: seed %llu (NVFP4_TEST_SEED=%llu runs every test on this data again)\n",
         (unsigned long long)run_seed, (unsigned long long)run_seed);
  fflush(stdout);
  nvfp4_status s = nvfp4_create(&gpu_handle);
  if (s != NVFP4_STATUS_SUCCESS) {
    fprintf(stderr, "gpu_tests: no GPU to test on: %s: %s\n", nvfp4_status_string(s), nvfp4_last_error());
    return EXIT_FAILURE;
  }
  if (nvfp4i_cuda()->cuCtxSetCurrent(gpu_handle->ctx) != CUDA_SUCCESS) {
    fprintf(stderr, "gpu_tests: cannot make the handle's context current\n");
    return EXIT_FAILURE;
  }
  if (!check_path()) {
    nvfp4_destroy(gpu_handle);
    return EXIT_FAILURE;
  }
  /* NVFP4_GPU_SUITE=gemv, gemv_w4a16, grouped, w4a16, gemm, dual, dequantize, grouped_dequantize, quantize,
   * relayout, probes, contract or path runs one suite only */
  const char *only = getenv("NVFP4_GPU_SUITE");
  struct {
    const char *name;
    Suite *(*make)(void);
  } suites[] = {{"gemv", gemv_gpu_suite},
                {"gemv_w4a16", gemv_w4a16_gpu_suite},
                {"grouped", grouped_gemm_gpu_suite},
                {"w4a16", w4a16_gpu_suite},
                {"gemm", gemm_gpu_suite},
                {"dual", dual_gemm_gpu_suite},
                {"dequantize", dequantize_gpu_suite},
                {"grouped_dequantize", grouped_dequantize_gpu_suite},
                {"quantize", quantize_gpu_suite},
                {"relayout", scales_relayout_gpu_suite},
                {"probes", probes_gpu_suite},
                {"contract", contract_gpu_suite},
                {"path", path_gpu_suite}};
  SRunner *runner = srunner_create(NULL);
  int added = 0;
  for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
    if (only == NULL || !strcmp(only, suites[i].name)) {
      srunner_add_suite(runner, suites[i].make());
      added++;
    }
  if (added == 0) { /* a run that tests nothing has not passed */
    fprintf(stderr, "gpu_tests: NVFP4_GPU_SUITE=%s names no suite (gemv, gemv_w4a16, grouped, w4a16, gemm, dual, "
            "dequantize, grouped_dequantize, quantize, relayout, probes, contract, path)\n", only);
    srunner_free(runner);
    nvfp4_destroy(gpu_handle);
    return EXIT_FAILURE;
  }
  srunner_set_fork_status(runner, CK_NOFORK);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  if (not_run > 0)
    printf("gpu_tests: %d group(s) of tests NOT RUN: their operation has no kernel on the %s path (see the "
           "NOT RUN lines); the figure above counts only the tests that ran\n", not_run,
           nvfp4i_path_name(gpu_handle->path));
  nvfp4_destroy(gpu_handle);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
