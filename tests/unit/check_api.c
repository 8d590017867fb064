/* The public API without a GPU: status strings, version, clean failure with no driver, and every
 * validation path of both operations (right status, the field named, nothing launched). The validation
 * cases run on a handle of the fake driver (tests/fake/libcuda.c), which counts launches: a valid call
 * launches, a rejected one must not. */
#include <stdlib.h>
#include <string.h>

#include "fake_driver.h"
#include "handle.h"
#include "sm90a/grouped_gemm_layout.h"
#include "suites.h"
#include "validate.h"

START_TEST(status_strings_are_never_null) {
  for (int s = -1; s <= 7; s++) ck_assert_ptr_nonnull(nvfp4_status_string((nvfp4_status)s));
  ck_assert_str_eq(nvfp4_status_string(NVFP4_STATUS_SUCCESS), "success");
  ck_assert_str_eq(nvfp4_status_string((nvfp4_status)99), "unknown status");
  ck_assert_uint_eq(nvfp4_version(), NVFP4_VERSION_NUMBER);
}
END_TEST

START_TEST(no_driver_fails_cleanly) {
  setenv("NVFP4_LIBCUDA", "/nonexistent/libcuda.so.1", 1); /* this forked test's first driver load */
  nvfp4_handle *h = (nvfp4_handle *)&h;
  ck_assert_int_eq(nvfp4_create(&h), NVFP4_STATUS_NO_DRIVER);
  ck_assert_ptr_null(h);
  ck_assert_msg(strstr(nvfp4_last_error(), "/nonexistent/libcuda.so.1") != NULL, "message: %s",
                nvfp4_last_error());
  ck_assert_int_eq(nvfp4_create(&h), NVFP4_STATUS_NO_DRIVER); /* and again, from the remembered outcome */
}
END_TEST

START_TEST(create_and_destroy_take_null) {
  ck_assert_int_eq(nvfp4_create(NULL), NVFP4_STATUS_INVALID_VALUE);
  ck_assert_int_eq(nvfp4_destroy(NULL), NVFP4_STATUS_SUCCESS);
}
END_TEST

/* A valid GEMV call over fake device pointers (the fake driver reads nothing). */
enum { M = 100, K = 256, L = 2, Y_ELEMS = M * L };
static _Alignas(16) uint8_t fake_a[16], fake_x[16], fake_sf[16];
static uint16_t y_buffer[Y_ELEMS];

typedef struct gemv_args {
  nvfp4_handle *h;
  nvfp4_tensor a, x;
  nvfp4_output y;
  int null_a, null_x, null_y;
} gemv_args;

static gemv_args valid_gemv(void) {
  gemv_args g = {fake_handle,
                 {fake_a, fake_sf, M, K, L, K / 2, M * K / 2, K / 16, M * K / 16, NVFP4_SF_LINEAR},
                 {fake_x, fake_sf, 1, K, L, K / 2, K / 2, K / 16, K / 16, NVFP4_SF_BLOCKED_128x4},
                 {y_buffer, 1, M, NVFP4_DTYPE_F16},
                 0, 0, 0};
  return g;
}

typedef struct gemv_case {
  const char *what;
  void (*edit)(gemv_args *);
  nvfp4_status expected;
  const char *message; /* must appear in nvfp4_last_error() */
} gemv_case;

#define EDIT(name, body) \
  static void name(gemv_args *g) { body; }
EDIT(no_handle, g->h = NULL)
EDIT(no_a, g->null_a = 1)
EDIT(no_x, g->null_x = 1)
EDIT(no_y, g->null_y = 1)
EDIT(a_data_null, g->a.data = NULL)
EDIT(a_scales_null, g->a.scales = NULL)
EDIT(a_rows_zero, g->a.rows = 0)
EDIT(a_rows_negative, g->a.rows = -3)
EDIT(a_k_zero, g->a.k = 0)
EDIT(a_k_not_32, g->a.k = g->x.k = 48)
EDIT(a_batch_zero, g->a.batch = 0)
EDIT(a_ld_small, g->a.ld = K / 2 - 16)
EDIT(a_batch_stride_negative, g->a.batch_stride = -16)
EDIT(a_sf_ld_small, g->a.sf_ld = K / 16 - 1)
EDIT(a_sf_batch_stride_negative, g->a.sf_batch_stride = -1)
EDIT(a_layout_bad, g->a.sf_layout = (nvfp4_sf_layout)7)
EDIT(x_rows_two, g->x.rows = 2)
EDIT(x_k_differs, g->x.k = K + 32; g->x.ld = (K + 32) / 2)
EDIT(x_batch_differs, g->x.batch = L + 1)
EDIT(x_scales_null, g->x.scales = NULL)
EDIT(y_data_null, g->y.data = NULL)
EDIT(y_dtype_bad, g->y.dtype = (nvfp4_dtype)9)
EDIT(y_misaligned, g->y.data = (uint8_t *)y_buffer + 1)
EDIT(y_ld_zero, g->y.ld = 0)
EDIT(y_batches_overlap, g->y.batch_stride = M - 1)
EDIT(a_misaligned, g->a.data = fake_a + 8)
EDIT(a_ld_not_16, g->a.ld = K / 2 + 8)
EDIT(batch_too_large, g->a.batch = g->x.batch = 70000; g->y.batch_stride = M)
EDIT(k_beyond_shared_memory, g->a.k = g->x.k = 200000; g->a.ld = g->x.ld = 100000; g->a.sf_ld = 12500)

static const gemv_case gemv_cases[] = {
    {"NULL handle", no_handle, NVFP4_STATUS_INVALID_VALUE, "h is NULL"},
    {"NULL a", no_a, NVFP4_STATUS_INVALID_VALUE, "a is NULL"},
    {"NULL x", no_x, NVFP4_STATUS_INVALID_VALUE, "x is NULL"},
    {"NULL y", no_y, NVFP4_STATUS_INVALID_VALUE, "y is NULL"},
    {"a.data NULL", a_data_null, NVFP4_STATUS_INVALID_VALUE, "a.data"},
    {"a.scales NULL", a_scales_null, NVFP4_STATUS_INVALID_VALUE, "a.scales"},
    {"a.rows 0", a_rows_zero, NVFP4_STATUS_INVALID_VALUE, "a.rows"},
    {"a.rows < 0", a_rows_negative, NVFP4_STATUS_INVALID_VALUE, "a.rows"},
    {"a.k 0", a_k_zero, NVFP4_STATUS_INVALID_VALUE, "a.k"},
    {"a.k not a multiple of 32", a_k_not_32, NVFP4_STATUS_NOT_SUPPORTED, "a.k = 48"},
    {"a.batch 0", a_batch_zero, NVFP4_STATUS_INVALID_VALUE, "a.batch"},
    {"a.ld < k/2", a_ld_small, NVFP4_STATUS_INVALID_VALUE, "a.ld"},
    {"a.batch_stride < 0", a_batch_stride_negative, NVFP4_STATUS_INVALID_VALUE, "a.batch_stride"},
    {"a.sf_ld < k/16", a_sf_ld_small, NVFP4_STATUS_INVALID_VALUE, "a.sf_ld"},
    {"a.sf_batch_stride < 0", a_sf_batch_stride_negative, NVFP4_STATUS_INVALID_VALUE, "a.sf_batch_stride"},
    {"a.sf_layout unknown", a_layout_bad, NVFP4_STATUS_INVALID_VALUE, "a.sf_layout"},
    {"x.rows 2", x_rows_two, NVFP4_STATUS_INVALID_VALUE, "x.rows"},
    {"x.k != a.k", x_k_differs, NVFP4_STATUS_INVALID_VALUE, "x.k"},
    {"x.batch != a.batch", x_batch_differs, NVFP4_STATUS_INVALID_VALUE, "x.batch"},
    {"x.scales NULL", x_scales_null, NVFP4_STATUS_INVALID_VALUE, "x.scales"},
    {"y.data NULL", y_data_null, NVFP4_STATUS_INVALID_VALUE, "y.data"},
    {"y.dtype unknown", y_dtype_bad, NVFP4_STATUS_INVALID_VALUE, "y.dtype"},
    {"y.data misaligned", y_misaligned, NVFP4_STATUS_INVALID_VALUE, "y.data"},
    {"y.ld 0", y_ld_zero, NVFP4_STATUS_INVALID_VALUE, "y.ld"},
    {"y batches overlap", y_batches_overlap, NVFP4_STATUS_INVALID_VALUE, "y.batch_stride"},
    {"a.data not 16-byte aligned", a_misaligned, NVFP4_STATUS_NOT_SUPPORTED, "a: data"},
    {"a.ld not a multiple of 16", a_ld_not_16, NVFP4_STATUS_NOT_SUPPORTED, "a: data"},
    {"more batches than a grid holds", batch_too_large, NVFP4_STATUS_NOT_SUPPORTED, "a.batch"},
    {"x longer than shared memory holds", k_beyond_shared_memory, NVFP4_STATUS_NOT_SUPPORTED, "a.k = 200000"},
};

static nvfp4_status call_gemv(const gemv_args *g) {
  return nvfp4_gemv(g->h, g->null_a ? NULL : &g->a, g->null_x ? NULL : &g->x, g->null_y ? NULL : &g->y, 1.0f, NULL);
}

START_TEST(gemv_launches_once_for_valid_arguments) {
  gemv_args g = valid_gemv();
  ck_assert_msg(call_gemv(&g) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
}
END_TEST

START_TEST(gemv_rejects_bad_arguments) {
  const gemv_case *c = &gemv_cases[_i];
  gemv_args g = valid_gemv();
  c->edit(&g);
  nvfp4_status s = call_gemv(&g);
  assert_rejected(c->what, s, c->expected, c->message);
}
END_TEST

/* Programmatic dependent launch (issue 13). Every GEMV launch, of either entry and either family, sets it; the
 * kernel's mode parameter (GEMV_P_WEIGHTS_STABLE) says whether it may load A before its wait: 0 unless the
 * handle's weights-stable option is on. */
enum { SPLIT_K = 6368 }; /* 199 chunks: no group width divides them, the equal-steps entry runs */

static const unsigned char *assert_gemv_launch(const char *entry_prefix, uint32_t weights_stable, const char *what) {
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(fake_launches() - 1, &entry, &config);
  ck_assert_msg(strncmp(entry, entry_prefix, strlen(entry_prefix)) == 0, "%s: entry %s", what, entry);
  assert_launched_early(&config, 1, what);
  ck_assert_msg(param_u32(p, GEMV_P_WEIGHTS_STABLE) == weights_stable, "%s: weights_stable %u, expected %u", what,
                param_u32(p, GEMV_P_WEIGHTS_STABLE), weights_stable);
  return p;
}

/* One call of each: nvfp4_gemv on its plain and its equal-steps entry, nvfp4_gemv_w4a16 on its entry. */
static void assert_gemvs_launch(uint32_t weights_stable) {
  gemv_args g = valid_gemv();
  ck_assert_msg(call_gemv(&g) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  assert_gemv_launch(NVFP4I_STRINGIFY(GEMV_ENTRY_PLAIN), weights_stable, "nvfp4_gemv");
  g.a.k = g.x.k = SPLIT_K;
  g.a.ld = g.a.batch_stride = g.x.ld = g.x.batch_stride = SPLIT_K / 2;
  g.a.sf_ld = g.a.sf_batch_stride = g.x.sf_ld = g.x.sf_batch_stride = SPLIT_K / 16;
  g.a.rows = 1;
  ck_assert_msg(call_gemv(&g) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  assert_gemv_launch(NVFP4I_STRINGIFY(GEMV_ENTRY_EQUAL_STEPS), weights_stable, "nvfp4_gemv, 199 chunks");
  g = valid_gemv();
  nvfp4_dense x = {fake_x, 1, K, L, K, K, NVFP4_DTYPE_BF16};
  ck_assert_msg(nvfp4_gemv_w4a16(fake_handle, &g.a, &x, &g.y, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  assert_gemv_launch(NVFP4I_STRINGIFY(GEMV_W4A16_ENTRY), weights_stable, "nvfp4_gemv_w4a16");
}

START_TEST(gemv_launches_early_and_waits_for_its_weights_by_default) {
  assert_gemvs_launch(0);
  ck_assert_int_eq(fake_launches(), 3);
}
END_TEST

START_TEST(weights_stable_lets_every_gemv_load_its_weights_before_the_wait_until_turned_off) {
  ck_assert_int_eq(nvfp4_set_weights_stable(fake_handle, 1), NVFP4_STATUS_SUCCESS);
  assert_gemvs_launch(1);
  ck_assert_int_eq(nvfp4_set_weights_stable(fake_handle, 1), NVFP4_STATUS_SUCCESS); /* idempotent */
  assert_gemvs_launch(1);
  ck_assert_int_eq(nvfp4_set_weights_stable(fake_handle, 0), NVFP4_STATUS_SUCCESS);
  assert_gemvs_launch(0);
  ck_assert_int_eq(fake_launches(), 9);
}
END_TEST

/* Refused with the argument named, nothing launched, the option as it was. */
START_TEST(set_weights_stable_validates_its_arguments) {
  assert_rejected("NULL handle", nvfp4_set_weights_stable(NULL, 1), NVFP4_STATUS_INVALID_VALUE, "h is NULL");
  ck_assert_int_eq(nvfp4_set_weights_stable(fake_handle, 1), NVFP4_STATUS_SUCCESS);
  ck_assert_str_eq(nvfp4_last_error(), "");
  assert_rejected("enable 2", nvfp4_set_weights_stable(fake_handle, 2), NVFP4_STATUS_INVALID_VALUE,
                  "enable = 2: must be 0 or 1");
  assert_rejected("enable -1", nvfp4_set_weights_stable(fake_handle, -1), NVFP4_STATUS_INVALID_VALUE,
                  "enable = -1: must be 0 or 1");
  gemv_args g = valid_gemv();
  ck_assert_msg(call_gemv(&g) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  assert_gemv_launch(NVFP4I_STRINGIFY(GEMV_ENTRY_PLAIN), 1, "nvfp4_gemv after rejected sets");
}
END_TEST

/* Every bad GEMV call is still refused, with nothing launched, when the option is on. */
START_TEST(gemv_rejects_bad_arguments_with_weights_stable_on) {
  const gemv_case *c = &gemv_cases[_i];
  ck_assert_int_eq(nvfp4_set_weights_stable(fake_handle, 1), NVFP4_STATUS_SUCCESS);
  gemv_args g = valid_gemv();
  c->edit(&g);
  assert_rejected(c->what, call_gemv(&g), c->expected, c->message);
}
END_TEST

/* Grouped GEMM: three groups, the middle one broken in one field at a time. */
enum { G = 3 };
typedef struct grouped_args {
  nvfp4_tensor a[G], b[G];
  nvfp4_output c[G];
  int num_groups;
} grouped_args;

static grouped_args valid_grouped(void) {
  grouped_args g;
  g.num_groups = G;
  for (int i = 0; i < G; i++) {
    g.a[i] = (nvfp4_tensor){fake_a, fake_sf, 64, K, 1, K / 2, 0, K / 16, 0, NVFP4_SF_LINEAR};
    g.b[i] = (nvfp4_tensor){fake_x, fake_sf, 128, K, 1, K / 2, 0, 0, 0, NVFP4_SF_BLOCKED_128x4};
    g.c[i] = (nvfp4_output){y_buffer, 128, 0, NVFP4_DTYPE_BF16};
  }
  return g;
}

typedef struct grouped_case {
  const char *what;
  void (*edit)(grouped_args *);
  nvfp4_status expected;
  const char *message;
} grouped_case;

#define GEDIT(name, body) \
  static void name(grouped_args *g) { body; }
GEDIT(groups_negative, g->num_groups = -1)
GEDIT(a1_rows_negative, g->a[1].rows = -1)
GEDIT(b1_k_differs, g->b[1].k = K + 32; g->b[1].ld = (K + 32) / 2)
GEDIT(a1_k_not_32, g->a[1].k = g->b[1].k = 100)
GEDIT(b1_data_null, g->b[1].data = NULL)
GEDIT(a1_batch_two, g->a[1].batch = 2)
GEDIT(c1_ld_small, g->c[1].ld = 100)
GEDIT(c1_dtype_bad, g->c[1].dtype = (nvfp4_dtype)5)
GEDIT(b1_layout_bad, g->b[1].sf_layout = (nvfp4_sf_layout)3)
GEDIT(b1_misaligned, g->b[1].data = fake_x + 8)

static const grouped_case grouped_cases[] = {
    {"num_groups < 0", groups_negative, NVFP4_STATUS_INVALID_VALUE, "num_groups"},
    {"a[1].rows < 0", a1_rows_negative, NVFP4_STATUS_INVALID_VALUE, "a[1].rows"},
    {"b[1].k != a[1].k", b1_k_differs, NVFP4_STATUS_INVALID_VALUE, "b[1].k"},
    {"k not a multiple of 32", a1_k_not_32, NVFP4_STATUS_NOT_SUPPORTED, "a[1].k = 100"},
    {"b[1].data NULL", b1_data_null, NVFP4_STATUS_INVALID_VALUE, "b[1].data"},
    {"a[1].batch 2", a1_batch_two, NVFP4_STATUS_INVALID_VALUE, "a[1].batch"},
    {"c[1].ld < cols", c1_ld_small, NVFP4_STATUS_INVALID_VALUE, "c[1].ld"},
    {"c[1].dtype unknown", c1_dtype_bad, NVFP4_STATUS_INVALID_VALUE, "c[1].dtype"},
    {"b[1].sf_layout unknown", b1_layout_bad, NVFP4_STATUS_INVALID_VALUE, "b[1].sf_layout"},
    {"b[1].data not 16-byte aligned (TMA)", b1_misaligned, NVFP4_STATUS_NOT_SUPPORTED, "b[1]: data"},
};

START_TEST(grouped_gemm_launches_for_valid_arguments) {
  grouped_args g = valid_grouped();
  ck_assert_msg(nvfp4_grouped_gemm(fake_handle, g.num_groups, g.a, g.b, g.c, 1.0f, NULL) == NVFP4_STATUS_SUCCESS,
                "%s", nvfp4_last_error());
  ck_assert_int_gt(fake_launches(), 0);
}
END_TEST

START_TEST(grouped_gemm_rejects_bad_arguments) {
  const grouped_case *c = &grouped_cases[_i];
  grouped_args g = valid_grouped();
  c->edit(&g);
  nvfp4_status s = nvfp4_grouped_gemm(fake_handle, g.num_groups, g.a, g.b, g.c, 1.0f, NULL);
  assert_rejected(c->what, s, c->expected, c->message);
}
END_TEST

START_TEST(grouped_gemm_takes_empty_groups_and_null_arrays_for_zero_groups) {
  grouped_args g = valid_grouped();
  g.a[0].rows = 0;
  g.b[1].rows = 0;
  g.c[1].data = NULL; /* an empty group writes nothing, so needs no output */
  g.a[2].rows = 0;
  g.a[2].data = NULL; /* nor an operand */
  nvfp4_status s = nvfp4_grouped_gemm(fake_handle, G, g.a, g.b, g.c, 1.0f, NULL);
  ck_assert_msg(s == NVFP4_STATUS_SUCCESS, "all-empty groups: %s", nvfp4_last_error());
  ck_assert_msg(fake_launches() == 0, "empty groups launched %ld kernels", fake_launches());
  ck_assert_int_eq(nvfp4_grouped_gemm(fake_handle, 0, NULL, NULL, NULL, 1.0f, NULL), NVFP4_STATUS_SUCCESS);
}
END_TEST

/* The grouped GEMM's host side as its kernel reads it: the fake driver keeps the last launches' shape and
 * parameter block, read here through grouped_gemm_layout.h's offsets. */

/* n groups of m[i % count] x rows_b[i % count], K = 256, over the fake pointers. */
static nvfp4_status call_grouped(int n, const int64_t *m, const int64_t *rows_b, int count, nvfp4_tensor *a,
                                 nvfp4_tensor *b, nvfp4_output *c) {
  for (int i = 0; i < n; i++) {
    a[i] = (nvfp4_tensor){fake_a, fake_sf, m[i % count], K, 1, K / 2, 0, K / 16, 0, NVFP4_SF_LINEAR};
    b[i] = (nvfp4_tensor){fake_x, fake_sf, rows_b[i % count], K, 1, K / 2, 0, 0, 0, NVFP4_SF_BLOCKED_128x4};
    c[i] = (nvfp4_output){y_buffer, rows_b[i % count], 0, NVFP4_DTYPE_F32};
  }
  return nvfp4_grouped_gemm(fake_handle, n, a, b, c, 1.0f, NULL);
}

START_TEST(grouped_gemm_puts_the_largest_token_tiles_first_and_fits_its_rings) {
  /* Tiles at the widest cap (256 rows): 32 + 2 + 8 = 42, fewer than the fake's 132 SMs, so the cap is 128:
   * t = 128 for M = 248 (two tiles of 124 rows), 96 for M = 80, 32 for M = 3; the empty group is left out. */
  const int64_t m[] = {80, 248, 0, 3}, n[] = {4096, 256, 128, 1000};
  nvfp4_tensor a[4], b[4];
  nvfp4_output c[4];
  ck_assert_msg(call_grouped(4, m, n, 4, a, b, c) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
  CUlaunchConfig config;
  const unsigned char *p = fake_last_launch(&config);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 3);
  const uint32_t t[] = {128, 96, 32}, rows_a[] = {248, 80, 3}, rows_b[] = {256, 4096, 1000};
  const uint32_t start[] = {0, 2 * 2, 2 * 2 + 32 * 1}; /* n-blocks x token tiles of the groups before */
  for (int g = 0; g < 3; g++) {
    ck_assert_uint_eq(desc_u32(p, g, GG_D_T), t[g]);
    ck_assert_uint_eq(desc_u32(p, g, GG_D_M), rows_a[g]);
    ck_assert_uint_eq(desc_u32(p, g, GG_D_N), rows_b[g]);
    ck_assert_uint_eq(desc_u32(p, g, GG_D_TILE_START), start[g]);
    ck_assert_uint_eq(desc_u32(p, g, GG_D_KBYTES), K / 2);
    ck_assert_uint_eq(desc_u32(p, g, GG_D_FLAGS) & GG_F_DTYPE_MASK, NVFP4_DTYPE_F32);
  }
  ck_assert_uint_eq(param_u32(p, GG_P_TOTAL_TILES), start[2] + 8);
  ck_assert_uint_eq(config.gridDimX, start[2] + 8); /* fewer tiles than SMs: a CTA each */
  ck_assert_uint_eq(config.blockDimX, GG_THREADS);
  /* the rings: sized for the launch's widest tile, within shared memory, and as deep as it allows */
  uint32_t ring = param_u32(p, GG_P_RING), load = ring & 0xFF, dec = ring >> 8 & 0xFF, t_max = ring >> 16;
  ck_assert_uint_eq(t_max, 128);
  ck_assert(dec == 2 || dec == 3);
  ck_assert(load >= 2 && load <= GG_MAX_LOAD_STAGES);
  ck_assert_uint_eq(config.sharedMemBytes, GG_SMEM_BYTES(load, dec, t_max));
  ck_assert_uint_le(config.sharedMemBytes, GG_SMEM_LIMIT);
  ck_assert(load == GG_MAX_LOAD_STAGES || GG_SMEM_BYTES(load + 1, dec, t_max) > GG_SMEM_LIMIT);
}
END_TEST

START_TEST(grouped_gemm_takes_256_groups_a_launch_and_launches_again_for_more) {
  enum { MANY = 300 };
  nvfp4_tensor *a = calloc(MANY, sizeof *a), *b = calloc(MANY, sizeof *b);
  nvfp4_output *c = calloc(MANY, sizeof *c);
  ck_assert(a && b && c);
  /* every tenth group empty: 270 with work, so 256 in the first launch and 14 in the second */
  const int64_t m[] = {5, 0, 17, 64, 1, 100, 9, 33, 2, 48};
  const int64_t n[] = {128, 128, 128, 128, 128, 128, 128, 128, 128, 128};
  ck_assert_msg(call_grouped(MANY, m, n, 10, a, b, c) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2);
  CUlaunchConfig config;
  const unsigned char *p = fake_last_launch(&config);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 270 - GG_MAX_GROUPS);
  /* 256 groups with work and any number of empty ones (285 groups, 29 empty): one launch */
  ck_assert_msg(call_grouped(285, m, n, 10, a, b, c) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 3);
  ck_assert_uint_eq(param_u32(fake_last_launch(&config), GG_P_NUM_GROUPS), GG_MAX_GROUPS);
  free(a);
  free(b);
  free(c);
}
END_TEST

/* An image of one kernel family (an NVFP4_FATBIN of gemv.ptx) loads, and serves the operation it holds. */
START_TEST(an_image_without_grouped_gemm_serves_gemv) {
  setenv("FAKE_CUDA_MISSING", "nvfp4_grouped_gemm_sm90a", 1);
  create_fake_handle();
  gemv_args gemv = valid_gemv();
  ck_assert_msg(call_gemv(&gemv) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  grouped_args g = valid_grouped();
  ck_assert_int_eq(nvfp4_grouped_gemm(fake_handle, g.num_groups, g.a, g.b, g.c, 1.0f, NULL),
                   NVFP4_STATUS_NOT_SUPPORTED);
  ck_assert_msg(strstr(nvfp4_last_error(), "has no entry nvfp4_grouped_gemm_sm90a") != NULL, "message: %s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
  destroy_fake_handle();
}
END_TEST

START_TEST(an_image_without_any_kernel_of_the_library_is_refused) {
  char missing[8192] = "";
  for (int id = 0; id < NVFP4I_KERNEL_COUNT; id++) {
    const char *name = nvfp4i_kernel_name(NVFP4I_PATH_SM90A, (nvfp4i_kernel_id)id);
    if (name == NULL) continue; /* a portable-only kernel */
    if (missing[0] != '\0') strcat(missing, ",");
    strcat(missing, name);
  }
  setenv("FAKE_CUDA_MISSING", missing, 1);
  setenv("NVFP4_LIBCUDA", test_build_file(UNIT_FAKE_LIBCUDA), 1);
  nvfp4_handle *h;
  ck_assert_int_eq(nvfp4_create(&h), NVFP4_STATUS_NOT_SUPPORTED);
  ck_assert_ptr_null(h);
  ck_assert_msg(strstr(nvfp4_last_error(), "holds none of the library's kernels") != NULL, "message: %s",
                nvfp4_last_error());
}
END_TEST

START_TEST(vector_alignment_asks_ld_only_between_rows_and_batch_stride_only_between_batches) {
  nvfp4_tensor t = {fake_a, fake_sf, 1, K, 1, K / 2 + 8, K / 2 + 8, K / 16, K / 16, NVFP4_SF_LINEAR};
  ck_assert_int_eq(nvfp4i_validate_vector_alignment("t", &t), NVFP4_STATUS_SUCCESS); /* one row, one batch */
  t.rows = 2;
  ck_assert_int_eq(nvfp4i_validate_vector_alignment("t", &t), NVFP4_STATUS_NOT_SUPPORTED);
  ck_assert_msg(strstr(nvfp4_last_error(), "t: data") != NULL, "message: %s", nvfp4_last_error());
  t.rows = 1;
  t.batch = 2;
  ck_assert_int_eq(nvfp4i_validate_vector_alignment("t", &t), NVFP4_STATUS_NOT_SUPPORTED);
  t.batch_stride = K / 2 + 16;
  ck_assert_int_eq(nvfp4i_validate_vector_alignment("t", &t), NVFP4_STATUS_SUCCESS);
  t.data = fake_a + 8;
  ck_assert_int_eq(nvfp4i_validate_vector_alignment("t", &t), NVFP4_STATUS_NOT_SUPPORTED);
}
END_TEST

/* What the grouped W4A16 call cannot reach (its groups have batch 1): NULL, batches, and their stride. */
START_TEST(dense_operands_need_batches_apart_and_16_byte_batch_strides) {
  ck_assert_int_eq(nvfp4i_validate_dense("x", NULL, 1), NVFP4_STATUS_INVALID_VALUE);
  ck_assert_msg(strstr(nvfp4_last_error(), "x is NULL") != NULL, "message: %s", nvfp4_last_error());
  nvfp4_dense d = {fake_a, 3, K, 2, K + 8, 3 * (K + 8), NVFP4_DTYPE_BF16};
  ck_assert_int_eq(nvfp4i_validate_dense("x", &d, 1), NVFP4_STATUS_SUCCESS);
  ck_assert_int_eq(nvfp4i_validate_dense_alignment("x", &d), NVFP4_STATUS_SUCCESS);
  d.batch_stride = 2 * (K + 8) + K - 1; /* the last row of batch 0 runs into batch 1 */
  ck_assert_int_eq(nvfp4i_validate_dense("x", &d, 1), NVFP4_STATUS_INVALID_VALUE);
  ck_assert_msg(strstr(nvfp4_last_error(), "x.batch_stride = ") != NULL, "message: %s", nvfp4_last_error());
  d.batch_stride = 2 * (K + 8) + K + 4; /* apart, but not a multiple of 16 bytes */
  ck_assert_int_eq(nvfp4i_validate_dense("x", &d, 1), NVFP4_STATUS_SUCCESS);
  ck_assert_int_eq(nvfp4i_validate_dense_alignment("x", &d), NVFP4_STATUS_NOT_SUPPORTED);
  ck_assert_msg(strstr(nvfp4_last_error(), "x.batch_stride = ") != NULL, "message: %s", nvfp4_last_error());
  d.batch = 1; /* one batch: its stride is never used */
  ck_assert_int_eq(nvfp4i_validate_dense_alignment("x", &d), NVFP4_STATUS_SUCCESS);
}
END_TEST

Suite *api_suite(void) {
  Suite *s = suite_create("api");
  TCase *basics = tcase_create("status, version, no driver");
  tcase_add_test(basics, status_strings_are_never_null);
  tcase_add_test(basics, no_driver_fails_cleanly);
  tcase_add_test(basics, create_and_destroy_take_null);
  tcase_add_test(basics, vector_alignment_asks_ld_only_between_rows_and_batch_stride_only_between_batches);
  tcase_add_test(basics, dense_operands_need_batches_apart_and_16_byte_batch_strides);
  suite_add_tcase(s, basics);
  TCase *gemv = tcase_create("gemv validation");
  tcase_add_checked_fixture(gemv, create_fake_handle, destroy_fake_handle);
  tcase_add_test(gemv, gemv_launches_once_for_valid_arguments);
  tcase_add_loop_test(gemv, gemv_rejects_bad_arguments, 0, (int)(sizeof gemv_cases / sizeof gemv_cases[0]));
  suite_add_tcase(s, gemv);
  TCase *early = tcase_create("gemv programmatic dependent launch and the weights-stable option");
  tcase_add_checked_fixture(early, create_fake_handle, destroy_fake_handle);
  tcase_add_test(early, gemv_launches_early_and_waits_for_its_weights_by_default);
  tcase_add_test(early, weights_stable_lets_every_gemv_load_its_weights_before_the_wait_until_turned_off);
  tcase_add_test(early, set_weights_stable_validates_its_arguments);
  tcase_add_loop_test(early, gemv_rejects_bad_arguments_with_weights_stable_on, 0,
                      (int)(sizeof gemv_cases / sizeof gemv_cases[0]));
  suite_add_tcase(s, early);
  TCase *grouped = tcase_create("grouped gemm validation");
  tcase_add_checked_fixture(grouped, create_fake_handle, destroy_fake_handle);
  tcase_add_test(grouped, grouped_gemm_launches_for_valid_arguments);
  tcase_add_loop_test(grouped, grouped_gemm_rejects_bad_arguments, 0,
                      (int)(sizeof grouped_cases / sizeof grouped_cases[0]));
  tcase_add_test(grouped, grouped_gemm_takes_empty_groups_and_null_arrays_for_zero_groups);
  tcase_add_test(grouped, grouped_gemm_puts_the_largest_token_tiles_first_and_fits_its_rings);
  tcase_add_test(grouped, grouped_gemm_takes_256_groups_a_launch_and_launches_again_for_more);
  suite_add_tcase(s, grouped);
  TCase *images = tcase_create("kernel images of one family");
  tcase_add_test(images, an_image_without_grouped_gemm_serves_gemv);
  tcase_add_test(images, an_image_without_any_kernel_of_the_library_is_refused);
  suite_add_tcase(s, images);
  return s;
}
