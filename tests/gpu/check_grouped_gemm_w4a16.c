/* W4A16 grouped GEMM (nvfp4_grouped_gemm_w4a16) on the GPU against the float64 reference under the
 * docs/ACCURACY.md bar: GPU MODE's benchmark shapes with f16 and bf16 activations, tails in M, N and K, mixed
 * K, both weight scale layouts (garbage in BLOCKED padding) and unaligned weight scales, strided activations
 * and outputs, alpha, every output type, NaN weight scales, empty groups, 256 and 300 groups, a MoE decode
 * step, f16 and bf16 groups in one call, and CUDA graph replay. Fresh data every run (activations with zeros,
 * subnormals and garbage in their row padding), outputs poisoned before every launch. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
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

static const nvfp4_dtype f16[] = {F16}, bf16[] = {BF16}, mixed[] = {F16, BF16, BF16};
/* over 12 groups, with outputs of every_dtype[g % 3] and weights of layouts[g % 2]: every pairing */
static const nvfp4_dtype every_dtype[] = {F16, BF16, F32}, act_pairs[] = {F16, F16, BF16, BF16};
static const nvfp4_sf_layout layouts[] = {LIN, BLK}; /* the weights'; activations have no scales */
#define ACT(list) .act_dtypes = list, .act_dtype_count = (int)(sizeof list / sizeof list[0])

typedef struct w4a16_gpu_case {
  const char *what;
  int small; /* kept by NVFP4_GPU_QUICK (compute-sanitizer runs) */
  nvfp4i_grouped_case c;
} w4a16_gpu_case;

static const w4a16_gpu_case cases[] = {
    /* GPU MODE's benchmark cases, f16 activations, then two with bf16 */
    {"bench 1 f16", 0, {GROUPS(8, (80, 176, 128, 72, 64, 248, 96, 160), (4096), (7168)), .b_layout = LIN,
                        .dtype = F16, .alpha = 1.0f, ACT(f16)}},
    {"bench 2 f16", 0, {GROUPS(8, (40, 76, 168, 72, 164, 148, 196, 160), (7168), (2048)), .b_layout = BLK,
                        .dtype = F16, .alpha = 1.0f, ACT(f16)}},
    {"bench 3 f16", 0, {GROUPS(2, (192, 320), (3072), (4096)), .b_layout = LIN, .dtype = F16, .alpha = 1.0f,
                        ACT(f16)}},
    {"bench 4 f16", 0, {GROUPS(2, (128, 384), (4096), (1536)), .b_layout = BLK, .dtype = F16, .alpha = 1.0f,
                        ACT(f16)}},
    {"bench 1 bf16", 0, {GROUPS(8, (80, 176, 128, 72, 64, 248, 96, 160), (4096), (7168)), .b_layout = BLK,
                         .dtype = BF16, .alpha = 1.0f, ACT(bf16)}},
    {"bench 4 bf16", 0, {GROUPS(2, (128, 384), (4096), (1536)), .b_layout = LIN, .dtype = F16, .alpha = 1.0f,
                         ACT(bf16)}},
    /* tails in M and N, partial K steps (K % 128 = 32, 96) */
    {"tails k256", 1, {GROUPS(4, (1, 7, 65, 300), (1, 9, 33, 600), (256)), .b_layout = LIN, .dtype = F16,
                       .alpha = 1.0f, ACT(f16)}},
    {"tails k96", 1, {GROUPS(4, (300, 65, 7, 1), (1, 9, 33, 600), (96)), .b_layout = BLK, .dtype = BF16,
                      .alpha = 1.0f, ACT(bf16)}},
    {"tails k32", 1, {GROUPS(4, (7, 300, 1, 65), (600, 33, 9, 1), (32)), .b_layout = LIN, .dtype = F32,
                      .alpha = 1.0f, ACT(mixed)}},
    /* groups of different K in one call */
    {"mixed k", 1, {GROUPS(4, (100, 50, 130, 17), (300, 257), (32, 1056, 2048, 160)), .b_layout = LIN,
                    .dtype = F16, .alpha = 1.0f, ACT(f16)}},
    {"mixed k blocked", 1, {GROUPS(3, (129, 33, 250), (130, 500, 64), (4096, 96, 544)), .b_layout = BLK,
                            .dtype = F32, .alpha = 1.0f, ACT(bf16)}},
    /* strided activations (ld = k + 24 and k + 8 elements) and weights, strided outputs, alpha */
    {"strided", 1, {GROUPS(3, (70, 130, 5), (200, 129), (512, 1024)), .b_layout = LIN, .dtype = F16, .alpha = 0.5f,
                    .pad = 48, .c_pad = 5, ACT(f16)}},
    {"strided blocked alpha", 1, {GROUPS(2, (257, 31), (333), (2048)), .b_layout = BLK, .dtype = BF16,
                                  .alpha = -2.5f, .pad = 16, .c_pad = 3, ACT(bf16)}},
    {"alpha f32", 1, {GROUPS(2, (100, 200), (260), (640)), .b_layout = BLK, .dtype = F32, .alpha = 0.3333333f,
                      ACT(mixed)}},
    /* every output type against both weight layouts and both activation types, in one call */
    {"every output type", 1, {GROUPS(12, (64, 7, 130, 0, 33, 200), (96, 129, 40), (256, 1056)), .alpha = 0.75f,
                              .dtypes = every_dtype, .dtype_count = 3, .a_layouts = layouts, .b_layouts = layouts,
                              .layout_count = 2, ACT(act_pairs)}},
    /* weight scales off a 16-byte boundary (no bulk copies), LINEAR ones off 8 bytes (4-byte words, not the
     * 8-byte pairs) and off 4 bytes (byte copies) */
    {"blocked weight scales + 1 byte", 1, {GROUPS(3, (129, 7, 64), (130, 33), (1056, 96)), .b_layout = BLK,
                                           .dtype = F16, .alpha = 1.0f, .sf_misalign = 1, ACT(mixed)}},
    {"blocked weight scales + 4 bytes", 1, {GROUPS(2, (200, 40), (300), (2048)), .b_layout = BLK, .dtype = BF16,
                                            .alpha = 1.0f, .sf_misalign = 4, ACT(f16)}},
    {"linear weight scales + 4 bytes", 1, {GROUPS(2, (96, 40), (300), (2048)), .b_layout = LIN, .dtype = BF16,
                                           .alpha = 1.0f, .sf_misalign = 4, ACT(f16)}},
    {"linear weight scales + 3 bytes", 1, {GROUPS(2, (33, 100), (257), (1024)), .b_layout = LIN, .dtype = F32,
                                           .alpha = 1.0f, .sf_misalign = 3, ACT(bf16)}},
    /* NaN weight scales turn exactly their column into NaN */
    {"nan", 1, {GROUPS(2, (50, 90), (300, 140), (512)), .b_layout = LIN, .dtype = F16, .alpha = 1.0f, .nan = 1,
                ACT(f16)}},
    {"nan blocked bf16", 1, {GROUPS(3, (129, 40, 7), (100, 260, 65), (1024)), .b_layout = BLK, .dtype = BF16,
                             .alpha = 1.0f, .nan = 1, ACT(bf16)}},
    /* empty groups are skipped, whatever their activations' type */
    {"empty groups", 1, {GROUPS(5, (0, 50, 70, 0, 9), (100, 0, 300), (256)), .b_layout = LIN, .dtype = F16,
                         .alpha = 1.0f, ACT(mixed)}},
    /* many groups: one launch's worth, then more than one launch, of one type and of both */
    {"256 groups", 0, {GROUPS(256, (1, 7, 33, 64, 100, 130), (64, 129, 200, 9), (32, 256, 96)), .b_layout = BLK,
                       .dtype = F16, .alpha = 1.0f, ACT(f16)}},
    {"300 small groups", 1, {GROUPS(300, (3, 0, 17, 24, 1), (9, 130), (64, 160)), .b_layout = LIN, .dtype = BF16,
                             .alpha = 1.0f, ACT(bf16)}},
    {"300 small groups, both types", 1, {GROUPS(300, (3, 0, 17, 24, 1), (9, 130), (64, 160)), .b_layout = BLK,
                                         .dtype = F16, .alpha = 1.0f, ACT(mixed)}},
    /* MoE decode: moe1's group sizes (0-24 tokens, three experts without any) on smaller experts */
    {"moe decode", 0, {.groups = NVFP4I_MOE_GROUPS, .m = nvfp4i_moe_m, .m_count = NVFP4I_MOE_GROUPS,
                       .n = ARRAY(1024), .n_count = 1, .k = ARRAY(2048), .k_count = 1, .b_layout = LIN,
                       .dtype = F16, .alpha = 1.0f, ACT(f16)}},
    /* f16 and bf16 groups in one call: two launches */
    {"f16 and bf16 groups", 1, {GROUPS(6, (64, 7, 130, 33, 200, 1), (96, 129, 40), (256, 1056)), .b_layout = LIN,
                                .dtype = BF16, .alpha = 1.5f, .act_dtypes = mixed, .act_dtype_count = 2}},
    /* the last round's tiles split along K (as in check_grouped_gemm.c), the split group's launch the second
     * of two (its activations bf16, the first group's f16); one group of 133 column tiles */
    {"last round split, both types", 1, {GROUPS(3, (5, 24, 13), (6100), (1536)), .b_layout = BLK, .dtype = BF16,
                                         .alpha = -1.5f, .c_pad = 3, ACT(mixed)}},
    {"last round split, one group", 0, {GROUPS(1, (20), (17000), (4096)), .b_layout = LIN, .dtype = F16,
                                        .alpha = 0.5f, .pad = 16, ACT(f16)}},
    /* every token tile width: t = 32, 64, ..., 256 and splits of M > 256 (enough tiles for the widest cap),
     * then t up to 128 (a launch with fewer tiles than SMs halves the cap) */
    {"token tiles", 0, {GROUPS(10, (32, 33, 64, 95, 128, 160, 161, 224, 256, 520), (2048), (384)), .b_layout = BLK,
                        .dtype = F32, .alpha = 1.0f, ACT(f16)}},
    {"token tiles few", 1, {GROUPS(10, (32, 33, 64, 95, 128, 160, 161, 224, 256, 520), (200), (384)),
                            .b_layout = LIN, .dtype = BF16, .alpha = 1.0f, ACT(bf16)}},
};
enum { CASE_COUNT = sizeof cases / sizeof cases[0] };

static int selected[CASE_COUNT], selected_count;

static void select_cases(void) {
  selected_count = gpu_select_cases(&cases[0].small, sizeof cases[0], CASE_COUNT, selected);
}

static void assert_case_matches_reference(nvfp4_handle *h, int i, const char *way) {
  const w4a16_gpu_case *t = &cases[selected[i]];
  nvfp4i_grouped_case c = t->c;
  c.seed = gpu_seed(0x77340000u + (uint64_t)selected[i]);
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_grouped_gemm_w4a16(h, &c, &v);
  ck_assert_msg(pass,
                "w4a16 '%s', %s (groups=%d seed=%llu, NVFP4_TEST_SEED=%llu): status %s (%s), %lld/%lld outside "
                "the bar, %lld stray writes, worst %s",
                t->what, way, c.groups, (unsigned long long)c.seed, (unsigned long long)gpu_run_seed(),
                nvfp4_status_string(v.status), nvfp4_last_error(), (long long)v.failures, (long long)v.checked,
                (long long)v.clobbered, v.detail);
}

START_TEST(w4a16_matches_reference) { assert_case_matches_reference(gpu_handle, _i, "default handle"); }
END_TEST

START_TEST(w4a16_split_k_matches_reference) {
  nvfp4_handle *split = gpu_split_k_handle(3);
  assert_case_matches_reference(split, _i, "K split in 3 slices");
  nvfp4_destroy(split);
}
END_TEST

/* Every W4A16 entry (NVFP4_TILE_ROWS: mixed widths, then each width) on the quick cases. */
static int is_small(int i) { return cases[selected[i]].small; }

START_TEST(w4a16_every_entry_matches_reference) {
  gpu_check_on_tile_rows_handle(_i, selected_count, is_small, assert_case_matches_reference);
}
END_TEST

/* ... and the activations read in place (NVFP4_W4A16_IN_PLACE=1: the f16 and bf16 entries of mixed widths,
 * weights in natural K order; by default they are copied into B tiles first). */
START_TEST(w4a16_in_place_matches_reference) {
  setenv("NVFP4_W4A16_IN_PLACE", "1", 1);
  nvfp4_handle *h = gpu_tile_rows_handle(0);
  unsetenv("NVFP4_W4A16_IN_PLACE");
  ck_assert(h->w4a16_in_place);
  for (int i = 0; i < selected_count; i++)
    if (is_small(i)) assert_case_matches_reference(h, i, "activations in place");
  nvfp4_destroy(h);
}
END_TEST

/* Replaying a captured graph of a call with f16 and bf16 groups (two launches) gives the bits of a direct call. */
enum { GRAPH_G = 3, GRAPH_N = 520, GRAPH_K = 1024 };
static const int64_t graph_m[GRAPH_G] = {70, 200, 9};

typedef struct w4a16_graph_arg {
  nvfp4_dense a[GRAPH_G];
  nvfp4_tensor b[GRAPH_G];
} w4a16_graph_arg;

static nvfp4_status launch_w4a16(void *arg, CUdeviceptr out, CUstream stream) {
  w4a16_graph_arg *p = arg;
  nvfp4_output c[GRAPH_G];
  for (int g = 0; g < GRAPH_G; g++) {
    c[g] = (nvfp4_output){(void *)(uintptr_t)out, GRAPH_N, 0, F16};
    out += (CUdeviceptr)(graph_m[g] * GRAPH_N * 2);
  }
  return nvfp4_grouped_gemm_w4a16(gpu_handle, GRAPH_G, p->a, p->b, c, 1.5f, stream);
}

START_TEST(w4a16_graph_replay_matches_direct_launch) {
  uint64_t seed = gpu_seed(0x77677261);
  nvfp4i_rng rng = {seed};
  nvfp4i_dense_operand a[GRAPH_G];
  nvfp4i_operand b[GRAPH_G];
  w4a16_graph_arg arg;
  size_t bytes = 0;
  for (int g = 0; g < GRAPH_G; g++) {
    ck_assert_int_eq(nvfp4i_dense_operand_create(&a[g], graph_m[g], GRAPH_K, 1, g % 2 ? BF16 : F16, 8, &rng),
                     NVFP4_STATUS_SUCCESS);
    ck_assert_int_eq(nvfp4i_operand_create(&b[g], GRAPH_N, GRAPH_K, 1, g % 2 ? LIN : BLK, 0, &rng),
                     NVFP4_STATUS_SUCCESS);
    arg.a[g] = a[g].dev;
    arg.b[g] = b[g].dev;
    bytes += (size_t)(graph_m[g] * GRAPH_N * 2);
  }
  assert_graph_replay_matches(launch_w4a16, &arg, bytes, seed);
  for (int g = 0; g < GRAPH_G; g++) {
    nvfp4i_dense_operand_destroy(&a[g]);
    nvfp4i_operand_destroy(&b[g]);
  }
}
END_TEST

Suite *w4a16_gpu_suite(void) {
  Suite *s = suite_create("grouped gemm w4a16 gpu");
  if (gpu_path_lacks(NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16, "grouped gemm w4a16 gpu, every test")) return s;
  TCase *shapes = gpu_tcase("grouped gemm w4a16 shapes", 600);
  select_cases();
  tcase_add_loop_test(shapes, w4a16_matches_reference, 0, selected_count);
  tcase_add_loop_test(shapes, w4a16_split_k_matches_reference, 0, selected_count);
  tcase_add_loop_test(shapes, w4a16_every_entry_matches_reference, 0, GPU_TILE_ROWS_WAYS);
  tcase_add_test(shapes, w4a16_in_place_matches_reference);
  suite_add_tcase(s, shapes);
  TCase *graphs = gpu_tcase("grouped gemm w4a16 graphs", 120);
  tcase_add_test(graphs, w4a16_graph_replay_matches_direct_launch);
  suite_add_tcase(s, graphs);
  return s;
}
