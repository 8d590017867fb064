/* nvfp4_gemv_w4a16 without a GPU. On the fake driver (tests/fake/libcuda.c): every validation path (right
 * status, the field named, nothing launched), x at any element address, and the launch as the kernels read it
 * (gemv_layout.h's block: x's stride in bytes, its type, no x scales; the NVFP4 GEMV's launch shape with the
 * W4A16 shared memory; the equal-steps entry where a warp would split). On the CPU: the W4A16 kernel's
 * arithmetic and x staging (ptx/sm90a/gemv_w4a16.ptx) mirrored in C, against the float64 reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fake_driver.h"
#include "format.h"
#include "reference.h"
#include "sm90a/gemv_layout.h"
#include "suites.h"
#include "testdata.h"

#define F16 NVFP4_DTYPE_F16
#define BF16 NVFP4_DTYPE_BF16
#define F32 NVFP4_DTYPE_F32
#define LIN NVFP4_SF_LINEAR
#define BLK NVFP4_SF_BLOCKED_128x4
#define PLAIN_ENTRY "nvfp4_gemv_w4a16_sm90a"
#define EQUAL_STEPS_ENTRY "nvfp4_gemv_w4a16_equal_steps_sm90a"

enum { M = 100, K = 256, L = 2, X_BATCH_STRIDE = K + 3 };

/* Fake device memory: the fake driver reads none of it, the library only looks at the addresses. */
static _Alignas(16) uint8_t a_data[64], a_scales[16], x_data[64];
static _Alignas(16) uint16_t y_data[M * L];

typedef struct w4a16_gemv_args {
  nvfp4_handle *h;
  nvfp4_tensor a;
  nvfp4_dense x;
  nvfp4_output y;
  int null_a, null_x, null_y;
} w4a16_gemv_args;

/* x one element past a 16-byte boundary, batches an odd number of elements apart: valid as it stands. */
static w4a16_gemv_args valid_args(void) {
  return (w4a16_gemv_args){
      .h = fake_handle,
      .a = {a_data, a_scales, M, K, L, K / 2, M * K / 2, K / 16, M * K / 16, LIN},
      .x = {x_data + 2, 1, K, L, K, X_BATCH_STRIDE, BF16},
      .y = {y_data, 1, M, F16},
  };
}

static nvfp4_status call(const w4a16_gemv_args *g) {
  return nvfp4_gemv_w4a16(g->h, g->null_a ? NULL : &g->a, g->null_x ? NULL : &g->x, g->null_y ? NULL : &g->y,
                          1.0f, NULL);
}

typedef struct w4a16_gemv_case {
  const char *what;
  void (*edit)(w4a16_gemv_args *);
  nvfp4_status expected;
  const char *message; /* must appear in nvfp4_last_error() */
} w4a16_gemv_case;

#define EDIT(name, body) \
  static void name(w4a16_gemv_args *g) { body; }
EDIT(no_handle, g->h = NULL)
EDIT(no_a, g->null_a = 1)
EDIT(no_x, g->null_x = 1)
EDIT(no_y, g->null_y = 1)
EDIT(a_data_null, g->a.data = NULL)
EDIT(a_scales_null, g->a.scales = NULL)
EDIT(a_rows_zero, g->a.rows = 0)
EDIT(a_k_not_32, g->a.k = g->x.k = 48)
EDIT(a_batch_zero, g->a.batch = 0)
EDIT(a_ld_small, g->a.ld = K / 2 - 16)
EDIT(a_sf_ld_small, g->a.sf_ld = K / 16 - 1)
EDIT(a_layout_bad, g->a.sf_layout = (nvfp4_sf_layout)4)
EDIT(a_misaligned, g->a.data = a_data + 8)
EDIT(a_ld_not_16, g->a.ld = K / 2 + 8)
EDIT(x_f32, g->x.dtype = F32)
EDIT(x_dtype_bad, g->x.dtype = (nvfp4_dtype)7)
EDIT(x_data_null, g->x.data = NULL)
EDIT(x_data_odd, g->x.data = x_data + 1)
EDIT(x_rows_zero, g->x.rows = 0)
EDIT(x_rows_two, g->x.rows = 2; g->x.batch_stride = 2 * K)
EDIT(x_k_differs, g->x.k = K + 32; g->x.batch_stride = K + 64)
EDIT(x_batch_differs, g->x.batch = L + 1)
EDIT(x_batches_overlap, g->x.batch_stride = K - 1)
EDIT(y_data_null, g->y.data = NULL)
EDIT(y_dtype_bad, g->y.dtype = (nvfp4_dtype)9)
EDIT(y_misaligned, g->y.data = (uint8_t *)y_data + 1)
EDIT(y_ld_zero, g->y.ld = 0)
EDIT(y_batches_overlap, g->y.batch_stride = M - 1)
EDIT(batch_too_large, g->a.batch = g->x.batch = 70000; g->y.batch_stride = M)
/* x as f32 in shared memory: 1612 chunks of 144 bytes fit, K = 51616 does not */
EDIT(k_beyond_shared_memory, g->a.k = g->x.k = 51616; g->a.ld = 25808; g->a.sf_ld = 3226;
     g->x.batch_stride = 51616)

static const w4a16_gemv_case cases[] = {
    {"NULL handle", no_handle, NVFP4_STATUS_INVALID_VALUE, "h is NULL"},
    {"NULL a", no_a, NVFP4_STATUS_INVALID_VALUE, "a is NULL"},
    {"NULL x", no_x, NVFP4_STATUS_INVALID_VALUE, "x is NULL"},
    {"NULL y", no_y, NVFP4_STATUS_INVALID_VALUE, "y is NULL"},
    {"a.data NULL", a_data_null, NVFP4_STATUS_INVALID_VALUE, "a.data is NULL"},
    {"a.scales NULL", a_scales_null, NVFP4_STATUS_INVALID_VALUE, "a.scales is NULL"},
    {"a.rows 0", a_rows_zero, NVFP4_STATUS_INVALID_VALUE, "a.rows = 0"},
    {"a.k not a multiple of 32", a_k_not_32, NVFP4_STATUS_NOT_SUPPORTED, "a.k = 48"},
    {"a.batch 0", a_batch_zero, NVFP4_STATUS_INVALID_VALUE, "a.batch = 0"},
    {"a.ld < k/2", a_ld_small, NVFP4_STATUS_INVALID_VALUE, "a.ld = 112"},
    {"a.sf_ld < k/16", a_sf_ld_small, NVFP4_STATUS_INVALID_VALUE, "a.sf_ld = 15"},
    {"a.sf_layout unknown", a_layout_bad, NVFP4_STATUS_INVALID_VALUE, "a.sf_layout = 4"},
    {"a.data not 16-byte aligned", a_misaligned, NVFP4_STATUS_NOT_SUPPORTED, "a: data"},
    {"a.ld not a multiple of 16", a_ld_not_16, NVFP4_STATUS_NOT_SUPPORTED, "a: data"},
    {"f32 x", x_f32, NVFP4_STATUS_NOT_SUPPORTED, "x.dtype = NVFP4_DTYPE_F32: f32 activations"},
    {"x.dtype unknown", x_dtype_bad, NVFP4_STATUS_INVALID_VALUE, "x.dtype = 7"},
    {"x.data NULL", x_data_null, NVFP4_STATUS_INVALID_VALUE, "x.data is NULL"},
    {"x.data off its elements", x_data_odd, NVFP4_STATUS_INVALID_VALUE, "x.data = "},
    {"x.rows 0", x_rows_zero, NVFP4_STATUS_INVALID_VALUE, "x.rows = 0"},
    {"x.rows 2", x_rows_two, NVFP4_STATUS_INVALID_VALUE, "x.rows = 2: must be 1"},
    {"x.k != a.k", x_k_differs, NVFP4_STATUS_INVALID_VALUE, "x.k = 288: must equal a.k = 256"},
    {"x.batch != a.batch", x_batch_differs, NVFP4_STATUS_INVALID_VALUE, "x.batch = 3: must equal a.batch = 2"},
    {"x batches overlap", x_batches_overlap, NVFP4_STATUS_INVALID_VALUE, "x.batch_stride = 255"},
    {"y.data NULL", y_data_null, NVFP4_STATUS_INVALID_VALUE, "y.data is NULL"},
    {"y.dtype unknown", y_dtype_bad, NVFP4_STATUS_INVALID_VALUE, "y.dtype = 9"},
    {"y.data misaligned", y_misaligned, NVFP4_STATUS_INVALID_VALUE, "y.data = "},
    {"y.ld 0", y_ld_zero, NVFP4_STATUS_INVALID_VALUE, "y.ld = 0"},
    {"y batches overlap", y_batches_overlap, NVFP4_STATUS_INVALID_VALUE, "y.batch_stride = 99"},
    {"more batches than a grid holds", batch_too_large, NVFP4_STATUS_NOT_SUPPORTED, "a.batch = 70000"},
    {"x longer than shared memory holds", k_beyond_shared_memory, NVFP4_STATUS_NOT_SUPPORTED,
     "a.k = 51616: GEMV holds x in shared memory, K <= 51584"},
};

START_TEST(gemv_w4a16_launches_once_for_valid_arguments) {
  w4a16_gemv_args g = valid_args();
  ck_assert_msg(call(&g) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
}
END_TEST

START_TEST(gemv_w4a16_rejects_bad_arguments) {
  const w4a16_gemv_case *c = &cases[_i];
  w4a16_gemv_args g = valid_args();
  c->edit(&g);
  assert_rejected(c->what, call(&g), c->expected, c->message);
}
END_TEST

/* No alignment beyond the element is ever refused: x anywhere, any batch stride, any ld (not read); one batch's
 * stride is not read either; the largest K that fits. */
START_TEST(gemv_w4a16_takes_x_at_any_element_address) {
  w4a16_gemv_args g = valid_args();
  for (int offset = 0; offset < 16; offset += 2) {
    g.x.data = x_data + offset;
    g.x.ld = offset - 5;
    ck_assert_msg(call(&g) == NVFP4_STATUS_SUCCESS, "x.data 16-byte aligned + %d: %s", offset, nvfp4_last_error());
  }
  g.a.batch = g.x.batch = 1;
  g.x.batch_stride = -7;
  g.x.dtype = F16;
  ck_assert_msg(call(&g) == NVFP4_STATUS_SUCCESS, "one batch, stride -7: %s", nvfp4_last_error());
  g.a.k = g.x.k = 51584;
  g.a.ld = 25792;
  g.a.sf_ld = 3224;
  ck_assert_msg(call(&g) == NVFP4_STATUS_SUCCESS, "K = 51584: %s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 10);
}
END_TEST

/* The launch as the W4A16 kernels read it, next to nvfp4_gemv's launch on the same A and y: the same A and y
 * fields, launch shape and entry choice; x's address, stride in bytes and type; no x scales; shared memory
 * 144 bytes a chunk. */
static void assert_launch_like_nvfp4(int64_t m, int64_t k, int64_t l, nvfp4_sf_layout layout, nvfp4_dtype x_dtype,
                                     const char *entry) {
  nvfp4_tensor a = {a_data, a_scales, m, k, l, k / 2 + 16, m * (k / 2 + 16), k / 16 + 3, m * (k / 16 + 3), layout};
  nvfp4_tensor x4 = {x_data, a_scales, 1, k, l, k / 2, k / 2, k / 16, k / 16, LIN};
  nvfp4_dense x = {x_data + 6, 1, k, l, 0, k + 5, x_dtype};
  nvfp4_output y = {y_data, 3, 3 * m + 1, F32};
  ck_assert_msg(nvfp4_gemv(fake_handle, &a, &x4, &y, 0.5f, NULL) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_msg(nvfp4_gemv_w4a16(fake_handle, &a, &x, &y, 0.5f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  const char *nvfp4_entry, *w4a16_entry;
  CUlaunchConfig nvfp4_config, config;
  const unsigned char *q = fake_launch(fake_launches() - 2, &nvfp4_entry, &nvfp4_config);
  const unsigned char *p = fake_launch(fake_launches() - 1, &w4a16_entry, &config);
  ck_assert_str_eq(w4a16_entry, entry);
  ck_assert_msg((strstr(nvfp4_entry, "equal_steps") != NULL) == (strstr(entry, "equal_steps") != NULL),
                "%lldx%lldx%lld: %s beside %s", (long long)m, (long long)k, (long long)l, entry, nvfp4_entry);
  static const int same[] = {GEMV_P_A_DATA, GEMV_P_A_SF, GEMV_P_Y, GEMV_P_A_LD, GEMV_P_A_BATCH_STRIDE,
                             GEMV_P_A_SF_BATCH_STRIDE, GEMV_P_A_SF_ROW_STEP128, GEMV_P_A_SF_ROW_STEP32,
                             GEMV_P_A_SF_ROW_STEP1, GEMV_P_Y_LD, GEMV_P_Y_BATCH_STRIDE};
  for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
    ck_assert_msg(param_u64(p, same[i]) == param_u64(q, same[i]), "u64 at %d differs", same[i]);
  static const int same32[] = {GEMV_P_M, GEMV_P_CHUNKS_PER_ROW, GEMV_P_A_SF_PAIR_STEP, GEMV_P_LANES_PER_ROW_LOG2,
                               GEMV_P_QUADS_PER_BATCH, GEMV_P_QUADS_PER_CTA, GEMV_P_Y_DTYPE, GEMV_P_ALPHA};
  for (size_t i = 0; i < sizeof same32 / sizeof same32[0]; i++)
    ck_assert_msg(param_u32(p, same32[i]) == param_u32(q, same32[i]), "u32 at %d differs", same32[i]);
  ck_assert_uint_eq(param_u64(p, GEMV_P_A_DATA), (uintptr_t)a_data);
  ck_assert_uint_eq(param_u32(p, GEMV_P_CHUNKS_PER_ROW), (uint32_t)(k / 32));
  ck_assert_uint_eq(param_u64(p, GEMV_P_X_DATA), (uintptr_t)(x_data + 6));
  ck_assert_uint_eq(param_u64(p, GEMV_P_X_BATCH_STRIDE), l > 1 ? (uint64_t)(k + 5) * 2 : 0);
  ck_assert_uint_eq(param_u32(p, GEMV_P_X_DTYPE), (uint32_t)x_dtype);
  ck_assert_uint_eq(param_u64(p, GEMV_P_X_SF), 0);
  ck_assert_uint_eq(param_u64(p, GEMV_P_X_SF_BATCH_STRIDE), 0);
  ck_assert_uint_eq(param_u32(p, GEMV_P_X_SF_PAIR_STEP), 0);
  ck_assert_uint_eq(config.sharedMemBytes, (uint32_t)(k / 32) * GEMV_W4A16_SMEM_PER_CHUNK);
  ck_assert_uint_eq(config.blockDimX, GEMV_THREADS);
  ck_assert_uint_eq(config.gridDimY, (unsigned)l);
  ck_assert_uint_eq(config.gridDimX, nvfp4_config.gridDimX);
}

START_TEST(gemv_w4a16_launches_as_the_nvfp4_gemv_with_its_x) {
  assert_launch_like_nvfp4(7168, 2048, 4, LIN, F16, PLAIN_ENTRY);
  assert_launch_like_nvfp4(4096, 7168, 8, BLK, BF16, PLAIN_ENTRY);
  /* 199 chunks on 32 lanes, 33 on 16 and 1 on 2: warps would split, the equal-steps entry runs */
  assert_launch_like_nvfp4(1, 32, 1, LIN, BF16, EQUAL_STEPS_ENTRY);
  assert_launch_like_nvfp4(4096, 6368, 8, LIN, F16, EQUAL_STEPS_ENTRY);
  assert_launch_like_nvfp4(5, 1056, 3, BLK, F16, EQUAL_STEPS_ENTRY);
}
END_TEST

/* Where x's shared memory allows fewer CTAs per SM than the registers do, the grid follows it: K = 32768 takes
 * 147456 bytes a CTA, one per SM (the fake device: 132 SMs, 2 CTAs per SM by registers), so 1056 quads go to
 * 132 CTAs of 8 where the NVFP4 GEMV (40 bytes a chunk) launches 264 of 4. */
START_TEST(gemv_w4a16_grid_follows_its_shared_memory) {
  enum { BIG_K = 32768, BIG_M = 4224 };
  nvfp4_tensor a = {a_data, a_scales, BIG_M, BIG_K, 1, BIG_K / 2, 0, BIG_K / 16, 0, LIN};
  nvfp4_tensor x4 = {x_data, a_scales, 1, BIG_K, 1, BIG_K / 2, 0, BIG_K / 16, 0, LIN};
  nvfp4_dense x = {x_data, 1, BIG_K, 1, BIG_K, 0, F16};
  nvfp4_output y = {y_data, 1, 0, F16};
  CUlaunchConfig config;
  ck_assert_msg(nvfp4_gemv(fake_handle, &a, &x4, &y, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  fake_last_launch(&config);
  ck_assert_uint_eq(config.gridDimX, 264);
  ck_assert_msg(nvfp4_gemv_w4a16(fake_handle, &a, &x, &y, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  const unsigned char *p = fake_last_launch(&config);
  ck_assert_uint_eq(config.gridDimX, 132);
  ck_assert_uint_eq(param_u32(p, GEMV_P_QUADS_PER_CTA), 8);
  ck_assert_uint_eq(config.sharedMemBytes, BIG_K / 32 * GEMV_W4A16_SMEM_PER_CHUNK);
}
END_TEST

START_TEST(an_image_without_the_w4a16_gemv_refuses_it_and_serves_the_nvfp4_gemv) {
  setenv("FAKE_CUDA_MISSING", PLAIN_ENTRY "," EQUAL_STEPS_ENTRY, 1);
  create_fake_handle();
  w4a16_gemv_args g = valid_args();
  assert_refused_for_missing_entry(PLAIN_ENTRY, call(&g));
  nvfp4_tensor x4 = {x_data, a_scales, 1, K, L, K / 2, K / 2, K / 16, K / 16, LIN};
  ck_assert_msg(nvfp4_gemv(fake_handle, &g.a, &x4, &g.y, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
  destroy_fake_handle();
}
END_TEST

/* ---- the kernel's arithmetic, mirrored in C (gemv_w4a16.ptx: PAIR_SUM, WORD_SUM, MATH, ACC_TO_Y) */

/* The f16 bits of the two codes topping the halves of q: PAIR_SUM's decode. */
static uint32_t pair_bits(uint32_t q) { return (q & 0x80008000u) | ((q >> 3) & 0x0E000E00u); }

/* Half h (0 low, 1 high) of a pair as the f32 cvt.f32.f16 makes of it. */
static float half_value(uint32_t pair, int h) { return (float)nvfp4i_f16_value((uint16_t)(pair >> (16 * h))); }

START_TEST(every_code_in_every_nibble_decodes_to_its_value_times_2_to_the_minus_14) {
  nvfp4i_rng rng = {0xDEC0DE};
  for (int nibble = 0; nibble < 8; nibble++)
    for (unsigned code = 0; code < 16; code++)
      for (int trial = 0; trial < 64; trial++) {
        uint32_t w = (uint32_t)nvfp4i_rng_next(&rng) & ~(0xFu << (4 * nibble));
        w |= code << (4 * nibble);
        /* WORD_SUM: the pair holding nibble i (and i + 4) comes from w << 4 * (3 - i % 4) */
        uint32_t pair = pair_bits(w << (4 * (3 - nibble % 4)));
        double got = ldexp(half_value(pair, nibble / 4), 14);
        ck_assert_msg(got == nvfp4i_e2m1_value(code) && signbit(got) == signbit(nvfp4i_e2m1_value(code)),
                      "code %u in nibble %d of 0x%08X: %g, expected %g", code, nibble, w, got,
                      nvfp4i_e2m1_value(code));
      }
}
END_TEST

/* One chunk (16 bytes of A, its two scales) against its 32 x values as MATH sums it, added to acc: per block,
 * the products in WORD_SUM's order from the first on, then acc = fma(block sum, scale, acc). */
static float chunk_sum(const uint8_t *a, uint8_t s0, uint8_t s1, const float *x, float acc) {
  const uint8_t scale[2] = {s0, s1};
  for (int block = 0; block < 2; block++) {
    float sum = 0.0f;
    int first = 1;
    for (int word = 2 * block; word < 2 * block + 2; word++) {
      uint32_t w;
      memcpy(&w, a + 4 * word, 4);
      const float *xw = x + 8 * word;
      for (int pair = 0; pair < 4; pair++) { /* elements 3 - pair and 7 - pair */
        uint32_t bits = pair_bits(w << (4 * pair));
        float lo = half_value(bits, 0), hi = half_value(bits, 1);
        sum = first ? lo * xw[3 - pair] : fmaf(lo, xw[3 - pair], sum);
        sum = fmaf(hi, xw[7 - pair], sum);
        first = 0;
      }
    }
    acc = fmaf(sum, (float)nvfp4i_e4m3_value(scale[block]), acc); /* exact: e4m3 -> f16 -> f32 */
  }
  return acc;
}

/* A row of `chunks` chunks summed as one thread of a group of `lanes` takes them (chunks t, t + lanes, ...,
 * each thread's sum then added in a butterfly), times 2^14, then alpha: f32 results under the f32 bar. */
START_TEST(the_mirrored_arithmetic_meets_the_f32_bar_against_the_reference) {
  enum { CHUNKS = 224, KK = 32 * CHUNKS, LANES = 32, ROWS = 40 };
  nvfp4i_rng rng = {0x5EED + (uint64_t)_i};
  nvfp4_dtype x_dtype = _i % 2 ? BF16 : F16;
  static uint8_t a[KK / 2], sf[KK / 16];
  static float x[KK];
  static double arow[KK], xrow[KK];
  for (int kk = 0; kk < KK; kk++) {
    uint16_t bits = nvfp4i_random_activation(&rng, x_dtype);
    xrow[kk] = x_dtype == F16 ? nvfp4i_f16_value(bits) : nvfp4i_bf16_value(bits);
    x[kk] = (float)xrow[kk]; /* the staged f32: exact */
    ck_assert(x[kk] == xrow[kk]);
  }
  for (int row = 0; row < ROWS; row++) {
    for (int i = 0; i < KK / 2; i++) a[i] = (uint8_t)nvfp4i_rng_next(&rng);
    for (int j = 0; j < KK / 16; j++) sf[j] = nvfp4i_random_scale(&rng);
    nvfp4_tensor t = {a, sf, 1, KK, 1, KK / 2, 0, KK / 16, 0, LIN};
    nvfp4i_decode_row(&t, 0, 0, arow);
    float lane_sum[LANES];
    for (int lane = 0; lane < LANES; lane++) {
      lane_sum[lane] = 0.0f;
      for (int c = lane; c < CHUNKS; c += LANES)
        lane_sum[lane] = chunk_sum(a + 16 * c, sf[2 * c], sf[2 * c + 1], x + 32 * c, lane_sum[lane]);
    }
    for (int half = LANES / 2; half > 0; half /= 2)
      for (int lane = 0; lane < half; lane++) lane_sum[lane] += lane_sum[lane + half];
    float alpha = 0.75f, out = lane_sum[0] * 16384.0f * alpha;
    double ref, mag, ratio;
    nvfp4i_dot(arow, xrow, KK, alpha, &ref, &mag);
    ck_assert_msg(nvfp4i_check_value(F32, out, ref, mag, &ratio), "row %d (%s x): %.9g, reference %.9g, "
                  "magnitude %.9g (error/tolerance %.3g)", row, x_dtype == F16 ? "f16" : "bf16", out, ref, mag,
                  ratio);
  }
}
END_TEST

/* ---- x staging, mirrored (gemv_w4a16.ptx: STAGE_X): every element of x lands at 144 c + 4 j (chunk c,
 * element j of it), once, and nothing else of shared memory is written */

/* Trips of 8 items per thread of 256: item u + 256 i of the trip starting at u. For each item that exists,
 * the x elements it reads (from its first, `per_item` of them) and the shared-memory byte offset it writes
 * them to (consecutive f32 values from there). */
static void assert_staging_places_every_element(int64_t chunks, int per_item) {
  int64_t elements = 32 * chunks, items = elements / per_item;
  int64_t bytes = chunks * GEMV_W4A16_SMEM_PER_CHUNK;
  int64_t *writer = malloc(sizeof(int64_t) * (size_t)(bytes / 4));
  ck_assert_ptr_nonnull(writer);
  for (int64_t i = 0; i < bytes / 4; i++) writer[i] = -1;
  for (int64_t tid = 0; tid < GEMV_THREADS; tid++)
    for (int64_t u = tid; u < items; u += 2048) {
      /* the trip's bases: %xg (as an element index) and %xaddr */
      int64_t first = u * per_item, addr;
      if (per_item == 8)
        addr = (u >> 2) * GEMV_W4A16_SMEM_PER_CHUNK + (u & 3) * 32;
      else
        addr = (u >> 5) * GEMV_W4A16_SMEM_PER_CHUNK + (u & 31) * 4;
      for (int64_t i = 0; i < 8; i++) {
        if (i > 0 && u + 256 * i >= items) continue; /* %p_item<i> */
        int64_t element = first + (per_item == 8 ? 4096 / 2 : 512 / 2) * i;
        int64_t at = addr + (per_item == 8 ? 9216 : 1152) * i;
        for (int e = 0; e < per_item; e++) {
          int64_t byte = at + 4 * e;
          ck_assert_msg(byte >= 0 && byte < bytes, "element %lld written at %lld, past %lld", (long long)(element + e),
                        (long long)byte, (long long)bytes);
          ck_assert_msg(writer[byte / 4] == -1, "byte %lld written twice", (long long)byte);
          writer[byte / 4] = element + e;
        }
      }
    }
  for (int64_t c = 0; c < chunks; c++)
    for (int64_t j = 0; j < 32; j++)
      ck_assert_msg(writer[(c * GEMV_W4A16_SMEM_PER_CHUNK + 4 * j) / 4] == 32 * c + j,
                    "K = %lld, %d-element items: chunk %lld element %lld holds x[%lld]", (long long)elements, per_item,
                    (long long)c, (long long)j, (long long)writer[(c * GEMV_W4A16_SMEM_PER_CHUNK + 4 * j) / 4]);
  free(writer);
}

START_TEST(staging_places_every_element_of_x_at_its_place_in_shared_memory) {
  static const int64_t chunks[] = {1, 2, 3, 33, 64, 199, 224, 512, 513, 1612};
  for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
    assert_staging_places_every_element(chunks[i], 8);
    assert_staging_places_every_element(chunks[i], 1);
  }
}
END_TEST

Suite *gemv_w4a16_suite(void) {
  Suite *s = suite_create("gemv_w4a16");
  TCase *validation = tcase_create("gemv w4a16 validation");
  tcase_add_checked_fixture(validation, create_fake_handle, destroy_fake_handle);
  tcase_add_test(validation, gemv_w4a16_launches_once_for_valid_arguments);
  tcase_add_loop_test(validation, gemv_w4a16_rejects_bad_arguments, 0, (int)(sizeof cases / sizeof cases[0]));
  tcase_add_test(validation, gemv_w4a16_takes_x_at_any_element_address);
  suite_add_tcase(s, validation);
  TCase *launches = tcase_create("gemv w4a16 launches");
  tcase_add_checked_fixture(launches, create_fake_handle, destroy_fake_handle);
  tcase_add_test(launches, gemv_w4a16_launches_as_the_nvfp4_gemv_with_its_x);
  tcase_add_test(launches, gemv_w4a16_grid_follows_its_shared_memory);
  suite_add_tcase(s, launches);
  TCase *images = tcase_create("gemv w4a16 from an image without its entries");
  tcase_add_test(images, an_image_without_the_w4a16_gemv_refuses_it_and_serves_the_nvfp4_gemv);
  suite_add_tcase(s, images);
  TCase *mirror = tcase_create("gemv w4a16 kernel arithmetic and staging, mirrored in C");
  tcase_add_test(mirror, every_code_in_every_nibble_decodes_to_its_value_times_2_to_the_minus_14);
  tcase_add_loop_test(mirror, the_mirrored_arithmetic_meets_the_f32_bar_against_the_reference, 0, 4);
  tcase_add_test(mirror, staging_places_every_element_of_x_at_its_place_in_shared_memory);
  suite_add_tcase(s, mirror);
  return s;
}
