/* W4A16 GEMV (nvfp4_gemv_w4a16) on the GPU against the float64 reference under the docs/ACCURACY.md bar: GPU
 * MODE's GEMV shapes with f16 and bf16 x, tails in M (16-row tiles), K of 1, 2, 3 and odd numbers of chunks (a
 * partial last step of 256), 1 to 8 warps per tile, the largest K, both
 * scale layouts of A (garbage in BLOCKED padding), strided A and y, alpha, every output type, NaN scales, x off
 * its 16-byte alignment (the kernel's 2-byte staging) for every batch or only some, CUDA graph replay, failed
 * calls that write nothing, a chain of dependent calls under programmatic dependent launch (gemv_chain.h),
 * and an image of the W4A16 GEMV alone. Fresh data every run (x with zeros,
 * subnormals and garbage around and between its batches), outputs poisoned before every launch. */
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "gemv_chain.h"
#include "graph_replay.h"
#include "handle.h"
#include "suites.h"
#include "testdata.h"
#include "verify.h"

#define LIN NVFP4_SF_LINEAR
#define BLK NVFP4_SF_BLOCKED_128x4
#define F16 NVFP4_DTYPE_F16
#define BF16 NVFP4_DTYPE_BF16
#define F32 NVFP4_DTYPE_F32

typedef struct gemv_w4a16_gpu_case {
  nvfp4i_gemv_case c;
  int small; /* kept by NVFP4_GPU_QUICK (compute-sanitizer runs) */
} gemv_w4a16_gpu_case;

/* m, k, l, A's layout, y's type, x's type, alpha, A row padding (bytes), y ld, NaN row, x offset and batch
 * padding (elements), small */
#define CASE(m_, k_, l_, al, dt, xdt, alpha_, pad, yld, nan, xoff, xpad, small_)                             \
  {{.m = m_, .k = k_, .l = l_, .a_layout = al, .dtype = dt, .alpha = alpha_, .a_pad = pad, .y_ld = yld,      \
    .nan_row = nan, .x_dtype = xdt, .x_offset = xoff, .x_batch_pad = xpad},                                  \
   small_}

static const gemv_w4a16_gpu_case cases[] = {
    /* GPU MODE's test shapes */
    CASE(128, 256, 1, LIN, F16, F16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(128, 1536, 1, BLK, F16, BF16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(128, 3072, 1, LIN, BF16, F16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(256, 7168, 1, BLK, F16, BF16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(2432, 4608, 2, LIN, F16, F16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(384, 7168, 2, BLK, F16, F16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(512, 512, 2, LIN, F32, BF16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(512, 4096, 2, BLK, BF16, BF16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(512, 1536, 2, LIN, F16, F16, 1.0f, 0, 1, -1, 0, 0, 0),
    /* GPU MODE's benchmark shapes, each with both x types */
    CASE(7168, 16384, 1, LIN, F16, F16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(7168, 16384, 1, BLK, BF16, BF16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(4096, 7168, 8, BLK, F16, F16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(4096, 7168, 8, LIN, F16, BF16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(7168, 2048, 4, LIN, BF16, F16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(7168, 2048, 4, BLK, F32, BF16, 1.0f, 0, 1, -1, 0, 0, 0),
    /* tails in M (the tile is 16 rows); K = 32, 64 and odd numbers of chunks (3, 33, 199, prime); batches */
    CASE(1, 32, 1, LIN, F16, F16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(7, 64, 3, BLK, F32, BF16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(33, 96, 2, LIN, BF16, F16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(129, 1056, 1, BLK, F32, F16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(300, 32, 8, LIN, F16, BF16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(65, 96, 8, BLK, F16, F16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(1000, 640, 5, BLK, BF16, BF16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(1, 16384, 2, LIN, F32, F16, 1.0f, 0, 1, -1, 0, 0, 0),
    /* last steps of 256 that end early (K / 32 = 200, 199, 33: the chunks past K read as the row's last
     * against zero x), with a NaN row in some */
    CASE(300, 6400, 2, LIN, F16, F16, 1.0f, 0, 1, 77, 0, 0, 0),
    CASE(4096, 6400, 8, LIN, F16, BF16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(4096, 6368, 8, BLK, BF16, F16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(5, 6368, 3, LIN, F16, BF16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(4000, 1056, 3, BLK, F16, F16, 1.0f, 0, 1, 3999, 0, 0, 0),
    CASE(257, 1056, 2, BLK, F32, BF16, -0.75f, 32, 3, -1, 0, 0, 1),
    /* last steps of 1..7 chunks (K = 160, 224, 288, 1344), each with warps sharing the tile: 8 warps (one
     * tile, 16 steps), 4 with 6 steps (two warps take one more), 2 (3 tiles a CTA); M past a tile by 1 and 15 */
    CASE(17, 160, 1, LIN, F16, F16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(31, 224, 2, BLK, BF16, BF16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(16, 4096, 1, LIN, F32, F16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(16, 4128, 1, BLK, F16, BF16, 1.0f, 0, 1, 9, 1, 0, 1),
    CASE(40, 1344, 1, LIN, F32, BF16, 1.0f, 0, 1, -1, 0, 0, 1),
    CASE(12600, 288, 1, BLK, F16, F16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(12600, 512, 1, LIN, BF16, BF16, 1.0f, 0, 1, 12599, 3, 0, 0),
    /* long K: past one-trip staging, and the largest x shared memory holds (361 steps of 256) */
    CASE(200, 20480, 1, LIN, F32, F16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(77, 33888, 2, BLK, F16, BF16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(130, 51584, 2, LIN, F32, F16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(130, 92416, 2, BLK, F32, BF16, 1.0f, 0, 1, -1, 0, 0, 0),
    CASE(33, 92416, 1, LIN, F16, F16, 1.0f, 0, 1, -1, 5, 0, 0),
    /* x off its 16-byte alignment: by 1, 3, 4 and 7 elements in every batch (2-byte staging); batches 1, 3
     * or 4 elements apart beyond K, so x of some batches is aligned and of others not */
    CASE(100, 1024, 1, LIN, F16, F16, 1.0f, 0, 1, -1, 1, 0, 1),
    CASE(257, 2048, 2, BLK, BF16, BF16, 1.0f, 0, 1, -1, 3, 0, 1),
    CASE(64, 32, 3, LIN, F32, F16, 1.0f, 0, 1, -1, 7, 0, 1),
    CASE(513, 6368, 3, BLK, F16, BF16, 1.0f, 0, 1, -1, 4, 0, 0),
    CASE(300, 2048, 4, LIN, F16, F16, 1.0f, 0, 1, -1, 0, 1, 1),
    CASE(33, 1056, 5, BLK, F32, BF16, 1.0f, 0, 1, -1, 0, 4, 1),
    CASE(4096, 7168, 8, LIN, F16, F16, 1.0f, 0, 1, -1, 5, 3, 0),
    CASE(77, 33888, 3, BLK, BF16, F16, 1.0f, 0, 1, -1, 2, 4, 0),
    /* strided A and y, alpha, every output type with either x type */
    CASE(257, 2048, 2, LIN, F16, BF16, 0.5f, 48, 3, -1, 0, 8, 1),
    CASE(130, 4096, 3, BLK, BF16, F16, -2.5f, 16, 2, -1, 1, 0, 0),
    CASE(1000, 512, 1, LIN, F32, BF16, 0.3333333f, 16, 5, -1, 0, 0, 1),
    /* a NaN scale turns exactly its row into NaN */
    CASE(100, 1024, 1, LIN, F16, BF16, 1.0f, 0, 1, 37, 0, 0, 1),
    CASE(300, 2048, 2, BLK, BF16, F16, 1.0f, 0, 1, 258, 3, 1, 0),
};
enum { CASE_COUNT = sizeof cases / sizeof cases[0] };

static int selected[CASE_COUNT], selected_count;

static void select_cases(void) {
  selected_count = gpu_select_cases(&cases[0].small, sizeof cases[0], CASE_COUNT, selected);
}

START_TEST(gemv_w4a16_matches_reference) {
  nvfp4i_gemv_case c = cases[selected[_i]].c;
  c.seed = gpu_seed(0x77340000u + 0x100u + (uint64_t)selected[_i]);
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_gemv_w4a16(gpu_handle, &c, &v);
  ck_assert_msg(pass,
                "gemv_w4a16 m=%lld k=%lld l=%lld a_layout=%d dtype=%d x_dtype=%d alpha=%g x_offset=%lld "
                "x_batch_pad=%lld seed=%llu (NVFP4_TEST_SEED=%llu): status %s (%s), %lld/%lld outside the bar, "
                "%lld stray writes, worst %s",
                (long long)c.m, (long long)c.k, (long long)c.l, c.a_layout, c.dtype, c.x_dtype, c.alpha,
                (long long)c.x_offset, (long long)c.x_batch_pad, (unsigned long long)c.seed,
                (unsigned long long)gpu_run_seed(), nvfp4_status_string(v.status), nvfp4_last_error(),
                (long long)v.failures, (long long)v.checked, (long long)v.clobbered, v.detail);
}
END_TEST

/* Replaying a captured graph gives the same bits as a direct launch; x of batch 0 aligned, of batch 1 not. */
typedef struct gemv_w4a16_graph_arg {
  const nvfp4i_operand *a;
  const nvfp4i_dense_operand *x;
} gemv_w4a16_graph_arg;

static nvfp4_status launch_gemv_w4a16(void *arg, CUdeviceptr out, CUstream stream) {
  gemv_w4a16_graph_arg *g = arg;
  nvfp4_output y = {(void *)(uintptr_t)out, 1, g->a->dev.rows, F16};
  return nvfp4_gemv_w4a16(gpu_handle, &g->a->dev, &g->x->dev, &y, 1.5f, stream);
}

START_TEST(gemv_w4a16_graph_replay_matches_direct_launch) {
  uint64_t seed = gpu_seed(0x77677270);
  nvfp4i_rng rng = {seed};
  nvfp4i_operand a;
  nvfp4i_dense_operand x;
  ck_assert_int_eq(nvfp4i_operand_create(&a, 777, 4096, 2, BLK, 0, &rng), NVFP4_STATUS_SUCCESS);
  ck_assert_int_eq(nvfp4i_dense_operand_create_laid_out(&x, 1, 4096, 2, BF16, 4096, 4096 + 3, 0, &rng),
                   NVFP4_STATUS_SUCCESS);
  gemv_w4a16_graph_arg arg = {&a, &x};
  assert_graph_replay_matches(launch_gemv_w4a16, &arg, 777 * 2 * sizeof(uint16_t), seed);
  nvfp4i_operand_destroy(&a);
  nvfp4i_dense_operand_destroy(&x);
}
END_TEST

/* Calls each broken in one argument write no output byte; the same call unbroken then writes all of it, so the
 * check could see a write. */
enum { FAIL_M = 300, FAIL_K = 1024, FAIL_L = 2 };

START_TEST(a_rejected_gemv_w4a16_writes_no_output_byte) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  uint64_t seed = gpu_seed(0xFA12);
  nvfp4i_rng rng = {seed};
  nvfp4i_operand a;
  nvfp4i_dense_operand x;
  ck_assert_int_eq(nvfp4i_operand_create(&a, FAIL_M, FAIL_K, FAIL_L, LIN, 0, &rng), NVFP4_STATUS_SUCCESS);
  ck_assert_int_eq(nvfp4i_dense_operand_create_laid_out(&x, 1, FAIL_K, FAIL_L, F16, FAIL_K, FAIL_K + 1, 1, &rng),
                   NVFP4_STATUS_SUCCESS);
  size_t count = FAIL_M * FAIL_L;
  CUdeviceptr d_y;
  ck_assert_int_eq(cu->cuMemAlloc(&d_y, count * sizeof(uint16_t)), CUDA_SUCCESS);
  ck_assert_int_eq(cu->cuMemsetD8(d_y, 0xFF, count * sizeof(uint16_t)), CUDA_SUCCESS);
  const nvfp4_output y = {(void *)(uintptr_t)d_y, 1, FAIL_M, F16};
  nvfp4_dense f32_x = x.dev, two_row_x = x.dev, mismatched_x = x.dev;
  f32_x.dtype = F32;             /* NOT_SUPPORTED */
  two_row_x.rows = 2;            /* INVALID_VALUE */
  two_row_x.ld = FAIL_K;
  two_row_x.batch_stride = 2 * FAIL_K;
  mismatched_x.batch = FAIL_L + 1; /* INVALID_VALUE */
  nvfp4_tensor misaligned_a = a.dev;
  misaligned_a.data = (const uint8_t *)a.dev.data + 8; /* NOT_SUPPORTED */
  nvfp4_output overlapping = y;
  overlapping.batch_stride = FAIL_M - 1; /* INVALID_VALUE */
  const struct {
    const char *what;
    const nvfp4_tensor *a;
    const nvfp4_dense *x;
    const nvfp4_output *y;
  } calls[] = {{"x f32", &a.dev, &f32_x, &y},
               {"x.rows 2", &a.dev, &two_row_x, &y},
               {"x.batch != a.batch", &a.dev, &mismatched_x, &y},
               {"a.data misaligned", &misaligned_a, &x.dev, &y},
               {"y batches overlap", &a.dev, &x.dev, &overlapping}};
  uint16_t *host = malloc(count * sizeof(uint16_t));
  ck_assert_ptr_nonnull(host);
  for (size_t i = 0; i <= sizeof calls / sizeof calls[0]; i++) {
    int valid = i == sizeof calls / sizeof calls[0];
    nvfp4_status s = valid ? nvfp4_gemv_w4a16(gpu_handle, &a.dev, &x.dev, &y, 1.0f, NULL)
                           : nvfp4_gemv_w4a16(gpu_handle, calls[i].a, calls[i].x, calls[i].y, 1.0f, NULL);
    ck_assert_msg(valid ? s == NVFP4_STATUS_SUCCESS : s != NVFP4_STATUS_SUCCESS, "%s: %s",
                  valid ? "the valid call" : calls[i].what, nvfp4_last_error());
    ck_assert_int_eq(cu->cuCtxSynchronize(), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuMemcpyDtoH(host, d_y, count * sizeof(uint16_t)), CUDA_SUCCESS);
    size_t written = 0;
    for (size_t e = 0; e < count; e++) written += host[e] != 0xFFFF;
    ck_assert_msg(written == (valid ? count : 0), "%s: %zu of %zu outputs written (seed %llu, NVFP4_TEST_SEED=%llu)",
                  valid ? "the valid call" : calls[i].what, written, count, (unsigned long long)seed,
                  (unsigned long long)gpu_run_seed());
  }
  free(host);
  cu->cuMemFree(d_y);
  nvfp4i_operand_destroy(&a);
  nvfp4i_dense_operand_destroy(&x);
}
END_TEST

/* Issue 13's chain: 100 W4A16 GEMVs with M = K, f16 x and y, each x the y of the call before, back to back
 * under programmatic dependent launch with the weights-stable option off and then on, bit for bit the chain
 * with a synchronise after every call, whose every step meets the reference. m = K = 4096: 256 CTAs of 16
 * rows, whose ends are ragged, so a kernel that read x before the one before it ended would read poison
 * (the unwritten slots are NaN) or a partial y. */
static nvfp4_status w4a16_chain_step(const gpu_chain *c, int i) {
  nvfp4_dense x = {(const void *)(uintptr_t)gpu_chain_slot(c, i), 1, c->m, 1, c->m, c->m, F16};
  nvfp4_output y = {(void *)(uintptr_t)gpu_chain_slot(c, i + 1), 1, c->m, F16};
  return nvfp4_gemv_w4a16(c->h, &c->a.dev, &x, &y, c->alpha[i], c->stream);
}

START_TEST(a_chain_of_dependent_w4a16_gemvs_matches_the_synchronised_chain) {
  gpu_chain c;
  gpu_chain_create(&c, gpu_quick() ? 1024 : 4096, gpu_quick() ? 12 : 100, BLK, gpu_seed(0x63686E31));
  double *x = malloc(sizeof(double) * (size_t)c.m);
  ck_assert_ptr_nonnull(x);
  for (int i = 0; i < c.steps; i++) {
    for (int64_t k = 0; k < c.m; k++) x[k] = nvfp4i_f16_value(c.want[(size_t)i * (size_t)c.m + (size_t)k]);
    gpu_chain_reference(&c, i, x);
    ck_assert_msg(w4a16_chain_step(&c, i) == NVFP4_STATUS_SUCCESS, "step %d: %s", i, nvfp4_last_error());
    gpu_chain_check_step(&c, i, "w4a16 chain");
  }
  free(x);
  for (int stable = 0; stable <= 1; stable++) {
    ck_assert_int_eq(nvfp4_set_weights_stable(c.h, stable), NVFP4_STATUS_SUCCESS);
    gpu_chain_begin(&c);
    for (int i = 0; i < c.steps; i++)
      ck_assert_msg(w4a16_chain_step(&c, i) == NVFP4_STATUS_SUCCESS, "step %d: %s", i, nvfp4_last_error());
    gpu_chain_end(&c, stable ? "w4a16 chain back to back, weights stable" : "w4a16 chain back to back");
  }
  gpu_chain_destroy(&c);
}
END_TEST

/* The default mode's chain with f16 x: the weights quantized by the kernel just before each W4A16 GEMV
 * (gpu_weights_chain). m = K = 4096 (A BLOCKED). */
static nvfp4_status weights_chain_gemv(const gpu_chain *c, const void *x, int i) {
  nvfp4_output y = {(void *)(uintptr_t)gpu_chain_slot(c, i + 1), 1, c->m, F16};
  return nvfp4_gemv_w4a16(c->h, &c->a.dev, &((const nvfp4i_dense_operand *)x)->dev, &y, c->alpha[i], c->stream);
}

START_TEST(a_chain_of_w4a16_gemvs_on_weights_the_kernel_before_quantized_matches_the_synchronised_chain) {
  gpu_chain c;
  gpu_chain_create(&c, gpu_quick() ? 1024 : 4096, gpu_quick() ? 6 : 100, BLK, gpu_seed(0x63686E34));
  nvfp4i_dense_operand x;
  ck_assert_int_eq(nvfp4i_dense_operand_create(&x, 1, c.m, 1, F16, 0, &c.rng), NVFP4_STATUS_SUCCESS);
  double *x_values = malloc(sizeof(double) * (size_t)c.m);
  ck_assert_ptr_nonnull(x_values);
  for (int64_t k = 0; k < c.m; k++) x_values[k] = nvfp4i_f16_value(((const uint16_t *)x.host.data)[k]);
  gpu_weights_chain(&c, weights_chain_gemv, &x, x_values, "w4a16 weights chain back to back");
  free(x_values);
  nvfp4i_dense_operand_destroy(&x);
  gpu_chain_destroy(&c);
}
END_TEST

/* NVFP4_FATBIN naming the W4A16 GEMV's preprocessed .ptx alone (compiled by the driver at load): the handle
 * loads, the W4A16 GEMV runs from it and is right, the NVFP4 GEMV says NOT_SUPPORTED. */
START_TEST(gemv_w4a16_runs_from_an_image_of_its_own_family) {
  char ptx[4096]; /* the family's PTX for the handle's path: that path's entry names */
  snprintf(ptx, sizeof ptx, "%s", gpu_family_ptx("gemv_w4a16"));
  setenv("NVFP4_FATBIN", ptx, 1);
  nvfp4_handle *h;
  nvfp4_status s = nvfp4_create(&h);
  unsetenv("NVFP4_FATBIN");
  ck_assert_msg(s == NVFP4_STATUS_SUCCESS, "NVFP4_FATBIN=%s: %s", ptx, nvfp4_last_error());
  nvfp4i_gemv_case c = {.m = 300, .k = 2048, .l = 2, .a_layout = BLK, .dtype = BF16, .alpha = 0.5f,
                        .seed = gpu_seed(0x696D6168), .y_ld = 1, .nan_row = -1, .x_dtype = F16, .x_offset = 1};
  nvfp4i_verdict v, nv;
  int pass = nvfp4i_verify_gemv_w4a16(h, &c, &v);
  c.x_layout = LIN;
  nvfp4i_verify_gemv(h, &c, &nv);
  nvfp4_destroy(h);
  ck_assert_msg(pass, "gemv_w4a16 from gemv_w4a16.ptx (seed %llu, NVFP4_TEST_SEED=%llu): status %s, %lld outside "
                "the bar, worst %s", (unsigned long long)c.seed, (unsigned long long)gpu_run_seed(),
                nvfp4_status_string(v.status), (long long)v.failures, v.detail);
  ck_assert_msg(nv.status == NVFP4_STATUS_NOT_SUPPORTED, "nvfp4_gemv from gemv_w4a16.ptx: status %s",
                nvfp4_status_string(nv.status));
}
END_TEST

Suite *gemv_w4a16_gpu_suite(void) {
  Suite *s = suite_create("gemv w4a16 gpu");
  TCase *shapes = gpu_tcase("gemv w4a16 shapes", 600);
  select_cases();
  tcase_add_loop_test(shapes, gemv_w4a16_matches_reference, 0, selected_count);
  suite_add_tcase(s, shapes);
  TCase *usage = gpu_tcase("gemv w4a16 graphs and failed calls", 120);
  tcase_add_test(usage, gemv_w4a16_graph_replay_matches_direct_launch);
  tcase_add_test(usage, a_rejected_gemv_w4a16_writes_no_output_byte);
  suite_add_tcase(s, usage);
  TCase *chain = gpu_tcase("gemv w4a16 chains under programmatic dependent launch", 300);
  tcase_add_test(chain, a_chain_of_dependent_w4a16_gemvs_matches_the_synchronised_chain);
  tcase_add_test(chain, a_chain_of_w4a16_gemvs_on_weights_the_kernel_before_quantized_matches_the_synchronised_chain);
  suite_add_tcase(s, chain);
  /* tagged "image": the kernels the image lacks make the driver answer CUDA_ERROR_NOT_FOUND, which
   * compute-sanitizer counts as API errors; its runs exclude the tag */
  TCase *image = gpu_tcase("gemv w4a16 from an image of its own family", 120);
  tcase_set_tags(image, "gpu image");
  tcase_add_test(image, gemv_w4a16_runs_from_an_image_of_its_own_family);
  suite_add_tcase(s, image);
  return s;
}
