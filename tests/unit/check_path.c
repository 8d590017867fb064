/* The kernel path a handle takes (host/module.c): sm_90a's kernels on compute capability 9.0, the portable
 * ones on every other GPU and on 9.0 with NVFP4_FORCE_PORTABLE=1; the portable image JIT-compiled where no
 * cubin of it fits; launches of the chosen path's entries only; and an NVFP4 grouped GEMM without the
 * scratch its portable route needs refused (NOT_SUPPORTED, saying so) with nothing launched. Each test runs forked on the fake driver, with the
 * compute capability FAKE_CUDA_CC gives it. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_driver.h"
#include "handle.h"
#include "suites.h"

static const struct {
  const char *cc;
  nvfp4i_path path;
  int jit; /* no cubin of the path's image fits */
} devices[] = {
    {"8.0", NVFP4I_PATH_PORTABLE, 0}, {"8.6", NVFP4I_PATH_PORTABLE, 0}, {"8.9", NVFP4I_PATH_PORTABLE, 0},
    {"9.0", NVFP4I_PATH_SM90A, 0},    {"10.0", NVFP4I_PATH_PORTABLE, 1}, {"12.0", NVFP4I_PATH_PORTABLE, 1},
};

enum { M = 100, K = 256 };
static _Alignas(16) uint8_t fake_a[16], fake_x[16], fake_sf[16];
static uint16_t y_buffer[M];

static nvfp4_status call_gemv(void) {
  nvfp4_tensor a = {fake_a, fake_sf, M, K, 1, K / 2, M * K / 2, K / 16, M * K / 16, NVFP4_SF_LINEAR};
  nvfp4_tensor x = {fake_x, fake_sf, 1, K, 1, K / 2, K / 2, K / 16, K / 16, NVFP4_SF_LINEAR};
  nvfp4_output y = {y_buffer, 1, M, NVFP4_DTYPE_F16};
  return nvfp4_gemv(fake_handle, &a, &x, &y, 1.0f, NULL);
}

/* The entry of the last launch ends in the path's suffix. */
static void assert_last_launch_on(nvfp4i_path path) {
  CUlaunchConfig config;
  const char *entry;
  fake_launch(fake_launches() - 1, &entry, &config);
  const char *suffix = path == NVFP4I_PATH_SM90A ? "_sm90a" : "_sm80";
  size_t n = strlen(entry), s = strlen(suffix);
  ck_assert_msg(n > s && !strcmp(entry + n - s, suffix), "launched %s, expected an entry ending in %s", entry,
                suffix);
}

START_TEST(the_compute_capability_chooses_the_path) {
  setenv("FAKE_CUDA_CC", devices[_i].cc, 1);
  create_fake_handle();
  ck_assert_msg(fake_handle->path == devices[_i].path, "sm %s: path %s", devices[_i].cc,
                nvfp4i_path_name(fake_handle->path));
  ck_assert_int_eq(fake_handle->jit, devices[_i].jit);
  ck_assert_int_eq(fake_handle->forced_portable, 0);
  ck_assert_msg(call_gemv() == NVFP4_STATUS_SUCCESS, "sm %s: %s", devices[_i].cc, nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
  assert_last_launch_on(devices[_i].path);
  destroy_fake_handle();
}
END_TEST

START_TEST(force_portable_makes_a_hopper_run_the_portable_kernels_through_the_jit) {
  setenv("NVFP4_FORCE_PORTABLE", "1", 1);
  create_fake_handle();
  ck_assert_int_eq(fake_handle->path, NVFP4I_PATH_PORTABLE);
  ck_assert_int_eq(fake_handle->forced_portable, 1);
  ck_assert_int_eq(fake_handle->jit, 1); /* the portable image has no sm_90 cubin */
  ck_assert_msg(call_gemv() == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  assert_last_launch_on(NVFP4I_PATH_PORTABLE);
  destroy_fake_handle();
}
END_TEST

START_TEST(force_portable_takes_only_the_value_1) {
  setenv("NVFP4_FORCE_PORTABLE", "0", 1);
  create_fake_handle();
  ck_assert_int_eq(fake_handle->path, NVFP4I_PATH_SM90A);
  destroy_fake_handle();
}
END_TEST

/* Whether the GEMV's launch lets it start early (programmatic dependent launch), with `ptx` as every kernel's
 * virtual architecture: sm_90a's kernels always (they all wait in griddepcontrol.wait); the portable image's
 * where the driver built them from its sm_90 PTX (sm_90 forced, sm_100, sm_120), not from sm_80 code. */
static void assert_gemv_early_start(const char *cc, const char *ptx, int force_portable, int expected) {
  setenv("FAKE_CUDA_CC", cc, 1);
  setenv("FAKE_PTX_VERSION", ptx, 1);
  if (force_portable) setenv("NVFP4_FORCE_PORTABLE", "1", 1);
  create_fake_handle();
  ck_assert_msg(fake_handle->kernels_wait == expected, "sm %s, compute_%s: kernels_wait %d", cc, ptx,
                fake_handle->kernels_wait);
  ck_assert_msg(call_gemv() == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  CUlaunchConfig config;
  const char *entry;
  fake_launch(fake_launches() - 1, &entry, &config);
  ck_assert_msg((int)config.numAttrs == expected, "sm %s, compute_%s: %s launched with %u attributes", cc, ptx,
                entry, config.numAttrs);
  if (expected) ck_assert_int_eq(config.attrs[0].id, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
  destroy_fake_handle();
  unsetenv("NVFP4_FORCE_PORTABLE");
}

START_TEST(only_kernels_built_for_sm90_are_launched_early) {
  assert_gemv_early_start("9.0", "0", 0, 1);   /* sm_90a, whatever the driver says */
  assert_gemv_early_start("9.0", "90", 1, 1);  /* forced portable: the sm_90 PTX */
  assert_gemv_early_start("10.0", "90", 0, 1); /* Blackwell: the sm_90 PTX */
  assert_gemv_early_start("8.6", "80", 0, 0);  /* Ampere: sm_80 code, no griddepcontrol */
  assert_gemv_early_start("12.0", "80", 0, 0); /* an image whose kernels came from sm_80 PTX */
}
END_TEST

/* Every kernel of the table on the portable path: the portable entry or none, never an sm_90a one. */
START_TEST(the_portable_path_resolves_no_sm90a_entry) {
  setenv("FAKE_CUDA_CC", "8.6", 1);
  create_fake_handle();
  for (int id = 0; id < NVFP4I_KERNEL_COUNT; id++) {
    const char *name = nvfp4i_kernel_name(NVFP4I_PATH_PORTABLE, (nvfp4i_kernel_id)id);
    ck_assert_msg((fake_handle->kernels[id].fn != NULL) == (name != NULL), "kernel %d", id);
    if (name != NULL) ck_assert_msg(strstr(name, "sm90a") == NULL, "portable entry %s", name);
  }
  destroy_fake_handle();
}
END_TEST

/* NVFP4 activations on the portable path go through f16 tokens in scratch (it has no fused kernel): without
 * memory pools NOT_SUPPORTED, saying why, nothing launched. */
START_TEST(an_nvfp4_grouped_gemm_without_memory_pools_is_not_supported_on_the_portable_path) {
  setenv("NVFP4_FORCE_PORTABLE", "1", 1);
  create_fake_handle();
  enum { N = 64 };
  nvfp4_tensor a = {fake_a, fake_sf, M, K, 1, K / 2, M * K / 2, K / 16, M * K / 16, NVFP4_SF_LINEAR};
  nvfp4_tensor b = {fake_a, fake_sf, N, K, 1, K / 2, N * K / 2, K / 16, N * K / 16, NVFP4_SF_LINEAR};
  nvfp4_output c = {y_buffer, N, M * N, NVFP4_DTYPE_F16};
  nvfp4_status status = nvfp4_grouped_gemm(fake_handle, 1, &a, &b, &c, 1.0f, NULL);
  assert_rejected("grouped GEMM", status, NVFP4_STATUS_NOT_SUPPORTED,
                  "the portable kernel path runs NVFP4 activations dequantized to f16 in scratch from a "
                  "memory pool, and this device has none");
  status = nvfp4_gemm(fake_handle, &a, &b, &c, 1.0f, NULL);
  assert_rejected("dense GEMM", status, NVFP4_STATUS_NOT_SUPPORTED, "scratch from a memory pool");
  destroy_fake_handle();
}
END_TEST

/* The GEMV keeps x in shared memory: a GPU with less of it takes shorter rows (8.6: 99 KB a block). */
START_TEST(the_gemv_takes_the_k_the_device_has_shared_memory_for) {
  setenv("FAKE_CUDA_CC", "8.6", 1);
  create_fake_handle();
  enum { LONG_K = 98304 }; /* x: 3072 chunks of 40 bytes, 120 KB */
  static _Alignas(16) uint8_t data[16];
  nvfp4_tensor a = {data, fake_sf, 1, LONG_K, 1, LONG_K / 2, LONG_K / 2, LONG_K / 16, LONG_K / 16, NVFP4_SF_LINEAR};
  nvfp4_tensor x = a;
  nvfp4_output y = {y_buffer, 1, 1, NVFP4_DTYPE_F16};
  assert_rejected("K past 8.6's shared memory", nvfp4_gemv(fake_handle, &a, &x, &y, 1.0f, NULL),
                  NVFP4_STATUS_NOT_SUPPORTED, "K <= 81088 on this GPU");
  destroy_fake_handle();
}
END_TEST

/* nvfp4_create binds to the thread's current context, or retains device 0's primary context without one. */
START_TEST(a_handle_binds_to_the_current_context_or_retains_the_primary_one) {
  create_fake_handle(); /* no context current: the primary one, retained */
  ck_assert_int_eq(fake_handle->retained_primary, 1);
  CUcontext primary = fake_handle->ctx;
  ck_assert_ptr_nonnull(primary);
  destroy_fake_handle();
  ck_assert_int_eq(nvfp4i_cuda()->cuCtxSetCurrent(primary), CUDA_SUCCESS);
  create_fake_handle();
  ck_assert_int_eq(fake_handle->retained_primary, 0);
  ck_assert_ptr_eq(fake_handle->ctx, primary);
  ck_assert_msg(call_gemv() == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  destroy_fake_handle();
}
END_TEST

/* ---- NVFP4_FATBIN: an image file of one's own in place of the embedded one (README, "Tuning a kernel") */

/* Writes `bytes` bytes of `content` to a new temporary file; returns its path (static storage). */
static const char *image_file(const void *content, size_t bytes) {
  static char path[] = "/tmp/nvfp4-image-XXXXXX";
  memcpy(path + strlen(path) - 6, "XXXXXX", 6);
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, content, bytes), (ssize_t)bytes);
  close(fd);
  return path;
}

START_TEST(an_image_file_replaces_the_embedded_image) {
  static const unsigned char cubin[64] = {0x7F, 'E', 'L', 'F'};
  const char *path = image_file(cubin, sizeof cubin);
  setenv("NVFP4_FATBIN", path, 1);
  create_fake_handle();
  ck_assert_str_eq(fake_handle->image_source, path);
  ck_assert_int_eq(fake_handle->jit, 0); /* a cubin: no compilation */
  ck_assert_msg(call_gemv() == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  destroy_fake_handle();
  unlink(path);
  static const char ptx[] = ".version 8.0\n.target sm_90a\n.address_size 64\n";
  path = image_file(ptx, sizeof ptx - 1);
  setenv("NVFP4_FATBIN", path, 1);
  create_fake_handle();
  ck_assert_int_eq(fake_handle->jit, 1); /* PTX text: the driver compiles it */
  destroy_fake_handle();
  unlink(path);
}
END_TEST

/* A file that cannot be opened or read, or is too short to be an image: nvfp4_create fails, naming it, and
 * sets the handle to NULL. */
START_TEST(an_image_file_that_is_no_image_fails_nvfp4_create_naming_it) {
  setenv("NVFP4_LIBCUDA", test_build_file(UNIT_FAKE_LIBCUDA), 1);
  const char *path = image_file("", 0);
  const struct {
    const char *file, *message;
  } cases[] = {{"/nonexistent/nvfp4.fatbin", "NVFP4_FATBIN: cannot open /nonexistent/nvfp4.fatbin"},
               {path, "holds 0 bytes, no kernel image"},
               {"/tmp", "NVFP4_FATBIN: /tmp is not a file"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    setenv("NVFP4_FATBIN", cases[i].file, 1);
    nvfp4_handle *h = (nvfp4_handle *)&h; /* set to NULL on failure */
    ck_assert_int_eq(nvfp4_create(&h), NVFP4_STATUS_INVALID_VALUE);
    ck_assert_ptr_null(h);
    ck_assert_msg(strstr(nvfp4_last_error(), cases[i].message) != NULL, "%s: message '%s' lacks '%s'",
                  cases[i].file, nvfp4_last_error(), cases[i].message);
  }
  unlink(path);
}
END_TEST

Suite *path_suite(void) {
  Suite *s = suite_create("path");
  TCase *tc = tcase_create("kernel path by compute capability");
  tcase_add_loop_test(tc, the_compute_capability_chooses_the_path, 0, (int)(sizeof devices / sizeof devices[0]));
  tcase_add_test(tc, force_portable_makes_a_hopper_run_the_portable_kernels_through_the_jit);
  tcase_add_test(tc, force_portable_takes_only_the_value_1);
  tcase_add_test(tc, the_portable_path_resolves_no_sm90a_entry);
  tcase_add_test(tc, only_kernels_built_for_sm90_are_launched_early);
  tcase_add_test(tc, an_nvfp4_grouped_gemm_without_memory_pools_is_not_supported_on_the_portable_path);
  tcase_add_test(tc, the_gemv_takes_the_k_the_device_has_shared_memory_for);
  tcase_add_test(tc, a_handle_binds_to_the_current_context_or_retains_the_primary_one);
  suite_add_tcase(s, tc);
  TCase *image = tcase_create("an image file of one's own (NVFP4_FATBIN)");
  tcase_add_test(image, an_image_file_replaces_the_embedded_image);
  tcase_add_test(image, an_image_file_that_is_no_image_fails_nvfp4_create_naming_it);
  suite_add_tcase(s, image);
  return s;
}
