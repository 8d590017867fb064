/* GEMV on the GPU against the float64 reference under the accuracy bar of docs/ACCURACY.md, fresh random
 * full-range data and a poisoned output for every case; graphs, threads, and a chain of dependent calls under
 * programmatic dependent launch (gemv_chain.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemv_chain.h"
#include "graph_replay.h"
#include "handle.h"
#include "quantize_ref.h"
#include "reference.h"
#include "suites.h"
#include "testdata.h"
#include "verify.h"

#define LIN NVFP4_SF_LINEAR
#define BLK NVFP4_SF_BLOCKED_128x4
#define F16 NVFP4_DTYPE_F16
#define BF16 NVFP4_DTYPE_BF16
#define F32 NVFP4_DTYPE_F32

/* m, k, l, A layout, x layout, dtype, alpha, A row padding, y ld, NaN row, small (kept by NVFP4_GPU_QUICK) */
typedef struct gemv_gpu_case {
  nvfp4i_gemv_case c;
  int small;
} gemv_gpu_case;

#define CASE(m_, k_, l_, al, xl, dt, alpha_, pad, yld, nan, small_)                                        \
  {{.m = m_, .k = k_, .l = l_, .a_layout = al, .x_layout = xl, .dtype = dt, .alpha = alpha_, .a_pad = pad, \
    .y_ld = yld, .nan_row = nan},                                                                          \
   small_}

static const gemv_gpu_case cases[] = {
    /* GPU MODE's test shapes */
    CASE(128, 256, 1, LIN, LIN, F16, 1.0f, 0, 1, -1, 1),
    CASE(128, 1536, 1, BLK, BLK, F16, 1.0f, 0, 1, -1, 1),
    CASE(128, 3072, 1, LIN, BLK, BF16, 1.0f, 0, 1, -1, 0),
    CASE(256, 7168, 1, BLK, LIN, F16, 1.0f, 0, 1, -1, 0),
    CASE(2432, 4608, 2, LIN, LIN, F16, 1.0f, 0, 1, -1, 0),
    CASE(384, 7168, 2, BLK, BLK, F16, 1.0f, 0, 1, -1, 0),
    CASE(512, 512, 2, LIN, LIN, F32, 1.0f, 0, 1, -1, 1),
    CASE(512, 4096, 2, BLK, BLK, BF16, 1.0f, 0, 1, -1, 0),
    CASE(512, 1536, 2, LIN, BLK, F16, 1.0f, 0, 1, -1, 0),
    /* GPU MODE's benchmark shapes */
    CASE(7168, 16384, 1, LIN, LIN, F16, 1.0f, 0, 1, -1, 0),
    CASE(4096, 7168, 8, BLK, BLK, F16, 1.0f, 0, 1, -1, 0),
    CASE(7168, 2048, 4, LIN, LIN, BF16, 1.0f, 0, 1, -1, 0),
    /* tails in M, short and odd K, many batches */
    CASE(1, 256, 1, LIN, LIN, F16, 1.0f, 0, 1, -1, 1),
    CASE(7, 1056, 3, BLK, BLK, F16, 1.0f, 0, 1, -1, 1),
    CASE(129, 1056, 1, LIN, LIN, F32, 1.0f, 0, 1, -1, 1),
    CASE(1000, 640, 5, BLK, LIN, BF16, 1.0f, 0, 1, -1, 0),
    CASE(300, 32, 8, LIN, LIN, F16, 1.0f, 0, 1, -1, 1),
    CASE(33, 32, 1, BLK, BLK, F32, 1.0f, 0, 1, -1, 1),
    CASE(1, 16384, 2, LIN, LIN, F32, 1.0f, 0, 1, -1, 0),
    CASE(65, 96, 8, BLK, BLK, F16, 1.0f, 0, 1, -1, 1),
    /* chunk counts (K / 32) that the widest group does not divide: 200 on 128 lanes (one quad per CTA) with
     * a NaN row, where the equal-steps entry runs steps past the row, guarded; 200 with 32 quads per CTA,
     * where the host narrows the groups to 8 lanes; 199 (prime), which no width divides, with many quads
     * per CTA (32 lanes) and with one quad (128 lanes); 33 on 16 lanes; 33 with strided A and y and alpha.
     * Shapes above run it too: 48 and 33 chunks on 32 lanes, 144, 20, 3, 1; and 1059 on 256 lanes below. */
    CASE(300, 6400, 2, LIN, LIN, F16, 1.0f, 0, 1, 77, 0),
    CASE(4096, 6400, 8, LIN, BLK, F16, 1.0f, 0, 1, -1, 0),
    CASE(4096, 6368, 8, BLK, LIN, BF16, 1.0f, 0, 1, -1, 0),
    CASE(5, 6368, 3, LIN, LIN, F16, 1.0f, 0, 1, -1, 1),
    CASE(4000, 1056, 3, BLK, BLK, F16, 1.0f, 0, 1, 3999, 0),
    CASE(257, 1056, 2, BLK, LIN, F32, -0.75f, 32, 3, -1, 1),
    /* K longer than one shared-memory slice of x (16384) */
    CASE(200, 20480, 1, LIN, LIN, F32, 1.0f, 0, 1, -1, 0),
    CASE(77, 33888, 2, BLK, BLK, F16, 1.0f, 0, 1, -1, 0),
    /* strided A and y, alpha */
    CASE(257, 2048, 2, LIN, LIN, F16, 0.5f, 48, 3, -1, 1),
    CASE(130, 4096, 3, BLK, LIN, BF16, -2.5f, 16, 2, -1, 0),
    CASE(1000, 512, 1, LIN, BLK, F32, 0.3333333f, 16, 5, -1, 1),
    /* a NaN scale turns exactly its row into NaN */
    CASE(100, 1024, 1, LIN, LIN, F16, 1.0f, 0, 1, 37, 1),
    CASE(300, 2048, 2, BLK, BLK, BF16, 1.0f, 0, 1, 258, 0),
};
enum { CASE_COUNT = sizeof cases / sizeof cases[0] };

/* The cases this run checks: all, or with NVFP4_GPU_QUICK=1 only the small ones (compute-sanitizer runs). */
static int selected[CASE_COUNT], selected_count;

static void select_cases(void) {
  selected_count = gpu_select_cases(&cases[0].small, sizeof cases[0], CASE_COUNT, selected);
}

/* Case `index` of the table on fresh data from seed_base + index, against the reference, with the handle's
 * weights-stable option `stable` (on: each entry loads its first chunks of A before its grid-dependency
 * wait); the option is off again after. */
static void check_case(int index, uint64_t seed_base, int stable) {
  nvfp4i_gemv_case c = cases[index].c;
  c.seed = gpu_seed(seed_base + (uint64_t)index);
  ck_assert_int_eq(nvfp4_set_weights_stable(gpu_handle, stable), NVFP4_STATUS_SUCCESS);
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_gemv(gpu_handle, &c, &v);
  ck_assert_int_eq(nvfp4_set_weights_stable(gpu_handle, 0), NVFP4_STATUS_SUCCESS);
  ck_assert_msg(pass,
                "gemv%s m=%lld k=%lld l=%lld a_layout=%d x_layout=%d dtype=%d alpha=%g seed=%llu "
                "(NVFP4_TEST_SEED=%llu): status %s (%s), %lld/%lld outside the bar, %lld stray writes, worst %s",
                stable ? ", weights stable," : "", (long long)c.m, (long long)c.k, (long long)c.l, c.a_layout,
                c.x_layout, c.dtype, c.alpha, (unsigned long long)c.seed, (unsigned long long)gpu_run_seed(),
                nvfp4_status_string(v.status), nvfp4_last_error(), (long long)v.failures, (long long)v.checked,
                (long long)v.clobbered, v.detail);
}

START_TEST(gemv_matches_reference) { check_case(selected[_i], 0x5EED0000u, 0); }
END_TEST

START_TEST(gemv_with_stable_weights_matches_reference) { check_case(selected[_i], 0x5EED5000u, 1); }
END_TEST

/* Replaying a captured graph gives the same bits as a direct launch. */
typedef struct gemv_graph_arg {
  const nvfp4i_operand *a, *x;
} gemv_graph_arg;

static nvfp4_status launch_gemv(void *arg, CUdeviceptr out, CUstream stream) {
  gemv_graph_arg *g = arg;
  nvfp4_output y = {(void *)(uintptr_t)out, 1, g->a->dev.rows, F16};
  return nvfp4_gemv(gpu_handle, &g->a->dev, &g->x->dev, &y, 1.5f, stream);
}

START_TEST(gemv_graph_replay_matches_direct_launch) {
  uint64_t seed = gpu_seed(0x67726170);
  nvfp4i_rng rng = {seed};
  nvfp4i_operand a, x;
  ck_assert_int_eq(nvfp4i_operand_create(&a, 777, 4096, 2, BLK, 0, &rng), NVFP4_STATUS_SUCCESS);
  ck_assert_int_eq(nvfp4i_operand_create(&x, 1, 4096, 2, LIN, 0, &rng), NVFP4_STATUS_SUCCESS);
  gemv_graph_arg arg = {&a, &x};
  assert_graph_replay_matches(launch_gemv, &arg, 777 * 2 * sizeof(uint16_t), seed);
  nvfp4i_operand_destroy(&a);
  nvfp4i_operand_destroy(&x);
}
END_TEST

/* Several host threads on one handle, each with its own data. */
START_TEST(gemv_from_several_threads_on_one_handle) {
  enum { THREADS = 4 };
  nvfp4i_gemv_case c[THREADS];
  gpu_verify_job jobs[THREADS];
  for (int t = 0; t < THREADS; t++) {
    c[t] = (nvfp4i_gemv_case){.m = 300 + 97 * t, .k = 1024 * (t + 1), .l = 1 + t, .a_layout = t % 2 ? BLK : LIN,
                              .x_layout = LIN, .dtype = (nvfp4_dtype)(t % 3), .alpha = 1.0f,
                              .seed = gpu_seed(0x74680000u + (uint64_t)t), .y_ld = 1, .nan_row = -1};
    jobs[t] = (gpu_verify_job){.gemv = &c[t]};
  }
  gpu_verify_in_threads(THREADS, jobs);
  for (int t = 0; t < THREADS; t++)
    ck_assert_msg(jobs[t].pass,
                  "thread %d (seed %llu, NVFP4_TEST_SEED=%llu): status %s, %lld outside the bar, worst %s", t,
                  (unsigned long long)c[t].seed, (unsigned long long)gpu_run_seed(),
                  nvfp4_status_string(jobs[t].v.status), (long long)jobs[t].v.failures, jobs[t].v.detail);
}
END_TEST

/* Issue 13's chain with NVFP4 x, written by the kernel just before each GEMV: step i quantizes slot i (f16,
 * global scale 1) into x's one buffer, then nvfp4_gemv(A, x) writes slot i + 1; 2 x 100 calls back to back
 * under programmatic dependent launch with the weights-stable option off and then on, bit for bit the chain
 * with a synchronise after every call, in which every quantize matches the CPU recipe bit for bit and every
 * GEMV meets the reference. m = K = 4064 (x BLOCKED, A LINEAR; 127 chunks a row: the equal-steps entry,
 * where the W4A16 chain runs the plain one): a GEMV that read x before the quantize ended, or a quantize that
 * overwrote x before the GEMV before it ended, would change a y. */
typedef struct nvfp4_chain {
  gpu_chain c;
  nvfp4i_operand x;         /* 1 x m; its host copy: x as a step's GEMV read it (downloaded) */
  uint8_t *want_data, *want_sf; /* x's buffers as the CPU recipe leaves them, from x's first bytes on */
} nvfp4_chain;

static nvfp4_status nvfp4_chain_step(const nvfp4_chain *n, int i) {
  const gpu_chain *c = &n->c;
  nvfp4_dense in = {(const void *)(uintptr_t)gpu_chain_slot(c, i), 1, c->m, 1, c->m, c->m, F16};
  nvfp4_status status = nvfp4_quantize(c->h, &in, &n->x.dev, 1.0f, c->stream);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  nvfp4_output y = {(void *)(uintptr_t)gpu_chain_slot(c, i + 1), 1, c->m, F16};
  return nvfp4_gemv(c->h, &c->a.dev, &n->x.dev, &y, c->alpha[i], c->stream);
}

/* Fails unless x's device buffers hold what the CPU recipe left in want_data / want_sf. */
static void assert_x_is_the_recipes(nvfp4_chain *n, int i, const char *what) {
  ck_assert_int_eq(nvfp4i_operand_download(&n->x), NVFP4_STATUS_SUCCESS);
  char named[160];
  snprintf(named, sizeof named, "%s, x after the quantize of step %d: data", what, i);
  gpu_assert_bytes(n->x.host.data, n->want_data, (size_t)n->x.data_bytes, named);
  snprintf(named, sizeof named, "%s, x after the quantize of step %d: scales", what, i);
  gpu_assert_bytes(n->x.host.scales, n->want_sf, (size_t)n->x.sf_bytes, named);
}

START_TEST(a_chain_of_gemvs_on_the_x_the_kernel_before_quantized_matches_the_synchronised_chain) {
  nvfp4_chain n;
  gpu_chain *c = &n.c;
  gpu_chain_create(c, gpu_quick() ? 992 : 4064, gpu_quick() ? 12 : 100, LIN, gpu_seed(0x63686E32));
  ck_assert_int_eq(nvfp4i_operand_create(&n.x, 1, c->m, 1, BLK, 0, &c->rng), NVFP4_STATUS_SUCCESS);
  n.want_data = malloc((size_t)n.x.data_bytes);
  n.want_sf = malloc((size_t)n.x.sf_bytes);
  double *x = malloc(sizeof(double) * (size_t)c->m);
  ck_assert_msg(n.want_data && n.want_sf && x, "no host memory");
  memcpy(n.want_data, n.x.host.data, (size_t)n.x.data_bytes);
  memcpy(n.want_sf, n.x.host.scales, (size_t)n.x.sf_bytes);
  nvfp4_tensor want_x = n.x.host;
  want_x.data = n.want_data;
  want_x.scales = n.want_sf;
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  for (int i = 0; i < c->steps; i++) {
    /* the quantize, alone: x bit for bit the recipe's of slot i as the synchronised chain wrote it */
    nvfp4_dense in = {(const void *)(uintptr_t)gpu_chain_slot(c, i), 1, c->m, 1, c->m, c->m, F16};
    ck_assert_msg(nvfp4_quantize(c->h, &in, &n.x.dev, 1.0f, c->stream) == NVFP4_STATUS_SUCCESS, "step %d: %s", i,
                  nvfp4_last_error());
    ck_assert_int_eq(cu->cuStreamSynchronize(c->stream), CUDA_SUCCESS);
    in.data = c->want + (size_t)i * (size_t)c->m;
    nvfp4i_quantize_ref(&in, &want_x, 1.0f);
    assert_x_is_the_recipes(&n, i, "nvfp4 chain, synchronised");
    /* the GEMV on it */
    nvfp4i_decode_row(&n.x.host, 0, 0, x);
    gpu_chain_reference(c, i, x);
    nvfp4_output y = {(void *)(uintptr_t)gpu_chain_slot(c, i + 1), 1, c->m, F16};
    ck_assert_msg(nvfp4_gemv(c->h, &c->a.dev, &n.x.dev, &y, c->alpha[i], c->stream) == NVFP4_STATUS_SUCCESS,
                  "step %d: %s", i, nvfp4_last_error());
    gpu_chain_check_step(c, i, "nvfp4 chain");
  }
  free(x);
  for (int stable = 0; stable <= 1; stable++) {
    const char *what = stable ? "nvfp4 chain back to back, weights stable" : "nvfp4 chain back to back";
    ck_assert_int_eq(nvfp4_set_weights_stable(c->h, stable), NVFP4_STATUS_SUCCESS);
    gpu_chain_begin(c);
    for (int i = 0; i < c->steps; i++)
      ck_assert_msg(nvfp4_chain_step(&n, i) == NVFP4_STATUS_SUCCESS, "step %d: %s", i, nvfp4_last_error());
    gpu_chain_end(c, what);
    assert_x_is_the_recipes(&n, c->steps - 1, what);
  }
  nvfp4i_operand_destroy(&n.x);
  free(n.want_data);
  free(n.want_sf);
  gpu_chain_destroy(c);
}
END_TEST

/* The default mode's chain with NVFP4 x: the weights quantized by the kernel just before each GEMV
 * (gpu_weights_chain). m = K = 4064 (A LINEAR, x BLOCKED; 127 chunks a row: the equal-steps entry). */
static nvfp4_status weights_chain_gemv(const gpu_chain *c, const void *x, int i) {
  nvfp4_output y = {(void *)(uintptr_t)gpu_chain_slot(c, i + 1), 1, c->m, F16};
  return nvfp4_gemv(c->h, &c->a.dev, &((const nvfp4i_operand *)x)->dev, &y, c->alpha[i], c->stream);
}

START_TEST(a_chain_of_gemvs_on_weights_the_kernel_before_quantized_matches_the_synchronised_chain) {
  gpu_chain c;
  gpu_chain_create(&c, gpu_quick() ? 992 : 4064, gpu_quick() ? 6 : 100, LIN, gpu_seed(0x63686E33));
  nvfp4i_operand x;
  ck_assert_int_eq(nvfp4i_operand_create(&x, 1, c.m, 1, BLK, 0, &c.rng), NVFP4_STATUS_SUCCESS);
  double *x_values = malloc(sizeof(double) * (size_t)c.m);
  ck_assert_ptr_nonnull(x_values);
  nvfp4i_decode_row(&x.host, 0, 0, x_values);
  gpu_weights_chain(&c, weights_chain_gemv, &x, x_values, "nvfp4 weights chain back to back");
  free(x_values);
  nvfp4i_operand_destroy(&x);
  gpu_chain_destroy(&c);
}
END_TEST

/* The README's tuning recipe: NVFP4_FATBIN names one preprocessed .ptx (one kernel family, compiled by the
 * driver at load). The handle loads; GEMV runs from it and is right; grouped GEMM says NOT_SUPPORTED. */
START_TEST(gemv_runs_from_an_image_of_its_own_family) {
  char ptx[4096]; /* the family's PTX for the handle's path: that path's entry names */
  snprintf(ptx, sizeof ptx, "%s", gpu_family_ptx("gemv"));
  setenv("NVFP4_FATBIN", ptx, 1);
  nvfp4_handle *h;
  nvfp4_status s = nvfp4_create(&h);
  unsetenv("NVFP4_FATBIN");
  ck_assert_msg(s == NVFP4_STATUS_SUCCESS, "NVFP4_FATBIN=%s: %s", ptx, nvfp4_last_error());
  nvfp4i_gemv_case c = {.m = 300, .k = 2048, .l = 2, .a_layout = BLK, .x_layout = LIN, .dtype = BF16, .alpha = 0.5f,
                        .seed = gpu_seed(0x696D6167), .y_ld = 1, .nan_row = -1};
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_gemv(h, &c, &v);
  nvfp4i_grouped_case g = {.groups = 1, .m = (const int64_t[]){64}, .n = (const int64_t[]){128},
                           .k = (const int64_t[]){256}, .m_count = 1, .n_count = 1, .k_count = 1, .dtype = F16,
                           .alpha = 1.0f, .seed = c.seed};
  nvfp4i_verdict gv;
  nvfp4i_verify_grouped_gemm(h, &g, &gv);
  nvfp4_destroy(h);
  ck_assert_msg(pass, "gemv from gemv.ptx (seed %llu, NVFP4_TEST_SEED=%llu): status %s, %lld outside the bar, worst %s",
                (unsigned long long)c.seed, (unsigned long long)gpu_run_seed(), nvfp4_status_string(v.status),
                (long long)v.failures, v.detail);
  ck_assert_msg(gv.status == NVFP4_STATUS_NOT_SUPPORTED, "grouped gemm from gemv.ptx: status %s",
                nvfp4_status_string(gv.status));
}
END_TEST

Suite *gemv_gpu_suite(void) {
  Suite *s = suite_create("gemv gpu");
  TCase *shapes = gpu_tcase("gemv shapes", 600);
  select_cases();
  tcase_add_loop_test(shapes, gemv_matches_reference, 0, selected_count);
  tcase_add_loop_test(shapes, gemv_with_stable_weights_matches_reference, 0, selected_count);
  suite_add_tcase(s, shapes);
  TCase *usage = gpu_tcase("gemv graphs and threads", 120);
  tcase_add_test(usage, gemv_graph_replay_matches_direct_launch);
  tcase_add_test(usage, gemv_from_several_threads_on_one_handle);
  suite_add_tcase(s, usage);
  TCase *chain = gpu_tcase("gemv chains under programmatic dependent launch", 300);
  tcase_add_test(chain, a_chain_of_gemvs_on_the_x_the_kernel_before_quantized_matches_the_synchronised_chain);
  tcase_add_test(chain, a_chain_of_gemvs_on_weights_the_kernel_before_quantized_matches_the_synchronised_chain);
  suite_add_tcase(s, chain);
  /* tagged "image": loading an image of one family makes the library ask the driver for the kernels the image
   * lacks (CUDA_ERROR_NOT_FOUND, expected), which compute-sanitizer counts as API errors; its runs exclude it */
  TCase *image = gpu_tcase("gemv from an image of its own family", 120);
  tcase_set_tags(image, "gpu image");
  tcase_add_test(image, gemv_runs_from_an_image_of_its_own_family);
  suite_add_tcase(s, image);
  return s;
}
