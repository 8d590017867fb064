/* Grouped GEMM on the GPU against the float64 reference under the docs/ACCURACY.md bar: GPU MODE's test and
 * benchmark shapes, tails, mixed K, both scale layouts (garbage in BLOCKED padding), strided operands, alpha,
 * every output type, NaN propagation, empty and many groups, and CUDA graph replay. Fresh data every run, outputs
 * poisoned before every launch. Every shape runs three ways of the call: the tokens dequantized into scratch then
 * the W4A16 kernel (the default handle's, on a GPU with memory pools, K split where its plan says), the fused
 * kernel (a handle created with NVFP4_GROUPED_FUSED=1), and K split into 3 slices wherever the tiles leave SMs
 * idle (NVFP4_SPLIT_K=3: partials in scratch, summed by the finishing kernel). */
#include <stdlib.h>
#include <string.h>

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
#define LIST(...) ((const int64_t[]){__VA_ARGS__}), (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

typedef struct grouped_gpu_case {
  const char *what;
  int groups;
  const int64_t *m;
  int m_count;
  const int64_t *n;
  int n_count;
  const int64_t *k;
  int k_count;
  nvfp4_sf_layout a_layout, b_layout;
  nvfp4_dtype dtype;
  float alpha;
  int64_t pad, c_pad;
  int nan;
  int small; /* kept by NVFP4_GPU_QUICK (compute-sanitizer runs) */
} grouped_gpu_case;

static const grouped_gpu_case cases[] = {
    /* GPU MODE-like test shapes */
    {"test 1", 1, LIST(96), LIST(1024), LIST(256), LIN, LIN, F16, 1.0f, 0, 0, 0, 1},
    {"test 2", 2, LIST(40, 400), LIST(2048), LIST(1024), BLK, BLK, F16, 1.0f, 0, 0, 0, 0},
    {"test 3", 3, LIST(128, 64, 200), LIST(3072), LIST(512), LIN, BLK, BF16, 1.0f, 0, 0, 0, 0},
    {"test 4", 4, LIST(80, 176, 128, 72), LIST(4096), LIST(7168), BLK, LIN, F16, 1.0f, 0, 0, 0, 0},
    {"test 5", 8, LIST(40, 76, 168, 72, 164, 148, 196, 160), LIST(1024), LIST(2048), LIN, LIN, F16, 1.0f, 0, 0, 0, 0},
    {"test 6", 2, LIST(192, 320), LIST(7168), LIST(256), BLK, BLK, F16, 1.0f, 0, 0, 0, 0},
    {"test 7", 5, LIST(256, 100, 333, 48, 64), LIST(2048), LIST(3072), LIN, LIN, F32, 1.0f, 0, 0, 0, 0},
    {"test 8", 6, LIST(56, 112, 224, 96, 144, 72), LIST(5120), LIST(1536), BLK, BLK, BF16, 1.0f, 0, 0, 0, 0},
    {"test 9", 1, LIST(384), LIST(7168), LIST(4096), LIN, LIN, F16, 1.0f, 0, 0, 0, 0},
    {"test 10", 7, LIST(64, 128, 192, 256, 320, 384, 40), LIST(1536), LIST(768), BLK, LIN, F16, 1.0f, 0, 0, 0, 0},
    /* GPU MODE's nvfp4_group_gemm test shapes (task.yml's tests: every group its own N and K) */
    {"gpumode test 1", 2, LIST(96, 128), LIST(128, 256), LIST(128, 512), BLK, BLK, F16, 1.0f, 0, 0, 0, 1},
    {"gpumode test 2", 2, LIST(256, 72), LIST(512, 384), LIST(256), LIN, LIN, F16, 1.0f, 0, 0, 0, 0},
    {"gpumode test 3", 2, LIST(128, 128), LIST(128, 256), LIST(128, 512), BLK, LIN, BF16, 1.0f, 0, 0, 0, 0},
    {"gpumode test 4", 3, LIST(80, 128, 256), LIST(384, 256, 128), LIST(256, 512, 128), LIN, BLK, F16, 1.0f, 0, 0, 0,
     0},
    {"gpumode test 5", 3, LIST(64, 72, 96), LIST(128, 384, 512), LIST(384, 512, 128), BLK, BLK, F32, 1.0f, 0, 0, 0, 0},
    {"gpumode test 6", 3, LIST(64, 256, 128), LIST(768, 128, 256), LIST(512, 512, 128), LIN, LIN, F16, 1.0f, 0, 0, 0,
     0},
    {"gpumode test 7", 3, LIST(128, 128, 64), LIST(256, 512, 512), LIST(768, 128, 768), BLK, LIN, F16, 1.0f, 0, 0, 0,
     1},
    {"gpumode test 8", 4, LIST(128), LIST(128), LIST(128), LIN, BLK, BF16, 1.0f, 0, 0, 0, 0},
    {"gpumode test 9", 4, LIST(40, 56, 384, 512), LIST(512, 384, 256, 128), LIST(256), BLK, BLK, F16, 1.0f, 0, 0, 0, 0},
    {"gpumode test 10", 4, LIST(512, 384, 256, 128), LIST(256), LIST(512, 128, 512, 128), LIN, LIN, F16, 1.0f, 0, 0,
     0, 0},
    /* GPU MODE's benchmark cases */
    {"bench 1", 8, LIST(80, 176, 128, 72, 64, 248, 96, 160), LIST(4096), LIST(7168), LIN, LIN, F16, 1.0f, 0, 0, 0, 0},
    {"bench 2", 8, LIST(40, 76, 168, 72, 164, 148, 196, 160), LIST(7168), LIST(2048), BLK, BLK, F16, 1.0f, 0, 0, 0, 0},
    {"bench 3", 2, LIST(192, 320), LIST(3072), LIST(4096), LIN, LIN, F16, 1.0f, 0, 0, 0, 0},
    {"bench 4", 2, LIST(128, 384), LIST(4096), LIST(1536), BLK, BLK, F16, 1.0f, 0, 0, 0, 0},
    /* tails in M and N, partial K steps (K % 128 = 32, 96) */
    {"tails k256", 4, LIST(1, 7, 65, 300), LIST(1, 9, 33, 600), LIST(256), LIN, LIN, F16, 1.0f, 0, 0, 0, 1},
    {"tails k96", 4, LIST(300, 65, 7, 1), LIST(1, 9, 33, 600), LIST(96), BLK, BLK, BF16, 1.0f, 0, 0, 0, 1},
    {"tails k32", 4, LIST(7, 300, 1, 65), LIST(600, 33, 9, 1), LIST(32), LIN, BLK, F32, 1.0f, 0, 0, 0, 1},
    /* groups of different K in one call */
    {"mixed k", 4, LIST(100, 50, 130, 17), LIST(300, 257), LIST(32, 1056, 2048, 160), LIN, LIN, F16, 1.0f, 0, 0, 0, 1},
    {"mixed k blocked", 3, LIST(129, 33, 250), LIST(130, 500, 64), LIST(4096, 96, 544), BLK, BLK, F32, 1.0f, 0, 0, 0, 1},
    /* strided operands and outputs, alpha */
    {"strided", 3, LIST(70, 130, 5), LIST(200, 129), LIST(512, 1024), LIN, LIN, F16, 0.5f, 48, 5, 0, 1},
    {"strided blocked alpha", 2, LIST(257, 31), LIST(333), LIST(2048), BLK, BLK, BF16, -2.5f, 16, 3, 0, 1},
    {"alpha f32", 2, LIST(100, 200), LIST(260), LIST(640), LIN, BLK, F32, 0.3333333f, 0, 0, 0, 1},
    /* NaN scales turn exactly their row / column into NaN */
    {"nan", 2, LIST(50, 90), LIST(300, 140), LIST(512), LIN, LIN, F16, 1.0f, 0, 0, 1, 1},
    {"nan blocked", 3, LIST(129, 40, 7), LIST(100, 260, 65), LIST(1024), BLK, BLK, BF16, 1.0f, 0, 0, 1, 1},
    /* empty groups are skipped */
    {"empty groups", 5, LIST(0, 50, 70, 0, 9), LIST(100, 0, 300), LIST(256), LIN, LIN, F16, 1.0f, 0, 0, 0, 1},
    /* many groups: one launch's worth, then more than one launch */
    {"256 groups", 256, LIST(1, 7, 33, 64, 100, 130), LIST(64, 129, 200, 9), LIST(32, 256, 96), LIN, BLK, F16, 1.0f,
     0, 0, 0, 0},
    {"300 small groups", 300, LIST(3, 0, 17, 24, 1), LIST(9, 130), LIST(64, 160), BLK, LIN, BF16, 1.0f, 0, 0, 0, 1},
    /* MoE decode: a few tokens per expert, some experts without any */
    {"moe decode", 64, LIST(3, 10, 16, 0, 20, 24, 7, 1, 0, 13), LIST(1024), LIST(2048), LIN, LIN, F16, 1.0f, 0, 0, 0,
     0},
    /* the last round's tiles split along K (on 132 SMs: tests/unit/check_grouped_split.c): the last group's
     * columns from 4608 on (a partial column tile among them) in 6 slices, alpha and a strided c; one group
     * of 133 column tiles whose last one (104 columns) goes in 16 slices */
    {"last round split", 3, LIST(5, 24, 13), LIST(6100), LIST(1536), LIN, BLK, BF16, -1.5f, 0, 3, 0, 1},
    {"last round split one group", 1, LIST(20), LIST(17000), LIST(4096), BLK, LIN, F32, 1.0f, 16, 0, 0, 0},
    /* every token tile width: t = 32, 64, ..., 256 and splits of M > 256 (enough tiles for the widest cap),
     * then t up to 128 (a launch with fewer tiles than SMs halves the cap) */
    {"token tiles", 10, LIST(32, 33, 64, 95, 128, 160, 161, 224, 256, 520), LIST(2048), LIST(384), LIN, BLK, F32,
     1.0f, 0, 0, 0, 0},
    {"token tiles few", 10, LIST(32, 33, 64, 95, 128, 160, 161, 224, 256, 520), LIST(200), LIST(384), BLK, LIN, BF16,
     1.0f, 0, 0, 0, 1},
};
enum { CASE_COUNT = sizeof cases / sizeof cases[0] };

static int selected[CASE_COUNT], selected_count;

static void select_cases(void) {
  selected_count = gpu_select_cases(&cases[0].small, sizeof cases[0], CASE_COUNT, selected);
}

static void assert_case_matches_reference(nvfp4_handle *h, int i, const char *way) {
  const grouped_gpu_case *t = &cases[selected[i]];
  nvfp4i_grouped_case c = {.groups = t->groups, .m = t->m, .n = t->n, .k = t->k, .m_count = t->m_count,
                           .n_count = t->n_count, .k_count = t->k_count, .a_layout = t->a_layout,
                           .b_layout = t->b_layout, .dtype = t->dtype, .alpha = t->alpha,
                           .seed = gpu_seed(0x6770000u + (uint64_t)selected[i]), .pad = t->pad,
                           .c_pad = t->c_pad, .nan = t->nan};
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_grouped_gemm(h, &c, &v);
  ck_assert_msg(pass,
                "grouped gemm '%s', %s (groups=%d a_layout=%d b_layout=%d dtype=%d alpha=%g seed=%llu, "
                "NVFP4_TEST_SEED=%llu): status %s (%s), %lld/%lld outside the bar, %lld stray writes, worst %s",
                t->what, way, t->groups, t->a_layout, t->b_layout, t->dtype, t->alpha, (unsigned long long)c.seed,
                (unsigned long long)gpu_run_seed(), nvfp4_status_string(v.status), nvfp4_last_error(),
                (long long)v.failures, (long long)v.checked, (long long)v.clobbered, v.detail);
}

START_TEST(grouped_gemm_through_dequantized_tokens_matches_reference) {
  gpu_assert_handle_dequantizes_tokens();
  assert_case_matches_reference(gpu_handle, _i, "tokens dequantized, W4A16 kernel");
}
END_TEST

START_TEST(grouped_gemm_split_k_matches_reference) {
  nvfp4_handle *split = gpu_split_k_handle(3);
  assert_case_matches_reference(split, _i, "K split in 3 slices");
  nvfp4_destroy(split);
}
END_TEST

/* Every W4A16 entry (NVFP4_TILE_ROWS: mixed widths, then each width) on the quick cases. */
static int is_small(int i) { return cases[selected[i]].small; }

START_TEST(grouped_gemm_every_w4a16_entry_matches_reference) {
  gpu_check_on_tile_rows_handle(_i, selected_count, is_small, assert_case_matches_reference);
}
END_TEST

START_TEST(grouped_gemm_fused_matches_reference) {
  nvfp4_handle *fused = gpu_fused_grouped_handle();
  assert_case_matches_reference(fused, _i, "fused kernel");
  nvfp4_destroy(fused);
}
END_TEST

/* Replaying a captured graph gives the same bits as a direct launch. */
enum { GRAPH_G = 3, GRAPH_N = 520, GRAPH_K = 1024 };
static const int64_t graph_m[GRAPH_G] = {70, 200, 9};

typedef struct grouped_graph_arg {
  nvfp4_handle *h;
  nvfp4_tensor a[GRAPH_G], b[GRAPH_G];
} grouped_graph_arg;

static nvfp4_status launch_grouped(void *arg, CUdeviceptr out, CUstream stream) {
  grouped_graph_arg *p = arg;
  nvfp4_output c[GRAPH_G];
  for (int g = 0; g < GRAPH_G; g++) {
    c[g] = (nvfp4_output){(void *)(uintptr_t)out, GRAPH_N, 0, F16};
    out += (CUdeviceptr)(graph_m[g] * GRAPH_N * 2);
  }
  return nvfp4_grouped_gemm(p->h, GRAPH_G, p->a, p->b, c, 1.5f, stream);
}

START_TEST(grouped_gemm_graph_replay_matches_direct_launch) {
  uint64_t seed = gpu_seed(0x67726171);
  nvfp4i_rng rng = {seed};
  nvfp4i_operand a[GRAPH_G], b[GRAPH_G];
  grouped_graph_arg arg;
  size_t bytes = 0;
  for (int g = 0; g < GRAPH_G; g++) {
    ck_assert_int_eq(nvfp4i_operand_create(&a[g], graph_m[g], GRAPH_K, 1, g % 2 ? BLK : LIN, 0, &rng),
                     NVFP4_STATUS_SUCCESS);
    ck_assert_int_eq(nvfp4i_operand_create(&b[g], GRAPH_N, GRAPH_K, 1, g % 2 ? LIN : BLK, 0, &rng),
                     NVFP4_STATUS_SUCCESS);
    arg.a[g] = a[g].dev;
    arg.b[g] = b[g].dev;
    bytes += (size_t)(graph_m[g] * GRAPH_N * 2);
  }
  /* the default handle's way, then K split in 4 slices (scratch, partials and the finishing kernel captured) */
  arg.h = gpu_handle;
  assert_graph_replay_matches(launch_grouped, &arg, bytes, seed);
  arg.h = gpu_split_k_handle(4);
  assert_graph_replay_matches(launch_grouped, &arg, bytes, seed);
  nvfp4_destroy(arg.h);
  for (int g = 0; g < GRAPH_G; g++) {
    nvfp4i_operand_destroy(&a[g]);
    nvfp4i_operand_destroy(&b[g]);
  }
}
END_TEST

Suite *grouped_gemm_gpu_suite(void) {
  Suite *s = suite_create("grouped gemm gpu");
  if (gpu_path_lacks_nvfp4_grouped_gemm("grouped gemm gpu, every test")) return s;
  TCase *shapes = gpu_tcase("grouped gemm shapes", 600);
  select_cases();
  tcase_add_loop_test(shapes, grouped_gemm_through_dequantized_tokens_matches_reference, 0, selected_count);
  if (!gpu_path_lacks(NVFP4I_KERNEL_GROUPED_GEMM, "grouped gemm gpu, the fused kernel"))
    tcase_add_loop_test(shapes, grouped_gemm_fused_matches_reference, 0, selected_count);
  tcase_add_loop_test(shapes, grouped_gemm_split_k_matches_reference, 0, selected_count);
  tcase_add_loop_test(shapes, grouped_gemm_every_w4a16_entry_matches_reference, 0, GPU_TILE_ROWS_WAYS);
  suite_add_tcase(s, shapes);
  TCase *graphs = gpu_tcase("grouped gemm graphs", 120);
  tcase_add_test(graphs, grouped_gemm_graph_replay_matches_direct_launch);
  suite_add_tcase(s, graphs);
  return s;
}
