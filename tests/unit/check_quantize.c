/* The CPU reference of quantize, dequantize and scale relayout (host/tools/quantize_ref.c) on the hard cases
 * of SPEC section 2's recipe: every rounding boundary, subnormal and saturated scales, -0, NaN and inf,
 * zero blocks, both layouts, the bytes it may write, round trips, and the GEMM of quantized operands. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "quantize_ref.h"
#include "reference.h"
#include "suites.h"
#include "testdata.h"

enum { POISON = 0xA5 };

/* A quantize destination in host memory, every byte POISON: `pad` bytes after each data row, each LINEAR
 * scale row and each batch of both. */
static nvfp4_tensor dest_create(int64_t rows, int64_t k, int64_t batch, nvfp4_sf_layout layout, int64_t pad) {
  nvfp4_tensor t = {NULL, NULL, rows, k, batch, k / 2 + pad, 0, layout == NVFP4_SF_LINEAR ? k / 16 + pad : 0, 0,
                    layout};
  t.batch_stride = rows * t.ld + pad;
  t.sf_batch_stride = nvfp4i_sf_batch_bytes(layout, t.sf_ld, rows, k) + pad;
  void *data = malloc((size_t)(t.batch_stride * batch)), *scales = malloc((size_t)(t.sf_batch_stride * batch));
  memset(data, POISON, (size_t)(t.batch_stride * batch));
  memset(scales, POISON, (size_t)(t.sf_batch_stride * batch));
  t.data = data;
  t.scales = scales;
  return t;
}

static void dest_destroy(nvfp4_tensor *t) {
  free((void *)t->data);
  free((void *)t->scales);
}

static uint8_t scale_at(const nvfp4_tensor *t, int64_t b, int64_t r, int64_t j) {
  return ((const uint8_t *)t->scales)[b * t->sf_batch_stride + nvfp4i_sf_offset(t->sf_layout, t->sf_ld, t->k, r, j)];
}

static unsigned code_at(const nvfp4_tensor *t, int64_t b, int64_t r, int64_t kk) {
  return nvfp4i_e2m1_code_at((const uint8_t *)t->data + b * t->batch_stride, t->ld, r, kk);
}

/* Quantizes one f32 row of `blocks` blocks with global scale g: its codes and scale bytes, unpacked. */
static void quantize_row(const float *x, int64_t blocks, float g, unsigned *codes, uint8_t *scales) {
  int64_t k = blocks * 16;
  nvfp4_dense in = {x, 1, k, 1, k, k, NVFP4_DTYPE_F32};
  nvfp4_tensor out = dest_create(1, k, 1, NVFP4_SF_LINEAR, 0);
  nvfp4i_quantize_ref(&in, &out, g);
  for (int64_t kk = 0; kk < k; kk++) codes[kk] = code_at(&out, 0, 0, kk);
  memcpy(scales, out.scales, (size_t)blocks);
  dest_destroy(&out);
}

/* n values, 16 to a block; block j's magnitudes lie in [2^(e-8), 2^(e+1)) with e drawn from [lo, hi], and
 * its first element in [2^e, 2^(e+1)), so the block's amax too. Random signs and 23-bit mantissas. */
static void fill_blocks(float *x, int64_t n, int lo, int hi, nvfp4i_rng *rng) {
  int e = lo;
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = nvfp4i_rng_next(rng);
    if (i % 16 == 0) e = lo + (int)(r % (uint64_t)(hi - lo + 1));
    int exponent = i % 16 == 0 ? e : e - (int)((r >> 8) % 9);
    float v = ldexpf(1.0f + (float)((r >> 16) & 0x7FFFFF) / 0x1p23f, exponent);
    x[i] = (r >> 40) & 1 ? -v : v;
  }
}

/* Element 0 of each block is 6 * s, which makes s the block's scale; the others are u * s for a u from
 * `units`, exact since s is a power of two, so t / s is u itself. */
START_TEST(codes_round_to_nearest_even_at_every_e2m1_boundary) {
  static const struct {
    float s;
    uint8_t byte;
  } scales[] = {{0x1p-9f, 0x01}, {0x1p-8f, 0x02}, {0x1p-6f, 0x08}, {1.0f, 0x38}, {256.0f, 0x78}};
  enum { CASES = 45, BLOCKS = CASES / 15 };
  float units[CASES];
  unsigned want[CASES];
  int n = 0;
  for (unsigned c = 0; c < 7; c++) {
    float mid = (float)((nvfp4i_e2m1_value(c) + nvfp4i_e2m1_value(c + 1)) / 2);
    float at[3] = {nextafterf(mid, 0.0f), mid, nextafterf(mid, INFINITY)};
    unsigned code[3] = {c, c & 1u ? c + 1 : c, c + 1};
    for (int i = 0; i < 3; i++) {
      units[n] = at[i], want[n++] = code[i];
      units[n] = -at[i], want[n++] = code[i] | 8u;
    }
  }
  units[n] = 0.0f, want[n++] = 0;
  units[n] = -0.0f, want[n++] = 8;
  units[n] = -6.0f, want[n++] = 15;
  for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
    float x[BLOCKS * 16];
    unsigned codes[BLOCKS * 16];
    uint8_t sf[BLOCKS];
    for (int j = 0; j < BLOCKS; j++) {
      x[j * 16] = 6.0f * scales[i].s;
      for (int u = 0; u < 15; u++) x[j * 16 + 1 + u] = units[j * 15 + u] * scales[i].s;
    }
    quantize_row(x, BLOCKS, 1.0f, codes, sf);
    for (int j = 0; j < BLOCKS; j++) {
      ck_assert_msg(sf[j] == scales[i].byte, "s %a: scale 0x%02X", scales[i].s, sf[j]);
      ck_assert_uint_eq(codes[j * 16], 7);
      for (int u = 0; u < 15; u++)
        ck_assert_msg(codes[j * 16 + 1 + u] == want[j * 15 + u], "s %a, t/s %a: code %u, expected %u", scales[i].s,
                      units[j * 15 + u], codes[j * 16 + 1 + u], want[j * 15 + u]);
    }
  }
}
END_TEST

/* Ties t/s = m exactly under scales of every mantissa (normal and subnormal): t = m*s is exact (a few
 * significant bits each), so only a true division finds the tie; t * (1/s) misses some. */
START_TEST(ties_under_every_scale_mantissa_go_to_even) {
  static const uint8_t scales[] = {0x38, 0x39, 0x3A, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x03, 0x05, 0x06, 0x07, 0x7E};
  for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
    float s = (float)nvfp4i_e4m3_value(scales[i]), x[16] = {6.0f * s, -0.0f};
    unsigned codes[16], want[16] = {7, 8};
    uint8_t sf;
    for (unsigned c = 0; c < 7; c++) {
      x[2 + 2 * c] = (float)((nvfp4i_e2m1_value(c) + nvfp4i_e2m1_value(c + 1)) / 2) * s;
      x[3 + 2 * c] = -x[2 + 2 * c];
      want[2 + 2 * c] = c & 1u ? c + 1 : c;
      want[3 + 2 * c] = want[2 + 2 * c] | 8u;
    }
    quantize_row(x, 1, 1.0f, codes, &sf);
    ck_assert_uint_eq(sf, scales[i]);
    for (int k = 0; k < 16; k++)
      ck_assert_msg(codes[k] == want[k], "scale 0x%02X, t %a: code %u, expected %u", scales[i], x[k], codes[k],
                    want[k]);
  }
}
END_TEST

/* A block of amax a (element 0, and -a at element 7): scale e4m3(fl(a / 6)). 6m is exact for the midpoint m
 * of two adjacent scales, so a = 6m is a tie and its f32 neighbours fall on either side. */
static void check_scale(float amax, unsigned want) {
  float x[16] = {0};
  unsigned codes[16];
  uint8_t sf;
  x[0] = amax;
  x[7] = -amax;
  x[3] = amax / 3;
  quantize_row(x, 1, 1.0f, codes, &sf);
  ck_assert_msg(sf == want, "amax %a: scale 0x%02X, expected 0x%02X", amax, sf, want);
  if (want == 0)
    for (int i = 0; i < 16; i++) ck_assert_msg(codes[i] == 0, "amax %a, scale 0: code %u at %d", amax, codes[i], i);
  else if (want >= 0x08) /* a normal scale is within 1/16 of amax/6, so amax/s lies in [5.65, 6.4]: code 6 */
    ck_assert_msg(codes[0] == 7 && codes[7] == 15, "amax %a, scale 0x%02X: codes %u, %u", amax, sf, codes[0],
                  codes[7]);
}

START_TEST(scale_is_amax_over_6_rounded_to_nearest_even_e4m3) {
  for (unsigned c = 0; c < 0x7E; c++) {
    float mid = (float)((nvfp4i_e4m3_value(c) + nvfp4i_e4m3_value(c + 1)) / 2);
    check_scale(nextafterf(6.0f * mid, 0.0f), c);
    check_scale(6.0f * mid, c & 1u ? c + 1 : c); /* c = 0: amax/6 = 2^-10 rounds to a zero scale */
    check_scale(nextafterf(6.0f * mid, INFINITY), c + 1);
  }
}
END_TEST

START_TEST(scale_saturates_at_448_and_codes_at_6) {
  const float amax[] = {6.0f * 448.0f, nextafterf(6.0f * 448.0f, INFINITY), 6.0f * 464.0f, 1e38f, FLT_MAX};
  for (size_t i = 0; i < sizeof amax / sizeof amax[0]; i++) check_scale(amax[i], 0x7E);
  float x[16] = {2688.0f, 2240.0f, -2240.1f, 1e38f};
  unsigned codes[16];
  uint8_t sf;
  quantize_row(x, 1, 1.0f, codes, &sf);
  ck_assert_uint_eq(sf, 0x7E);
  ck_assert_uint_eq(codes[1], 6);  /* 5 * 448: the tie of 4 and 6 goes to 4 */
  ck_assert_uint_eq(codes[2], 15); /* just past it, negative */
  ck_assert_uint_eq(codes[3], 7);
}
END_TEST

/* Blocks 0-3 hold a NaN, +inf, -inf, and a finite x whose x * g overflows; block 4 is finite and must come
 * out as it does alone. */
START_TEST(nan_or_inf_in_a_block_gives_scale_0x7F_and_zero_codes) {
  float x[5 * 16];
  for (int i = 0; i < 5 * 16; i++) x[i] = 0.75f * (float)(i % 5) - 1.0f;
  x[5] = NAN;
  x[16 + 3] = INFINITY;
  x[32 + 15] = -INFINITY;
  x[48 + 8] = -3e38f;
  unsigned codes[5 * 16], alone_codes[16];
  uint8_t sf[5], alone_sf;
  quantize_row(x, 5, 2.0f, codes, sf);
  quantize_row(x + 64, 1, 2.0f, alone_codes, &alone_sf);
  for (int j = 0; j < 4; j++) {
    ck_assert_msg(sf[j] == 0x7F, "block %d: scale 0x%02X", j, sf[j]);
    for (int i = 0; i < 16; i++)
      ck_assert_msg(codes[j * 16 + i] == 0, "block %d: code %u at %d", j, codes[j * 16 + i], i);
  }
  ck_assert_uint_eq(sf[4], alone_sf);
  ck_assert(memcmp(codes + 64, alone_codes, sizeof alone_codes) == 0);
  ck_assert_uint_ne(alone_sf, 0x7F);
}
END_TEST

/* +0, -0, and blocks whose amax/6 rounds to 0 (with negative elements): scale 0, every code 0, never 8. */
START_TEST(zero_blocks_and_blocks_under_the_smallest_scale_give_zero_codes) {
  float x[4 * 16];
  for (int i = 0; i < 16; i++) {
    x[i] = 0.0f;
    x[16 + i] = -0.0f;
    x[32 + i] = i & 1 ? -0x1p-10f * 6 : 0x1p-10f * 6; /* amax/6 = 2^-10: the tie with 0 */
    x[48 + i] = -1e-30f;
  }
  unsigned codes[4 * 16];
  uint8_t sf[4];
  quantize_row(x, 4, 1.0f, codes, sf);
  for (int j = 0; j < 4; j++) ck_assert_msg(sf[j] == 0, "block %d: scale 0x%02X", j, sf[j]);
  for (int i = 0; i < 4 * 16; i++) ck_assert_msg(codes[i] == 0, "element %d: code %u", i, codes[i]);
}
END_TEST

/* The recipe evaluated another way: every step in float64, rounded to f32 after each (exact for a product,
 * correctly rounded for a quotient, since 53 >= 2*24 + 2). Excess precision or a fused step would differ. */
START_TEST(matches_a_float64_formulation_rounded_after_every_step) {
  enum { BLOCKS = 4096 };
  const uint64_t seed = 0x51A7E;
  nvfp4i_rng rng = {seed};
  float *x = malloc(sizeof(float) * BLOCKS * 16);
  unsigned *codes = malloc(sizeof(unsigned) * BLOCKS * 16);
  uint8_t *sf = malloc(BLOCKS);
  fill_blocks(x, BLOCKS * 16, -20, 12, &rng);
  const float gs[] = {1.0f, 0.3f, 3.7e-3f, 1234.5f};
  for (size_t gi = 0; gi < sizeof gs / sizeof gs[0]; gi++) {
    quantize_row(x, BLOCKS, gs[gi], codes, sf);
    for (int j = 0; j < BLOCKS; j++) {
      float t[16], amax = 0.0f;
      for (int i = 0; i < 16; i++) {
        t[i] = (float)((double)x[j * 16 + i] * (double)gs[gi]);
        amax = fmaxf(amax, fabsf(t[i]));
      }
      uint8_t want_sf = nvfp4i_e4m3_from_float((float)((double)amax / 6.0));
      double s = nvfp4i_e4m3_value(want_sf);
      ck_assert_msg(sf[j] == want_sf, "seed %#llx, g %a, block %d: scale 0x%02X, expected 0x%02X",
                    (unsigned long long)seed, gs[gi], j, sf[j], want_sf);
      for (int i = 0; i < 16; i++) {
        unsigned want = s == 0.0 ? 0u : nvfp4i_e2m1_from_float((float)((double)t[i] / s));
        ck_assert_msg(codes[j * 16 + i] == want, "seed %#llx, g %a, element %d: code %u, expected %u",
                      (unsigned long long)seed, gs[gi], j * 16 + i, codes[j * 16 + i], want);
      }
    }
  }
  free(sf);
  free(codes);
  free(x);
}
END_TEST

/* The same values (exact in bf16 and f16) as f16, bf16 and f32 rows with a row pitch and batch gaps give the
 * same bytes; K = 48 is a multiple of 16 only. */
START_TEST(f16_bf16_and_f32_inputs_with_strides_give_the_same_bytes) {
  enum { ROWS = 9, K = 48, BATCH = 3, LD = K + 5, BATCH_STRIDE = ROWS * LD + 7 };
  const uint64_t seed = 0xD7E5;
  nvfp4i_rng rng = {seed};
  float x[BATCH * ROWS * K];
  fill_blocks(x, BATCH * ROWS * K, -6, 8, &rng);
  static const nvfp4_dtype dtypes[] = {NVFP4_DTYPE_F32, NVFP4_DTYPE_F16, NVFP4_DTYPE_BF16};
  nvfp4_tensor out[3];
  for (int d = 0; d < 3; d++) {
    float *buffer = malloc(sizeof(float) * BATCH * BATCH_STRIDE);
    for (int i = 0; i < BATCH * ROWS * K; i++) {
      double v = nvfp4i_bf16_value(nvfp4i_bf16_from_double(x[i]));
      nvfp4i_output_store(dtypes[d], buffer, i / (ROWS * K) * BATCH_STRIDE + i % (ROWS * K) / K * LD + i % K, v);
    }
    nvfp4_dense in = {buffer, ROWS, K, BATCH, LD, BATCH_STRIDE, dtypes[d]};
    out[d] = dest_create(ROWS, K, BATCH, NVFP4_SF_LINEAR, 3);
    nvfp4i_quantize_ref(&in, &out[d], 0.3f);
    free(buffer);
  }
  for (int d = 1; d < 3; d++) {
    ck_assert_msg(memcmp(out[d].data, out[0].data, (size_t)(BATCH * out[0].batch_stride)) == 0,
                  "seed %#llx: data of dtype %d differ", (unsigned long long)seed, dtypes[d]);
    ck_assert_msg(memcmp(out[d].scales, out[0].scales, (size_t)(BATCH * out[0].sf_batch_stride)) == 0,
                  "seed %#llx: scales of dtype %d differ", (unsigned long long)seed, dtypes[d]);
  }
  for (int d = 0; d < 3; d++) dest_destroy(&out[d]);
}
END_TEST

/* Quantizes rows x k x batch of fill_blocks data (exponents lo..hi) from seed into `out`. */
static void quantize_random(const nvfp4_tensor *out, int lo, int hi, float g, uint64_t seed) {
  nvfp4i_rng rng = {seed};
  int64_t n = out->batch * out->rows * out->k;
  float *x = malloc(sizeof(float) * (size_t)n);
  fill_blocks(x, n, lo, hi, &rng);
  nvfp4_dense in = {x, out->rows, out->k, out->batch, out->k, out->rows * out->k, NVFP4_DTYPE_F32};
  nvfp4i_quantize_ref(&in, out, g);
  free(x);
}

/* Exponents -20..12 at g = 1 reach zero, subnormal and normal scales; K = 80 leaves a BLOCKED tile part empty. */
START_TEST(linear_and_blocked_give_the_same_scales_at_mapped_offsets) {
  enum { ROWS = 130, K = 80, BATCH = 2 };
  const uint64_t seed = 0x1B10C;
  nvfp4_tensor linear = dest_create(ROWS, K, BATCH, NVFP4_SF_LINEAR, 16);
  nvfp4_tensor blocked = dest_create(ROWS, K, BATCH, NVFP4_SF_BLOCKED_128x4, 16);
  quantize_random(&linear, -20, 12, 1.0f, seed);
  quantize_random(&blocked, -20, 12, 1.0f, seed);
  ck_assert(memcmp(linear.data, blocked.data, (size_t)(BATCH * linear.batch_stride)) == 0);
  for (int64_t b = 0; b < BATCH; b++)
    for (int64_t r = 0; r < ROWS; r++)
      for (int64_t j = 0; j < K / 16; j++)
        ck_assert_msg(scale_at(&linear, b, r, j) == scale_at(&blocked, b, r, j),
                      "seed %#llx, batch %lld, row %lld, block %lld: LINEAR 0x%02X, BLOCKED 0x%02X",
                      (unsigned long long)seed, (long long)b, (long long)r, (long long)j, scale_at(&linear, b, r, j),
                      scale_at(&blocked, b, r, j));
  dest_destroy(&blocked);
  dest_destroy(&linear);
}
END_TEST

/* Marks the bytes the recipe writes: each row's k/2 data bytes; its k/16 LINEAR scale bytes, or each
 * batch's BLOCKED tiles whole (is_scale tells a scale byte from tile padding). */
static void mark_written(const nvfp4_tensor *t, uint8_t *data_mask, uint8_t *sf_mask, uint8_t *is_scale) {
  for (int64_t b = 0; b < t->batch; b++) {
    if (t->sf_layout == NVFP4_SF_BLOCKED_128x4)
      memset(sf_mask + b * t->sf_batch_stride, 1, (size_t)nvfp4i_sf_batch_bytes(t->sf_layout, 0, t->rows, t->k));
    for (int64_t r = 0; r < t->rows; r++) {
      memset(data_mask + b * t->batch_stride + r * t->ld, 1, (size_t)(t->k / 2));
      for (int64_t j = 0; j < t->k / 16; j++) {
        int64_t at = b * t->sf_batch_stride + nvfp4i_sf_offset(t->sf_layout, t->sf_ld, t->k, r, j);
        sf_mask[at] = is_scale[at] = 1;
      }
    }
  }
}

/* Every byte the recipe does not write still holds the poison; BLOCKED tile padding is 0. */
static void check_written_bytes(const nvfp4_tensor *t, int check_data, const char *what) {
  size_t data_bytes = (size_t)(t->batch * t->batch_stride), sf_bytes = (size_t)(t->batch * t->sf_batch_stride);
  uint8_t *data_mask = calloc(data_bytes, 1), *sf_mask = calloc(sf_bytes, 1), *is_scale = calloc(sf_bytes, 1);
  mark_written(t, data_mask, sf_mask, is_scale);
  const uint8_t *data = t->data, *scales = t->scales;
  for (size_t i = 0; check_data && i < data_bytes; i++)
    ck_assert_msg(data_mask[i] || data[i] == POISON, "%s: data byte %zu changed to 0x%02X", what, i, data[i]);
  for (size_t i = 0; i < sf_bytes; i++) {
    ck_assert_msg(sf_mask[i] || scales[i] == POISON, "%s: scale byte %zu changed to 0x%02X", what, i, scales[i]);
    ck_assert_msg(!sf_mask[i] || is_scale[i] || scales[i] == 0, "%s: padding byte %zu is 0x%02X", what, i,
                  scales[i]);
  }
  free(is_scale);
  free(sf_mask);
  free(data_mask);
}

START_TEST(quantize_writes_only_the_recipes_bytes) {
  static const nvfp4_sf_layout layouts[] = {NVFP4_SF_LINEAR, NVFP4_SF_BLOCKED_128x4};
  for (int i = 0; i < 2; i++) {
    nvfp4_tensor out = dest_create(131, 96, 2, layouts[i], 16);
    quantize_random(&out, -20, 12, 1.0f, 0xB17E5);
    check_written_bytes(&out, 1, layouts[i] == NVFP4_SF_LINEAR ? "quantize LINEAR" : "quantize BLOCKED");
    dest_destroy(&out);
  }
}
END_TEST

/* Every code under four scales (1, NaN, 448, the smallest subnormal) into each output type, with a row
 * pitch and two batches: exact, -0 kept, NaN where the scale is, nothing else written. */
START_TEST(dequantize_is_exact_keeps_minus_zero_and_gives_nan_for_a_nan_scale) {
  enum { K = 32, ROWS = 2, BATCH = 2, LD = K + 3, BATCH_STRIDE = ROWS * LD + 5 };
  uint8_t data[BATCH * ROWS * K / 2];
  uint8_t scales[BATCH * ROWS * K / 16] = {0x38, 0x7F, 0x7E, 0x01, 0x01, 0x7E, 0xFF, 0xB8};
  for (int i = 0; i < (int)sizeof data; i++) data[i] = (uint8_t)((2 * i) % 16 | ((2 * i + 1) % 16) << 4);
  nvfp4_tensor in = {data, scales, ROWS, K, BATCH, K / 2, ROWS * K / 2, K / 16, ROWS * K / 16, NVFP4_SF_LINEAR};
  static const nvfp4_dtype dtypes[] = {NVFP4_DTYPE_F16, NVFP4_DTYPE_BF16, NVFP4_DTYPE_F32};
  for (int d = 0; d < 3; d++) {
    float buffer[BATCH * BATCH_STRIDE]; /* room for every type */
    memset(buffer, POISON, sizeof buffer);
    nvfp4_output out = {buffer, LD, BATCH_STRIDE, dtypes[d]};
    nvfp4i_dequantize_ref(&in, &out);
    size_t element = dtypes[d] == NVFP4_DTYPE_F32 ? 4 : 2;
    const uint8_t *bytes = (const uint8_t *)buffer;
    for (int64_t i = 0; i < BATCH * BATCH_STRIDE; i++) {
      int64_t b = i / BATCH_STRIDE, r = i % BATCH_STRIDE / LD, kk = i % BATCH_STRIDE % LD;
      if (r >= ROWS || kk >= K) {
        for (size_t byte = 0; byte < element; byte++)
          ck_assert_msg(bytes[(size_t)i * element + byte] == POISON, "dtype %d: element %lld written", dtypes[d],
                        (long long)i);
        continue;
      }
      double want = nvfp4i_e2m1_value(code_at(&in, b, r, kk)) * nvfp4i_e4m3_value(scale_at(&in, b, r, kk / 16));
      double got = nvfp4i_output_value(dtypes[d], buffer, i);
      ck_assert_msg(isnan(want) ? isnan(got) : got == want && signbit(got) == signbit(want),
                    "dtype %d, batch %lld, row %lld, k %lld: %g, expected %g", dtypes[d], (long long)b, (long long)r,
                    (long long)kk, got, want);
    }
  }
}
END_TEST

/* quantize -> dequantize -> quantize (g = 1) gives the same bytes when every scale is 0, NaN or normal:
 * then a block's largest code is 6, so 6s / 6 gives s back and each value / s its code. Exponents -2..14 at
 * g = 0.37 keep amax*g/6 at or above 2^-6 (saturating at 448 at the top); one block is NaN, one zero. */
START_TEST(quantize_dequantize_quantize_is_the_identity_with_normal_scales) {
  enum { ROWS = 130, K = 64 };
  const uint64_t seed = 0x7217;
  static const nvfp4_sf_layout layouts[] = {NVFP4_SF_LINEAR, NVFP4_SF_BLOCKED_128x4};
  static const nvfp4_dtype dtypes[] = {NVFP4_DTYPE_F16, NVFP4_DTYPE_BF16, NVFP4_DTYPE_F32};
  nvfp4i_rng rng = {seed};
  float x[ROWS * K];
  fill_blocks(x, ROWS * K, -2, 14, &rng);
  x[5] = NAN;
  memset(x + 16, 0, 16 * sizeof(float));
  nvfp4_dense in = {x, ROWS, K, 1, K, ROWS * K, NVFP4_DTYPE_F32};
  for (int l = 0; l < 2; l++) {
    nvfp4_tensor first = dest_create(ROWS, K, 1, layouts[l], 0);
    nvfp4i_quantize_ref(&in, &first, 0.37f);
    for (int d = 0; d < 3; d++) {
      float values[ROWS * K];
      nvfp4_output out = {values, K, ROWS * K, dtypes[d]};
      nvfp4i_dequantize_ref(&first, &out);
      nvfp4_dense again_in = {values, ROWS, K, 1, K, ROWS * K, dtypes[d]};
      nvfp4_tensor again = dest_create(ROWS, K, 1, layouts[l], 0);
      nvfp4i_quantize_ref(&again_in, &again, 1.0f);
      ck_assert_msg(memcmp(first.data, again.data, ROWS * K / 2) == 0, "seed %#llx, layout %d, dtype %d: codes",
                    (unsigned long long)seed, layouts[l], dtypes[d]);
      ck_assert_msg(memcmp(first.scales, again.scales, (size_t)first.sf_batch_stride) == 0,
                    "seed %#llx, layout %d, dtype %d: scales", (unsigned long long)seed, layouts[l], dtypes[d]);
      dest_destroy(&again);
    }
    dest_destroy(&first);
  }
}
END_TEST

/* Why the round trip needs normal scales: amax = 3.0001 * 2^-9 gives the smallest subnormal scale 2^-9
 * (amax/6 is just past the tie with 0) and code 3; dequantized, amax is 3 * 2^-9, whose amax/6 is that tie
 * itself, so the block comes back as scale 0, codes 0. */
START_TEST(a_subnormal_scale_can_be_lost_in_the_round_trip) {
  float x[16] = {3.0001f * 0x1p-9f};
  unsigned codes[16];
  uint8_t sf;
  quantize_row(x, 1, 1.0f, codes, &sf);
  ck_assert_uint_eq(sf, 0x01);
  ck_assert_uint_eq(codes[0], 5);
  float again[16] = {(float)(nvfp4i_e2m1_value(codes[0]) * nvfp4i_e4m3_value(sf))};
  quantize_row(again, 1, 1.0f, codes, &sf);
  ck_assert_uint_eq(sf, 0x00);
  ck_assert_uint_eq(codes[0], 0);
}
END_TEST

/* LINEAR (row pitch 7 past k/16) -> BLOCKED -> LINEAR (another pitch) -> BLOCKED (another batch stride):
 * every mapped scale survives, padding is 0, nothing else is written. */
START_TEST(relayout_there_and_back_is_the_identity_on_the_scales) {
  enum { ROWS = 133, K = 96, BATCH = 2 };
  const uint64_t seed = 0x5CA1E;
  nvfp4_tensor source = dest_create(ROWS, K, BATCH, NVFP4_SF_LINEAR, 7);
  quantize_random(&source, -20, 12, 1.0f, seed);
  nvfp4_tensor blocked = dest_create(ROWS, K, BATCH, NVFP4_SF_BLOCKED_128x4, 0);
  nvfp4_tensor linear = dest_create(ROWS, K, BATCH, NVFP4_SF_LINEAR, 2);
  nvfp4_tensor blocked_again = dest_create(ROWS, K, BATCH, NVFP4_SF_BLOCKED_128x4, 32);
  nvfp4i_scales_relayout_ref(&source, &blocked);
  nvfp4i_scales_relayout_ref(&blocked, &linear);
  nvfp4i_scales_relayout_ref(&linear, &blocked_again);
  check_written_bytes(&blocked, 0, "relayout to BLOCKED");
  check_written_bytes(&linear, 0, "relayout to LINEAR");
  check_written_bytes(&blocked_again, 0, "relayout to BLOCKED, another stride");
  for (int64_t b = 0; b < BATCH; b++)
    for (int64_t r = 0; r < ROWS; r++)
      for (int64_t j = 0; j < K / 16; j++) {
        uint8_t want = scale_at(&source, b, r, j);
        ck_assert_msg(scale_at(&blocked, b, r, j) == want && scale_at(&linear, b, r, j) == want &&
                          scale_at(&blocked_again, b, r, j) == want,
                      "seed %#llx, batch %lld, row %lld, block %lld", (unsigned long long)seed, (long long)b,
                      (long long)r, (long long)j);
      }
  for (size_t i = 0; i < (size_t)(BATCH * linear.batch_stride); i++)
    ck_assert_msg(((const uint8_t *)linear.data)[i] == POISON, "relayout wrote data byte %zu", i);
  dest_destroy(&blocked_again);
  dest_destroy(&linear);
  dest_destroy(&blocked);
  dest_destroy(&source);
}
END_TEST

/* How far the value q of a quantized element may lie from t = fl(x*g), s its block's scale: with u = |t|/s,
 * the nearest e2m1 value is within 0.25 (u < 2), 0.5 (u < 4) or 1 (u <= 6) of u, so within max(0.25, u/4);
 * past 6 the code saturates, u - 6 off; s = 0 gives 0, |t| off; fl(t/s) moves u by 2^-24 u, the bound by at
 * most 2^-23 u. */
static double element_bound(double t, double s) {
  double a = fabs(t);
  return fmax(fmax(s / 4, a / 4), a - 6 * s) + 0x1p-23 * a;
}

/* C = A B^T of f32 A (M x K) and B (N x K), quantized with g = 2688 / amax (the usual choice: the largest
 * element lands on 6 * 448), against the float64 reference of the quantized operands with
 * alpha = 1 / (g_a g_b) in f32. With E the element bounds and T = |t|:
 *   |sum q_a q_b - g_a g_b sum x_a x_b| <= sum (E_a T_b + T_a E_b + E_a E_b) + 2^-22 g_a g_b sum |x_a x_b|
 * (the last term: t = x g within 2^-24 relative, twice). alpha's two f32 roundings (2^-23) and float64
 * sums of K terms (K 2^-53) add at most 2^-22 of the magnitudes. */
START_TEST(gemm_of_operands_quantized_with_ga_gb_and_alpha_1_over_ga_gb_approximates_the_product) {
  enum { M = 6, N = 5, K = 96 };
  const uint64_t seed = 0x6E33;
  nvfp4i_rng rng = {seed};
  float xa[M * K], xb[N * K];
  fill_blocks(xa, M * K, -12, 3, &rng);
  fill_blocks(xb, N * K, -3, 9, &rng);
  float amax_a = 0.0f, amax_b = 0.0f;
  for (int i = 0; i < M * K; i++) amax_a = fmaxf(amax_a, fabsf(xa[i]));
  for (int i = 0; i < N * K; i++) amax_b = fmaxf(amax_b, fabsf(xb[i]));
  float ga = 2688.0f / amax_a, gb = 2688.0f / amax_b, alpha = 1.0f / (ga * gb);
  nvfp4_dense in_a = {xa, M, K, 1, K, M * K, NVFP4_DTYPE_F32}, in_b = {xb, N, K, 1, K, N * K, NVFP4_DTYPE_F32};
  nvfp4_tensor qa = dest_create(M, K, 1, NVFP4_SF_BLOCKED_128x4, 0), qb = dest_create(N, K, 1, NVFP4_SF_LINEAR, 0);
  nvfp4i_quantize_ref(&in_a, &qa, ga);
  nvfp4i_quantize_ref(&in_b, &qb, gb);
  double q[2][K], x[2][K], t[2][K], e[2][K];
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      const nvfp4_tensor *ops[2] = {&qa, &qb};
      const float *rows[2] = {xa + m * K, xb + n * K};
      const float g[2] = {ga, gb};
      for (int o = 0; o < 2; o++) {
        nvfp4i_decode_row(ops[o], 0, o == 0 ? m : n, q[o]);
        for (int kk = 0; kk < K; kk++) {
          x[o][kk] = rows[o][kk];
          t[o][kk] = rows[o][kk] * g[o];
          e[o][kk] = element_bound(t[o][kk], nvfp4i_e4m3_value(scale_at(ops[o], 0, o == 0 ? m : n, kk / 16)));
          ck_assert_msg(fabs(q[o][kk] - t[o][kk]) <= e[o][kk], "seed %#llx, operand %d, k %d: q %g, t %g, bound %g",
                        (unsigned long long)seed, o, kk, q[o][kk], t[o][kk], e[o][kk]);
        }
      }
      double exact, exact_mag, got, got_mag, quantization = 0.0;
      nvfp4i_dot(x[0], x[1], K, 1.0, &exact, &exact_mag);
      nvfp4i_reference_gemm_element(&qa, &qb, m, n, alpha, &got, &got_mag);
      for (int kk = 0; kk < K; kk++)
        quantization += e[0][kk] * fabs(t[1][kk]) + fabs(t[0][kk]) * e[1][kk] + e[0][kk] * e[1][kk];
      double bound = quantization / ((double)ga * gb) + 0x1p-22 * exact_mag + 0x1p-22 * (got_mag + exact_mag);
      ck_assert_msg(fabs(got - exact) <= bound, "seed %#llx, (%d, %d): %.9g, f32 product %.9g, bound %.3g",
                    (unsigned long long)seed, m, n, got, exact, bound);
    }
  dest_destroy(&qb);
  dest_destroy(&qa);
}
END_TEST

Suite *quantize_suite(void) {
  Suite *s = suite_create("quantize");
  TCase *recipe = tcase_create("quantize recipe");
  tcase_add_test(recipe, codes_round_to_nearest_even_at_every_e2m1_boundary);
  tcase_add_test(recipe, ties_under_every_scale_mantissa_go_to_even);
  tcase_add_test(recipe, scale_is_amax_over_6_rounded_to_nearest_even_e4m3);
  tcase_add_test(recipe, scale_saturates_at_448_and_codes_at_6);
  tcase_add_test(recipe, nan_or_inf_in_a_block_gives_scale_0x7F_and_zero_codes);
  tcase_add_test(recipe, zero_blocks_and_blocks_under_the_smallest_scale_give_zero_codes);
  tcase_add_test(recipe, matches_a_float64_formulation_rounded_after_every_step);
  tcase_add_test(recipe, f16_bf16_and_f32_inputs_with_strides_give_the_same_bytes);
  suite_add_tcase(s, recipe);
  TCase *layout = tcase_create("bytes written and scale layouts");
  tcase_add_test(layout, linear_and_blocked_give_the_same_scales_at_mapped_offsets);
  tcase_add_test(layout, quantize_writes_only_the_recipes_bytes);
  tcase_add_test(layout, relayout_there_and_back_is_the_identity_on_the_scales);
  suite_add_tcase(s, layout);
  TCase *trips = tcase_create("dequantize, round trips and the GEMM");
  tcase_add_test(trips, dequantize_is_exact_keeps_minus_zero_and_gives_nan_for_a_nan_scale);
  tcase_add_test(trips, quantize_dequantize_quantize_is_the_identity_with_normal_scales);
  tcase_add_test(trips, a_subnormal_scale_can_be_lost_in_the_round_trip);
  tcase_add_test(trips, gemm_of_operands_quantized_with_ga_gb_and_alpha_1_over_ga_gb_approximates_the_product);
  suite_add_tcase(s, trips);
  return s;
}
