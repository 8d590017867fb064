/* The kernel path the GPU suites run on: the one asked for (NVFP4_FORCE_PORTABLE=1: the portable kernels, on
 * an H200 JIT-compiled from their PTX; else sm_90a's on compute capability 9.0), and each operation the path
 * has no kernel for answering NOT_SUPPORTED, saying so, rather than a wrong result. */
#include <stdlib.h>
#include <string.h>

#include "handle.h"
#include "suites.h"

START_TEST(the_handle_runs_the_path_asked_for) {
  const char *force = getenv("NVFP4_FORCE_PORTABLE");
  int forced = force != NULL && !strcmp(force, "1");
  int hopper = gpu_handle->cc_major == 9 && gpu_handle->cc_minor == 0;
  nvfp4i_path want = hopper && !forced ? NVFP4I_PATH_SM90A : NVFP4I_PATH_PORTABLE;
  ck_assert_msg(gpu_handle->path == want, "sm_%d%d%s: the handle runs the %s kernels, expected %s",
                gpu_handle->cc_major, gpu_handle->cc_minor, forced ? " with NVFP4_FORCE_PORTABLE=1" : "",
                nvfp4i_path_name(gpu_handle->path), nvfp4i_path_name(want));
  ck_assert_int_eq(gpu_handle->forced_portable, forced && hopper);
  /* the portable image holds cubins for 8.x only: anywhere else its PTX is compiled at load */
  ck_assert_int_eq(gpu_handle->jit, want == NVFP4I_PATH_PORTABLE && gpu_handle->cc_major != 8);
  for (int id = 0; id < NVFP4I_KERNEL_COUNT; id++) {
    const char *name = nvfp4i_kernel_name(gpu_handle->path, (nvfp4i_kernel_id)id);
    ck_assert_msg((gpu_handle->kernels[id].fn != NULL) == (name != NULL), "%s: %s",
                  nvfp4i_kernel_what((nvfp4i_kernel_id)id), name != NULL ? "not loaded" : "loaded without a name");
    ck_assert_msg(gpu_handle->kernels[id].local_bytes == 0, "%s spills %d bytes per thread", name,
                  gpu_handle->kernels[id].local_bytes);
  }
}
END_TEST

/* The verdict of a call the path has no kernel for: NOT_SUPPORTED, naming the path. */
static void assert_not_supported(const char *what, const nvfp4i_verdict *v) {
  ck_assert_msg(v->status == NVFP4_STATUS_NOT_SUPPORTED, "%s on the %s path: status %s (%s)", what,
                nvfp4i_path_name(gpu_handle->path), nvfp4_status_string(v->status), nvfp4_last_error());
  ck_assert_msg(strstr(nvfp4_last_error(), "portable kernel path") != NULL, "%s: message %s", what,
                nvfp4_last_error());
}

START_TEST(operations_without_a_kernel_on_the_path_are_not_supported) {
  const int64_t m[] = {64}, n[] = {128}, k[] = {256};
  nvfp4i_grouped_case g = {.groups = 1, .m = m, .n = n, .k = k, .m_count = 1, .n_count = 1, .k_count = 1,
                           .dtype = NVFP4_DTYPE_F16, .alpha = 1.0f, .seed = gpu_seed(0x70617468)};
  nvfp4i_verdict v;
  int checked = 0;
  const nvfp4i_kernel *kernels = gpu_handle->kernels;
  /* NVFP4 activations: the fused kernel, or f16 tokens in scratch for the W4A16 kernel (the portable way) */
  int nvfp4_grouped = kernels[NVFP4I_KERNEL_GROUPED_GEMM].fn != NULL ||
                      (kernels[NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16].fn != NULL &&
                       kernels[NVFP4I_KERNEL_GROUPED_DEQUANTIZE].fn != NULL && gpu_handle->scratch_pool != NULL);
  if (!nvfp4_grouped) {
    nvfp4i_verify_grouped_gemm(gpu_handle, &g, &v);
    assert_not_supported("grouped gemm", &v);
    nvfp4i_gemm_case d = {.m = 64, .n = 128, .k = 256, .l = 1, .dtype = NVFP4_DTYPE_F16, .alpha = 1.0f,
                          .seed = g.seed};
    nvfp4i_verify_gemm(gpu_handle, &d, &v);
    assert_not_supported("gemm", &v);
    checked++;
  }
  if (gpu_handle->kernels[NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16].fn == NULL) {
    nvfp4i_verify_grouped_gemm_w4a16(gpu_handle, &g, &v);
    assert_not_supported("grouped gemm w4a16", &v);
    checked++;
  }
  if (gpu_handle->kernels[NVFP4I_KERNEL_QUANTIZE].fn == NULL) {
    nvfp4i_quantize_case q = {.rows = 64, .k = 256, .batch = 1, .dtype = NVFP4_DTYPE_BF16, .global_scale = 1.0f,
                              .seed = g.seed};
    nvfp4i_verify_quantize(gpu_handle, &q, &v);
    assert_not_supported("quantize", &v);
    checked++;
  }
  if (checked == 0) printf("gpu_tests: path: every operation has a kernel on the %s path\n",
                           nvfp4i_path_name(gpu_handle->path));
}
END_TEST

Suite *path_gpu_suite(void) {
  Suite *s = suite_create("path gpu");
  TCase *tc = gpu_tcase("kernel path", 60);
  tcase_add_test(tc, the_handle_runs_the_path_asked_for);
  tcase_add_test(tc, operations_without_a_kernel_on_the_path_are_not_supported);
  suite_add_tcase(s, tc);
  return s;
}
