/* Codecs against the published tables and independent formulations; the scale layouts' index math. */
#include <math.h>

#include "format.h"
#include "suites.h"

START_TEST(e2m1_decodes_all_16_codes) {
  static const double expected[16] = {0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6};
  for (unsigned c = 0; c < 16; c++) {
    double v = nvfp4i_e2m1_value(c);
    ck_assert_msg(v == expected[c] && signbit(v) == signbit(expected[c]), "code %u: got %g, expected %g", c, v,
                  expected[c]);
  }
}
END_TEST

/* e4m3fn from its definition written another way: sign * 2^(e-7) * (1 + m/8), e = 0 -> 2^-6 * m/8. */
static double e4m3_by_definition(unsigned code) {
  int sign = code & 0x80 ? -1 : 1, e = (code >> 3) & 15, m = code & 7;
  if (e == 15 && m == 7) return NAN;
  if (e == 0) return sign * pow(2.0, -6) * (m / 8.0);
  return sign * pow(2.0, e - 7) * (1.0 + m / 8.0);
}

START_TEST(e4m3_decodes_all_256_codes) {
  for (unsigned c = 0; c < 256; c++) {
    double got = nvfp4i_e4m3_value(c), want = e4m3_by_definition(c);
    if (isnan(want)) ck_assert_msg(isnan(got), "code 0x%02X: got %g, expected NaN", c, got);
    else ck_assert_msg(got == want, "code 0x%02X: got %.10g, expected %.10g", c, got, want);
  }
  ck_assert(nvfp4i_e4m3_value(0x7E) == 448.0);
  ck_assert(nvfp4i_e4m3_value(0x01) == ldexp(1.0, -9));
  ck_assert(nvfp4i_e4m3_value(0x38) == 1.0);
  ck_assert(isnan(nvfp4i_e4m3_value(0x7F)) && isnan(nvfp4i_e4m3_value(0xFF)));
}
END_TEST

START_TEST(f16_and_bf16_round_trip_every_pattern) {
  for (unsigned bits = 0; bits < 65536; bits++) {
    double f = nvfp4i_f16_value((uint16_t)bits), b = nvfp4i_bf16_value((uint16_t)bits);
    if (!isnan(f)) ck_assert_msg(nvfp4i_f16_from_double(f) == bits, "f16 0x%04X -> %g -> 0x%04X", bits, f,
                                 nvfp4i_f16_from_double(f));
    if (!isnan(b)) ck_assert_msg(nvfp4i_bf16_from_double(b) == bits, "bf16 0x%04X -> %g -> 0x%04X", bits, b,
                                 nvfp4i_bf16_from_double(b));
  }
}
END_TEST

START_TEST(f16_rounds_to_nearest_even_and_overflows_to_inf) {
  ck_assert_uint_eq(nvfp4i_f16_from_double(1.0 + ldexp(1.0, -11)), 0x3C00);           /* tie -> even */
  ck_assert_uint_eq(nvfp4i_f16_from_double(1.0 + 3 * ldexp(1.0, -11)), 0x3C02);       /* tie -> even */
  ck_assert_uint_eq(nvfp4i_f16_from_double(1.0 + ldexp(1.0, -11) + 1e-9), 0x3C01);    /* above tie */
  ck_assert_uint_eq(nvfp4i_f16_from_double(65504.0), 0x7BFF);
  ck_assert_uint_eq(nvfp4i_f16_from_double(65519.0), 0x7BFF);
  ck_assert_uint_eq(nvfp4i_f16_from_double(65520.0), 0x7C00);                         /* rounds to inf */
  ck_assert_uint_eq(nvfp4i_f16_from_double(-1e6), 0xFC00);
  ck_assert_uint_eq(nvfp4i_f16_from_double(ldexp(1.0, -25)), 0x0000);                 /* tie -> 0 */
  ck_assert_uint_eq(nvfp4i_f16_from_double(ldexp(1.5, -25)), 0x0001);
  ck_assert_uint_eq(nvfp4i_bf16_from_double(1.0 + ldexp(1.0, -8)), 0x3F80);
  ck_assert_uint_eq(nvfp4i_bf16_from_double(1.0 + 3 * ldexp(1.0, -8)), 0x3F82);
}
END_TEST

START_TEST(e4m3_reencodes_every_code_but_nan) {
  for (unsigned c = 0; c < 256; c++) {
    if (c == 0x7F || c == 0xFF) continue;
    float v = (float)nvfp4i_e4m3_value(c);
    ck_assert_msg(nvfp4i_e4m3_from_float(v) == c, "code 0x%02X -> %g -> 0x%02X", c, v, nvfp4i_e4m3_from_float(v));
  }
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(NAN), 0x7F);
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(-NAN), 0x7F);
}
END_TEST

/* Between adjacent codes c and c + 1 of either format (both of one sign): one f32 ulp below their midpoint
 * gives c, one above gives c + 1, the midpoint itself the even code. The midpoints are exact in f32. */
static void check_boundaries(const char *format, unsigned (*encode)(float), double (*decode)(unsigned),
                             unsigned largest, unsigned sign_bit) {
  for (unsigned sign = 0; sign <= sign_bit; sign += sign_bit)
    for (unsigned c = sign; c < (sign | largest); c++) {
      float mid = (float)((decode(c) + decode(c + 1)) / 2.0);
      ck_assert_msg((double)mid == (decode(c) + decode(c + 1)) / 2.0, "%s: midpoint of 0x%02X inexact", format, c);
      float below = nextafterf(mid, 0.0f), above = nextafterf(mid, signbit(mid) ? -INFINITY : INFINITY);
      unsigned even = c & 1u ? c + 1 : c;
      ck_assert_msg(encode(below) == c, "%s: %a -> 0x%02X, expected 0x%02X", format, below, encode(below), c);
      ck_assert_msg(encode(mid) == even, "%s: tie %a -> 0x%02X, expected 0x%02X", format, mid, encode(mid), even);
      ck_assert_msg(encode(above) == c + 1, "%s: %a -> 0x%02X, expected 0x%02X", format, above, encode(above), c + 1);
    }
}

static unsigned e4m3_encode(float v) { return nvfp4i_e4m3_from_float(v); }

START_TEST(e4m3_rounds_to_nearest_even_at_every_boundary) {
  check_boundaries("e4m3", e4m3_encode, nvfp4i_e4m3_value, 0x7E, 0x80);
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(ldexp(1.0, -10)), 0x00); /* half the smallest subnormal: tie to 0 */
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(1e-30f), 0x00);
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(-1e-30f), 0x80);
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(-0.0f), 0x80);
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(0.875f / 64), 0x07); /* largest subnormal */
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(1.0f / 64), 0x08);   /* smallest normal */
}
END_TEST

START_TEST(e4m3_saturates_at_448) {
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(448.0f), 0x7E);
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(nextafterf(448.0f, INFINITY)), 0x7E);
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(464.0f), 0x7E); /* the tie with 480, which e4m3fn lacks */
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(1e30f), 0x7E);
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(INFINITY), 0x7E);
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(-500.0f), 0xFE);
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(-INFINITY), 0xFE);
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(nextafterf(432.0f, 0.0f)), 0x7D); /* 416 below the 416/448 tie */
  ck_assert_uint_eq(nvfp4i_e4m3_from_float(432.0f), 0x7E);                  /* tie: 448's mantissa is even */
}
END_TEST

START_TEST(e2m1_reencodes_every_code) {
  for (unsigned c = 0; c < 16; c++) {
    float v = (float)nvfp4i_e2m1_value(c);
    ck_assert_msg(nvfp4i_e2m1_from_float(v) == c, "code %u -> %g -> %u", c, v, nvfp4i_e2m1_from_float(v));
  }
}
END_TEST

START_TEST(e2m1_rounds_to_nearest_even_at_every_boundary) {
  check_boundaries("e2m1", nvfp4i_e2m1_from_float, nvfp4i_e2m1_value, 7, 8);
  static const struct {
    float v;
    unsigned code;
  } ties[] = {{0.25f, 0}, {0.75f, 2}, {1.25f, 2}, {1.75f, 4}, {2.5f, 4}, {3.5f, 6}, {5.0f, 6}};
  for (size_t i = 0; i < sizeof ties / sizeof ties[0]; i++) {
    ck_assert_uint_eq(nvfp4i_e2m1_from_float(ties[i].v), ties[i].code);
    ck_assert_uint_eq(nvfp4i_e2m1_from_float(-ties[i].v), ties[i].code | 8u);
  }
}
END_TEST

START_TEST(e2m1_saturates_at_6_and_keeps_the_sign_of_zero) {
  ck_assert_uint_eq(nvfp4i_e2m1_from_float(nextafterf(6.0f, INFINITY)), 7);
  ck_assert_uint_eq(nvfp4i_e2m1_from_float(7.0f), 7); /* would round to 8 */
  ck_assert_uint_eq(nvfp4i_e2m1_from_float(1e30f), 7);
  ck_assert_uint_eq(nvfp4i_e2m1_from_float(INFINITY), 7);
  ck_assert_uint_eq(nvfp4i_e2m1_from_float(-INFINITY), 15);
  ck_assert_uint_eq(nvfp4i_e2m1_from_float(-100.0f), 15);
  ck_assert_uint_eq(nvfp4i_e2m1_from_float(-0.0f), 8);
  ck_assert_uint_eq(nvfp4i_e2m1_from_float(-0.25f), 8);   /* a negative value that rounds to zero: -0 */
  ck_assert_uint_eq(nvfp4i_e2m1_from_float(-1e-30f), 8);
  ck_assert_uint_eq(nvfp4i_e2m1_from_float(0.2f), 0);
}
END_TEST

START_TEST(linear_offsets_are_row_major) {
  ck_assert_int_eq(nvfp4i_sf_offset(NVFP4_SF_LINEAR, 70, 1024, 0, 0), 0);
  ck_assert_int_eq(nvfp4i_sf_offset(NVFP4_SF_LINEAR, 70, 1024, 3, 5), 3 * 70 + 5);
  ck_assert_int_eq(nvfp4i_sf_batch_bytes(NVFP4_SF_LINEAR, 70, 10, 1024), 9 * 70 + 64);
}
END_TEST

/* The blocked layout as cuBLAS builds it: pad to (128 rows, 4 blocks), view (R/128, 128, C/4, 4), put the
 * 128x4 tiles in row-tile-major order, then each tile's (4, 32, 4) view transposed to (32, 4, 4). Walking
 * that output in order gives, for every byte, the (row, block) it came from. */
static void check_blocked_layout(int64_t rows, int64_t k) {
  int64_t blocks = k / 16, row_tiles = (rows + 127) / 128, block_tiles = (blocks + 3) / 4, offset = 0;
  for (int64_t rt = 0; rt < row_tiles; rt++)
    for (int64_t bt = 0; bt < block_tiles; bt++)
      for (int64_t r32 = 0; r32 < 32; r32++)
        for (int64_t quarter = 0; quarter < 4; quarter++)
          for (int64_t b4 = 0; b4 < 4; b4++, offset++) {
            int64_t row = rt * 128 + quarter * 32 + r32, block = bt * 4 + b4;
            int64_t got = nvfp4i_sf_offset(NVFP4_SF_BLOCKED_128x4, 0, k, row, block);
            ck_assert_msg(got == offset, "rows=%lld k=%lld (row %lld, block %lld): offset %lld, expected %lld",
                          (long long)rows, (long long)k, (long long)row, (long long)block, (long long)got,
                          (long long)offset);
          }
  ck_assert_int_eq(nvfp4i_sf_batch_bytes(NVFP4_SF_BLOCKED_128x4, 0, rows, k), offset);
}

START_TEST(blocked_offsets_match_the_cublas_construction) {
  check_blocked_layout(128, 64);
  check_blocked_layout(129, 1056);
  check_blocked_layout(7, 32);
  check_blocked_layout(300, 7168);
}
END_TEST

/* The kernels' form of the index math agrees with nvfp4i_sf_offset for every (row, block). */
static void check_steps(nvfp4_sf_layout layout, int64_t rows, int64_t k, int64_t sf_ld) {
  nvfp4_tensor t = {NULL, NULL, rows, k, 1, k / 2, 0, sf_ld, 0, layout};
  nvfp4i_sf_steps s = nvfp4i_sf_steps_of(&t);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t j = 0; j < k / 16; j++) {
      int64_t got = (int64_t)((uint64_t)(r / 128) * s.step128 + (uint64_t)((r % 128) / 32) * s.step32 +
                              (uint64_t)(r % 32) * s.step1 + (uint64_t)(j / 4) * s.quad_step + (uint64_t)(j % 4));
      ck_assert_msg(got == nvfp4i_sf_offset(layout, sf_ld, k, r, j), "layout %d (row %lld, block %lld)", layout,
                    (long long)r, (long long)j);
    }
}

START_TEST(kernel_steps_match_the_offsets) {
  check_steps(NVFP4_SF_LINEAR, 300, 1056, 66);
  check_steps(NVFP4_SF_LINEAR, 130, 512, 37);
  check_steps(NVFP4_SF_BLOCKED_128x4, 300, 1056, 0);
  check_steps(NVFP4_SF_BLOCKED_128x4, 257, 7168, 0);
}
END_TEST

Suite *format_suite(void) {
  Suite *s = suite_create("format");
  TCase *codecs = tcase_create("codecs");
  tcase_add_test(codecs, e2m1_decodes_all_16_codes);
  tcase_add_test(codecs, e4m3_decodes_all_256_codes);
  tcase_add_test(codecs, f16_and_bf16_round_trip_every_pattern);
  tcase_add_test(codecs, f16_rounds_to_nearest_even_and_overflows_to_inf);
  tcase_add_test(codecs, e4m3_reencodes_every_code_but_nan);
  tcase_add_test(codecs, e4m3_rounds_to_nearest_even_at_every_boundary);
  tcase_add_test(codecs, e4m3_saturates_at_448);
  tcase_add_test(codecs, e2m1_reencodes_every_code);
  tcase_add_test(codecs, e2m1_rounds_to_nearest_even_at_every_boundary);
  tcase_add_test(codecs, e2m1_saturates_at_6_and_keeps_the_sign_of_zero);
  suite_add_tcase(s, codecs);
  TCase *layouts = tcase_create("scale layouts");
  tcase_add_test(layouts, linear_offsets_are_row_major);
  tcase_add_test(layouts, blocked_offsets_match_the_cublas_construction);
  tcase_add_test(layouts, kernel_steps_match_the_offsets);
  suite_add_tcase(s, layouts);
  return s;
}
