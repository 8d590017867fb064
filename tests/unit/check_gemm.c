/* nvfp4_gemm without a GPU, on the fake driver (tests/fake/libcuda.c): every validation path (right status, the
 * field named, nothing launched), and its launches: batch l run as group l of nvfp4_grouped_gemm, so each
 * launch's entry, shape and parameter block are those of a grouped call built by hand from the per-batch
 * pointers, 64 batches to a grouped call. */
#include <stdlib.h>
#include <string.h>

#include "fake_driver.h"
#include "sm90a/grouped_gemm_layout.h"
#include "suites.h"

enum { M = 100, N = 300, K = 256, L = 2 };

/* Fake device addresses: the fake driver reads none of them, the library only computes with them. */
#define DEVICE(address) ((void *)(uintptr_t)(address))
static const uintptr_t A_DATA = 0x10000000, A_SF = 0x20000003, B_DATA = 0x30000000, B_SF = 0x40000000,
                       C_DATA = 0x50000000;

typedef struct gemm_args {
  nvfp4_handle *h;
  nvfp4_tensor a, b;
  nvfp4_output c;
  int null_a, null_b, null_c;
} gemm_args;

/* Two batches: a LINEAR with padded rows, b BLOCKED, c strided between rows and batches. */
static gemm_args valid_args(void) {
  gemm_args g = {
      .h = fake_handle,
      .a = {DEVICE(A_DATA), DEVICE(A_SF), M, K, L, K / 2 + 16, M * (K / 2 + 16), K / 16 + 3, M * (K / 16 + 3),
            NVFP4_SF_LINEAR},
      .b = {DEVICE(B_DATA), DEVICE(B_SF), N, K, L, K / 2, N * K / 2, 0, 3 * K / 64 * 512, NVFP4_SF_BLOCKED_128x4},
      .c = {DEVICE(C_DATA), N + 4, M * (N + 4) + 8, NVFP4_DTYPE_BF16},
  };
  return g;
}

static nvfp4_status call(const gemm_args *g) {
  return nvfp4_gemm(g->h, g->null_a ? NULL : &g->a, g->null_b ? NULL : &g->b, g->null_c ? NULL : &g->c, 1.0f,
                    NULL);
}

typedef struct gemm_case {
  const char *what;
  void (*edit)(gemm_args *);
  nvfp4_status expected;
  const char *message; /* must appear in nvfp4_last_error() */
} gemm_case;

#define EDIT(name, body) \
  static void name(gemm_args *g) { body; }
EDIT(no_handle, g->h = NULL)
EDIT(no_a, g->null_a = 1)
EDIT(no_b, g->null_b = 1)
EDIT(no_c, g->null_c = 1)
EDIT(a_rows_zero, g->a.rows = 0)
EDIT(a_rows_huge, g->a.rows = (int64_t)1 << 31)
EDIT(a_k_zero, g->a.k = 0)
EDIT(a_k_not_32, g->a.k = g->b.k = 48)
EDIT(a_batch_zero, g->a.batch = 0)
EDIT(a_data_null, g->a.data = NULL)
EDIT(a_scales_null, g->a.scales = NULL)
EDIT(a_ld_small, g->a.ld = K / 2 - 16)
EDIT(a_batch_stride_negative, g->a.batch_stride = -16)
EDIT(a_sf_ld_small, g->a.sf_ld = K / 16 - 1)
EDIT(a_sf_batch_stride_negative, g->a.sf_batch_stride = -1)
EDIT(a_layout_bad, g->a.sf_layout = (nvfp4_sf_layout)7)
EDIT(b_rows_zero, g->b.rows = 0)
EDIT(b_data_null, g->b.data = NULL)
EDIT(b_scales_null, g->b.scales = NULL)
EDIT(b_batch_zero, g->b.batch = 0)
EDIT(b_batch_differs, g->a.batch = 2; g->b.batch = 3)
EDIT(b_k_differs, g->b.k = K + 32; g->b.ld = (K + 32) / 2)
EDIT(c_data_null, g->c.data = NULL)
EDIT(c_dtype_bad, g->c.dtype = (nvfp4_dtype)9)
EDIT(c_misaligned, g->c.data = DEVICE(C_DATA + 1))
EDIT(c_ld_small, g->c.ld = N - 1)
EDIT(c_batches_overlap, g->c.batch_stride = (M - 1) * (N + 4) + N - 1)
EDIT(a_misaligned, g->a.data = DEVICE(A_DATA + 8))
EDIT(a_ld_not_16, g->a.ld = K / 2 + 8)
EDIT(a_batch_stride_not_16, g->a.batch_stride = M * (K / 2 + 16) + 8)
EDIT(b_ld_past_32_bits, g->b.ld = (int64_t)1 << 32)
EDIT(b_sf_ld_past_32_bits, g->b.sf_layout = NVFP4_SF_LINEAR; g->b.sf_ld = (int64_t)1 << 27)
EDIT(b_k_not_32, g->b.k = 48)

static const gemm_case cases[] = {
    {"NULL handle", no_handle, NVFP4_STATUS_INVALID_VALUE, "h is NULL"},
    {"NULL a", no_a, NVFP4_STATUS_INVALID_VALUE, "a is NULL"},
    {"NULL b", no_b, NVFP4_STATUS_INVALID_VALUE, "b is NULL"},
    {"NULL c", no_c, NVFP4_STATUS_INVALID_VALUE, "c is NULL"},
    {"a.rows 0 (M >= 1)", a_rows_zero, NVFP4_STATUS_INVALID_VALUE, "a.rows = 0: must be in [1, 2^31)"},
    {"a.rows 2^31", a_rows_huge, NVFP4_STATUS_INVALID_VALUE, "a.rows = 2147483648"},
    {"a.k 0", a_k_zero, NVFP4_STATUS_INVALID_VALUE, "a.k = 0"},
    {"a.k not a multiple of 32", a_k_not_32, NVFP4_STATUS_NOT_SUPPORTED, "a.k = 48"},
    {"a.batch 0", a_batch_zero, NVFP4_STATUS_INVALID_VALUE, "a.batch = 0"},
    {"a.data NULL", a_data_null, NVFP4_STATUS_INVALID_VALUE, "a.data is NULL"},
    {"a.scales NULL", a_scales_null, NVFP4_STATUS_INVALID_VALUE, "a.scales is NULL"},
    {"a.ld < k/2", a_ld_small, NVFP4_STATUS_INVALID_VALUE, "a.ld = 112"},
    {"a.batch_stride < 0", a_batch_stride_negative, NVFP4_STATUS_INVALID_VALUE, "a.batch_stride = -16"},
    {"a.sf_ld < k/16", a_sf_ld_small, NVFP4_STATUS_INVALID_VALUE, "a.sf_ld = 15"},
    {"a.sf_batch_stride < 0", a_sf_batch_stride_negative, NVFP4_STATUS_INVALID_VALUE, "a.sf_batch_stride = -1"},
    {"a.sf_layout unknown", a_layout_bad, NVFP4_STATUS_INVALID_VALUE, "a.sf_layout = 7"},
    {"b.rows 0 (N >= 1)", b_rows_zero, NVFP4_STATUS_INVALID_VALUE, "b.rows = 0: must be in [1, 2^31)"},
    {"b.data NULL", b_data_null, NVFP4_STATUS_INVALID_VALUE, "b.data is NULL"},
    {"b.scales NULL", b_scales_null, NVFP4_STATUS_INVALID_VALUE, "b.scales is NULL"},
    {"b.batch 0", b_batch_zero, NVFP4_STATUS_INVALID_VALUE, "b.batch = 0"},
    {"b.batch != a.batch", b_batch_differs, NVFP4_STATUS_INVALID_VALUE, "b.batch = 3: must equal a.batch = 2"},
    {"b.k != a.k", b_k_differs, NVFP4_STATUS_INVALID_VALUE, "b.k = 288: must equal a.k = 256"},
    {"b.k not a multiple of 32", b_k_not_32, NVFP4_STATUS_NOT_SUPPORTED, "b.k = 48"},
    {"c.data NULL", c_data_null, NVFP4_STATUS_INVALID_VALUE, "c.data is NULL"},
    {"c.dtype unknown", c_dtype_bad, NVFP4_STATUS_INVALID_VALUE, "c.dtype = 9"},
    {"c.data off its elements", c_misaligned, NVFP4_STATUS_INVALID_VALUE, "c.data = "},
    {"c.ld < b.rows", c_ld_small, NVFP4_STATUS_INVALID_VALUE, "c.ld = 299: must be >= 300"},
    {"c batches overlap", c_batches_overlap, NVFP4_STATUS_INVALID_VALUE, "c.batch_stride = 30395: must be >= 30396"},
    {"a.data not 16-byte aligned", a_misaligned, NVFP4_STATUS_NOT_SUPPORTED, "a: data"},
    {"a.ld not a multiple of 16", a_ld_not_16, NVFP4_STATUS_NOT_SUPPORTED, "a: data"},
    {"a.batch_stride not a multiple of 16", a_batch_stride_not_16, NVFP4_STATUS_NOT_SUPPORTED, "a: data"},
    {"b.ld >= 2^32", b_ld_past_32_bits, NVFP4_STATUS_NOT_SUPPORTED, "b: ld (4294967296)"},
    {"32 * b.sf_ld >= 2^32", b_sf_ld_past_32_bits, NVFP4_STATUS_NOT_SUPPORTED, "b: ld (128) and 32 * sf_ld"},
};

START_TEST(gemm_rejects_bad_arguments) {
  const gemm_case *c = &cases[_i];
  gemm_args g = valid_args();
  c->edit(&g);
  nvfp4_status s = call(&g);
  assert_rejected(c->what, s, c->expected, c->message);
}
END_TEST

/* What the fake driver kept of launch i: the entry, the configuration and a copy of the parameter block. */
typedef struct kept_launch {
  const char *entry;
  CUlaunchConfig config;
  unsigned char params[GG_PARAM_BYTES];
} kept_launch;

static void keep_launches(long first, int count, kept_launch *out) {
  for (int i = 0; i < count; i++)
    memcpy(out[i].params, fake_launch(first + i, &out[i].entry, &out[i].config), GG_PARAM_BYTES);
}

/* nvfp4_gemm's launches (from launch `first`) against those of nvfp4_grouped_gemm on groups [from, from + n)
 * of batch l's tensors, built here from the per-batch pointers (one grouped call per chunk of `chunk`). */
static void assert_launches_are_grouped_ones(const gemm_args *g, int chunk) {
  int64_t batches = g->a.batch;
  int launches = (int)((batches + chunk - 1) / chunk);
  ck_assert_int_le(launches, 2); /* the fake driver keeps the last 4 launches: 2 of each call */
  kept_launch *got = malloc(2 * sizeof *got), *want = malloc(2 * sizeof *want);
  nvfp4_tensor *a = calloc((size_t)batches, sizeof *a), *b = calloc((size_t)batches, sizeof *b);
  nvfp4_output *c = calloc((size_t)batches, sizeof *c);
  ck_assert(got && want && a && b && c);
  long before = fake_launches();
  ck_assert_msg(call(g) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches() - before, launches);
  keep_launches(before, launches, got);

  int esize = g->c.dtype == NVFP4_DTYPE_F32 ? 4 : 2;
  for (int64_t l = 0; l < batches; l++) {
    a[l] = g->a;
    a[l].data = DEVICE((uintptr_t)g->a.data + (uintptr_t)(l * g->a.batch_stride));
    a[l].scales = DEVICE((uintptr_t)g->a.scales + (uintptr_t)(l * g->a.sf_batch_stride));
    a[l].batch = 1;
    b[l] = g->b;
    b[l].data = DEVICE((uintptr_t)g->b.data + (uintptr_t)(l * g->b.batch_stride));
    b[l].scales = DEVICE((uintptr_t)g->b.scales + (uintptr_t)(l * g->b.sf_batch_stride));
    b[l].batch = 1;
    c[l] = (nvfp4_output){DEVICE((uintptr_t)g->c.data + (uintptr_t)(l * g->c.batch_stride * esize)), g->c.ld, 0,
                          g->c.dtype};
  }
  before = fake_launches();
  for (int64_t from = 0; from < batches; from += chunk) {
    int n = batches - from < chunk ? (int)(batches - from) : chunk;
    ck_assert_msg(nvfp4_grouped_gemm(fake_handle, n, a + from, b + from, c + from, 1.0f, NULL) ==
                      NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  }
  ck_assert_int_eq(fake_launches() - before, launches);
  keep_launches(before, launches, want);

  for (int i = 0; i < launches; i++) {
    ck_assert_str_eq(got[i].entry, want[i].entry);
    ck_assert_uint_eq(got[i].config.gridDimX, want[i].config.gridDimX);
    ck_assert_uint_eq(got[i].config.blockDimX, want[i].config.blockDimX);
    ck_assert_uint_eq(got[i].config.sharedMemBytes, want[i].config.sharedMemBytes);
    ck_assert_uint_eq(got[i].config.numAttrs, want[i].config.numAttrs);
    ck_assert_msg(memcmp(got[i].params, want[i].params, GG_PARAM_BYTES) == 0,
                  "launch %d: the parameter block differs from nvfp4_grouped_gemm's", i);
  }
  free(got);
  free(want);
  free(a);
  free(b);
  free(c);
}

START_TEST(gemm_of_one_batch_launches_the_grouped_gemm_of_one_group) {
  gemm_args g = valid_args();
  g.a.batch = g.b.batch = 1;
  assert_launches_are_grouped_ones(&g, 64);
  /* the same descriptor for the one group the kernel reads: a's and b's pointers, shape, alpha */
  CUlaunchConfig config;
  const unsigned char *p = fake_last_launch(&config);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 1);
  ck_assert_uint_eq(desc_u64(p, 0, GG_D_A), A_DATA);
  ck_assert_uint_eq(desc_u64(p, 0, GG_D_A_SF), A_SF);
  ck_assert_uint_eq(desc_u64(p, 0, GG_D_B), B_DATA);
  ck_assert_uint_eq(desc_u64(p, 0, GG_D_C), C_DATA);
  ck_assert_uint_eq(desc_u32(p, 0, GG_D_M), M);
  ck_assert_uint_eq(desc_u32(p, 0, GG_D_N), N);
  ck_assert_uint_eq(desc_u64(p, 0, GG_D_LDC), N + 4);
}
END_TEST

START_TEST(gemm_of_three_batches_launches_three_groups_at_their_batch_pointers) {
  gemm_args g = valid_args();
  g.a.batch = g.b.batch = 3;
  g.c.dtype = NVFP4_DTYPE_F32; /* c's batch stride counts 4-byte elements */
  assert_launches_are_grouped_ones(&g, 64);
  CUlaunchConfig config;
  const unsigned char *p = fake_last_launch(&config);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 3);
  /* every group has the same token tile, so they keep batch order */
  for (int l = 0; l < 3; l++) {
    ck_assert_uint_eq(desc_u64(p, l, GG_D_A), A_DATA + (uint64_t)(l * g.a.batch_stride));
    ck_assert_uint_eq(desc_u64(p, l, GG_D_A_SF), A_SF + (uint64_t)(l * g.a.sf_batch_stride));
    ck_assert_uint_eq(desc_u64(p, l, GG_D_B), B_DATA + (uint64_t)(l * g.b.batch_stride));
    ck_assert_uint_eq(desc_u64(p, l, GG_D_B_SF), B_SF + (uint64_t)(l * g.b.sf_batch_stride));
    ck_assert_uint_eq(desc_u64(p, l, GG_D_C), C_DATA + (uint64_t)(l * g.c.batch_stride * 4));
  }
}
END_TEST

START_TEST(gemm_reads_an_operand_with_batch_stride_0_for_every_batch) {
  gemm_args g = valid_args();
  g.a.batch = g.b.batch = 3;
  g.b.batch_stride = g.b.sf_batch_stride = 0;
  assert_launches_are_grouped_ones(&g, 64);
  CUlaunchConfig config;
  const unsigned char *p = fake_last_launch(&config);
  for (int l = 0; l < 3; l++) ck_assert_uint_eq(desc_u64(p, l, GG_D_B), B_DATA);
}
END_TEST

START_TEST(gemm_hands_the_grouped_gemm_64_batches_at_a_time) {
  gemm_args g = valid_args();
  g.a.batch = g.b.batch = 70;
  assert_launches_are_grouped_ones(&g, 64);
  const char *entry;
  CUlaunchConfig config;
  long last = fake_launches() - 1;
  ck_assert_uint_eq(param_u32(fake_launch(last - 1, &entry, &config), GG_P_NUM_GROUPS), 64);
  ck_assert_uint_eq(param_u32(fake_launch(last, &entry, &config), GG_P_NUM_GROUPS), 6);
}
END_TEST

/* With memory pools the grouped GEMM's default way runs: the batches' tokens dequantized, then the W4A16 entry. */
START_TEST(with_pools_gemm_takes_the_grouped_gemms_dequantized_tokens) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  create_fake_handle();
  gemm_args g = valid_args();
  ck_assert_msg(call(&g) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2);
  const char *entry;
  CUlaunchConfig config;
  fake_launch(0, &entry, &config);
  ck_assert_str_eq(entry, "nvfp4_grouped_dequantize_sm90a");
  const unsigned char *p = fake_launch(1, &entry, &config);
  assert_w4a16_entry(entry, "f16_tiles", p);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), L);
  ck_assert_uint_eq(desc_u64(p, 1, GG_D_B), B_DATA + (uint64_t)g.b.batch_stride);
  ck_assert_uint_eq(desc_u64(p, 1, GG_D_C), C_DATA + (uint64_t)(g.c.batch_stride * 2));
  destroy_fake_handle();
}
END_TEST

START_TEST(an_image_without_the_grouped_gemm_refuses_gemm_before_launching) {
  setenv("FAKE_CUDA_MISSING", "nvfp4_grouped_gemm_sm90a", 1);
  create_fake_handle();
  gemm_args g = valid_args();
  g.h = fake_handle;
  assert_refused_for_missing_entry("nvfp4_grouped_gemm_sm90a", call(&g));
  destroy_fake_handle();
}
END_TEST

Suite *gemm_suite(void) {
  Suite *s = suite_create("gemm");
  TCase *validation = tcase_create("gemm validation");
  tcase_add_checked_fixture(validation, create_fake_handle, destroy_fake_handle);
  tcase_add_loop_test(validation, gemm_rejects_bad_arguments, 0, (int)(sizeof cases / sizeof cases[0]));
  suite_add_tcase(s, validation);
  TCase *launches = tcase_create("gemm launches the grouped gemm's groups");
  tcase_add_checked_fixture(launches, create_fake_handle, destroy_fake_handle);
  tcase_add_test(launches, gemm_of_one_batch_launches_the_grouped_gemm_of_one_group);
  tcase_add_test(launches, gemm_of_three_batches_launches_three_groups_at_their_batch_pointers);
  tcase_add_test(launches, gemm_reads_an_operand_with_batch_stride_0_for_every_batch);
  tcase_add_test(launches, gemm_hands_the_grouped_gemm_64_batches_at_a_time);
  suite_add_tcase(s, launches);
  TCase *ways = tcase_create("gemm on other handles");
  tcase_add_test(ways, with_pools_gemm_takes_the_grouped_gemms_dequantized_tokens);
  tcase_add_test(ways, an_image_without_the_grouped_gemm_refuses_gemm_before_launching);
  suite_add_tcase(s, ways);
  return s;
}
