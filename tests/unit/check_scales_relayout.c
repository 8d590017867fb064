/* nvfp4_scales_relayout without a GPU, on the fake driver (tests/fake/libcuda.c): every validation path (right
 * status, the field named, nothing launched), the launch as the kernel reads it (scales_relayout_layout.h's
 * parameter block: the walk, the grid's step, the access mode each side's alignment allows), the kernel's walk
 * run in C from that block against nvfp4i_scales_relayout_ref byte for byte over shapes, layouts, batches,
 * alignments and access modes (every access checked aligned to its width), and an image without the entry. */
#include <stdlib.h>
#include <string.h>

#include "fake_driver.h"
#include "format.h"
#include "quantize_ref.h"
#include "sm90a/scales_relayout_layout.h"
#include "suites.h"
#include "testdata.h"
#include "verify.h"

#define LIN NVFP4_SF_LINEAR
#define BLK NVFP4_SF_BLOCKED_128x4
#define RLY_ENTRY_NAME "nvfp4_scales_relayout_sm90a"

enum { ROWS = 300, K = 544, BATCH = 3, FROM_SF_LD = K / 16 + 3, TILES = 3 * 9 };

/* Fake device memory, as large as the valid arguments' scales span (sf_ld up to 40, bases up to 16 bytes in):
 * the overlap check compares addresses, the access modes look at their alignment. */
_Alignas(16) static uint8_t from_sf[BATCH * ROWS * 40 + 16];
_Alignas(16) static uint8_t to_sf[BATCH * TILES * 512 + 16];

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

/* The walk of the last launch: its items' extent and the grid's step in (batch, tile row, group). */
static void assert_walk(const unsigned char *p, uint32_t tiles, uint32_t quads, uint32_t groups, uint32_t step_groups,
                        uint32_t step_tiles, uint32_t step_batches) {
  ck_assert_uint_eq(param_u32(p, RLY_P_TILES), tiles);
  ck_assert_uint_eq(param_u32(p, RLY_P_QUADS), quads);
  ck_assert_uint_eq(param_u32(p, RLY_P_GROUPS), groups);
  ck_assert_uint_eq(param_u32(p, RLY_P_STEP_GROUPS), step_groups);
  ck_assert_uint_eq(param_u32(p, RLY_P_STEP_TILES), step_tiles);
  ck_assert_uint_eq(param_u32(p, RLY_P_STEP_BATCHES), step_batches);
}

/* The access modes of the last launch. */
static void assert_access(const unsigned char *p, uint32_t from, uint32_t to) {
  ck_assert_uint_eq(param_u32(p, RLY_P_FROM_ACCESS), from);
  ck_assert_uint_eq(param_u32(p, RLY_P_TO_ACCESS), to);
}

/* LINEAR (sf_ld 37) -> BLOCKED, 3 x 300 x 544: 3 tile rows x 9 quads (one group) per batch, a CTA per item. */
START_TEST(relayout_passes_both_layouts_steps) {
  rly_args a = valid_args();
  ck_assert_msg(call(&a) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  const unsigned char *p = relayout_launch(BATCH * 3);
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
  ck_assert_uint_eq(param_u64(p, RLY_P_BATCH), BATCH);
  ck_assert_uint_eq(param_u32(p, RLY_P_FROM_QUAD_STEP), 4);
  ck_assert_uint_eq(param_u32(p, RLY_P_TO_QUAD_STEP), 512);
  ck_assert_uint_eq(param_u32(p, RLY_P_ROWS), ROWS);
  ck_assert_uint_eq(param_u32(p, RLY_P_TO_ROWS), 384);             /* BLOCKED: whole tiles */
  ck_assert_uint_eq(param_u32(p, RLY_P_WHOLE_QUADS), K / 64);      /* 34 blocks: 8 whole quads, a half one */
  ck_assert_uint_eq(param_u32(p, RLY_P_TO_WHOLE_QUADS), K / 64 + 1);
  assert_walk(p, 3, 9, 1, 0, 0, BATCH);
  assert_access(p, RLY_ACCESS_BYTES, RLY_ACCESS_VEC16); /* sf_ld 37; tiles on a 16-byte boundary */

  /* BLOCKED -> LINEAR, one batch: LINEAR stores rows x K/16 alone, the half quad's 2 bytes */
  a = valid_args();
  a.from = a.to;
  a.to = (nvfp4_tensor){NULL, from_sf, ROWS, K, 1, 0, 0, FROM_SF_LD, 0, LIN};
  a.from.batch = 1;
  ck_assert_msg(call(&a) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  p = relayout_launch(3);
  ck_assert_uint_eq(param_u32(p, RLY_P_TO_ROWS), ROWS);
  ck_assert_uint_eq(param_u32(p, RLY_P_WHOLE_QUADS), K / 64);
  ck_assert_uint_eq(param_u32(p, RLY_P_TO_WHOLE_QUADS), K / 64);
  ck_assert_uint_eq(param_u32(p, RLY_P_FROM_QUAD_STEP), 512);
  ck_assert_uint_eq(param_u32(p, RLY_P_TO_QUAD_STEP), 4);
  assert_walk(p, 3, 9, 1, 0, 0, 1);
  assert_access(p, RLY_ACCESS_VEC16, RLY_ACCESS_BYTES);

  /* more items than resident CTAs: 264 (132 SMs x the fake's 2) stride over 128 tile rows x 5 groups */
  a = valid_args();
  a.from.batch = a.to.batch = 1;
  a.from.rows = a.to.rows = 16384;
  a.from.k = a.to.k = 8224; /* 514 blocks: 129 quads */
  a.from.sf_ld = 516;
  a.to.scales = (const void *)((uintptr_t)from_sf + ((uintptr_t)1 << 32)); /* never read: only apart */
  ck_assert_msg(call(&a) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  assert_walk(relayout_launch(264), 128, 129, 5, 264 % 5, 264 / 5, 0);
  /* and over batches: 100 x 3 tile rows x 1 group */
  a = valid_args();
  a.from.batch = a.to.batch = 100;
  a.to.scales = (const void *)((uintptr_t)from_sf + ((uintptr_t)1 << 32));
  ck_assert_msg(call(&a) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  assert_walk(relayout_launch(264), 3, 9, 1, 0, 0, 88);
}
END_TEST

/* The access modes follow every address a side's quads take: base, LINEAR sf_ld (more than one row) and the
 * batch stride (more than one batch). */
START_TEST(relayout_picks_the_widest_aligned_access) {
  static const struct {
    const char *what;
    int64_t from_offset, from_sf_ld, from_batch_stride, rows, batch;
    int64_t to_offset, to_batch_stride;
    uint32_t from_access, to_access;
  } sides[] = {
      {"aligned", 0, 40, ROWS * 40, ROWS, BATCH, 0, TILES * 512, RLY_ACCESS_WORDS, RLY_ACCESS_VEC16},
      {"bases 4 bytes off", 4, 40, ROWS * 40, ROWS, BATCH, 4, TILES * 512, RLY_ACCESS_WORDS, RLY_ACCESS_WORDS},
      {"bases 8 bytes off", 8, 40, ROWS * 40, ROWS, BATCH, 8, TILES * 512, RLY_ACCESS_WORDS, RLY_ACCESS_WORDS},
      {"bases 2 bytes off", 2, 40, ROWS * 40, ROWS, BATCH, 2, TILES * 512, RLY_ACCESS_BYTES, RLY_ACCESS_BYTES},
      {"sf_ld 38", 0, 38, ROWS * 40, ROWS, BATCH, 0, TILES * 512, RLY_ACCESS_BYTES, RLY_ACCESS_VEC16},
      {"batch strides 4 past", 0, 40, ROWS * 40 + 2, ROWS, BATCH, 0, TILES * 512 + 4, RLY_ACCESS_BYTES,
       RLY_ACCESS_WORDS},
      {"batch strides 1 past", 0, 40, ROWS * 40, ROWS, BATCH, 0, TILES * 512 + 1, RLY_ACCESS_WORDS,
       RLY_ACCESS_BYTES},
      {"one batch: its stride unused", 0, 40, 3, ROWS, 1, 0, 5, RLY_ACCESS_WORDS, RLY_ACCESS_VEC16},
      {"one row: its sf_ld unused", 0, 37, 40, 1, BATCH, 0, TILES * 512, RLY_ACCESS_WORDS, RLY_ACCESS_VEC16},
  };
  for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
    rly_args a = valid_args();
    a.from.scales = from_sf + sides[i].from_offset;
    a.from.sf_ld = sides[i].from_sf_ld;
    a.from.sf_batch_stride = sides[i].from_batch_stride;
    a.to.scales = to_sf + sides[i].to_offset;
    a.to.sf_batch_stride = sides[i].to_batch_stride;
    a.from.rows = a.to.rows = sides[i].rows;
    a.from.batch = a.to.batch = sides[i].batch;
    ck_assert_msg(call(&a) == NVFP4_STATUS_SUCCESS, "%s: %s", sides[i].what, nvfp4_last_error());
    CUlaunchConfig config;
    const unsigned char *p = fake_last_launch(&config);
    ck_assert_msg(param_u32(p, RLY_P_FROM_ACCESS) == sides[i].from_access &&
                  param_u32(p, RLY_P_TO_ACCESS) == sides[i].to_access,
                  "%s: access %u -> %u, expected %u -> %u", sides[i].what, param_u32(p, RLY_P_FROM_ACCESS),
                  param_u32(p, RLY_P_TO_ACCESS), sides[i].from_access, sides[i].to_access);
  }
}
END_TEST

/* One side of the launch as the kernel reads it. */
typedef struct rly_side {
  uint64_t sf, batch_stride, step128, step32, step1;
  uint32_t quad_step, access, rows, whole_quads; /* rows: ROWS or TO_ROWS; whole_quads: WHOLE_ or TO_WHOLE_ */
} rly_side;

static rly_side from_side(const unsigned char *p) {
  return (rly_side){param_u64(p, RLY_P_FROM_SF),      param_u64(p, RLY_P_FROM_BATCH_STRIDE),
                    param_u64(p, RLY_P_FROM_STEP128), param_u64(p, RLY_P_FROM_STEP32),
                    param_u64(p, RLY_P_FROM_STEP1),   param_u32(p, RLY_P_FROM_QUAD_STEP),
                    param_u32(p, RLY_P_FROM_ACCESS),  param_u32(p, RLY_P_ROWS),
                    param_u32(p, RLY_P_WHOLE_QUADS)};
}

static rly_side to_side(const unsigned char *p) {
  return (rly_side){param_u64(p, RLY_P_TO_SF),      param_u64(p, RLY_P_TO_BATCH_STRIDE),
                    param_u64(p, RLY_P_TO_STEP128), param_u64(p, RLY_P_TO_STEP32),
                    param_u64(p, RLY_P_TO_STEP1),   param_u32(p, RLY_P_TO_QUAD_STEP),
                    param_u32(p, RLY_P_TO_ACCESS),  param_u32(p, RLY_P_TO_ROWS),
                    param_u32(p, RLY_P_TO_WHOLE_QUADS)};
}

/* A thread's place in its item: the kernel's r0, q0 and (b, tile, group). */
typedef struct rly_thread {
  uint64_t b;
  uint32_t tile, group, rr, qq, r0, q0, quads;
} rly_thread;

/* Word (g, c)'s address on a side: ROW_ADDRESSES' a_g plus c's offset. */
static uint8_t *word_at(const rly_side *s, const rly_thread *t, int g, int c) {
  uint64_t a = s->sf + t->b * s->batch_stride + t->tile * s->step128 + (uint64_t)t->group * RLY_ITEM_QUADS * s->quad_step +
               t->rr * s->step1 + (uint64_t)t->qq * s->quad_step + (uint64_t)g * s->step32 +
               (uint64_t)RLY_QUAD_SPACING * c * s->quad_step;
  return (uint8_t *)(uintptr_t)a;
}

/* WORD_PREDICATES: word (g, c) has its first two bytes on the side (*any), all four (*whole). */
static void word_predicates(const rly_side *s, const rly_thread *t, int g, int c, int *any, int *whole) {
  int row = t->r0 + 32u * g < s->rows;
  uint32_t quad = t->q0 + RLY_QUAD_SPACING * c;
  *any = row && quad < t->quads;
  *whole = row && quad < s->whole_quads;
}

/* An access of `bytes` bytes the way the kernel makes it: aligned to its width. (The hot loops here check with
 * `if` and abort: a passing ck_assert costs a system call in a forked test.) */
static void *aligned_to(void *at, size_t bytes) {
  if ((uintptr_t)at % bytes != 0) ck_abort_msg("a %zu-byte access at %p", bytes, at);
  return at;
}

/* VEC16 moves a quad's 4 rows at once: 16 contiguous bytes, BLOCKED's step32. */
static void assert_vec16_rows(const rly_side *s) {
  if (s->step32 != 4) ck_abort_msg("a 16-byte access with step32 = %llu", (unsigned long long)s->step32);
}

static void load_item(const rly_side *s, const rly_thread *t, uint32_t w[4][4]) {
  memset(w, 0, 16 * sizeof w[0][0]);
  for (int g = 0; g < 4; g++)
    for (int c = 0; c < 4; c++) {
      int any, whole;
      word_predicates(s, t, g, c, &any, &whole);
      const uint8_t *at = word_at(s, t, g, c);
      uint16_t half = 0;
      switch (s->access) {
        case RLY_ACCESS_BYTES:
          if (any) w[g][c] = (uint32_t)at[0] | (uint32_t)at[1] << 8;
          if (whole) w[g][c] |= (uint32_t)at[2] << 16 | (uint32_t)at[3] << 24;
          break;
        case RLY_ACCESS_WORDS:
          if (whole) memcpy(&w[g][c], aligned_to((void *)at, 4), 4);
          else if (any) memcpy(&half, aligned_to((void *)at, 2), 2), w[g][c] = half;
          break;
        case RLY_ACCESS_VEC16: /* quad c's 4 rows at once (at g = 0), then the mask */
          assert_vec16_rows(s);
          if (g == 0 && t->q0 + RLY_QUAD_SPACING * c < t->quads) {
            const uint8_t *v = aligned_to((void *)at, 16);
            for (int k = 0; k < 4; k++) memcpy(&w[k][c], v + 4 * k, 4);
          }
          break;
        default:
          ck_abort_msg("access mode %u", s->access);
      }
    }
  if (s->access == RLY_ACCESS_VEC16)
    for (int g = 0; g < 4; g++)
      for (int c = 0; c < 4; c++) {
        int any, whole;
        word_predicates(s, t, g, c, &any, &whole);
        if (!whole) w[g][c] &= 0xFFFF;
        if (!any) w[g][c] = 0;
      }
}

static void store_item(const rly_side *s, const rly_thread *t, uint32_t w[4][4]) {
  for (int g = 0; g < 4; g++)
    for (int c = 0; c < 4; c++) {
      int any, whole;
      word_predicates(s, t, g, c, &any, &whole);
      uint8_t *at = word_at(s, t, g, c);
      uint16_t half = (uint16_t)w[g][c];
      switch (s->access) {
        case RLY_ACCESS_BYTES:
          for (int k = 0; k < 4; k++)
            if (k < 2 ? any : whole) at[k] = (uint8_t)(w[g][c] >> 8 * k);
          break;
        case RLY_ACCESS_WORDS:
          if (whole) memcpy(aligned_to(at, 4), &w[g][c], 4);
          else if (any) memcpy(aligned_to(at, 2), &half, 2);
          break;
        case RLY_ACCESS_VEC16: /* quad c's 4 rows at once (at g = 0), every quad of the walk */
          assert_vec16_rows(s);
          if (g == 0 && t->q0 + RLY_QUAD_SPACING * c < t->quads) {
            uint8_t *v = aligned_to(at, 16);
            for (int k = 0; k < 4; k++) memcpy(v + 4 * k, &w[k][c], 4);
          }
          break;
        default:
          ck_abort_msg("access mode %u", s->access);
      }
    }
}

/* scales_relayout.ptx in C, instruction group by instruction group, from the launch's grid and parameter
 * block: every CTA walks its items, every thread of it loads its 16 words and stores them; each access is
 * checked aligned to its width; the addresses are host memory here. */
static void run_kernel_in_c(const unsigned char *p, uint32_t ctas) {
  rly_side from = from_side(p), to = to_side(p);
  uint64_t batch = param_u64(p, RLY_P_BATCH);
  uint32_t tiles = param_u32(p, RLY_P_TILES), groups = param_u32(p, RLY_P_GROUPS);
  uint32_t step_groups = param_u32(p, RLY_P_STEP_GROUPS), step_tiles = param_u32(p, RLY_P_STEP_TILES);
  uint32_t step_batches = param_u32(p, RLY_P_STEP_BATCHES);
  for (uint32_t cta = 0; cta < ctas; cta++) {
    rly_thread t = {.b = cta / groups / tiles, .tile = cta / groups % tiles, .group = cta % groups,
                    .quads = param_u32(p, RLY_P_QUADS)};
    while (t.b < batch) {
      for (uint32_t tid = 0; tid < RLY_THREADS; tid++) {
        t.rr = tid / RLY_QUAD_SPACING;
        t.qq = tid % RLY_QUAD_SPACING;
        t.r0 = 128 * t.tile + t.rr;
        t.q0 = RLY_ITEM_QUADS * t.group + t.qq;
        uint32_t w[4][4];
        load_item(&from, &t, w);
        store_item(&to, &t, w);
      }
      t.group += step_groups;
      if (t.group >= groups) t.group -= groups, t.tile++;
      t.tile += step_tiles;
      if (t.tile >= tiles) t.tile -= tiles, t.b++;
      t.b += step_batches;
    }
  }
}

/* A relayout case: from and to layouts, rows, K, batch, laid out as the GPU checks lay them
 * (nvfp4i_relayout_target: LINEAR rows 3 and to_sf_ld_pad bytes longer than k/16, batches 16 bytes apart;
 * aligned: both strides rounded up to 16), both scales `misalign` bytes past a 16-byte boundary; and the
 * access modes the host must pick for them. */
static const struct {
  nvfp4_sf_layout from, to;
  int64_t rows, k, batch, to_sf_ld_pad;
  int aligned;
  int64_t misalign;
  uint32_t from_access, to_access;
} walks[] = {
#define B RLY_ACCESS_BYTES
#define W RLY_ACCESS_WORDS
#define V RLY_ACCESS_VEC16
    /* odd LINEAR strides: bytes there; BLOCKED on 16-byte boundaries */
    {LIN, BLK, 1, 32, 1, 0, 0, 0, W, V},    {LIN, BLK, 7, 96, 3, 0, 0, 0, B, V},
    {LIN, BLK, 129, 544, 1, 0, 0, 0, B, V}, {LIN, BLK, 300, 544, 3, 0, 0, 0, B, V},
    {BLK, LIN, 1, 96, 3, 0, 0, 0, V, B},    {BLK, LIN, 129, 32, 1, 5, 0, 0, V, B},
    {BLK, LIN, 300, 544, 3, 0, 0, 0, V, B}, {LIN, LIN, 7, 544, 3, 9, 0, 0, B, B},
    {LIN, LIN, 300, 96, 1, 1, 0, 0, B, B},  {BLK, BLK, 300, 544, 3, 0, 0, 0, V, V},
    {BLK, BLK, 7, 32, 1, 0, 0, 0, V, V},    {LIN, BLK, 1000, 2048, 1, 0, 0, 0, B, V},
    /* aligned strides: words and vectors; K/16 a multiple of 4 or not */
    {LIN, BLK, 300, 544, 3, 0, 1, 0, W, V}, {BLK, LIN, 300, 544, 3, 1, 1, 0, V, W},
    {LIN, BLK, 200, 1024, 2, 0, 1, 0, W, V}, {BLK, LIN, 200, 4160, 1, 0, 1, 0, V, W},
    {LIN, LIN, 130, 1056, 3, 5, 1, 0, W, W}, {BLK, BLK, 130, 2080, 3, 0, 1, 0, V, V},
    /* bases 4, 8, 12 bytes off: words on both sides */
    {LIN, BLK, 300, 544, 3, 0, 1, 4, W, W}, {BLK, LIN, 129, 96, 2, 0, 1, 8, W, W},
    {BLK, BLK, 300, 544, 3, 0, 1, 12, W, W},
    /* bases 1, 3, 7, 13 bytes off: bytes on both sides */
    {LIN, BLK, 129, 544, 3, 0, 1, 1, B, B}, {BLK, LIN, 300, 96, 2, 1, 0, 3, B, B},
    {LIN, LIN, 7, 1056, 1, 5, 0, 7, B, B},  {BLK, BLK, 130, 32, 3, 0, 1, 13, B, B},
    /* more items than resident CTAs: the grid's step carries into tile rows and batches */
    {LIN, BLK, 777, 8224, 9, 0, 1, 0, W, V}, {BLK, LIN, 777, 8224, 9, 1, 0, 0, V, B},
#undef B
#undef W
#undef V
};

static size_t round_up16(size_t v) { return (v + 15) / 16 * 16; }

/* The kernel's walk (in C) and the reference, on destinations poisoned alike: every byte of the buffer equal. */
START_TEST(relayout_walk_matches_the_reference) {
  const nvfp4_tensor shape = {.rows = walks[_i].rows, .k = walks[_i].k, .batch = walks[_i].batch};
  nvfp4_tensor from = nvfp4i_relayout_target(&shape, walks[_i].from, 3, walks[_i].aligned);
  nvfp4_tensor to = nvfp4i_relayout_target(&shape, walks[_i].to, walks[_i].to_sf_ld_pad, walks[_i].aligned);
  size_t misalign = (size_t)walks[_i].misalign;
  size_t from_bytes = (size_t)(from.sf_batch_stride * from.batch), to_bytes = (size_t)(to.sf_batch_stride * to.batch);
  uint8_t *src = aligned_alloc(16, round_up16(misalign + from_bytes));
  uint8_t *got = aligned_alloc(16, round_up16(misalign + to_bytes));
  uint8_t *want = malloc(to_bytes);
  ck_assert(src && got && want);
  nvfp4i_rng rng = {0x72656c61u + (uint64_t)_i};
  for (size_t i = 0; i < from_bytes; i++) src[misalign + i] = (uint8_t)nvfp4i_rng_next(&rng);
  memset(got, 0xFF, misalign + to_bytes);
  memset(want, 0xFF, to_bytes);
  from.scales = src + misalign;
  to.scales = got + misalign;
  ck_assert_msg(nvfp4_scales_relayout(fake_handle, &from, &to, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  CUlaunchConfig config;
  const unsigned char *p = fake_last_launch(&config);
  assert_access(p, walks[_i].from_access, walks[_i].to_access);
  run_kernel_in_c(p, config.gridDimX);
  to.scales = want;
  nvfp4i_scales_relayout_ref(&from, &to);
  for (size_t i = 0; i < misalign; i++)
    if (got[i] != 0xFF) ck_abort_msg("case %d: byte %zu before the scales = 0x%02x", _i, i, got[i]);
  for (size_t i = 0; i < to_bytes; i++)
    if (got[misalign + i] != want[i])
      ck_abort_msg("case %d (%lld x %lld x %lld, layout %d -> %d): byte %zu = 0x%02x, expected 0x%02x", _i,
                   (long long)from.batch, (long long)from.rows, (long long)from.k, from.sf_layout, to.sf_layout, i,
                   got[misalign + i], want[i]);
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
  tcase_add_test(launches, relayout_picks_the_widest_aligned_access);
  tcase_add_loop_test(launches, relayout_walk_matches_the_reference, 0, (int)(sizeof walks / sizeof walks[0]));
  suite_add_tcase(s, launches);
  TCase *images = tcase_create("scales_relayout from an image without its entry");
  tcase_add_test(images, an_image_without_relayout_refuses_it);
  suite_add_tcase(s, images);
  return s;
}
