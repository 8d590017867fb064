/* nvfp4_scales_relayout on the GPU, every byte of each destination buffer and its guards against
 * nvfp4i_scales_relayout_ref (nvfp4i_verify_scales_relayout): LINEAR -> BLOCKED, BLOCKED -> LINEAR, LINEAR ->
 * LINEAR with another sf_ld, BLOCKED -> BLOCKED, over rows 1, 7, 129, 300, K 32, 96, 544 and batches 1 and 3,
 * each relaid there and back again (the source's scales exactly, BLOCKED padding 0); destinations poisoned
 * 0xFF, every byte the layout does not define must stay so. Then one large tensor. */
#include "suites.h"
#include "verify.h"

#define LIN NVFP4_SF_LINEAR
#define BLK NVFP4_SF_BLOCKED_128x4

static const struct {
  const char *what;
  nvfp4_sf_layout from, to;
  int64_t to_sf_ld_pad;
} directions[] = {
    {"LINEAR -> BLOCKED", LIN, BLK, 0},
    {"BLOCKED -> LINEAR", BLK, LIN, 1},
    {"LINEAR -> LINEAR, another sf_ld", LIN, LIN, 5},
    {"BLOCKED -> BLOCKED", BLK, BLK, 0},
};
static const int64_t rows[] = {1, 7, 129, 300}, ks[] = {32, 96, 544}, batches[] = {1, 3};
enum {
  DIRECTIONS = sizeof directions / sizeof directions[0],
  ROWS = sizeof rows / sizeof rows[0],
  KS = sizeof ks / sizeof ks[0],
  BATCHES = sizeof batches / sizeof batches[0],
  SHAPES = DIRECTIONS * ROWS * KS * BATCHES,
};

static void check(const char *what, nvfp4i_relayout_case *c, uint64_t salt) {
  c->seed = gpu_seed(salt);
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_scales_relayout(gpu_handle, c, &v);
  ck_assert_msg(pass,
                "relayout %s, %lld x %lld x %lld (seed=%llu, NVFP4_TEST_SEED=%llu): status %s (%s), %lld/%lld bytes "
                "differ, first: %s",
                what, (long long)c->batch, (long long)c->rows, (long long)c->k, (unsigned long long)c->seed,
                (unsigned long long)gpu_run_seed(), nvfp4_status_string(v.status), nvfp4_last_error(),
                (long long)v.failures, (long long)v.checked, v.detail);
}

/* shape i: direction, rows, K, batch, in that order (batch fastest) */
START_TEST(relayout_matches_reference_there_and_back) {
  int i = _i, b = i % BATCHES, k = i / BATCHES % KS, r = i / BATCHES / KS % ROWS, d = i / BATCHES / KS / ROWS;
  nvfp4i_relayout_case c = {.rows = rows[r], .k = ks[k], .batch = batches[b], .from_layout = directions[d].from,
                            .to_layout = directions[d].to, .to_sf_ld_pad = directions[d].to_sf_ld_pad,
                            .and_back = 1};
  check(directions[d].what, &c, 0x726c7900u + (uint64_t)i);
}
END_TEST

/* large: every SM's threads stride over many bytes (16384 x 7168: 7.3 MB of scales) */
START_TEST(relayout_large_matches_reference) {
  nvfp4i_relayout_case c = {.rows = 16384, .k = 7168, .batch = 1, .from_layout = BLK, .to_layout = LIN,
                            .to_sf_ld_pad = 16, .and_back = 1};
  check("BLOCKED -> LINEAR, large", &c, 0x726c79ffu);
}
END_TEST

Suite *scales_relayout_gpu_suite(void) {
  Suite *s = suite_create("scales_relayout gpu");
  TCase *shapes = gpu_tcase("scales_relayout shapes", 300);
  tcase_add_loop_test(shapes, relayout_matches_reference_there_and_back, 0, SHAPES);
  suite_add_tcase(s, shapes);
  if (!gpu_quick()) {
    TCase *large = gpu_tcase("scales_relayout large", 300);
    tcase_add_test(large, relayout_large_matches_reference);
    suite_add_tcase(s, large);
  }
  return s;
}
