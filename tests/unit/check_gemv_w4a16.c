/* nvfp4_gemv_w4a16 without a GPU. On the fake driver (tests/fake/libcuda.c): every validation path (right
 * status, the field named, nothing launched), x at any element address, and the launch as the kernel reads it
 * (gemv_layout.h's block: the NVFP4 GEMV's A and y fields, x's stride in bytes, its type, no x scales; the
 * W4A16 launch shape: 16-row tiles, warps per tile, shared memory in zero-padded steps of 256). On the CPU:
 * the W4A16 kernel's decode, accumulation and x staging (ptx/sm90a/gemv_w4a16.ptx) mirrored in C, against
 * the float64 reference. */
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
#define ENTRY "nvfp4_gemv_w4a16_sm90a"

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
/* x in shared memory in steps of 256 (640 bytes): 361 steps fit, K = 92448 (362) does not */
EDIT(k_beyond_shared_memory, g->a.k = g->x.k = 92448; g->a.ld = 46224; g->a.sf_ld = 5778;
     g->x.batch_stride = 92448)

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
     "a.k = 92448: GEMV holds x in shared memory, K <= 92416"},
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
  g.a.k = g.x.k = 92416;
  g.a.ld = 46208;
  g.a.sf_ld = 5776;
  ck_assert_msg(call(&g) == NVFP4_STATUS_SUCCESS, "K = 92416: %s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 10);
}
END_TEST

/* The launch as the W4A16 kernel reads it, next to nvfp4_gemv's launch on the same A and y: the same A and y
 * fields; x's address, stride in bytes and type; no x scales; the W4A16 shape (fake device: 132 SMs, 2 CTAs
 * per SM by registers): ceil(M / 16) tiles, T per CTA, 2^w warps per tile; shared memory 640 bytes per 256 of
 * K, rounded up. */
static void assert_w4a16_launch(int64_t m, int64_t k, int64_t l, nvfp4_sf_layout layout, nvfp4_dtype x_dtype,
                                uint32_t ctas, uint32_t tiles_per_cta, uint32_t warps_log2) {
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
  ck_assert_str_eq(w4a16_entry, ENTRY);
  static const int same[] = {GEMV_P_A_DATA, GEMV_P_A_SF, GEMV_P_Y, GEMV_P_A_LD, GEMV_P_A_BATCH_STRIDE,
                             GEMV_P_A_SF_BATCH_STRIDE, GEMV_P_A_SF_ROW_STEP128, GEMV_P_A_SF_ROW_STEP32,
                             GEMV_P_A_SF_ROW_STEP1, GEMV_P_Y_LD, GEMV_P_Y_BATCH_STRIDE};
  for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
    ck_assert_msg(param_u64(p, same[i]) == param_u64(q, same[i]), "u64 at %d differs", same[i]);
  static const int same32[] = {GEMV_P_M, GEMV_P_CHUNKS_PER_ROW, GEMV_P_A_SF_PAIR_STEP, GEMV_P_Y_DTYPE, GEMV_P_ALPHA};
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
  ck_assert_uint_eq(param_u32(p, GEMV_P_TILES_PER_BATCH), (uint32_t)((m + 15) / 16));
  ck_assert_msg(param_u32(p, GEMV_P_TILES_PER_CTA) == tiles_per_cta && config.gridDimX == ctas &&
                    param_u32(p, GEMV_P_WARPS_PER_TILE_LOG2) == warps_log2,
                "%lldx%lldx%lld: %u CTAs of %u tiles, 2^%u warps a tile; expected %u of %u, 2^%u", (long long)m,
                (long long)k, (long long)l, config.gridDimX, param_u32(p, GEMV_P_TILES_PER_CTA),
                param_u32(p, GEMV_P_WARPS_PER_TILE_LOG2), ctas, tiles_per_cta, warps_log2);
  ck_assert_uint_eq(config.sharedMemBytes, (uint32_t)((k + 255) / 256) * 8 * GEMV_W4A16_SMEM_PER_CHUNK);
  ck_assert_uint_eq(config.blockDimX, GEMV_THREADS);
  ck_assert_uint_eq(config.gridDimY, (unsigned)l);
}

START_TEST(gemv_w4a16_launches_in_tiles_of_16_rows) {
  /* 448 tiles over 66 CTAs a batch: 7 each, one warp a tile */
  assert_w4a16_launch(7168, 2048, 4, LIN, F16, 64, 7, 0);
  assert_w4a16_launch(4096, 7168, 8, BLK, BF16, 32, 8, 0);
  /* 448 tiles over 264 CTAs: 2 each, two groups of 4 warps splitting the 64 steps of K */
  assert_w4a16_launch(7168, 16384, 1, LIN, F16, 224, 2, 2);
  /* one tile: 8 warps would share it, but there is one step of K (one chunk: the others clamped) */
  assert_w4a16_launch(1, 32, 1, LIN, BF16, 1, 1, 0);
  /* 33 chunks: 5 steps, the last of one chunk; 4 warps */
  assert_w4a16_launch(5, 1056, 3, BLK, F16, 1, 1, 2);
  /* 18 tiles over 264 CTAs */
  assert_w4a16_launch(273, 96, 1, LIN, F16, 18, 1, 0);
}
END_TEST

/* Where x's shared memory allows fewer CTAs per SM than the registers do, the grid follows it: K = 65536 takes
 * 163840 bytes a CTA, one per SM (the fake device: 132 SMs, 2 CTAs per SM by registers), so 264 tiles go to
 * 132 CTAs of 2 where the NVFP4 GEMV (40 bytes a chunk) launches 264. */
START_TEST(gemv_w4a16_grid_follows_its_shared_memory) {
  enum { BIG_K = 65536, BIG_M = 4224 };
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
  ck_assert_uint_eq(param_u32(p, GEMV_P_TILES_PER_CTA), 2);
  ck_assert_uint_eq(config.sharedMemBytes, BIG_K / 256 * 8 * GEMV_W4A16_SMEM_PER_CHUNK);
}
END_TEST

START_TEST(an_image_without_the_w4a16_gemv_refuses_it_and_serves_the_nvfp4_gemv) {
  setenv("FAKE_CUDA_MISSING", ENTRY, 1);
  create_fake_handle();
  w4a16_gemv_args g = valid_args();
  assert_refused_for_missing_entry(ENTRY, call(&g));
  nvfp4_tensor x4 = {x_data, a_scales, 1, K, L, K / 2, K / 2, K / 16, K / 16, LIN};
  ck_assert_msg(nvfp4_gemv(fake_handle, &g.a, &x4, &g.y, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
  destroy_fake_handle();
}
END_TEST

/* ---- the kernel's arithmetic, mirrored in C (gemv_w4a16.ptx and gemv_w4a16_body.inc: DECODE, SPLATS, WORD,
 * MATH, REDUCE_STORE; the tensor core's sums modelled as f32 additions of exact products) */

/* The decode's constants per x type (gemv_w4a16.ptx: GW_DEC_*, GW_Z<j>, GW_K<j>) */
typedef struct decode_consts {
  int shift;
  uint32_t ca, cb, mask;
  int from_b[4], k[4];
} decode_consts;

static const decode_consts f16_decode = {3, 0x07070707u, 0x80808080u, 0x8E008E00u, {0, 1, 0, 1}, {9, 8, 1, 0}};
static const decode_consts bf16_decode = {6, 0x00770077u, 0x88008800u, 0x81C081C0u, {0, 0, 1, 1}, {6, 2, 4, 0}};

/* DECODE's R_j of word w: f16x2 (bf16x2) bits of elements j (low half) and j + 4, times 2^-14 (2^-126). */
static uint32_t decode_pair(const decode_consts *d, uint32_t w, int j) {
  uint32_t za = (w & d->ca) | ((w << d->shift) & ~d->ca);
  uint32_t zb = (w & d->cb) | ((w >> d->shift) & ~d->cb);
  return ((d->from_b[j] ? zb : za) << d->k[j]) & d->mask;
}

static double half_of(nvfp4_dtype type, uint32_t pair, int h) {
  uint16_t bits = (uint16_t)(pair >> (16 * h));
  return type == F16 ? nvfp4i_f16_value(bits) : nvfp4i_bf16_value(bits);
}

START_TEST(every_code_in_every_nibble_decodes_to_its_value_in_both_types) {
  nvfp4i_rng rng = {0xDEC0DE};
  for (int type = 0; type < 2; type++) {
    nvfp4_dtype t = type ? BF16 : F16;
    const decode_consts *d = type ? &bf16_decode : &f16_decode;
    int exponent = type ? 126 : 14;
    for (int nibble = 0; nibble < 8; nibble++)
      for (unsigned code = 0; code < 16; code++)
        for (int trial = 0; trial < 64; trial++) {
          uint32_t w = (uint32_t)nvfp4i_rng_next(&rng) & ~(0xFu << (4 * nibble));
          w |= code << (4 * nibble);
          double got = ldexp(half_of(t, decode_pair(d, w, nibble % 4), nibble / 4), exponent);
          ck_assert_msg(got == nvfp4i_e2m1_value(code) && signbit(got) == signbit(nvfp4i_e2m1_value(code)),
                        "%s: code %u in nibble %d of 0x%08X: %g, expected %g", type ? "bf16" : "f16", code, nibble,
                        w, got, nvfp4i_e2m1_value(code));
        }
  }
}
END_TEST

/* v has at most `bits` significant bits and its least is at least 2^least: exact in a type of that precision
 * whose subnormals go down to 2^least */
static int exact_in(double v, int bits, int least) {
  if (v == 0.0) return 1;
  int e;
  double m = frexp(fabs(v), &e); /* v = m 2^e, m in [0.5, 1) */
  double scaled = ldexp(m, bits);
  return scaled == floor(scaled) && ldexp(fabs(v), -least) == floor(ldexp(fabs(v), -least));
}

/* Every code times every finite e4m3 scale, decoded times the splatted scale (f16: the scale; bf16: the scale
 * times 2^119), is exact in the type: the multiply the kernel does (GW_MUL) rounds nothing. */
START_TEST(every_code_times_every_scale_is_exact_in_both_types) {
  for (unsigned s = 0; s < 256; s++) {
    if ((s & 0x7F) == 0x7F) continue; /* NaN */
    for (unsigned code = 0; code < 16; code++) {
      double v = nvfp4i_e2m1_value(code) * nvfp4i_e4m3_value(s);
      ck_assert_msg(exact_in(ldexp(v, -14), 11, -24) && fabs(ldexp(v, -14)) < 65504.0,
                    "f16: code %u scale 0x%02X", code, s);
      ck_assert_msg(exact_in(ldexp(v, -7), 8, -133) && exact_in(ldexp(nvfp4i_e4m3_value(s), 119), 8, -133),
                    "bf16: code %u scale 0x%02X", code, s);
    }
  }
}
END_TEST

/* One warp's step of one row as the kernel sums it: for each sub-step h and lane t, chunk 8 step + 4h + t
 * (clamped to the row's last, against zero x past K); per word, two mmas, each adding 16 exact products
 * (4 lanes x 4) to the chain c in f32. Returns the chain. */
static float step_sum(const double *arow, const double *xrow, int64_t chunks, int64_t step) {
  float c = 0.0f;
  for (int h = 0; h < 2; h++)
    for (int word = 0; word < 4; word++)
      for (int mma = 0; mma < 2; mma++) {
        double sum = 0.0;
        for (int t = 0; t < 4; t++) {
          int64_t chunk = 8 * step + 4 * h + t, real = chunk < chunks ? chunk : chunks - 1;
          for (int j = 2 * mma; j < 2 * mma + 2; j++)
            for (int half = 0; half < 2; half++) {
              int64_t e = 8 * word + j + 4 * half;
              double x = chunk < chunks ? xrow[32 * chunk + e] : 0.0;
              sum += arow[32 * real + e] * x;
            }
        }
        c = (float)((double)c + sum); /* exact products, one f32 rounding per mma */
      }
  return c;
}

/* Rows summed as W warps split their steps (warp j: steps j, j + W, ...; acc += chain in f32), warps added in
 * order, times 2^14 (exact), then alpha: f32 results under the f32 bar, K with a partial last step. */
START_TEST(the_mirrored_arithmetic_meets_the_f32_bar_against_the_reference) {
  enum { CHUNKS = 227, KK = 32 * CHUNKS, ROWS = 24 };
  nvfp4i_rng rng = {0x5EED + (uint64_t)_i};
  nvfp4_dtype x_dtype = _i % 2 ? BF16 : F16;
  int warps = 1 << (_i % 4);
  int64_t steps = (CHUNKS + 7) / 8;
  static uint8_t a[KK / 2], sf[KK / 16];
  static double arow[KK], xrow[KK];
  for (int kk = 0; kk < KK; kk++) {
    uint16_t bits = nvfp4i_random_activation(&rng, x_dtype);
    xrow[kk] = x_dtype == F16 ? nvfp4i_f16_value(bits) : nvfp4i_bf16_value(bits);
  }
  for (int row = 0; row < ROWS; row++) {
    for (int i = 0; i < KK / 2; i++) a[i] = (uint8_t)nvfp4i_rng_next(&rng);
    for (int j = 0; j < KK / 16; j++) sf[j] = nvfp4i_random_scale(&rng);
    nvfp4_tensor t = {a, sf, 1, KK, 1, KK / 2, 0, KK / 16, 0, LIN};
    nvfp4i_decode_row(&t, 0, 0, arow);
    float total = 0.0f;
    for (int w = 0; w < warps; w++) {
      float acc = 0.0f;
      for (int64_t st = w; st < steps; st += warps) acc += step_sum(arow, xrow, CHUNKS, st);
      total = w == 0 ? acc : total + acc;
    }
    float alpha = 0.75f, out = total * alpha;
    double ref, mag, ratio;
    nvfp4i_dot(arow, xrow, KK, alpha, &ref, &mag);
    ck_assert_msg(nvfp4i_check_value(F32, out, ref, mag, &ratio), "row %d (%s x, %d warps): %.9g, reference %.9g, "
                  "magnitude %.9g (error/tolerance %.3g)", row, x_dtype == F16 ? "f16" : "bf16", warps, out, ref, mag,
                  ratio);
  }
}
END_TEST

/* ---- x staging, mirrored (gemv_w4a16.ptx: STAGE_X): element 8i + j of chunk c lands at 80 c + 16 i + 2 slot,
 * slot 2 (j % 4) + j / 4, once; the chunks from K / 32 to the steps' end are zero; nothing else is written. */

/* Per shared-memory half: the x element written there, -2 for a zero of the padding, -1 for none. */
static void write_half(int64_t *writer, int64_t bytes, int64_t at, int64_t what) {
  ck_assert_msg(at >= 0 && at + 2 <= bytes, "x[%lld] written at %lld, past %lld", (long long)what, (long long)at,
                (long long)bytes);
  ck_assert_msg(writer[at / 2] == -1, "byte %lld written twice", (long long)at);
  writer[at / 2] = what;
}

static void assert_staging_places_every_element(int64_t chunks, int per_item) {
  int64_t steps = (chunks + 7) / 8, bytes = steps * 8 * GEMV_W4A16_SMEM_PER_CHUNK;
  int64_t *writer = malloc(sizeof(int64_t) * (size_t)(bytes / 2));
  ck_assert_ptr_nonnull(writer);
  for (int64_t i = 0; i < bytes / 2; i++) writer[i] = -1;
  int64_t words = 4 * chunks, pad_words = 32 * steps - words;
  for (int64_t tid = 0; tid < GEMV_THREADS; tid++) {
    if (tid < pad_words) { /* the padding store */
      int64_t u = tid + words, at = (u >> 2) * GEMV_W4A16_SMEM_PER_CHUNK + (u & 3) * 16;
      for (int e = 0; e < 8; e++) write_half(writer, bytes, at + 2 * e, -2);
    }
    int64_t items = per_item == 8 ? words : 32 * chunks;
    for (int64_t u = tid; u < items; u += 2048) {
      int64_t addr; /* %xaddr of the trip */
      if (per_item == 8)
        addr = (u >> 2) * GEMV_W4A16_SMEM_PER_CHUNK + (u & 3) * 16;
      else
        addr = (u >> 5) * GEMV_W4A16_SMEM_PER_CHUNK + ((u >> 3) & 3) * 16 + (u & 3) * 4 + ((u >> 2) & 1) * 2;
      for (int64_t i = 0; i < 8; i++) {
        if (i > 0 && u + 256 * i >= items) continue; /* %p_item<i> */
        if (per_item == 8) { /* UNIT_STORE: halves x0 x4 x1 x5 x2 x6 x3 x7 of the word */
          static const int order[8] = {0, 4, 1, 5, 2, 6, 3, 7};
          for (int e = 0; e < 8; e++)
            write_half(writer, bytes, addr + 5120 * i + 2 * e, 8 * (u + 256 * i) + order[e]);
        } else {
          write_half(writer, bytes, addr + 640 * i, u + 256 * i);
        }
      }
    }
  }
  for (int64_t c = 0; c < 8 * steps; c++)
    for (int64_t i = 0; i < 4; i++)
      for (int64_t j = 0; j < 8; j++) {
        int64_t at = c * GEMV_W4A16_SMEM_PER_CHUNK + 16 * i + 2 * (2 * (j % 4) + j / 4);
        int64_t expected = c < chunks ? 32 * c + 8 * i + j : -2;
        ck_assert_msg(writer[at / 2] == expected, "K = %lld, %d-element items: chunk %lld word %lld element %lld "
                      "holds %lld, expected %lld", (long long)(32 * chunks), per_item, (long long)c, (long long)i,
                      (long long)j, (long long)writer[at / 2], (long long)expected);
      }
  free(writer);
}

START_TEST(staging_places_every_element_of_x_at_its_place_in_shared_memory) {
  static const int64_t chunks[] = {1, 2, 3, 7, 8, 33, 64, 199, 224, 512, 513, 1612, 2888};
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
  tcase_add_test(launches, gemv_w4a16_launches_in_tiles_of_16_rows);
  tcase_add_test(launches, gemv_w4a16_grid_follows_its_shared_memory);
  suite_add_tcase(s, launches);
  TCase *images = tcase_create("gemv w4a16 from an image without its entries");
  tcase_add_test(images, an_image_without_the_w4a16_gemv_refuses_it_and_serves_the_nvfp4_gemv);
  suite_add_tcase(s, images);
  TCase *mirror = tcase_create("gemv w4a16 kernel arithmetic and staging, mirrored in C");
  tcase_add_test(mirror, every_code_in_every_nibble_decodes_to_its_value_in_both_types);
  tcase_add_test(mirror, every_code_times_every_scale_is_exact_in_both_types);
  tcase_add_loop_test(mirror, the_mirrored_arithmetic_meets_the_f32_bar_against_the_reference, 0, 8);
  tcase_add_test(mirror, staging_places_every_element_of_x_at_its_place_in_shared_memory);
  suite_add_tcase(s, mirror);
  return s;
}
