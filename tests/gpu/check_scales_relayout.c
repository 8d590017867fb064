/* nvfp4_scales_relayout on the GPU, every byte of each destination buffer and its guards against
 * nvfp4i_scales_relayout_ref (nvfp4i_verify_scales_relayout): LINEAR -> BLOCKED, BLOCKED -> LINEAR, LINEAR ->
 * LINEAR with another sf_ld, BLOCKED -> BLOCKED, over rows 1, 7, 129, 300, K 32, 96, 544 and batches 1 and 3,
 * each relaid there and back again (the source's scales exactly, BLOCKED padding 0); destinations poisoned
 * 0xFF, every byte the layout does not define must stay so. Then the kernel's access modes (16-byte vectors,
 * words, bytes) on each side, one large tensor, and CUDA graph replay. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "graph_replay.h"
#include "quantize_ref.h"
#include "suites.h"
#include "testdata.h"
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

/* The kernel's access modes (host/scales_relayout.c picks each side's from its base, sf_ld and batch stride):
 * every direction with LINEAR words and BLOCKED 16-byte vectors (strides multiples of 16, bases aligned), with
 * words on both sides (bases 4 bytes off), and with LINEAR bytes beside BLOCKED words (odd LINEAR strides,
 * bases 8 bytes off); over one row, K/16 a multiple of 4 or not, more than one group of quads per tile row,
 * batches 1 to 3. The 1, 3, 7 and 13 bytes off (bytes on both sides) are NVFP4_GPU_SUITE=contract's. */
static const struct {
  const char *what;
  int aligned_strides;
  int64_t sf_misalign;
} accesses[] = {
    {"LINEAR words, BLOCKED vectors", 1, 0},
    {"words on both sides, bases 4 bytes off", 1, 4},
    {"LINEAR bytes (odd strides), BLOCKED words (bases 8 bytes off)", 0, 8},
};
static const struct {
  int64_t rows, k, batch;
} access_shapes[] = {{1, 64, 1}, {130, 2080, 3}, {257, 1024, 2}};
enum {
  ACCESSES = sizeof accesses / sizeof accesses[0],
  ACCESS_SHAPES = sizeof access_shapes / sizeof access_shapes[0],
  ACCESS_CASES = DIRECTIONS * ACCESSES * ACCESS_SHAPES,
};

/* case i: direction, access, shape, in that order (shape fastest) */
START_TEST(relayout_access_modes_match_reference_there_and_back) {
  int i = _i, s = i % ACCESS_SHAPES, m = i / ACCESS_SHAPES % ACCESSES, d = i / ACCESS_SHAPES / ACCESSES;
  nvfp4i_relayout_case c = {.rows = access_shapes[s].rows, .k = access_shapes[s].k, .batch = access_shapes[s].batch,
                            .from_layout = directions[d].from, .to_layout = directions[d].to,
                            .to_sf_ld_pad = directions[d].to_sf_ld_pad, .and_back = 1,
                            .sf_misalign = accesses[m].sf_misalign, .aligned_strides = accesses[m].aligned_strides};
  char what[160];
  snprintf(what, sizeof what, "%s, %s", directions[d].what, accesses[m].what);
  check(what, &c, 0x726c7a00u + (uint64_t)i);
}
END_TEST

/* large: every SM's threads stride over many bytes (16384 x 7168: 7.3 MB of scales) */
START_TEST(relayout_large_matches_reference) {
  nvfp4i_relayout_case c = {.rows = 16384, .k = 7168, .batch = 1, .from_layout = BLK, .to_layout = LIN,
                            .to_sf_ld_pad = 16, .and_back = 1};
  check("BLOCKED -> LINEAR, large", &c, 0x726c79ffu);
}
END_TEST

/* Replaying a captured graph of a relayout there and back (3 batches: LINEAR with padded rows and gaps ->
 * BLOCKED with gaps -> LINEAR with other padding, the second launch reading the first's output) gives the
 * bits of a direct call, every byte of both destinations the reference's: scales, BLOCKED padding 0, gaps
 * and row padding still poisoned. */
enum { GRAPH_ROWS = 129, GRAPH_K = 544, GRAPH_BATCH = 3 };

typedef struct relayout_graph_arg {
  nvfp4i_operand from;
  nvfp4_tensor blocked, back; /* scales: offsets into the output */
} relayout_graph_arg;

static nvfp4_tensor at_offset(nvfp4_tensor t, const void *base) {
  t.scales = (const uint8_t *)base + (uintptr_t)t.scales;
  return t;
}

static nvfp4_status launch_there_and_back(void *arg, CUdeviceptr out, CUstream stream) {
  const relayout_graph_arg *g = arg;
  nvfp4_tensor blocked = at_offset(g->blocked, (const void *)(uintptr_t)out);
  nvfp4_tensor back = at_offset(g->back, (const void *)(uintptr_t)out);
  nvfp4_status s = nvfp4_scales_relayout(gpu_handle, &g->from.dev, &blocked, stream);
  return s == NVFP4_STATUS_SUCCESS ? nvfp4_scales_relayout(gpu_handle, &blocked, &back, stream) : s;
}

static void check_there_and_back(void *arg, const uint8_t *out, size_t bytes) {
  const relayout_graph_arg *g = arg;
  uint8_t *want = malloc(bytes);
  ck_assert_ptr_nonnull(want);
  memset(want, 0xFF, bytes);
  nvfp4_tensor blocked = at_offset(g->blocked, want), back = at_offset(g->back, want);
  nvfp4i_scales_relayout_ref(&g->from.host, &blocked);
  nvfp4i_scales_relayout_ref(&g->from.host, &back);
  size_t back_at = (size_t)(uintptr_t)g->back.scales;
  gpu_assert_bytes(out, want, back_at, "graph replay, LINEAR -> BLOCKED");
  gpu_assert_bytes(out + back_at, want + back_at, bytes - back_at, "graph replay, BLOCKED -> LINEAR again");
  free(want);
}

START_TEST(relayout_graph_replay_matches_direct_launch_and_reference) {
  uint64_t seed = gpu_seed(0x726c7967);
  nvfp4i_rng rng = {seed};
  relayout_graph_arg g;
  ck_assert_int_eq(nvfp4i_operand_create(&g.from, GRAPH_ROWS, GRAPH_K, GRAPH_BATCH, LIN, 16, &rng),
                   NVFP4_STATUS_SUCCESS);
  int64_t tiles = nvfp4i_sf_batch_bytes(BLK, 0, GRAPH_ROWS, GRAPH_K), sf_ld = GRAPH_K / 16 + 5;
  int64_t lin = nvfp4i_sf_batch_bytes(LIN, sf_ld, GRAPH_ROWS, GRAPH_K);
  g.blocked = (nvfp4_tensor){NULL, (const void *)0, GRAPH_ROWS, GRAPH_K, GRAPH_BATCH, 0, 0, 0, tiles + 16, BLK};
  uintptr_t back_at = (uintptr_t)((tiles + 16) * GRAPH_BATCH);
  g.back = (nvfp4_tensor){NULL, (const void *)back_at, GRAPH_ROWS, GRAPH_K, GRAPH_BATCH, 0, 0, sf_ld, lin + 7, LIN};
  assert_graph_replay_checked(launch_there_and_back, check_there_and_back, &g,
                              (size_t)back_at + (size_t)((lin + 7) * GRAPH_BATCH), seed);
  nvfp4i_operand_destroy(&g.from);
}
END_TEST

Suite *scales_relayout_gpu_suite(void) {
  Suite *s = suite_create("scales_relayout gpu");
  TCase *shapes = gpu_tcase("scales_relayout shapes", 300);
  tcase_add_loop_test(shapes, relayout_matches_reference_there_and_back, 0, SHAPES);
  suite_add_tcase(s, shapes);
  TCase *access_modes = gpu_tcase("scales_relayout access modes", 300);
  tcase_add_loop_test(access_modes, relayout_access_modes_match_reference_there_and_back, 0, ACCESS_CASES);
  suite_add_tcase(s, access_modes);
  if (!gpu_quick()) {
    TCase *large = gpu_tcase("scales_relayout large", 300);
    tcase_add_test(large, relayout_large_matches_reference);
    suite_add_tcase(s, large);
  }
  TCase *graphs = gpu_tcase("scales_relayout graphs", 120);
  tcase_add_test(graphs, relayout_graph_replay_matches_direct_launch_and_reference);
  suite_add_tcase(s, graphs);
  return s;
}
