/* nvfp4_dequantize on the GPU, bit for bit against nvfp4i_dequantize_ref (any NaN matching any NaN): random
 * full-range operands (every code, scales of either sign) with NaN and zero scales in some rows, both scale
 * layouts (garbage in BLOCKED padding and in padded rows), tails in rows and K (1 x 32 up to 7168), batches
 * with gaps, every output type, padded output rows and batches, outputs that start off a 16-byte boundary or
 * whose rows do (the 4- and 2-byte store path), 16384 x 16384, and CUDA graph replay. Outputs are poisoned
 * with 0xFF bytes, also before and after the output, and every byte that is not a result must stay so. */
#include "graph_replay.h"
#include "suites.h"
#include "testdata.h"
#include "verify.h"

#define LIN NVFP4_SF_LINEAR
#define BLK NVFP4_SF_BLOCKED_128x4
#define F16 NVFP4_DTYPE_F16
#define BF16 NVFP4_DTYPE_BF16
#define F32 NVFP4_DTYPE_F32

typedef struct dequantize_gpu_case {
  const char *what;
  int small; /* kept by NVFP4_GPU_QUICK (compute-sanitizer runs) */
  nvfp4i_dequantize_case c;
} dequantize_gpu_case;

static const dequantize_gpu_case cases[] = {
    /* the smallest call, and tails in rows and K (32, 96, 544: chunks a strip leaves over) */
    {"1 x 32", 1, {.rows = 1, .k = 32, .batch = 1, .layout = LIN, .dtype = F16}},
    {"7 x 96 blocked", 1, {.rows = 7, .k = 96, .batch = 1, .layout = BLK, .dtype = F16, .special_rows = 1}},
    {"129 x 544 bf16, padded rows", 1, {.rows = 129, .k = 544, .batch = 1, .layout = LIN, .dtype = BF16,
                                        .pad = 16, .out_pad = 8, .special_rows = 1}},
    {"300 x 32 f32 blocked, rows off 16 bytes", 1, {.rows = 300, .k = 32, .batch = 1, .layout = BLK,
                                                    .dtype = F32, .out_pad = 3, .special_rows = 1}},
    {"1 x 7168 bf16 blocked", 1, {.rows = 1, .k = 7168, .batch = 1, .layout = BLK, .dtype = BF16}},
    {"300 x 544 f32", 1, {.rows = 300, .k = 544, .batch = 1, .layout = LIN, .dtype = F32, .special_rows = 1}},
    /* batches with gaps between them, in the input and the output */
    {"3 x 129 x 7168 f16", 1, {.rows = 129, .k = 7168, .batch = 3, .layout = LIN, .dtype = F16, .pad = 32,
                               .out_pad = 64, .out_batch_pad = 24, .special_rows = 1}},
    {"3 x 300 x 96 f32 blocked", 1, {.rows = 300, .k = 96, .batch = 3, .layout = BLK, .dtype = F32, .pad = 16,
                                     .out_pad = 4, .out_batch_pad = 12, .special_rows = 1}},
    {"3 x 1 x 32 f32", 1, {.rows = 1, .k = 32, .batch = 3, .layout = LIN, .dtype = F32, .out_batch_pad = 5}},
    /* outputs off a 16-byte boundary: 4- and 2-byte stores */
    {"3 x 129 x 544 f16 + 2 bytes", 1, {.rows = 129, .k = 544, .batch = 3, .layout = LIN, .dtype = F16,
                                        .out_pad = 8, .out_offset = 2, .special_rows = 1}},
    {"300 x 96 f16, odd ld", 1, {.rows = 300, .k = 96, .batch = 1, .layout = BLK, .dtype = F16, .out_pad = 1,
                                 .special_rows = 1}},
    {"3 x 7 x 7168 bf16 + 6 bytes", 1, {.rows = 7, .k = 7168, .batch = 3, .layout = BLK, .dtype = BF16,
                                        .out_offset = 6, .out_batch_pad = 1, .special_rows = 1}},
    {"129 x 96 f32 + 8 bytes", 1, {.rows = 129, .k = 96, .batch = 1, .layout = LIN, .dtype = F32,
                                   .out_offset = 8, .special_rows = 1}},
    {"1 x 544 bf16 + 2 bytes", 1, {.rows = 1, .k = 544, .batch = 1, .layout = LIN, .dtype = BF16,
                                   .out_offset = 2}},
    /* large: every SM busy for many strips */
    {"4096 x 7168 bf16, padded rows", 0, {.rows = 4096, .k = 7168, .batch = 1, .layout = LIN, .dtype = BF16,
                                          .pad = 16, .out_pad = 8, .special_rows = 1}},
    {"16384 x 16384 f16", 0, {.rows = 16384, .k = 16384, .batch = 1, .layout = BLK, .dtype = F16,
                              .special_rows = 1}},
};
enum { CASE_COUNT = sizeof cases / sizeof cases[0] };

static int selected[CASE_COUNT], selected_count;

START_TEST(dequantize_matches_reference_bit_for_bit) {
  const dequantize_gpu_case *t = &cases[selected[_i]];
  nvfp4i_dequantize_case c = t->c;
  c.seed = gpu_seed(0x64657100u + (uint64_t)selected[_i]);
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_dequantize(gpu_handle, &c, &v);
  ck_assert_msg(pass,
                "dequantize '%s' (seed=%llu, NVFP4_TEST_SEED=%llu): status %s (%s), %lld/%lld elements differ, "
                "%lld stray writes, first: %s",
                t->what, (unsigned long long)c.seed, (unsigned long long)gpu_run_seed(),
                nvfp4_status_string(v.status), nvfp4_last_error(), (long long)v.failures, (long long)v.checked,
                (long long)v.clobbered, v.detail);
}
END_TEST

/* Replaying a captured graph of a call (3 batches, BLOCKED scales, f16) gives the bits of a direct call. */
enum { GRAPH_ROWS = 129, GRAPH_K = 544, GRAPH_BATCH = 3 };

static nvfp4_status launch_dequantize(void *arg, CUdeviceptr out, CUstream stream) {
  const nvfp4_tensor *in = arg;
  nvfp4_output o = {(void *)(uintptr_t)out, GRAPH_K, GRAPH_ROWS * GRAPH_K, F16};
  return nvfp4_dequantize(gpu_handle, in, &o, stream);
}

START_TEST(dequantize_graph_replay_matches_direct_launch) {
  uint64_t seed = gpu_seed(0x64677261);
  nvfp4i_rng rng = {seed};
  nvfp4i_operand in;
  ck_assert_int_eq(nvfp4i_operand_create(&in, GRAPH_ROWS, GRAPH_K, GRAPH_BATCH, BLK, 16, &rng),
                   NVFP4_STATUS_SUCCESS);
  assert_graph_replay_matches(launch_dequantize, &in.dev, (size_t)GRAPH_ROWS * GRAPH_K * GRAPH_BATCH * 2, seed);
  nvfp4i_operand_destroy(&in);
}
END_TEST

Suite *dequantize_gpu_suite(void) {
  Suite *s = suite_create("dequantize gpu");
  TCase *shapes = gpu_tcase("dequantize shapes", 600);
  selected_count = gpu_select_cases(&cases[0].small, sizeof cases[0], CASE_COUNT, selected);
  tcase_add_loop_test(shapes, dequantize_matches_reference_bit_for_bit, 0, selected_count);
  suite_add_tcase(s, shapes);
  TCase *graphs = gpu_tcase("dequantize graphs", 120);
  tcase_add_test(graphs, dequantize_graph_replay_matches_direct_launch);
  suite_add_tcase(s, graphs);
  return s;
}
