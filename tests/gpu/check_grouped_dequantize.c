/* The library's grouped dequantize (nvfp4i_grouped_dequantize, host/dequantize.h: how the grouped GEMM's
 * NVFP4 activations become f16 once per call) on the GPU, bit for bit against nvfp4i_dequantize_ref for every
 * group (any NaN matching any NaN): fresh random full-range operands (every code, scales over [2^-6, 2^4) of
 * either sign) with NaN and zero scales in some rows, G = 1 up to 300 (two launches), mixed rows with empty
 * groups, mixed K and scale layouts in one call, every output type, destinations in one buffer with rows
 * longer than K, some off a 16-byte boundary (the narrow stores beside the vector ones in one launch), and the
 * B-tile layout the grouped GEMM copies by bulk (every element found at its swizzled place, K padding +0).
 * Everything that is not a result, the gaps between rows and between destinations and an empty group's
 * destination, is poisoned with 0xFF bytes and must stay so. */
#include "suites.h"
#include "verify.h"

#define LIN NVFP4_SF_LINEAR
#define BLK NVFP4_SF_BLOCKED_128x4
#define F16 NVFP4_DTYPE_F16
#define BF16 NVFP4_DTYPE_BF16
#define F32 NVFP4_DTYPE_F32

/* In a case: ROWS(...), KS(...), LAYOUTS(...): group g takes the (g % length)-th of each list. */
#define ROWS(...) .rows = ARRAY(__VA_ARGS__), .rows_count = LENGTH(__VA_ARGS__)
#define KS(...) .k = ARRAY(__VA_ARGS__), .k_count = LENGTH(__VA_ARGS__)
#define LAYOUTS(...)                                                                                       \
  .layouts = (const nvfp4_sf_layout[]){__VA_ARGS__},                                                       \
  .layout_count = (int)(sizeof((const nvfp4_sf_layout[]){__VA_ARGS__}) / sizeof(nvfp4_sf_layout))

/* The MoE decode step's rows (SPEC: 0 to 24 tokens an expert, some experts idle), 13 long so that 64 groups
 * see every position at several offsets. */
#define MOE_ROWS ROWS(3, 0, 24, 17, 1, 9, 0, 12, 24, 5, 20, 2, 14)

typedef struct grouped_dequantize_gpu_case {
  const char *what;
  int small; /* kept by NVFP4_GPU_QUICK (compute-sanitizer runs): at most a few million elements */
  nvfp4i_grouped_dequantize_case c;
} grouped_dequantize_gpu_case;

static const grouped_dequantize_gpu_case cases[] = {
    /* one group: the smallest call, a row tail, a K tail (544: 17 chunks) */
    {"G=1, 1 x 32 f16", 1, {.groups = 1, ROWS(1), KS(32), LAYOUTS(LIN), .dtype = F16, .out_pad = 8}},
    {"G=1, 129 x 7168 bf16 blocked", 1, {.groups = 1, ROWS(129), KS(7168), LAYOUTS(BLK), .dtype = BF16,
                                         .out_pad = 8, .special_rows = 1}},
    {"G=1, 300 x 544 f16, rows off 16 bytes", 1, {.groups = 1, ROWS(300), KS(544), LAYOUTS(LIN), .dtype = F16,
                                                  .pad = 16, .out_pad = 3, .special_rows = 1}},
    /* the grouped GEMM's shapes: G = 8, ~1000 token rows, K = 7168 and 2048 */
    {"G=8 gg1 rows, K=7168 f16", 0, {.groups = 8, ROWS(80, 176, 128, 72, 64, 248, 96, 160), KS(7168),
                                     LAYOUTS(LIN, BLK), .dtype = F16, .out_pad = 8, .special_rows = 1}},
    {"G=8 gg2 rows, K=2048 bf16, odd groups + 2 bytes", 1,
     {.groups = 8, ROWS(40, 76, 168, 72, 164, 148, 196, 160), KS(2048), LAYOUTS(BLK), .dtype = BF16, .pad = 16,
      .out_pad = 8, .out_offset = 2, .special_rows = 1}},
    {"G=8 mixed rows and K f32, odd groups + 4 bytes", 1,
     {.groups = 8, ROWS(7, 1, 129, 0, 33, 300, 2, 64), KS(544, 7168, 32, 96), LAYOUTS(BLK, LIN, LIN),
      .dtype = F32, .out_pad = 5, .out_offset = 4, .special_rows = 1}},
    /* the MoE decode step: 64 experts of 0 to 24 rows, K = 7168 */
    {"G=64 MoE rows 0..24, K=7168 f16 blocked", 1, {.groups = 64, MOE_ROWS, KS(7168), LAYOUTS(BLK),
                                                     .dtype = F16, .out_pad = 8, .special_rows = 1}},
    {"G=64 MoE rows 0..24, K=7168 bf16 linear, odd ld", 0,
     {.groups = 64, MOE_ROWS, KS(7168), LAYOUTS(LIN), .dtype = BF16, .pad = 16, .out_pad = 1,
      .special_rows = 1}},
    /* a full parameter block, mixed K and layouts, and more groups than one launch takes */
    {"G=256 mixed rows, K and layouts f16", 0,
     {.groups = 256, ROWS(0, 1, 3, 7, 24, 33, 129), KS(32, 544, 7168, 2048, 96), LAYOUTS(LIN, BLK, BLK),
      .dtype = F16, .pad = 16, .out_pad = 8, .out_offset = 6, .special_rows = 1}},
    {"G=256 MoE rows, K=2048 bf16", 1, {.groups = 256, MOE_ROWS, KS(2048), LAYOUTS(BLK, LIN), .dtype = BF16,
                                        .out_pad = 16, .special_rows = 1}},
    {"G=300 (two launches) mixed K bf16", 1,
     {.groups = 300, ROWS(2, 0, 5, 1, 24), KS(1024, 96, 544), LAYOUTS(LIN, BLK), .dtype = BF16, .out_pad = 8,
      .out_offset = 2, .special_rows = 1}},
    /* B tiles (nvfp4i_grouped_dequantize_b_tiles, the grouped GEMM's route on sm_90a): K padded to 128 with
     * zeros (544 -> 640, 96 and 32 -> 128), rows that are not a multiple of 8 (the swizzle), both 16-bit types */
    {"B tiles G=1, 1 x 32 f16", 1, {.groups = 1, ROWS(1), KS(32), LAYOUTS(LIN), .dtype = F16, .b_tiles = 1}},
    {"B tiles G=8 mixed rows and K f16", 1,
     {.groups = 8, ROWS(7, 1, 129, 0, 33, 300, 2, 64), KS(544, 7168, 32, 96), LAYOUTS(BLK, LIN, LIN),
      .dtype = F16, .special_rows = 1, .b_tiles = 1}},
    {"B tiles G=64 MoE rows 0..24, K=7168 bf16", 1, {.groups = 64, MOE_ROWS, KS(7168), LAYOUTS(BLK, LIN),
                                                      .dtype = BF16, .special_rows = 1, .b_tiles = 1}},
    {"B tiles G=300 (two launches) mixed K f16", 0,
     {.groups = 300, ROWS(2, 0, 5, 1, 24), KS(1024, 96, 544), LAYOUTS(LIN, BLK), .dtype = F16, .pad = 16,
      .special_rows = 1, .b_tiles = 1}},
    /* large: every SM busy for many strips */
    {"G=4, 4096, 1000, 4096, 1000 rows, K=7168 f16", 0,
     {.groups = 4, ROWS(4096, 1000), KS(7168), LAYOUTS(BLK, LIN), .dtype = F16, .pad = 16, .out_pad = 8,
      .special_rows = 1}},
};
enum { CASE_COUNT = sizeof cases / sizeof cases[0] };

static int selected[CASE_COUNT], selected_count;

START_TEST(grouped_dequantize_matches_reference_bit_for_bit) {
  const grouped_dequantize_gpu_case *t = &cases[selected[_i]];
  nvfp4i_grouped_dequantize_case c = t->c;
  c.seed = gpu_seed(0x67647100u + (uint64_t)selected[_i]);
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_grouped_dequantize(gpu_handle, &c, &v);
  ck_assert_msg(pass,
                "grouped dequantize '%s' (seed=%llu, NVFP4_TEST_SEED=%llu): status %s (%s), %lld/%lld elements "
                "differ, %lld stray writes, first: %s",
                t->what, (unsigned long long)c.seed, (unsigned long long)gpu_run_seed(),
                nvfp4_status_string(v.status), nvfp4_last_error(), (long long)v.failures, (long long)v.checked,
                (long long)v.clobbered, v.detail);
}
END_TEST

Suite *grouped_dequantize_gpu_suite(void) {
  Suite *s = suite_create("grouped dequantize gpu");
  TCase *shapes = gpu_tcase("grouped dequantize shapes", 600);
  selected_count = gpu_select_cases(&cases[0].small, sizeof cases[0], CASE_COUNT, selected);
  tcase_add_loop_test(shapes, grouped_dequantize_matches_reference_bit_for_bit, 0, selected_count);
  suite_add_tcase(s, shapes);
  return s;
}
