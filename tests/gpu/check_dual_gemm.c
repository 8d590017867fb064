/* Dual GEMM with SiLU (nvfp4_grouped_dual_gemm_silu) on the GPU against the float64 reference under SPEC
 * section 2's bar for it: GPU MODE's nvfp4_dual_gemm benchmark and test shapes, small alphas that put the gate in
 * SiLU's curved range, tails in M, N and K, mixed K, both scale layouts, strided operands and outputs, every
 * output type, NaN scales, empty groups, a MoE layer's experts and more groups than one launch holds, and
 * graph replay. Fresh data every run, outputs poisoned before every call. Every case runs three ways: the
 * default handle's (tokens dequantized, then the W4A16 kernel: with whole K, paired tiles gating in the GEMM;
 * with K split where its plan says, or b2 addressed unlike b1, both products' f32 partials and the finishing
 * kernel), K split into 3 slices wherever the tiles leave SMs idle (NVFP4_SPLIT_K=3), and the fused kernel's
 * (NVFP4_GROUPED_FUSED=1) writing the partials. */
#include "graph_replay.h"
#include "suites.h"
#include "testdata.h"
#include "verify.h"

#define LIN NVFP4_SF_LINEAR
#define BLK NVFP4_SF_BLOCKED_128x4
#define F16 NVFP4_DTYPE_F16
#define BF16 NVFP4_DTYPE_BF16
#define F32 NVFP4_DTYPE_F32

typedef struct dual_gpu_case {
  const char *what;
  int small; /* kept by NVFP4_GPU_QUICK (compute-sanitizer runs) */
  nvfp4i_grouped_case c;
} dual_gpu_case;

static const dual_gpu_case cases[] = {
    /* GPU MODE's nvfp4_dual_gemm benchmark shapes (G = 1) */
    {"gpumode 1", 0, {GROUPS(1, (256), (4096), (7168)), .a_layout = BLK, .b_layout = BLK, .dtype = F16,
                      .alpha = 1.0f, .alpha2 = 1.0f}},
    {"gpumode 2", 0, {GROUPS(1, (512), (4096), (7168)), .a_layout = BLK, .b_layout = BLK, .dtype = F16,
                      .alpha = 1.0f, .alpha2 = 1.0f}},
    {"gpumode 3", 0, {GROUPS(1, (256), (3072), (4096)), .a_layout = LIN, .b_layout = LIN, .dtype = F16,
                      .alpha = 1.0f, .alpha2 = 1.0f}},
    {"gpumode 4", 0, {GROUPS(1, (512), (3072), (7168)), .a_layout = BLK, .b_layout = LIN, .dtype = BF16,
                      .alpha = 1.0f, .alpha2 = 1.0f}},
    /* GPU MODE's nvfp4_dual_gemm test shapes (task.yml's tests; its first is listed twice), half with a small alpha */
    {"gpumode test 1", 0, {GROUPS(1, (1536), (512), (7168)), .a_layout = BLK, .b_layout = BLK, .dtype = F16,
                           .alpha = 1.0f, .alpha2 = 1.0f}},
    {"gpumode test 2", 1, {GROUPS(1, (256), (512), (256)), .a_layout = BLK, .b_layout = BLK, .dtype = F16,
                           .alpha = 0.01f, .alpha2 = 1.0f}},
    {"gpumode test 3", 0, {GROUPS(1, (3072), (1024), (1536)), .a_layout = LIN, .b_layout = LIN, .dtype = F16,
                           .alpha = 1.0f, .alpha2 = 1.0f}},
    {"gpumode test 4", 0, {GROUPS(1, (7168), (1024), (256)), .a_layout = BLK, .b_layout = LIN, .dtype = BF16,
                           .alpha = 0.01f, .alpha2 = 0.5f}},
    {"gpumode test 5", 0, {GROUPS(1, (7168), (2304), (2048)), .a_layout = LIN, .b_layout = BLK, .dtype = F16,
                           .alpha = 1.0f, .alpha2 = 1.0f}},
    {"gpumode test 6", 0, {GROUPS(1, (4608), (384), (7168)), .a_layout = BLK, .b_layout = BLK, .dtype = F32,
                           .alpha = 0.001f, .alpha2 = 1.0f}},
    {"gpumode test 7", 0, {GROUPS(1, (7168), (384), (2304)), .a_layout = LIN, .b_layout = LIN, .dtype = F16,
                           .alpha = 1.0f, .alpha2 = 1.0f}},
    {"gpumode test 8", 0, {GROUPS(1, (512), (768), (7168)), .a_layout = BLK, .b_layout = LIN, .dtype = BF16,
                           .alpha = 0.001f, .alpha2 = 2.0f}},
    {"gpumode test 9", 0, {GROUPS(1, (4096), (768), (512)), .a_layout = LIN, .b_layout = BLK, .dtype = F16,
                           .alpha = 1.0f, .alpha2 = 1.0f}},
    /* the gate near 0, where SiLU curves (products of full-range data are far from it) */
    {"small alpha", 1, {GROUPS(2, (96, 200), (256, 130), (512)), .a_layout = LIN, .b_layout = BLK, .dtype = F32,
                        .alpha = 1.0f / 4096, .alpha2 = 0.75f}},
    {"small alpha f16", 1, {GROUPS(1, (130), (300), (1024)), .a_layout = BLK, .b_layout = BLK, .dtype = F16,
                            .alpha = 1.0f / 1024, .alpha2 = -2.0f}},
    /* tails in M and N, partial K steps */
    {"tails k256", 1, {GROUPS(4, (1, 7, 65, 300), (1, 9, 33, 600), (256)), .a_layout = LIN, .b_layout = LIN,
                       .dtype = F16, .alpha = 0.01f, .alpha2 = 1.0f}},
    {"tails k96", 1, {GROUPS(4, (300, 65, 7, 1), (1, 9, 33, 600), (96)), .a_layout = BLK, .b_layout = BLK,
                      .dtype = BF16, .alpha = 0.05f, .alpha2 = 1.0f}},
    {"tails k32", 1, {GROUPS(4, (7, 300, 1, 65), (600, 33, 9, 1), (32)), .a_layout = LIN, .b_layout = BLK,
                      .dtype = F32, .alpha = 0.1f, .alpha2 = 0.5f}},
    /* groups of different K, strided operands and outputs */
    {"mixed k", 1, {GROUPS(4, (100, 50, 130, 17), (300, 257), (32, 1056, 2048, 160)), .a_layout = LIN,
                    .b_layout = LIN, .dtype = F16, .alpha = 0.001f, .alpha2 = 1.0f}},
    {"strided", 1, {GROUPS(3, (70, 130, 5), (200, 129), (512, 1024)), .a_layout = BLK, .b_layout = LIN,
                    .dtype = BF16, .alpha = 0.02f, .alpha2 = -1.5f, .pad = 48, .c_pad = 5}},
    /* b2 addressed unlike b1 (longer rows): both products' partials and the finishing kernel, whole K too */
    {"unlike b2", 1, {GROUPS(3, (70, 130, 5), (200, 129), (512, 1024)), .a_layout = LIN, .b_layout = BLK,
                      .dtype = F16, .alpha = 0.02f, .alpha2 = 1.0f, .b2_pad = 32}},
    /* scales 2 bytes off their alignment: the paired tiles' scale bytes copied one by one */
    {"misaligned scales", 1, {GROUPS(2, (40, 200), (190, 64), (512)), .a_layout = BLK, .b_layout = LIN,
                              .dtype = BF16, .alpha = 0.05f, .alpha2 = 0.5f, .sf_misalign = 2}},
    /* NaN scales turn exactly their row / column into NaN */
    {"nan", 1, {GROUPS(2, (50, 90), (300, 140), (512)), .a_layout = LIN, .b_layout = LIN, .dtype = F16,
                .alpha = 0.01f, .alpha2 = 1.0f, .nan = 1}},
    /* empty groups are skipped; a MoE layer's experts; more groups than a launch holds */
    {"empty groups", 1, {GROUPS(5, (0, 50, 70, 0, 9), (100, 0, 300), (256)), .a_layout = LIN, .b_layout = BLK,
                         .dtype = F16, .alpha = 0.01f, .alpha2 = 1.0f}},
    {"moe experts", 0, {GROUPS(64, (3, 10, 16, 0, 20, 24, 7, 1, 0, 13), (1024), (2048)), .a_layout = LIN,
                        .b_layout = LIN, .dtype = BF16, .alpha = 0.002f, .alpha2 = 1.0f}},
    {"300 groups", 1, {GROUPS(300, (3, 0, 17, 24, 1), (9, 130), (64, 160)), .a_layout = BLK, .b_layout = LIN,
                       .dtype = F32, .alpha = 0.05f, .alpha2 = 2.0f}},
};
enum { CASE_COUNT = sizeof cases / sizeof cases[0] };

static int selected[CASE_COUNT], selected_count;

static void assert_case_matches_reference(nvfp4_handle *h, int i, const char *way) {
  const dual_gpu_case *t = &cases[selected[i]];
  nvfp4i_grouped_case c = t->c;
  c.seed = gpu_seed(0x6475616c00u + (uint64_t)selected[i]);
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_dual_gemm(h, &c, &v);
  ck_assert_msg(pass,
                "dual gemm '%s', %s (groups=%d dtype=%d alpha=%g alpha2=%g seed=%llu, NVFP4_TEST_SEED=%llu): "
                "status %s (%s), %lld/%lld outside the bar, %lld stray writes, worst %s",
                t->what, way, c.groups, c.dtype, c.alpha, c.alpha2, (unsigned long long)c.seed,
                (unsigned long long)gpu_run_seed(), nvfp4_status_string(v.status), nvfp4_last_error(),
                (long long)v.failures, (long long)v.checked, (long long)v.clobbered, v.detail);
}

START_TEST(dual_gemm_matches_reference) {
  gpu_assert_handle_dequantizes_tokens();
  assert_case_matches_reference(gpu_handle, _i, "default handle");
}
END_TEST

START_TEST(dual_gemm_split_k_matches_reference) {
  nvfp4_handle *split = gpu_split_k_handle(3);
  assert_case_matches_reference(split, _i, "K split in 3 slices");
  nvfp4_destroy(split);
}
END_TEST

START_TEST(dual_gemm_fused_matches_reference) {
  nvfp4_handle *fused = gpu_fused_grouped_handle();
  assert_case_matches_reference(fused, _i, "fused kernel");
  nvfp4_destroy(fused);
}
END_TEST

/* Replaying a captured graph gives the same bits as a direct call (scratch, both products, the finish). */
enum { GRAPH_G = 3, GRAPH_N = 520, GRAPH_K = 1024 };
static const int64_t graph_m[GRAPH_G] = {70, 200, 9};

typedef struct dual_graph_arg {
  nvfp4_tensor a[GRAPH_G], b1[GRAPH_G], b2[GRAPH_G];
} dual_graph_arg;

static nvfp4_status launch_dual(void *arg, CUdeviceptr out, CUstream stream) {
  dual_graph_arg *p = arg;
  nvfp4_output c[GRAPH_G];
  for (int g = 0; g < GRAPH_G; g++) {
    c[g] = (nvfp4_output){(void *)(uintptr_t)out, GRAPH_N, 0, F16};
    out += (CUdeviceptr)(graph_m[g] * GRAPH_N * 2);
  }
  return nvfp4_grouped_dual_gemm_silu(gpu_handle, GRAPH_G, p->a, p->b1, p->b2, c, 0.01f, 1.5f, stream);
}

START_TEST(dual_gemm_graph_replay_matches_direct_launch) {
  uint64_t seed = gpu_seed(0x64756772);
  nvfp4i_rng rng = {seed};
  nvfp4i_operand a[GRAPH_G], b1[GRAPH_G], b2[GRAPH_G];
  dual_graph_arg arg;
  size_t bytes = 0;
  for (int g = 0; g < GRAPH_G; g++) {
    ck_assert_int_eq(nvfp4i_operand_create(&a[g], graph_m[g], GRAPH_K, 1, g % 2 ? BLK : LIN, 0, &rng),
                     NVFP4_STATUS_SUCCESS);
    ck_assert_int_eq(nvfp4i_operand_create(&b1[g], GRAPH_N, GRAPH_K, 1, g % 2 ? LIN : BLK, 0, &rng),
                     NVFP4_STATUS_SUCCESS);
    ck_assert_int_eq(nvfp4i_operand_create(&b2[g], GRAPH_N, GRAPH_K, 1, BLK, 0, &rng), NVFP4_STATUS_SUCCESS);
    arg.a[g] = a[g].dev;
    arg.b1[g] = b1[g].dev;
    arg.b2[g] = b2[g].dev;
    bytes += (size_t)(graph_m[g] * GRAPH_N * 2);
  }
  assert_graph_replay_matches(launch_dual, &arg, bytes, seed);
  for (int g = 0; g < GRAPH_G; g++) {
    nvfp4i_operand_destroy(&a[g]);
    nvfp4i_operand_destroy(&b1[g]);
    nvfp4i_operand_destroy(&b2[g]);
  }
}
END_TEST

Suite *dual_gemm_gpu_suite(void) {
  Suite *s = suite_create("dual gemm gpu");
  if (gpu_path_lacks_nvfp4_grouped_gemm("dual gemm gpu, every test") ||
      gpu_path_lacks(NVFP4I_KERNEL_GROUPED_FINISH, "dual gemm gpu, every test"))
    return s;
  TCase *shapes = gpu_tcase("dual gemm shapes", 600);
  selected_count = gpu_select_cases(&cases[0].small, sizeof cases[0], CASE_COUNT, selected);
  tcase_add_loop_test(shapes, dual_gemm_matches_reference, 0, selected_count);
  tcase_add_loop_test(shapes, dual_gemm_split_k_matches_reference, 0, selected_count);
  if (!gpu_path_lacks(NVFP4I_KERNEL_GROUPED_GEMM, "dual gemm gpu, the fused kernel"))
    tcase_add_loop_test(shapes, dual_gemm_fused_matches_reference, 0, selected_count);
  suite_add_tcase(s, shapes);
  TCase *graphs = gpu_tcase("dual gemm graphs", 120);
  tcase_add_test(graphs, dual_gemm_graph_replay_matches_direct_launch);
  suite_add_tcase(s, graphs);
  return s;
}
