/* Runs the GPU suites in this process (CUDA does not survive fork). Without a usable GPU it fails: a GPU
 * suite that could not run has not passed. NVFP4_GPU_QUICK=1 keeps only the small cases (for
 * compute-sanitizer runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handle.h"
#include "suites.h"

nvfp4_handle *gpu_handle;

int gpu_quick(void) {
  const char *quick = getenv("NVFP4_GPU_QUICK");
  return quick != NULL && quick[0] == '1';
}

TCase *gpu_tcase(const char *name, double timeout) {
  TCase *tc = tcase_create(name);
  tcase_set_tags(tc, "gpu");
  tcase_set_timeout(tc, timeout);
  return tc;
}

int main(void) {
  nvfp4_status s = nvfp4_create(&gpu_handle);
  if (s != NVFP4_STATUS_SUCCESS) {
    fprintf(stderr, "gpu_tests: no GPU to test on: %s: %s\n", nvfp4_status_string(s), nvfp4_last_error());
    return EXIT_FAILURE;
  }
  if (nvfp4i_cuda()->cuCtxSetCurrent(gpu_handle->ctx) != CUDA_SUCCESS) {
    fprintf(stderr, "gpu_tests: cannot make the handle's context current\n");
    return EXIT_FAILURE;
  }
  /* NVFP4_GPU_SUITE=gemv, grouped or probes runs one suite only */
  const char *only = getenv("NVFP4_GPU_SUITE");
  struct {
    const char *name;
    Suite *(*make)(void);
  } suites[] = {{"gemv", gemv_gpu_suite}, {"grouped", grouped_gemm_gpu_suite}, {"probes", probes_gpu_suite}};
  SRunner *runner = srunner_create(NULL);
  int added = 0;
  for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
    if (only == NULL || !strcmp(only, suites[i].name)) {
      srunner_add_suite(runner, suites[i].make());
      added++;
    }
  if (added == 0) { /* a run that tests nothing has not passed */
    fprintf(stderr, "gpu_tests: NVFP4_GPU_SUITE=%s names no suite (gemv, grouped, probes)\n", only);
    srunner_free(runner);
    nvfp4_destroy(gpu_handle);
    return EXIT_FAILURE;
  }
  srunner_set_fork_status(runner, CK_NOFORK);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  nvfp4_destroy(gpu_handle);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
