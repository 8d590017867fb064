/* The quantize kernel's arithmetic (ptx/sm90a/quantize.ptx), instruction for instruction in C, against
 * host/format.c's encoders and the CPU reference of the recipe: the GPU is not needed to know that the
 * integer sequences the kernel uses for e4m3 and e2m1 rounding are the recipe's. Each kernel_* function
 * names the PTX it mirrors; C's float division and multiplication are IEEE f32 operations rounded to nearest
 * even (FLT_EVAL_METHOD 0), as div.rn.f32 and mul.rn.f32 are, and nearbyintf is cvt.rni. The hot loops test
 * with `if` and ck_abort_msg: ck_assert marks every pass through Check's pipe. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "quantize_ref.h"
#include "suites.h"
#include "testdata.h"

_Static_assert(FLT_EVAL_METHOD == 0, "the mirror needs float arithmetic evaluated in float");

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* QUANTIZE's "sc = e4m3(fl(amax / 6))" steps after the division, on q's bit pattern (q >= 0, finite). */
static uint32_t kernel_e4m3(uint32_t q) {
  uint32_t qc = q < 0x43E00000u ? q : 0x43E00000u;                 /* min.u32 */
  uint32_t qr = ((qc >> 20) & 1u) + qc;                            /* bfe.u32, add.u32 */
  qr = ((qr + 0x7FFFFu) >> 20) - 960u;                             /* add.u32, shr.u32, sub.u32 */
  uint32_t qsub = (uint32_t)nearbyintf(float_of(q) * 512.0f);      /* mul.rn.f32, cvt.rni.u32.f32 */
  return q < 0x3C800000u ? qsub : qr;                              /* setp.lt.u32, selp.b32 */
}

/* QUANTIZE's "s = the value of sc" (sc in [0, 0x7E]). */
static float kernel_scale_value(uint32_t sc) {
  float sub = (float)sc * 0x1p-9f;                                 /* cvt.rn.f32.u32, mul.rn.f32 */
  float normal = float_of((sc << 20) + 0x3C000000u);               /* shl.b32, add.u32 */
  return sc < 8 ? sub : normal;                                    /* setp.lt.u32, selp.b32 */
}

/* A bf16 pattern's value (the top half of an f32 pattern). */
static float bf16_value(uint32_t b) { return float_of(b << 16); }

/* A bf16x2 mul.rn / fma.rn result, one half: v must be exact in bf16 (the PTX relies on it; the inputs here
 * are exact in f32, so v is the exact result). */
static float exact_bf16(float v, const char *what) {
  if (bits_of(v) & 0xFFFFu) ck_abort_msg("%s = %a is not exact in bf16", what, (double)v);
  return v;
}

/* CODE_PAIR on one half: the e2m1 code of t = (sign, |t|'s bit pattern a) over the scale s, by the three
 * comparisons of |t|'s bf16 keys against the thresholds m * s (set.ge / set.gt on bf16: float comparisons),
 * each picked by an fma of the code bits found before. */
static uint32_t kernel_e2m1(uint32_t sign, uint32_t a, float s) {
  float sbf = bf16_value(bits_of(s) >> 16);                         /* prmt 0x3232 */
  float thr025 = exact_bf16(sbf * 0.25f, "0.25 s"), thr075 = exact_bf16(sbf * 0.75f, "0.75 s");
  float thr175 = exact_bf16(sbf * 1.75f, "1.75 s"), step025 = exact_bf16(sbf * 2.25f, "2.25 s");
  float step075 = exact_bf16(sbf * 2.75f, "2.75 s"), step100 = exact_bf16(sbf * 1.5f, "1.5 s");
  float kz = bf16_value(a >> 16), ku = bf16_value((a + 0xFFFFu) >> 16); /* prmt 0x7632; add.u32, prmt */
  float c2 = kz >= thr175 ? 1.0f : 0.0f;
  float c1 = kz >= exact_bf16(c2 * step075 + thr075, "c2 ? 3.5 s : 0.75 s") ? 1.0f : 0.0f;
  float base = exact_bf16(c2 * step025 + thr025, "c2 ? 2.5 s : 0.25 s");
  float step = exact_bf16(c2 * step100 + sbf, "c2 ? 2.5 s : s");
  float c0 = ku > exact_bf16(c1 * step + base, "the odd-code threshold") ? 1.0f : 0.0f;
  return (sign ? 8u : 0u) | (uint32_t)(4.0f * c2 + 2.0f * c1 + c0);
}

/* QUANTIZE on one block: its scale byte and codes (the two lanes' halves joined). */
static uint8_t kernel_block(const float *x, float g, uint8_t *codes) {
  uint32_t a[16], amax = 0;
  for (int k = 0; k < 16; k++) {
    a[k] = bits_of(fabsf(x[k]) * g);                                /* abs.f32, mul.rn.f32 */
    amax = a[k] > amax ? a[k] : amax;
  }
  int nonfinite = amax >= 0x7F800000u;
  uint32_t sc = kernel_e4m3(bits_of(float_of(amax) / 6.0f));
  if (nonfinite) sc = 0x7F;
  float s = kernel_scale_value(sc);
  int zero = sc == 0 || nonfinite;
  for (int k = 0; k < 16; k++) codes[k] = zero ? 0 : (uint8_t)kernel_e2m1(bits_of(x[k]) >> 31, a[k], s);
  return (uint8_t)sc;
}

/* Every bit pattern within `radius` of `center` (non-negative finite floats only) through check(). */
static void around(uint32_t center, uint32_t radius, void (*check)(uint32_t)) {
  uint32_t lo = center > radius ? center - radius : 0;
  for (uint32_t u = lo; u <= center + radius && u < 0x7F800000u; u++) check(u);
}

static void check_e4m3(uint32_t u) {
  uint32_t got = kernel_e4m3(u), want = nvfp4i_e4m3_from_float(float_of(u));
  if (got != want) ck_abort_msg("q = %a (0x%08X): kernel 0x%02X, format.c 0x%02X", (double)float_of(u), u, got, want);
}

/* Every float the rounding can turn on: a window around each code's value and each midpoint between
 * neighbours (the ties), the subnormal/normal seam at 2^-6, 448 and 464 (past which all saturate), and a
 * stride through all non-negative finite floats (subnormal f32 q, huge q). */
START_TEST(e4m3_rounding_matches_format_c_for_every_class) {
  for (unsigned c = 0; c <= 0x7E; c++) {
    double v = nvfp4i_e4m3_value(c), next = nvfp4i_e4m3_value(c + 1);
    around(bits_of((float)v), 4096, check_e4m3);
    if (c < 0x7E) around(bits_of((float)((v + next) / 2)), 4096, check_e4m3);
  }
  around(bits_of(464.0f), 4096, check_e4m3);
  around(bits_of(0x1p-10f), 4096, check_e4m3); /* half the least subnormal: ties to 0 */
  around(0, 4096, check_e4m3);                 /* zero and f32 subnormals */
  for (uint64_t u = 0; u < 0x7F800000u; u += 997) check_e4m3((uint32_t)u);
  check_e4m3(0x7F7FFFFFu);
}
END_TEST

START_TEST(scale_values_match_format_c_for_every_code) {
  for (uint32_t sc = 0; sc <= 0x7E; sc++)
    ck_assert_msg((double)kernel_scale_value(sc) == nvfp4i_e4m3_value(sc), "sc 0x%02X: kernel %a, format.c %a",
                  sc, (double)kernel_scale_value(sc), nvfp4i_e4m3_value(sc));
}
END_TEST

/* The recipe's code of t over the scale of code sc: e2m1(fl(t / s)), a true division. */
static uint32_t recipe_e2m1(float t, uint32_t sc) { return nvfp4i_e2m1_from_float(t / (float)nvfp4i_e4m3_value(sc)); }

static uint32_t scale_code;

static void check_e2m1(uint32_t u) {
  float s = kernel_scale_value(scale_code);
  for (uint32_t sign = 0; sign < 2; sign++) {
    float t = float_of(u | sign << 31);
    uint32_t got = kernel_e2m1(sign, u, s), want = recipe_e2m1(t, scale_code);
    if (got != want)
      ck_abort_msg("t = %a, s = %a: kernel %u, e2m1(fl(t / s)) %u", (double)t, (double)s, got, want);
  }
}

/* The comparisons of t against m * s give e2m1(fl(t / s)) without the division: fl is monotone and m * s is
 * exact, so t >= m * s gives fl(t / s) >= m; and t != m * s puts t / s more than half an f32 ulp of m away
 * from m (m * s has at most 7 significant bits, so its f32 neighbours are over 2^-24 * m * s away), so fl
 * cannot round it onto m. For every non-zero scale: a window around every threshold m * s and every code's
 * value times s (both signs: -0 and negative values that round to 0 give code 8), 0, and a stride through
 * all finite floats. */
START_TEST(e2m1_by_thresholds_is_e2m1_of_the_true_quotient_for_every_scale) {
  static const float points[] = {0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f, 3.5f, 4.0f,
                                 5.0f,  6.0f, 7.0f};
  for (scale_code = 1; scale_code <= 0x7E; scale_code++) {
    float s = kernel_scale_value(scale_code);
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) around(bits_of(points[i] * s), 4096, check_e2m1);
    around(0, 4096, check_e2m1);
    for (uint64_t u = scale_code; u < 0x7F800000u; u += 9973) check_e2m1((uint32_t)u);
    check_e2m1(0x7F7FFFFFu);
  }
}
END_TEST

/* The reference's quantize of one 16-element f32 row. */
static uint8_t reference_block(const float *x, float g, uint8_t *codes) {
  uint8_t data[8], scale;
  nvfp4_dense in = {x, 1, 16, 1, 16, 16, NVFP4_DTYPE_F32};
  nvfp4_tensor out = {data, &scale, 1, 16, 1, 8, 8, 1, 1, NVFP4_SF_LINEAR};
  nvfp4i_quantize_ref(&in, &out, g);
  for (int k = 0; k < 16; k++) codes[k] = (uint8_t)nvfp4i_e2m1_code_at(data, 8, 0, k);
  return scale;
}

static void check_block(const float *x, float g, const char *what, int index) {
  uint8_t got[16], want[16];
  uint8_t got_sc = kernel_block(x, g, got), want_sc = reference_block(x, g, want);
  if (got_sc != want_sc) ck_abort_msg("%s %d (g %a): kernel scale 0x%02X, reference 0x%02X", what, index, (double)g,
                got_sc, want_sc);
  for (int k = 0; k < 16; k++)
    if (got[k] != want[k]) ck_abort_msg("%s %d (g %a) element %d = %a: kernel code %u, reference %u", what, index,
                  (double)g, k, (double)x[k], got[k], want[k]);
}

/* A block whose amax lands where amax / 6 is one of e4m3's values or midpoints (give or take an ulp), so the
 * scale's rounding and the codes' both sit on boundaries; its other elements are each a boundary of e2m1
 * times the scale, give or take an ulp. */
static void boundary_block(nvfp4i_rng *state, float *x) {
  unsigned c = 1 + (unsigned)(nvfp4i_rng_next(state) % 0x7E);
  double v = nvfp4i_e4m3_value(c), prev = nvfp4i_e4m3_value(c - 1);
  float amax = (float)((nvfp4i_rng_next(state) & 1 ? v : (v + prev) / 2) * 6.0);
  static const float edges[] = {0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f, 3.5f, 4.0f, 5.0f,
                                6.0f};
  int nudge = (int)(nvfp4i_rng_next(state) % 3) - 1;
  x[0] = float_of(bits_of(amax) + (uint32_t)nudge);
  for (int k = 1; k < 16; k++) {
    float e = edges[nvfp4i_rng_next(state) % (sizeof edges / sizeof edges[0])] * (float)v;
    x[k] = float_of(bits_of(e) + (uint32_t)((int)(nvfp4i_rng_next(state) % 3) - 1));
    if (nvfp4i_rng_next(state) & 1) x[k] = -x[k];
  }
}

START_TEST(kernel_blocks_match_the_reference_on_boundaries_and_random_data) {
  nvfp4i_rng state = {14};
  float x[16];
  for (int i = 0; i < 200000; i++) {
    boundary_block(&state, x);
    check_block(x, 1.0f, "boundary block", i);
  }
  static const float gs[] = {1.0f, 0x1p-100f, 0x1p100f, 3.0f, 1e-30f, 1e30f, 0.1f};
  for (int i = 0; i < 200000; i++) {
    int spread = (int)(nvfp4i_rng_next(&state) % 60) - 30;
    for (int k = 0; k < 16; k++) {
      double r = (double)(nvfp4i_rng_next(&state) >> 11) * 0x1p-53 * 2.0 - 1.0;
      x[k] = (float)ldexp(r, spread + (int)(nvfp4i_rng_next(&state) % 8));
    }
    if (i % 7 == 0) x[nvfp4i_rng_next(&state) % 16] = -0.0f;
    if (i % 11 == 0) x[nvfp4i_rng_next(&state) % 16] = float_of((uint32_t)(nvfp4i_rng_next(&state) % 0x800000u));
    check_block(x, gs[i % (sizeof gs / sizeof gs[0])], "random block", i);
  }
  float special[16] = {0};
  check_block(special, 1.0f, "all zero", 0);
  for (int k = 0; k < 16; k++) special[k] = -0.0f;
  check_block(special, 1.0f, "all -0", 0);
  special[3] = NAN;
  check_block(special, 1.0f, "a NaN", 0);
  special[3] = -INFINITY;
  check_block(special, 1.0f, "an infinity", 0);
  special[3] = FLT_MAX;
  check_block(special, 2.0f, "a product that overflows", 0);
  check_block(special, 1.0f, "FLT_MAX (saturated scale)", 0);
  special[3] = 0x1p-149f;
  check_block(special, 1.0f, "the least subnormal (zero scale)", 0);
  special[3] = 6.0f * 0x1p-10f;
  check_block(special, 1.0f, "amax / 6 half the least e4m3 subnormal", 0);
}
END_TEST

Suite *quantize_arith_suite(void) {
  Suite *s = suite_create("quantize_arith");
  TCase *rounding = tcase_create("the kernel's rounding sequences against format.c");
  tcase_set_timeout(rounding, 60);
  tcase_add_test(rounding, e4m3_rounding_matches_format_c_for_every_class);
  tcase_add_test(rounding, scale_values_match_format_c_for_every_code);
  tcase_add_test(rounding, e2m1_by_thresholds_is_e2m1_of_the_true_quotient_for_every_scale);
  suite_add_tcase(s, rounding);
  TCase *blocks = tcase_create("the kernel's block arithmetic against the reference");
  tcase_set_timeout(blocks, 60);
  tcase_add_test(blocks, kernel_blocks_match_the_reference_on_boundaries_and_random_data);
  suite_add_tcase(s, blocks);
  return s;
}
