/* nvfp4_scales_relayout without a GPU, on the fake driver (tests/fake/libcuda.c): every validation path (right
 * status, the field named, nothing launched), the launch as the kernel reads it (scales_relayout_layout.h's
 * parameter block), the kernel's walk run in C from that block against nvfp4i_scales_relayout_ref byte for
 * byte over shapes, layouts and batches, and an image without the entry. */
#include <stdlib.h>
#include <string.h>

#include "fake_driver.h"
#include "format.h"
#include "quantize_ref.h"
#include "sm90a/scales_relayout_layout.h"
#include "suites.h"
#include "testdata.h"

#define LIN NVFP4_SF_LINEAR
#define BLK NVFP4_SF_BLOCKED_128x4
#define RLY_ENTRY_NAME "nvfp4_scales_relayout_sm90a"

enum { ROWS = 300, K = 544, BATCH = 3, FROM_SF_LD = K / 16 + 3, TILES = 3 * 9 };

/* Fake device memory, as large as the valid arguments' scales span: the overlap check compares addresses. */
static uint8_t from_sf[BATCH * ROWS * FROM_SF_LD], to_sf[BATCH * TILES * 512];

typedef struct rly_args {
  nvfp4_handle *h;
  nvfp4_tensor from, to;
  int null_from, null_to;
} rly_args;

/* LINEAR scales with padded rows -> BLOCKED; no data pointers (neither is read). */
static rly_args valid_args(void) {
  return (rly_args){
      .h = fake_handle,
      .from = {NULL, from_sf, ROWS, K, BATCH, 0, 0, FROM_SF_LD, ROWS * FROM_SF_LD, LIN},
      .to = {NULL, to_sf, ROWS, K, BATCH, 0, 0, 0, TILES * 512, BLK},
  };
}

static nvfp4_status call(const rly_args *a) {
  return nvfp4_scales_relayout(a->h, a->null_from ? NULL : &a->from, a->null_to ? NULL : &a->to, NULL);
}

typedef struct rly_case {
  const char *what;
  void (*edit)(rly_args *);
  nvfp4_status expected;
  const char *message; /* must appear in nvfp4_last_error() */
} rly_case;

#define EDIT(name, body) \
  static void name(rly_args *a) { body; }
EDIT(no_handle, a->h = NULL)
EDIT(no_from, a->null_from = 1)
EDIT(no_to, a->null_to = 1)
EDIT(from_rows_zero, a->from.rows = 0; a->to.rows = 0)
EDIT(from_k_zero, a->from.k = 0)
EDIT(from_k_not_32, a->from.k = 48; a->to.k = 48)
EDIT(from_batch_zero, a->from.batch = 0)
EDIT(from_scales_null, a->from.scales = NULL)
EDIT(from_sf_ld_small, a->from.sf_ld = K / 16 - 1)
EDIT(from_sf_batch_stride_negative, a->from.sf_batch_stride = -1)
EDIT(from_layout_bad, a->from.sf_layout = (nvfp4_sf_layout)2)
EDIT(to_rows_huge, a->to.rows = (int64_t)1 << 31)
EDIT(to_scales_null, a->to.scales = NULL)
EDIT(to_sf_ld_small, a->to.sf_layout = LIN; a->to.sf_ld = K / 16 - 1)
EDIT(to_layout_bad, a->to.sf_layout = (nvfp4_sf_layout)7)
EDIT(to_rows_differ, a->to.rows = ROWS - 1)
EDIT(to_k_differs, a->to.k = K + 32)
EDIT(to_batch_differs, a->to.batch = 1)
EDIT(to_batches_overlap, a->to.sf_batch_stride = TILES * 512 - 1)
EDIT(same_scales, a->to.scales = from_sf)
EDIT(to_inside_from, a->to.scales = from_sf + (BATCH - 1) * ROWS * FROM_SF_LD + (ROWS - 1) * FROM_SF_LD + K / 16 - 1)
EDIT(from_inside_to, a->from.scales = to_sf + 512)

static const rly_case cases[] = {
    {"NULL handle", no_handle, NVFP4_STATUS_INVALID_VALUE, "h is NULL"},
    {"NULL from", no_from, NVFP4_STATUS_INVALID_VALUE, "from is NULL"},
    {"NULL to", no_to, NVFP4_STATUS_INVALID_VALUE, "to is NULL"},
    {"from.rows 0", from_rows_zero, NVFP4_STATUS_INVALID_VALUE, "from.rows = 0"},
    {"from.k 0", from_k_zero, NVFP4_STATUS_INVALID_VALUE, "from.k = 0"},
    {"k not a multiple of 32", from_k_not_32, NVFP4_STATUS_NOT_SUPPORTED, "from.k = 48: only multiples of 32"},
    {"from.batch 0", from_batch_zero, NVFP4_STATUS_INVALID_VALUE, "from.batch = 0"},
    {"from.scales NULL", from_scales_null, NVFP4_STATUS_INVALID_VALUE, "from.scales is NULL"},
    {"from.sf_ld < k/16", from_sf_ld_small, NVFP4_STATUS_INVALID_VALUE, "from.sf_ld = 33"},
    {"from.sf_batch_stride < 0", from_sf_batch_stride_negative, NVFP4_STATUS_INVALID_VALUE,
     "from.sf_batch_stride = -1"},
    {"from.sf_layout unknown", from_layout_bad, NVFP4_STATUS_INVALID_VALUE, "from.sf_layout = 2"},
    {"to.rows 2^31", to_rows_huge, NVFP4_STATUS_INVALID_VALUE, "to.rows = 2147483648"},
    {"to.scales NULL", to_scales_null, NVFP4_STATUS_INVALID_VALUE, "to.scales is NULL"},
    {"to.sf_ld < k/16", to_sf_ld_small, NVFP4_STATUS_INVALID_VALUE, "to.sf_ld = 33"},
    {"to.sf_layout unknown", to_layout_bad, NVFP4_STATUS_INVALID_VALUE, "to.sf_layout = 7"},
    {"to.rows != from.rows", to_rows_differ, NVFP4_STATUS_INVALID_VALUE, "to.rows = 299: must equal from.rows"},
    {"to.k != from.k", to_k_differs, NVFP4_STATUS_INVALID_VALUE, "to.k = 576: must equal from.k"},
    {"to.batch != from.batch", to_batch_differs, NVFP4_STATUS_INVALID_VALUE, "to.batch = 1: must equal from.batch"},
    {"to's batches overlap", to_batches_overlap, NVFP4_STATUS_INVALID_VALUE,
     "to.sf_batch_stride = 13823: must be >= 13824"},
    {"to.scales == from.scales", same_scales, NVFP4_STATUS_INVALID_VALUE, "overlap"},
    {"to starts in from's last byte", to_inside_from, NVFP4_STATUS_INVALID_VALUE, "overlap"},
    {"from starts inside to", from_inside_to, NVFP4_STATUS_INVALID_VALUE, "overlap"},
};

START_TEST(relayout_launches_once_for_valid_arguments) {
  rly_args a = valid_args();
  ck_assert_msg(call(&a) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  a.from.data = from_sf; /* data pointers are not looked at */
  a.from.ld = 1;
  ck_assert_msg(call(&a) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2);
}
END_TEST

START_TEST(relayout_rejects_bad_arguments) {
  const rly_case *c = &cases[_i];
  rly_args a = valid_args();
  c->edit(&a);
  nvfp4_status s = call(&a);
  assert_rejected(c->what, s, c->expected, c->message);
}
END_TEST

/* The last launch: the relayout entry, RLY_THREADS threads, `ctas` CTAs, no shared memory. */
static const unsigned char *relayout_launch(uint32_t ctas) {
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(fake_launches() - 1, &entry, &config);
  ck_assert_str_eq(entry, RLY_ENTRY_NAME);
  ck_assert_uint_eq(config.blockDimX, RLY_THREADS);
  ck_assert_uint_eq(config.blockDimY * config.blockDimZ * config.gridDimY * config.gridDimZ, 1);
  ck_assert_uint_eq(config.gridDimX, ctas);
  ck_assert_uint_eq(config.sharedMemBytes, 0);
  return p;
}

/* LINEAR (sf_ld 37) -> BLOCKED, 3 x 300 x 544: 3 * 384 * 36 bytes walked, a thread each: 162 CTAs. */
START_TEST(relayout_passes_both_layouts_steps) {
  rly_args a = valid_args();
  ck_assert_msg(call(&a) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  const unsigned char *p = relayout_launch(162);
  ck_assert_uint_eq(param_u64(p, RLY_P_FROM_SF), (uintptr_t)from_sf);
  ck_assert_uint_eq(param_u64(p, RLY_P_TO_SF), (uintptr_t)to_sf);
  ck_assert_uint_eq(param_u64(p, RLY_P_FROM_BATCH_STRIDE), ROWS * FROM_SF_LD);
  ck_assert_uint_eq(param_u64(p, RLY_P_TO_BATCH_STRIDE), TILES * 512);
  ck_assert_uint_eq(param_u64(p, RLY_P_FROM_STEP128), 128 * FROM_SF_LD);
  ck_assert_uint_eq(param_u64(p, RLY_P_FROM_STEP32), 32 * FROM_SF_LD);
  ck_assert_uint_eq(param_u64(p, RLY_P_FROM_STEP1), FROM_SF_LD);
  ck_assert_uint_eq(param_u64(p, RLY_P_TO_STEP128), 9 * 512);
  ck_assert_uint_eq(param_u64(p, RLY_P_TO_STEP32), 4);
  ck_assert_uint_eq(param_u64(p, RLY_P_TO_STEP1), 16);
  ck_assert_uint_eq(param_u64(p, RLY_P_TOTAL), BATCH * 384 * 36);
  ck_assert_uint_eq(param_u32(p, RLY_P_ROWS), ROWS);
  ck_assert_uint_eq(param_u32(p, RLY_P_BLOCKS), K / 16);
  ck_assert_uint_eq(param_u32(p, RLY_P_WALK_ROWS), 384);
  ck_assert_uint_eq(param_u32(p, RLY_P_WALK_BLOCKS), 36);
  ck_assert_uint_eq(param_u32(p, RLY_P_FROM_QUAD_STEP), 4);
  ck_assert_uint_eq(param_u32(p, RLY_P_TO_QUAD_STEP), 512);
  /* BLOCKED -> LINEAR, one small batch: only the scales are walked, a thread each */
  a = valid_args();
  a.from = a.to;
  a.from.scales = to_sf;
  a.to = (nvfp4_tensor){NULL, from_sf, ROWS, K, 1, 0, 0, FROM_SF_LD, 0, LIN};
  a.from.batch = 1;
  ck_assert_msg(call(&a) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  p = relayout_launch((ROWS * (K / 16) + RLY_THREADS - 1) / RLY_THREADS);
  ck_assert_uint_eq(param_u64(p, RLY_P_TOTAL), ROWS * (K / 16));
  ck_assert_uint_eq(param_u32(p, RLY_P_WALK_ROWS), ROWS);
  ck_assert_uint_eq(param_u32(p, RLY_P_WALK_BLOCKS), K / 16);
  ck_assert_uint_eq(param_u32(p, RLY_P_FROM_QUAD_STEP), 512);
  ck_assert_uint_eq(param_u32(p, RLY_P_TO_QUAD_STEP), 4);
  /* more bytes than resident threads: 264 CTAs (132 SMs x the fake's 2) stride over them */
  a = valid_args();
  a.from.batch = a.to.batch = 1;
  a.from.rows = a.to.rows = 16384;
  a.to.scales = (const void *)((uintptr_t)from_sf + ((uintptr_t)1 << 32)); /* never read: only apart */
  ck_assert_msg(call(&a) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_uint_eq(param_u64(relayout_launch(264), RLY_P_TOTAL), 16384 * 36);
}
END_TEST

/* scales_relayout.ptx in C, instruction group by instruction group, from the launch's grid and parameter
 * block: every thread of the grid walks its items; the addresses are host memory here. */
static void run_kernel_in_c(const unsigned char *p, uint32_t ctas) {
  uint64_t total = param_u64(p, RLY_P_TOTAL), wb = param_u32(p, RLY_P_WALK_BLOCKS);
  uint64_t wr = param_u32(p, RLY_P_WALK_ROWS), threads = (uint64_t)ctas * RLY_THREADS;
  for (uint64_t t = 0; t < threads; t++)
    for (uint64_t i = t; i < total; i += threads) {
      uint32_t j = (uint32_t)(i % wb), r = (uint32_t)(i / wb % wr);
      uint64_t b = i / wb / wr;
#define SF_ADDRESS(base, bs, s128, s32, s1, quad)                                                             \
  (param_u64(p, base) + b * param_u64(p, bs) + (r >> 7) * param_u64(p, s128) + ((r >> 5) & 3) * param_u64(p, s32) + \
   (r & 31) * param_u64(p, s1) + (uint64_t)(j >> 2) * param_u32(p, quad) + (j & 3))
      uint8_t v = 0;
      if (r < param_u32(p, RLY_P_ROWS) && j < param_u32(p, RLY_P_BLOCKS))
        v = *(const uint8_t *)(uintptr_t)SF_ADDRESS(RLY_P_FROM_SF, RLY_P_FROM_BATCH_STRIDE, RLY_P_FROM_STEP128,
                                                    RLY_P_FROM_STEP32, RLY_P_FROM_STEP1, RLY_P_FROM_QUAD_STEP);
      *(uint8_t *)(uintptr_t)SF_ADDRESS(RLY_P_TO_SF, RLY_P_TO_BATCH_STRIDE, RLY_P_TO_STEP128, RLY_P_TO_STEP32,
                                        RLY_P_TO_STEP1, RLY_P_TO_QUAD_STEP) = v;
#undef SF_ADDRESS
    }
}

/* A relayout case: from and to layouts, rows, K, batch; LINEAR rows padded by 3 bytes, batches 16 apart. */
static const struct {
  nvfp4_sf_layout from, to;
  int64_t rows, k, batch, to_sf_ld_pad;
} walks[] = {
    {LIN, BLK, 1, 32, 1, 0},   {LIN, BLK, 7, 96, 3, 0},    {LIN, BLK, 129, 544, 1, 0}, {LIN, BLK, 300, 544, 3, 0},
    {BLK, LIN, 1, 96, 3, 0},   {BLK, LIN, 129, 32, 1, 5},  {BLK, LIN, 300, 544, 3, 0}, {LIN, LIN, 7, 544, 3, 9},
    {LIN, LIN, 300, 96, 1, 1}, {BLK, BLK, 300, 544, 3, 0}, {BLK, BLK, 7, 32, 1, 0},    {LIN, BLK, 1000, 2048, 1, 0},
};

static int64_t sf_ld_of(nvfp4_sf_layout layout, int64_t k, int64_t pad) {
  return layout == LIN ? k / 16 + pad : 0;
}

static int64_t batch_stride_of(const nvfp4_tensor *t) {
  return nvfp4i_sf_batch_bytes(t->sf_layout, t->sf_ld, t->rows, t->k) + 16;
}

/* The kernel's walk (in C) and the reference, on destinations poisoned alike: every byte of the buffer equal. */
START_TEST(relayout_walk_matches_the_reference) {
  nvfp4_tensor from = {NULL, NULL, walks[_i].rows, walks[_i].k, walks[_i].batch, 0, 0,
                       sf_ld_of(walks[_i].from, walks[_i].k, 3), 0, walks[_i].from};
  nvfp4_tensor to = {NULL, NULL, walks[_i].rows, walks[_i].k, walks[_i].batch, 0, 0,
                     sf_ld_of(walks[_i].to, walks[_i].k, walks[_i].to_sf_ld_pad), 0, walks[_i].to};
  from.sf_batch_stride = batch_stride_of(&from);
  to.sf_batch_stride = batch_stride_of(&to);
  size_t from_bytes = (size_t)(from.sf_batch_stride * from.batch), to_bytes = (size_t)(to.sf_batch_stride * to.batch);
  uint8_t *src = malloc(from_bytes), *got = malloc(to_bytes), *want = malloc(to_bytes);
  nvfp4i_rng rng = {0x72656c61u + (uint64_t)_i};
  for (size_t i = 0; i < from_bytes; i++) src[i] = (uint8_t)nvfp4i_rng_next(&rng);
  memset(got, 0xFF, to_bytes);
  memset(want, 0xFF, to_bytes);
  from.scales = src;
  to.scales = got;
  ck_assert_msg(nvfp4_scales_relayout(fake_handle, &from, &to, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  CUlaunchConfig config;
  const unsigned char *p = fake_last_launch(&config);
  run_kernel_in_c(p, config.gridDimX);
  to.scales = want;
  nvfp4i_scales_relayout_ref(&from, &to);
  for (size_t i = 0; i < to_bytes; i++)
    ck_assert_msg(got[i] == want[i], "case %d (%lld x %lld x %lld, layout %d -> %d): byte %zu = 0x%02x, expected "
                  "0x%02x", _i, (long long)from.batch, (long long)from.rows, (long long)from.k, from.sf_layout,
                  to.sf_layout, i, got[i], want[i]);
  free(src);
  free(got);
  free(want);
}
END_TEST

/* An image without the relayout entry (an NVFP4_FATBIN of another family) refuses it before launching. */
START_TEST(an_image_without_relayout_refuses_it) {
  setenv("FAKE_CUDA_MISSING", RLY_ENTRY_NAME, 1);
  create_fake_handle();
  rly_args a = valid_args();
  assert_refused_for_missing_entry(RLY_ENTRY_NAME, call(&a));
  destroy_fake_handle();
}
END_TEST

Suite *scales_relayout_suite(void) {
  Suite *s = suite_create("scales_relayout");
  TCase *validation = tcase_create("scales_relayout validation");
  tcase_add_checked_fixture(validation, create_fake_handle, destroy_fake_handle);
  tcase_add_test(validation, relayout_launches_once_for_valid_arguments);
  tcase_add_loop_test(validation, relayout_rejects_bad_arguments, 0, (int)(sizeof cases / sizeof cases[0]));
  suite_add_tcase(s, validation);
  TCase *launches = tcase_create("scales_relayout launches");
  tcase_add_checked_fixture(launches, create_fake_handle, destroy_fake_handle);
  tcase_add_test(launches, relayout_passes_both_layouts_steps);
  tcase_add_loop_test(launches, relayout_walk_matches_the_reference, 0, (int)(sizeof walks / sizeof walks[0]));
  suite_add_tcase(s, launches);
  TCase *images = tcase_create("scales_relayout from an image without its entry");
  tcase_add_test(images, an_image_without_relayout_refuses_it);
  suite_add_tcase(s, images);
  return s;
}
