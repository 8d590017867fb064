/* The float64 reference on cases computed by hand, the test activations it reads, and the accuracy bar
 * (docs/ACCURACY.md) it judges results by. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "reference.h"
#include "suites.h"
#include "testdata.h"

/* A one-batch operand over caller-owned host buffers, LINEAR scales packed tightly. */
static nvfp4_tensor host_tensor(const uint8_t *data, const uint8_t *scales, int64_t rows, int64_t k) {
  nvfp4_tensor t = {data, scales, rows, k, 1, k / 2, rows * k / 2, k / 16, rows * k / 16, NVFP4_SF_LINEAR};
  return t;
}

START_TEST(decode_puts_even_k_in_the_low_nibble) {
  uint8_t data[16], scales[2] = {0x30, 0x40}; /* 0.5, 2 */
  memset(data, 0xA7, sizeof data);            /* low nibble 7 (6.0), high nibble 0xA (-1.0) */
  nvfp4_tensor t = host_tensor(data, scales, 1, 32);
  double row[32];
  nvfp4i_decode_row(&t, 0, 0, row);
  ck_assert(row[0] == 3.0 && row[1] == -0.5);   /* block 0: times 0.5 */
  ck_assert(row[16] == 12.0 && row[17] == -2.0); /* block 1: times 2 */
}
END_TEST

START_TEST(gemv_of_hand_computed_rows) {
  /* Row 0: every element 1.0, scales 1 and 2. Row 1: pairs (6, -1), scales 0.5 and 0.25.
   * x: pairs (1, 0.5), scales 1 and 1. Per pair: row 0 gives 1.5 (block 1: 3), row 1 gives 5.5. */
  uint8_t a[32], a_sf[4] = {0x38, 0x40, 0x30, 0x28}, x[16], x_sf[2] = {0x38, 0x38};
  memset(a, 0x22, 16);
  memset(a + 16, 0xA7, 16);
  memset(x, 0x12, sizeof x);
  nvfp4_tensor at = host_tensor(a, a_sf, 2, 32), xt = host_tensor(x, x_sf, 1, 32);
  double ref[2], mag[2];
  nvfp4i_reference_gemv(&at, &xt, 2.0, ref, mag);
  ck_assert_msg(ref[0] == 2.0 * (8 * 1.5 + 8 * 3.0), "row 0: %g", ref[0]);
  ck_assert_msg(mag[0] == ref[0], "row 0 magnitude: %g", mag[0]);
  ck_assert_msg(ref[1] == 2.0 * (8 * 5.5 * 0.5 + 8 * 5.5 * 0.25), "row 1: %g", ref[1]);
  ck_assert_msg(mag[1] == 2.0 * (8 * 6.5 * 0.5 + 8 * 6.5 * 0.25), "row 1 magnitude: %g", mag[1]);
}
END_TEST

START_TEST(nan_scale_makes_its_row_nan) {
  uint8_t a[32], a_sf[4] = {0x38, 0x7F, 0x38, 0x38}, x[16], x_sf[2] = {0x38, 0x38};
  memset(a, 0x00, sizeof a); /* zeros: NaN * 0 must still be NaN */
  memset(x, 0x22, sizeof x);
  nvfp4_tensor at = host_tensor(a, a_sf, 2, 32), xt = host_tensor(x, x_sf, 1, 32);
  double ref[2], mag[2];
  nvfp4i_reference_gemv(&at, &xt, 1.0, ref, mag);
  ck_assert(isnan(ref[0]));
  ck_assert(ref[1] == 0.0);
}
END_TEST

START_TEST(blocked_and_linear_scales_give_the_same_rows) {
  enum { ROWS = 130, K = 96, BLOCKS = K / 16 };
  nvfp4i_rng rng = {42};
  uint8_t data[ROWS * K / 2], linear[ROWS * BLOCKS];
  int64_t blocked_bytes = nvfp4i_sf_batch_bytes(NVFP4_SF_BLOCKED_128x4, 0, ROWS, K);
  uint8_t *blocked = malloc((size_t)blocked_bytes);
  memset(blocked, 0x7F, (size_t)blocked_bytes); /* NaN padding must never be read */
  for (int i = 0; i < ROWS * K / 2; i++) data[i] = (uint8_t)nvfp4i_rng_next(&rng);
  for (int r = 0; r < ROWS; r++)
    for (int j = 0; j < BLOCKS; j++)
      blocked[nvfp4i_sf_offset(NVFP4_SF_BLOCKED_128x4, 0, K, r, j)] = linear[r * BLOCKS + j] =
          nvfp4i_random_scale(&rng);
  nvfp4_tensor lt = host_tensor(data, linear, ROWS, K), bt = lt;
  bt.scales = blocked;
  bt.sf_layout = NVFP4_SF_BLOCKED_128x4;
  double lrow[K], brow[K];
  for (int r = 0; r < ROWS; r++) {
    nvfp4i_decode_row(&lt, 0, r, lrow);
    nvfp4i_decode_row(&bt, 0, r, brow);
    ck_assert_msg(memcmp(lrow, brow, sizeof lrow) == 0, "row %d differs", r);
  }
  free(blocked);
}
END_TEST

START_TEST(dense_rows_read_their_k_elements_and_no_padding) {
  /* 2 batches of 2 rows of K = 3, ld 4, batch_stride 9: every other element a NaN */
  uint16_t data[18];
  for (int i = 0; i < 18; i++) data[i] = 0x7E00; /* f16 NaN */
  for (int l = 0; l < 2; l++)
    for (int r = 0; r < 2; r++)
      for (int kk = 0; kk < 3; kk++) data[l * 9 + r * 4 + kk] = nvfp4i_f16_from_double(100 * l + 10 * r + kk - 0.5);
  nvfp4_dense d = {data, 2, 3, 2, 4, 9, NVFP4_DTYPE_F16};
  double row[3];
  nvfp4i_decode_dense_row(&d, 1, 1, row);
  ck_assert(row[0] == 109.5 && row[1] == 110.5 && row[2] == 111.5);
  uint16_t bf16[2] = {0x3F80, 0xC020}; /* 1, -2.5 */
  nvfp4_dense b = {bf16, 1, 2, 1, 2, 2, NVFP4_DTYPE_BF16};
  nvfp4i_decode_dense_row(&b, 0, 0, row);
  ck_assert(row[0] == 1.0 && row[1] == -2.5);
}
END_TEST

START_TEST(w4a16_gemv_of_hand_computed_rows) {
  /* A as in gemv_of_hand_computed_rows, 2 batches (batch 1: the rows swapped); x f16, batches 35 elements apart,
   * NaN between them: batch 0 all 0.25, batch 1 pairs (-2, 0.5). Per pair of A's row 0 (1, 1): 0.5 and -1.5;
   * of row 1 (6, -1): 1.25 and -12.5. */
  uint8_t a[64], a_sf[8] = {0x38, 0x40, 0x30, 0x28, 0x30, 0x28, 0x38, 0x40};
  memset(a, 0x22, 16);
  memset(a + 16, 0xA7, 16);
  memset(a + 32, 0xA7, 16);
  memset(a + 48, 0x22, 16);
  uint16_t x[67];
  for (int i = 0; i < 67; i++) x[i] = 0x7E00;
  for (int i = 0; i < 32; i++) {
    x[i] = nvfp4i_f16_from_double(0.25);
    x[35 + i] = nvfp4i_f16_from_double(i % 2 ? 0.5 : -2.0);
  }
  nvfp4_tensor at = host_tensor(a, a_sf, 2, 32);
  at.batch = 2;
  at.batch_stride = 32;
  at.sf_batch_stride = 4;
  nvfp4_dense xd = {x, 1, 32, 2, 0, 35, NVFP4_DTYPE_F16};
  double ref[4], mag[4];
  nvfp4i_reference_gemv_w4a16(&at, &xd, -1.0, ref, mag);
  ck_assert_msg(ref[0] == -(8 * 0.5 + 8 * 1.0) && mag[0] == -ref[0], "batch 0 row 0: %g, %g", ref[0], mag[0]);
  ck_assert_msg(ref[1] == -(8 * 1.25 * 0.5 + 8 * 1.25 * 0.25), "batch 0 row 1: %g", ref[1]);
  ck_assert_msg(mag[1] == 8 * 1.75 * 0.5 + 8 * 1.75 * 0.25, "batch 0 row 1 magnitude: %g", mag[1]);
  ck_assert_msg(ref[2] == -(8 * -12.5 * 0.5 + 8 * -12.5 * 0.25), "batch 1 row 0: %g", ref[2]);
  ck_assert_msg(mag[2] == 8 * 12.5 * 0.5 + 8 * 12.5 * 0.25, "batch 1 row 0 magnitude: %g", mag[2]);
  ck_assert_msg(ref[3] == -(8 * -1.5 + 8 * -3.0) && mag[3] == 8 * 2.5 + 8 * 5.0, "batch 1 row 1: %g, %g", ref[3],
                mag[3]);
}
END_TEST

/* The test activations (host/tools/testdata.c): finite, of both signs, zeros, subnormals and normals over
 * [2^-8, 2^8), in about the shares documented. */
START_TEST(random_activations_span_their_documented_range) {
  static const nvfp4_dtype types[] = {NVFP4_DTYPE_F16, NVFP4_DTYPE_BF16};
  enum { DRAWS = 1 << 16 };
  for (int t = 0; t < 2; t++) {
    nvfp4i_rng rng = {7};
    int zeros = 0, subnormals = 0, large = 0, negative = 0;
    double smallest = INFINITY, largest = 0.0, min_normal = types[t] == NVFP4_DTYPE_F16 ? 0x1p-14 : 0x1p-126;
    for (int i = 0; i < DRAWS; i++) {
      uint16_t bits = nvfp4i_random_activation(&rng, types[t]);
      double v = nvfp4i_output_value(types[t], &bits, 0), a = fabs(v);
      ck_assert_msg(isfinite(v), "draw %d: 0x%04X is not finite", i, bits);
      zeros += a == 0.0;
      subnormals += a > 0.0 && a < min_normal;
      large += a >= 16.0;
      negative += signbit(v) != 0;
      if (a >= min_normal && a < smallest) smallest = a;
      if (a > largest) largest = a;
    }
    ck_assert_msg(zeros > DRAWS / 64 / 2 && zeros < DRAWS / 64 * 2, "type %d: %d zeros", t, zeros);
    ck_assert_msg(subnormals > DRAWS / 256 / 2 && subnormals < DRAWS / 256 * 2, "type %d: %d subnormals", t,
                  subnormals);
    ck_assert_msg(large > DRAWS / 256 / 2 && large < DRAWS / 256 * 2, "type %d: %d large", t, large);
    ck_assert_msg(negative > DRAWS / 2 - DRAWS / 32 && negative < DRAWS / 2 + DRAWS / 32, "type %d: %d < 0", t,
                  negative);
    ck_assert_msg(smallest >= 0x1p-8 && smallest < 0x1p-7, "type %d: smallest normal %g", t, smallest);
    ck_assert_msg(largest >= 0x1p7 && largest < 0x1p8, "type %d: largest %g", t, largest);
  }
}
END_TEST

START_TEST(bar_accepts_exact_and_rejects_just_outside) {
  double ratio;
  ck_assert(nvfp4i_check_value(NVFP4_DTYPE_F16, 100.0, 100.0, 100.0, &ratio) && ratio == 0.0);
  double tol = ldexp(1.0, -10) * 100.0 + ldexp(1.0, -16) * 200.0;
  ck_assert(nvfp4i_check_value(NVFP4_DTYPE_F16, 100.0 + tol, 100.0, 200.0, &ratio));
  ck_assert(!nvfp4i_check_value(NVFP4_DTYPE_F16, 100.0 + 1.01 * tol, 100.0, 200.0, &ratio) && ratio > 1.0);
  double btol = ldexp(1.0, -8) * 100.0 + ldexp(1.0, -16) * 200.0;
  ck_assert(nvfp4i_check_value(NVFP4_DTYPE_BF16, 100.0 - btol, 100.0, 200.0, &ratio));
  ck_assert(!nvfp4i_check_value(NVFP4_DTYPE_F32, 100.0 + 2 * tol, 100.0, 200.0, &ratio));
}
END_TEST

/* Below 2^-14 an f16's spacing is 2^-24: the reference rounded to f16 passes even where it is further from the
 * reference than 2^-10 of it plus 2^-16 S (the dual GEMM's tiny gated products); the next f16 fails. */
START_TEST(bar_accepts_the_correctly_rounded_subnormal) {
  double ratio, ref = 4.20390995e-06, mag = 1.5e-4;
  double nearest = 71 * 0x1p-24, next = 72 * 0x1p-24;
  ck_assert(fabs(nearest - ref) > ldexp(1.0, -10) * ref + ldexp(1.0, -16) * mag);
  ck_assert(nvfp4i_check_value(NVFP4_DTYPE_F16, nearest, ref, mag, &ratio) && ratio == 0.0);
  ck_assert(!nvfp4i_check_value(NVFP4_DTYPE_F16, next, ref, mag, &ratio) && ratio > 1.0);
  ck_assert(nvfp4i_check_gated_value(NVFP4_DTYPE_F16, nearest, ref, mag, &ratio));
}
END_TEST

/* The dual GEMM's f32 bar is 2^-18 relative, the GEMMs' 2^-20. */
START_TEST(gated_bar_is_wider_for_f32) {
  double ratio, off = 100.0 * ldexp(1.0, -19);
  ck_assert(!nvfp4i_check_value(NVFP4_DTYPE_F32, 100.0 + off, 100.0, 0.0, &ratio));
  ck_assert(nvfp4i_check_gated_value(NVFP4_DTYPE_F32, 100.0 + off, 100.0, 0.0, &ratio));
  ck_assert(!nvfp4i_check_gated_value(NVFP4_DTYPE_F32, 100.0 + 4 * off, 100.0, 0.0, &ratio));
}
END_TEST

START_TEST(bar_wants_nan_exactly_where_the_reference_has_it) {
  double ratio;
  ck_assert(nvfp4i_check_value(NVFP4_DTYPE_F16, NAN, NAN, NAN, &ratio));
  ck_assert(!nvfp4i_check_value(NVFP4_DTYPE_F16, NAN, 1.0, 1.0, &ratio));
  ck_assert(!nvfp4i_check_value(NVFP4_DTYPE_F16, 1.0, NAN, NAN, &ratio));
}
END_TEST

START_TEST(bar_allows_infinity_only_past_the_f16_range) {
  double ratio;
  ck_assert(nvfp4i_check_value(NVFP4_DTYPE_F16, INFINITY, 70000.0, 70000.0, &ratio));
  ck_assert(nvfp4i_check_value(NVFP4_DTYPE_F16, -INFINITY, -65520.0, 65520.0, &ratio));
  ck_assert(!nvfp4i_check_value(NVFP4_DTYPE_F16, INFINITY, 1000.0, 1000.0, &ratio));
  ck_assert(!nvfp4i_check_value(NVFP4_DTYPE_F16, -INFINITY, 70000.0, 70000.0, &ratio));
  ck_assert(!nvfp4i_check_value(NVFP4_DTYPE_BF16, INFINITY, 70000.0, 70000.0, &ratio));
}
END_TEST

Suite *reference_suite(void) {
  Suite *s = suite_create("reference");
  TCase *ref = tcase_create("float64 reference");
  tcase_add_test(ref, decode_puts_even_k_in_the_low_nibble);
  tcase_add_test(ref, gemv_of_hand_computed_rows);
  tcase_add_test(ref, w4a16_gemv_of_hand_computed_rows);
  tcase_add_test(ref, nan_scale_makes_its_row_nan);
  tcase_add_test(ref, blocked_and_linear_scales_give_the_same_rows);
  tcase_add_test(ref, dense_rows_read_their_k_elements_and_no_padding);
  tcase_add_test(ref, random_activations_span_their_documented_range);
  suite_add_tcase(s, ref);
  TCase *bar = tcase_create("accuracy bar");
  tcase_add_test(bar, bar_accepts_exact_and_rejects_just_outside);
  tcase_add_test(bar, bar_accepts_the_correctly_rounded_subnormal);
  tcase_add_test(bar, gated_bar_is_wider_for_f32);
  tcase_add_test(bar, bar_wants_nan_exactly_where_the_reference_has_it);
  tcase_add_test(bar, bar_allows_infinity_only_past_the_f16_range);
  suite_add_tcase(s, bar);
  return s;
}
