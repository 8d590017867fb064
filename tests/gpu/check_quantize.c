/* nvfp4_quantize on the GPU, every byte of the data and scale buffers against nvfp4i_quantize_ref: random and
 * adversarial blocks (verify.h's nvfp4i_quantize_case: e4m3 and e2m1 boundaries give or take an ulp, zero
 * and -0 blocks, NaN and infinities, subnormal and zero scales), all three input types, both scale layouts
 * (BLOCKED padding written 0), tails in rows and K, batches with gaps, inputs off 16 bytes (the element-load
 * path), huge and tiny global scales, 16384 x 16384 bf16. Outputs are poisoned with 0xFF and every byte the
 * recipe does not write must stay so. Round trips: quantize -> dequantize -> quantize gives the same bytes
 * where every scale is a normal e4m3; quantize -> grouped GEMM against the float64 GEMM of the quantized
 * values. */
#include "suites.h"
#include "verify.h"

#define LIN NVFP4_SF_LINEAR
#define BLK NVFP4_SF_BLOCKED_128x4
#define F16 NVFP4_DTYPE_F16
#define BF16 NVFP4_DTYPE_BF16
#define F32 NVFP4_DTYPE_F32

typedef struct quantize_gpu_case {
  const char *what;
  int small; /* kept by NVFP4_GPU_QUICK (compute-sanitizer runs) */
  nvfp4i_quantize_case c;
} quantize_gpu_case;

static const quantize_gpu_case cases[] = {
    /* the smallest call, and tails in rows and K (32, 96, 544; 1056: two strips, the second nearly empty) */
    {"1 x 32 bf16", 1, {.rows = 1, .k = 32, .batch = 1, .layout = LIN, .dtype = BF16, .global_scale = 1}},
    {"7 x 96 f16 blocked", 1, {.rows = 7, .k = 96, .batch = 1, .layout = BLK, .dtype = F16, .global_scale = 1}},
    {"129 x 544 f32, padded", 1, {.rows = 129, .k = 544, .batch = 1, .layout = LIN, .dtype = F32,
                                  .global_scale = 0.75f, .in_pad = 4, .pad = 16}},
    {"300 x 1056 bf16 blocked", 1, {.rows = 300, .k = 1056, .batch = 1, .layout = BLK, .dtype = BF16,
                                    .global_scale = 3}},
    {"130 x 32 f32 blocked", 1, {.rows = 130, .k = 32, .batch = 1, .layout = BLK, .dtype = F32,
                                 .global_scale = 1}},
    /* batches with gaps in the input and the output */
    {"3 x 129 x 7168 bf16", 1, {.rows = 129, .k = 7168, .batch = 3, .layout = LIN, .dtype = BF16,
                                .global_scale = 1, .in_pad = 8, .in_batch_pad = 16, .pad = 32}},
    {"3 x 300 x 96 f16 blocked", 1, {.rows = 300, .k = 96, .batch = 3, .layout = BLK, .dtype = F16,
                                     .global_scale = 2, .in_pad = 24, .in_batch_pad = 8, .pad = 16}},
    {"3 x 1 x 544 f32 blocked", 1, {.rows = 1, .k = 544, .batch = 3, .layout = BLK, .dtype = F32,
                                    .global_scale = 1, .in_batch_pad = 4}},
    /* element-aligned inputs: the element-load path */
    {"129 x 544 bf16 + 2 bytes", 1, {.rows = 129, .k = 544, .batch = 1, .layout = LIN, .dtype = BF16,
                                     .global_scale = 1, .in_offset = 2}},
    {"3 x 7 x 1024 f16, odd ld", 1, {.rows = 7, .k = 1024, .batch = 3, .layout = BLK, .dtype = F16,
                                     .global_scale = 1, .in_pad = 1, .in_batch_pad = 3}},
    {"65 x 96 f32 + 4 bytes", 1, {.rows = 65, .k = 96, .batch = 1, .layout = LIN, .dtype = F32,
                                  .global_scale = 1, .in_offset = 4, .in_pad = 1}},
    /* huge and tiny global scales: products that overflow to inf, inputs far below e4m3's range */
    {"64 x 256 f32, g = 2^100", 1, {.rows = 64, .k = 256, .batch = 1, .layout = LIN, .dtype = F32,
                                    .global_scale = 0x1p100f}},
    {"64 x 256 bf16, g = 2^-100", 1, {.rows = 64, .k = 256, .batch = 1, .layout = BLK, .dtype = BF16,
                                      .global_scale = 0x1p-100f}},
    {"64 x 256 f16, g = 3e4", 1, {.rows = 64, .k = 256, .batch = 1, .layout = LIN, .dtype = F16,
                                  .global_scale = 3e4f}},
    /* large: every SM busy for many strips */
    {"4096 x 7168 f16 blocked", 0, {.rows = 4096, .k = 7168, .batch = 1, .layout = BLK, .dtype = F16,
                                    .global_scale = 1, .pad = 16}},
    {"16384 x 16384 bf16", 0, {.rows = 16384, .k = 16384, .batch = 1, .layout = BLK, .dtype = BF16,
                               .global_scale = 1}},
};
enum { CASE_COUNT = sizeof cases / sizeof cases[0] };

static int selected[CASE_COUNT], selected_count;

START_TEST(quantize_matches_reference_bit_for_bit) {
  const quantize_gpu_case *t = &cases[selected[_i]];
  nvfp4i_quantize_case c = t->c;
  c.seed = gpu_seed(0x716e7400u + (uint64_t)selected[_i]);
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_quantize(gpu_handle, &c, &v);
  ck_assert_msg(pass,
                "quantize '%s' (seed=%llu, NVFP4_TEST_SEED=%llu): status %s (%s), %lld/%lld bytes differ, first: "
                "%s",
                t->what, (unsigned long long)c.seed, (unsigned long long)gpu_run_seed(),
                nvfp4_status_string(v.status), nvfp4_last_error(), (long long)v.failures, (long long)v.checked,
                v.detail);
}
END_TEST

/* rows, K, scale layout, small: round trips over tails and both layouts */
static const struct {
  int64_t rows, k;
  nvfp4_sf_layout layout;
  int small;
} trips[] = {{1, 32, LIN, 1}, {7, 96, BLK, 1}, {129, 544, LIN, 1}, {300, 1056, BLK, 1}, {4096, 7168, LIN, 0}};
enum { TRIP_COUNT = sizeof trips / sizeof trips[0] };
static int selected_trips[TRIP_COUNT];

START_TEST(quantize_dequantize_quantize_gives_the_same_bytes) {
  int i = selected_trips[_i];
  uint64_t seed = gpu_seed(0x72747200u + (uint64_t)i);
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_quantize_round_trip(gpu_handle, trips[i].rows, trips[i].k, trips[i].layout, seed, &v);
  ck_assert_msg(pass, "round trip %lld x %lld, layout %d (seed=%llu, NVFP4_TEST_SEED=%llu): status %s (%s), "
                "%lld/%lld bytes differ, first: %s", (long long)trips[i].rows, (long long)trips[i].k,
                trips[i].layout, (unsigned long long)seed, (unsigned long long)gpu_run_seed(),
                nvfp4_status_string(v.status), nvfp4_last_error(), (long long)v.failures, (long long)v.checked,
                v.detail);
}
END_TEST

/* M, N, K, scale layout, small: quantized operands through the grouped GEMM */
static const struct {
  int64_t m, n, k;
  nvfp4_sf_layout layout;
  int small;
} gemms[] = {{7, 40, 96, LIN, 1}, {129, 300, 544, BLK, 1}, {256, 1024, 2048, LIN, 0}};
enum { GEMM_COUNT = sizeof gemms / sizeof gemms[0] };
static int selected_gemms[GEMM_COUNT];

START_TEST(quantized_operands_multiply_as_the_reference) {
  int i = selected_gemms[_i];
  uint64_t seed = gpu_seed(0x71676d00u + (uint64_t)i);
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_quantize_gemm(gpu_handle, gemms[i].m, gemms[i].n, gemms[i].k, gemms[i].layout, seed, &v);
  ck_assert_msg(pass, "quantize -> GEMM %lld x %lld x %lld, layout %d (seed=%llu, NVFP4_TEST_SEED=%llu): status %s "
                "(%s), %lld/%lld outputs fail, worst ratio %g, first: %s", (long long)gemms[i].m, (long long)gemms[i].n,
                (long long)gemms[i].k, gemms[i].layout, (unsigned long long)seed, (unsigned long long)gpu_run_seed(),
                nvfp4_status_string(v.status), nvfp4_last_error(), (long long)v.failures, (long long)v.checked,
                v.worst_ratio, v.detail);
}
END_TEST

Suite *quantize_gpu_suite(void) {
  Suite *s = suite_create("quantize gpu");
  if (gpu_path_lacks(NVFP4I_KERNEL_QUANTIZE, "quantize gpu, every test")) return s;
  TCase *shapes = gpu_tcase("quantize shapes", 600);
  selected_count = gpu_select_cases(&cases[0].small, sizeof cases[0], CASE_COUNT, selected);
  tcase_add_loop_test(shapes, quantize_matches_reference_bit_for_bit, 0, selected_count);
  suite_add_tcase(s, shapes);
  TCase *trips_tc = gpu_tcase("quantize round trips", 300);
  int n = gpu_select_cases(&trips[0].small, sizeof trips[0], TRIP_COUNT, selected_trips);
  tcase_add_loop_test(trips_tc, quantize_dequantize_quantize_gives_the_same_bytes, 0, n);
  n = gpu_select_cases(&gemms[0].small, sizeof gemms[0], GEMM_COUNT, selected_gemms);
  if (!gpu_path_lacks_nvfp4_grouped_gemm("quantize gpu, quantized operands multiply as the reference"))
    tcase_add_loop_test(trips_tc, quantized_operands_multiply_as_the_reference, 0, n);
  suite_add_tcase(s, trips_tc);
  return s;
}
