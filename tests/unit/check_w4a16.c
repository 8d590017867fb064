/* nvfp4_grouped_gemm_w4a16 without a GPU, on the fake driver (tests/fake/libcuda.c): every validation path
 * (right status, the field named, nothing launched), and its launches as the W4A16 kernels read them: one
 * entry per activation type, f16 groups first, the descriptors and ring of grouped_gemm_layout.h's GW_
 * section, the NVFP4 call's token tiles, order and chunking. */
#include <stdlib.h>
#include <string.h>

#include "fake_driver.h"
#include "sm90a/grouped_gemm_layout.h"
#include "suites.h"

#define F16 NVFP4_DTYPE_F16
#define BF16 NVFP4_DTYPE_BF16
#define F32 NVFP4_DTYPE_F32
#define W4A16_F16_ENTRY "nvfp4_grouped_gemm_w4a16_f16_sm90a"
#define W4A16_BF16_ENTRY "nvfp4_grouped_gemm_w4a16_bf16_sm90a"

enum { K = 256 };

/* Fake device memory: the fake driver reads none of it, the library only looks at the addresses. */
static _Alignas(16) uint8_t activations[64], weights[16], scales[16];
static _Alignas(16) uint16_t out[16];

/* Three groups, the middle one broken in one field at a time. */
enum { G = 3 };
typedef struct w4a16_args {
  nvfp4_handle *h;
  int num_groups;
  nvfp4_dense a[G];
  nvfp4_tensor b[G];
  nvfp4_output c[G];
  int null_a, null_b, null_c;
} w4a16_args;

static w4a16_args valid_args(void) {
  w4a16_args w = {.h = fake_handle, .num_groups = G};
  for (int i = 0; i < G; i++) {
    w.a[i] = (nvfp4_dense){activations, 64, K, 1, K + 8, 0, i % 2 ? BF16 : F16};
    w.b[i] = (nvfp4_tensor){weights, scales, 128, K, 1, K / 2, 0, K / 16, 0, NVFP4_SF_LINEAR};
    w.c[i] = (nvfp4_output){out, 128, 0, (nvfp4_dtype)(i % 3)};
  }
  return w;
}

static nvfp4_status call(const w4a16_args *w) {
  return nvfp4_grouped_gemm_w4a16(w->h, w->num_groups, w->null_a ? NULL : w->a, w->null_b ? NULL : w->b,
                                  w->null_c ? NULL : w->c, 1.0f, NULL);
}

typedef struct w4a16_case {
  const char *what;
  void (*edit)(w4a16_args *);
  nvfp4_status expected;
  const char *message; /* must appear in nvfp4_last_error() */
} w4a16_case;

#define EDIT(name, body) \
  static void name(w4a16_args *w) { body; }
EDIT(no_handle, w->h = NULL)
EDIT(groups_negative, w->num_groups = -2)
EDIT(no_a, w->null_a = 1)
EDIT(no_b, w->null_b = 1)
EDIT(no_c, w->null_c = 1)
EDIT(a1_f32, w->a[1].dtype = F32)
EDIT(a1_dtype_bad, w->a[1].dtype = (nvfp4_dtype)7)
EDIT(a1_rows_negative, w->a[1].rows = -1)
EDIT(a1_rows_huge, w->a[1].rows = (int64_t)1 << 31)
EDIT(a1_k_zero, w->a[1].k = 0)
EDIT(a1_k_not_32, w->a[1].k = w->b[1].k = 100)
EDIT(a1_batch_zero, w->a[1].batch = 0)
EDIT(a1_batch_two, w->a[1].batch = 2; w->a[1].batch_stride = 64 * (K + 8))
EDIT(a1_data_null, w->a[1].data = NULL)
EDIT(a1_data_odd, w->a[1].data = activations + 1)
EDIT(a1_ld_small, w->a[1].ld = K - 8)
EDIT(a1_data_not_16, w->a[1].data = activations + 8)
EDIT(a1_ld_not_8, w->a[1].ld = K + 4)
EDIT(a1_ld_past_32_bits, w->a[1].ld = (int64_t)1 << 31)
EDIT(b1_k_differs, w->b[1].k = K + 32; w->b[1].ld = (K + 32) / 2; w->b[1].sf_ld = (K + 32) / 16)
EDIT(b1_batch_two, w->b[1].batch = 2)
EDIT(b1_data_null, w->b[1].data = NULL)
EDIT(b1_scales_null, w->b[1].scales = NULL)
EDIT(b1_ld_small, w->b[1].ld = K / 2 - 16)
EDIT(b1_sf_ld_small, w->b[1].sf_ld = K / 16 - 1)
EDIT(b1_layout_bad, w->b[1].sf_layout = (nvfp4_sf_layout)3)
EDIT(b1_misaligned, w->b[1].data = weights + 8)
EDIT(b1_ld_past_32_bits, w->b[1].ld = (int64_t)1 << 32)
EDIT(c1_data_null, w->c[1].data = NULL)
EDIT(c1_dtype_bad, w->c[1].dtype = (nvfp4_dtype)5)
EDIT(c1_ld_small, w->c[1].ld = 100)
EDIT(c1_misaligned, w->c[1].data = (uint8_t *)out + 1)
/* 2^30 x 2^30 outputs: 2^46 tiles of 128 x 128, more than one launch can count */
EDIT(tiles_past_32_bits, w->a[1].rows = w->b[1].rows = (int64_t)1 << 30; w->c[1].ld = (int64_t)1 << 30)

static const w4a16_case cases[] = {
    {"NULL handle", no_handle, NVFP4_STATUS_INVALID_VALUE, "h is NULL"},
    {"num_groups < 0", groups_negative, NVFP4_STATUS_INVALID_VALUE, "num_groups = -2"},
    {"NULL a", no_a, NVFP4_STATUS_INVALID_VALUE, "a is NULL"},
    {"NULL b", no_b, NVFP4_STATUS_INVALID_VALUE, "b is NULL"},
    {"NULL c", no_c, NVFP4_STATUS_INVALID_VALUE, "c is NULL"},
    {"f32 activations", a1_f32, NVFP4_STATUS_NOT_SUPPORTED, "a[1].dtype = NVFP4_DTYPE_F32: f32 activations"},
    {"a[1].dtype unknown", a1_dtype_bad, NVFP4_STATUS_INVALID_VALUE, "a[1].dtype = 7"},
    {"a[1].rows < 0", a1_rows_negative, NVFP4_STATUS_INVALID_VALUE, "a[1].rows = -1"},
    {"a[1].rows 2^31", a1_rows_huge, NVFP4_STATUS_INVALID_VALUE, "a[1].rows = 2147483648"},
    {"a[1].k 0", a1_k_zero, NVFP4_STATUS_INVALID_VALUE, "a[1].k = 0"},
    {"k not a multiple of 32", a1_k_not_32, NVFP4_STATUS_NOT_SUPPORTED, "a[1].k = 100"},
    {"a[1].batch 0", a1_batch_zero, NVFP4_STATUS_INVALID_VALUE, "a[1].batch = 0"},
    {"a[1].batch 2", a1_batch_two, NVFP4_STATUS_INVALID_VALUE, "a[1].batch = 2: every group has batch 1"},
    {"a[1].data NULL", a1_data_null, NVFP4_STATUS_INVALID_VALUE, "a[1].data is NULL"},
    {"a[1].data off its elements", a1_data_odd, NVFP4_STATUS_INVALID_VALUE, "a[1].data = "},
    {"a[1].ld < k", a1_ld_small, NVFP4_STATUS_INVALID_VALUE, "a[1].ld = 248"},
    {"a[1].data not 16-byte aligned", a1_data_not_16, NVFP4_STATUS_NOT_SUPPORTED, "a[1].data = "},
    {"a[1].ld not a multiple of 8", a1_ld_not_8, NVFP4_STATUS_NOT_SUPPORTED, "a[1].ld = 260"},
    {"a[1].ld * 2 >= 2^32", a1_ld_past_32_bits, NVFP4_STATUS_NOT_SUPPORTED, "a[1].ld = 2147483648"},
    {"b[1].k != a[1].k", b1_k_differs, NVFP4_STATUS_INVALID_VALUE, "b[1].k = 288"},
    {"b[1].batch 2", b1_batch_two, NVFP4_STATUS_INVALID_VALUE, "b[1].batch = 2"},
    {"b[1].data NULL", b1_data_null, NVFP4_STATUS_INVALID_VALUE, "b[1].data is NULL"},
    {"b[1].scales NULL", b1_scales_null, NVFP4_STATUS_INVALID_VALUE, "b[1].scales is NULL"},
    {"b[1].ld < k/2", b1_ld_small, NVFP4_STATUS_INVALID_VALUE, "b[1].ld = 112"},
    {"b[1].sf_ld < k/16", b1_sf_ld_small, NVFP4_STATUS_INVALID_VALUE, "b[1].sf_ld = 15"},
    {"b[1].sf_layout unknown", b1_layout_bad, NVFP4_STATUS_INVALID_VALUE, "b[1].sf_layout = 3"},
    {"b[1].data not 16-byte aligned", b1_misaligned, NVFP4_STATUS_NOT_SUPPORTED, "b[1]: data"},
    {"b[1].ld >= 2^32", b1_ld_past_32_bits, NVFP4_STATUS_NOT_SUPPORTED, "b[1]: ld (4294967296)"},
    {"c[1].data NULL", c1_data_null, NVFP4_STATUS_INVALID_VALUE, "c[1].data is NULL"},
    {"c[1].dtype unknown", c1_dtype_bad, NVFP4_STATUS_INVALID_VALUE, "c[1].dtype = 5"},
    {"c[1].ld < cols", c1_ld_small, NVFP4_STATUS_INVALID_VALUE, "c[1].ld = 100"},
    {"c[1].data off its elements", c1_misaligned, NVFP4_STATUS_INVALID_VALUE, "c[1].data = "},
    {"more tiles than a launch counts", tiles_past_32_bits, NVFP4_STATUS_NOT_SUPPORTED, "group 1: more than 2^32"},
};

START_TEST(w4a16_launches_for_valid_arguments) {
  w4a16_args w = valid_args();
  ck_assert_msg(call(&w) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2); /* f16 groups 0 and 2, bf16 group 1 */
}
END_TEST

START_TEST(w4a16_rejects_bad_arguments) {
  const w4a16_case *c = &cases[_i];
  w4a16_args w = valid_args();
  c->edit(&w);
  nvfp4_status s = call(&w);
  assert_rejected(c->what, s, c->expected, c->message);
}
END_TEST

START_TEST(w4a16_skips_empty_groups_and_takes_null_arrays_for_zero_groups) {
  w4a16_args w = valid_args();
  w.a[0].rows = 0;
  w.a[0].data = NULL; /* an empty group's operands may be NULL */
  w.b[1].rows = 0;
  w.b[1].data = w.b[1].scales = NULL;
  w.c[1].data = NULL;
  w.a[2].rows = 0;
  w.a[2].dtype = F32; /* still checked: a type is valid or not whatever the group holds */
  ck_assert_int_eq(call(&w), NVFP4_STATUS_NOT_SUPPORTED);
  w.a[2].dtype = BF16;
  ck_assert_msg(call(&w) == NVFP4_STATUS_SUCCESS, "all-empty groups: %s", nvfp4_last_error());
  ck_assert_msg(fake_launches() == 0, "empty groups launched %ld kernels", fake_launches());
  ck_assert_int_eq(nvfp4_grouped_gemm_w4a16(fake_handle, 0, NULL, NULL, NULL, 1.0f, NULL), NVFP4_STATUS_SUCCESS);
  ck_assert_int_eq(fake_launches(), 0);
}
END_TEST

/* Group g of a call: activations of `dtype` (M rows, ld elements), weights of N rows with BLOCKED scales at a
 * 16-byte aligned base (copied in bulk), an output of `out_dtype`. */
static void set_group(nvfp4_dense *a, nvfp4_tensor *b, nvfp4_output *c, int64_t m, int64_t ld, int64_t n,
                      nvfp4_dtype dtype, nvfp4_dtype out_dtype) {
  *a = (nvfp4_dense){activations, m, K, 1, ld, 0, dtype};
  *b = (nvfp4_tensor){weights, scales, n, K, 1, K / 2, 0, 0, 0, NVFP4_SF_BLOCKED_128x4};
  *c = (nvfp4_output){out, n, 0, out_dtype};
}

/* One launch's ring: load stages | t_max << 16 and no decoded stages, as deep as shared memory allows, and
 * the dynamic shared memory of grouped_gemm_layout.h's GW_SMEM_BYTES for it. */
static void assert_w4a16_ring(const unsigned char *p, const CUlaunchConfig *config, uint32_t t_max) {
  uint32_t ring = param_u32(p, GG_P_RING), load = ring & 0xFFFF;
  ck_assert_uint_eq(ring >> 16, t_max);
  ck_assert(load >= 2 && load <= GG_MAX_LOAD_STAGES);
  ck_assert(load == GG_MAX_LOAD_STAGES || GW_SMEM_BYTES(load + 1, t_max) > GG_SMEM_LIMIT);
  ck_assert_uint_eq(config->sharedMemBytes, GW_SMEM_BYTES(load, t_max));
  ck_assert_uint_le(config->sharedMemBytes, GG_SMEM_LIMIT);
  ck_assert_uint_eq(config->blockDimX, GG_THREADS);
}

START_TEST(w4a16_launches_f16_then_bf16_groups_with_dense_activation_descriptors) {
  enum { GROUPS = 5 };
  nvfp4_dense a[GROUPS];
  nvfp4_tensor b[GROUPS];
  nvfp4_output c[GROUPS];
  /* f16: M = 80 (strided), 1 (a single row: no pitch), 248; bf16: M = 3 and an empty group */
  set_group(&a[0], &b[0], &c[0], 80, K + 24, 4096, F16, BF16);
  set_group(&a[1], &b[1], &c[1], 3, K, 1000, BF16, F32);
  set_group(&a[2], &b[2], &c[2], 1, K + 8, 256, F16, F16);
  set_group(&a[3], &b[3], &c[3], 0, K, 128, BF16, F16);
  set_group(&a[4], &b[4], &c[4], 248, K, 256, F16, F32);
  /* no memory pool: the activations read in place, by the entry of mixed widths, every group its own t */
  ck_assert_msg(nvfp4_grouped_gemm_w4a16(fake_handle, GROUPS, a, b, c, 0.75f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2);

  /* the f16 launch: tiles at the widest cap 32 + 1 + 2 = 35, fewer than the fake's 132 SMs, so the cap is 128,
   * largest tile first: t = 128 for M = 248, 96 for M = 80, 32 for M = 1 */
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(0, &entry, &config);
  ck_assert_str_eq(entry, W4A16_F16_ENTRY);
  assert_launched_early(&config, 1, "W4A16 grouped GEMM reading its activations in place");
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 3);
  float alpha;
  memcpy(&alpha, p + GG_P_ALPHA, sizeof alpha);
  ck_assert(alpha == 0.75f);
  const int order[] = {4, 0, 2};
  const uint32_t t[] = {128, 96, 32}, a_ld[] = {K * 2, (K + 24) * 2, 0}, start[] = {0, 2 * 2, 2 * 2 + 32};
  for (int i = 0; i < 3; i++) {
    int g = order[i];
    ck_assert_uint_eq(desc_u64(p, i, GG_D_A), (uintptr_t)activations);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_A_LD), a_ld[i]); /* bytes; 0 for a single row */
    ck_assert_uint_eq(desc_u64(p, i, GG_D_A_SF), 0);
    ck_assert_uint_eq(desc_u64(p, i, GG_D_A_STEP128), 0);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_A_STEP32), 0);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_A_STEP1), 0);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_A_QSTEP), 0);
    ck_assert_uint_eq(desc_u64(p, i, GG_D_B), (uintptr_t)weights);
    ck_assert_uint_eq(desc_u64(p, i, GG_D_B_SF), (uintptr_t)scales);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_B_LD), K / 2);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_B_QSTEP), 512);
    ck_assert_uint_eq(desc_u64(p, i, GG_D_LDC), a[g].rows > 1 ? (uint64_t)c[g].ld : 0);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_M), (uint32_t)a[g].rows);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_N), (uint32_t)b[g].rows);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_KBYTES), K / 2);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_T), t[i]);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_TILE_START), start[i]);
    /* the output type, the weights' bulk scale copies and C's 4-element stores (rows of n elements, a
     * multiple of 4, from an aligned base); no activation scale flags */
    ck_assert_uint_eq(desc_u32(p, i, GG_D_FLAGS), (uint32_t)c[g].dtype | GG_F_B_SF_BULK | GG_F_C_VEC);
  }
  ck_assert_uint_eq(param_u32(p, GG_P_TOTAL_TILES), start[2] + 2);
  ck_assert_uint_eq(config.gridDimX, start[2] + 2); /* fewer tiles than SMs: a CTA each */
  assert_w4a16_ring(p, &config, 128);

  /* the bf16 launch: group 1 alone (group 3 is empty) */
  p = fake_launch(1, &entry, &config);
  ck_assert_str_eq(entry, W4A16_BF16_ENTRY);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 1);
  ck_assert_uint_eq(desc_u32(p, 0, GG_D_M), 3);
  ck_assert_uint_eq(desc_u32(p, 0, GG_D_A_LD), K * 2);
  ck_assert_uint_eq(desc_u32(p, 0, GG_D_T), 32);
  ck_assert_uint_eq(desc_u32(p, 0, GG_D_TILE_START), 0);
  ck_assert_uint_eq(desc_u32(p, 0, GG_D_FLAGS), (uint32_t)F32 | GG_F_B_SF_BULK | GG_F_C_VEC);
  ck_assert_uint_eq(param_u32(p, GG_P_TOTAL_TILES), 8);
  assert_w4a16_ring(p, &config, 32);
}
END_TEST

/* The entry of mixed widths takes the descriptors largest t first, and among equal t in the call's group
 * order (M tells the groups apart here): the schedule's order, whatever order the groups come in. */
START_TEST(w4a16_orders_mixed_tiles_by_t_and_keeps_the_group_order_among_equal_t) {
  enum { COUNT = 9 };
  static const int64_t m[COUNT] = {40, 300, 33, 200, 60, 20, 61, 250, 41};
  nvfp4_dense a[COUNT];
  nvfp4_tensor b[COUNT];
  nvfp4_output c[COUNT];
  for (int g = 0; g < COUNT; g++) set_group(&a[g], &b[g], &c[g], m[g], K, 512, F16, F16);
  /* B tiles (a memory pool) in an image without their entries of one width: the entry of mixed widths */
  destroy_fake_handle();
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  setenv("FAKE_CUDA_MISSING", w4a16_width_entries(), 1);
  create_fake_handle();
  ck_assert_msg(nvfp4_grouped_gemm_w4a16(fake_handle, COUNT, a, b, c, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(1, &entry, &config); /* after the activations' copy */
  ck_assert_uint_eq(assert_w4a16_entry(entry, "f16_tiles", p), 0);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), COUNT);
  int seen[COUNT] = {0}, previous = -1;
  for (int i = 0; i < COUNT; i++) {
    int g = 0;
    while (g < COUNT && m[g] != desc_u32(p, i, GG_D_M)) g++;
    ck_assert_int_lt(g, COUNT);
    seen[g]++;
    if (i > 0) {
      uint32_t t0 = desc_u32(p, i - 1, GG_D_T), t1 = desc_u32(p, i, GG_D_T);
      ck_assert_msg(t0 > t1 || (t0 == t1 && previous < g), "descriptor %d: t %u after %u, group %d after %d", i,
                    t1, t0, g, previous);
    }
    previous = g;
  }
  for (int g = 0; g < COUNT; g++) ck_assert_int_eq(seen[g], 1);
}
END_TEST

/* With a memory pool the activations go into B tiles, whose families have entries of one width: with the
 * plan fixed to one (NVFP4_TILE_ROWS=128), each launch runs that width's entry and every descriptor has it,
 * the tiles numbered by it; the groups and their operands as above. */
START_TEST(w4a16_launches_the_entry_of_the_planned_width) {
  destroy_fake_handle();
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  setenv("NVFP4_TILE_ROWS", "128", 1);
  create_fake_handle();
  nvfp4_dense a[3];
  nvfp4_tensor b[3];
  nvfp4_output c[3];
  set_group(&a[0], &b[0], &c[0], 80, K + 24, 4096, F16, BF16);
  set_group(&a[1], &b[1], &c[1], 3, K, 1000, BF16, F32);
  set_group(&a[2], &b[2], &c[2], 248, K, 256, F16, F32);
  ck_assert_msg(nvfp4_grouped_gemm_w4a16(fake_handle, 3, a, b, c, 0.75f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 3); /* the copy into B tiles, then an f16 and a bf16 launch */
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(1, &entry, &config);
  uint32_t t = assert_w4a16_entry(entry, "f16_tiles", p);
  ck_assert_uint_eq(t, 128);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 2);
  /* tiles of t rows: ceil(M / t) token tiles a group */
  uint32_t first = (4096 / 128) * ((80 + t - 1) / t), second = 2 * ((248 + t - 1) / t);
  ck_assert_uint_eq(param_u32(p, GG_P_TOTAL_TILES), first + second);
  assert_w4a16_ring(p, &config, t);
  const unsigned char *q = fake_launch(2, &entry, &config);
  ck_assert_uint_eq(assert_w4a16_entry(entry, "bf16_tiles", q), t); /* one width for the call */
}
END_TEST

/* With a memory pool, a launch whose tiles all have t = 32 (every group of at most 32 rows, as a MoE decode's)
 * runs the B-tiles family's t = 32 entry, with the ring and launch shape of the entry of mixed widths; a
 * launch with a wider tile runs that entry, and so does one on an image without the t = 32 entries. */
START_TEST(w4a16_tiles_all_of_32_rows_take_the_t32_entry) {
  static const char *const t32_entries =
      "nvfp4_grouped_gemm_w4a16_f16_tiles_t32_sm90a,nvfp4_grouped_gemm_w4a16_bf16_tiles_t32_sm90a";
  static const int64_t rows[3][2] = {{7, 32}, {7, 33}, {7, 32}};
  for (int way = 0; way < 3; way++) {
    destroy_fake_handle();
    setenv("FAKE_MEMORY_POOLS", "1", 1);
    if (way == 2) setenv("FAKE_CUDA_MISSING", t32_entries, 1);
    create_fake_handle();
    nvfp4_dense a[2];
    nvfp4_tensor b[2];
    nvfp4_output c[2];
    set_group(&a[0], &b[0], &c[0], rows[way][0], K, 300, F16, F16);
    set_group(&a[1], &b[1], &c[1], rows[way][1], K, 129, F16, BF16);
    long before = fake_launches(); /* the process's launches: the earlier ways' too */
    ck_assert_msg(nvfp4_grouped_gemm_w4a16(fake_handle, 2, a, b, c, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                  nvfp4_last_error());
    ck_assert_int_eq(fake_launches() - before, 2); /* the copy into B tiles, then the GEMM */
    const char *entry;
    CUlaunchConfig config;
    const unsigned char *p = fake_launch(before + 1, &entry, &config);
    uint32_t t = assert_w4a16_entry(entry, "f16_tiles", p);
    ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 2);
    if (way == 0) {
      ck_assert_uint_eq(t, 32);
      assert_w4a16_ring(p, &config, 32);
      ck_assert_uint_eq(param_u32(p, GG_P_TOTAL_TILES), 3 + 2); /* ceil(300 / 128) + ceil(129 / 128) */
    } else {
      ck_assert_msg(t != 32, "way %d: %s", way, entry);
    }
    unsetenv("FAKE_CUDA_MISSING");
  }
}
END_TEST

START_TEST(w4a16_launches_only_the_activation_types_present) {
  nvfp4_dense a[2];
  nvfp4_tensor b[2];
  nvfp4_output c[2];
  set_group(&a[0], &b[0], &c[0], 17, K, 300, BF16, F16);
  set_group(&a[1], &b[1], &c[1], 40, K, 129, BF16, BF16);
  ck_assert_msg(nvfp4_grouped_gemm_w4a16(fake_handle, 2, a, b, c, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(0, &entry, &config);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 2);
  assert_w4a16_entry(entry, "bf16", p);
}
END_TEST

START_TEST(w4a16_takes_256_groups_a_launch_and_launches_again_for_more) {
  enum { MANY = 300 };
  nvfp4_dense *a = calloc(MANY, sizeof *a);
  nvfp4_tensor *b = calloc(MANY, sizeof *b);
  nvfp4_output *c = calloc(MANY, sizeof *c);
  ck_assert(a && b && c);
  /* every tenth group empty: 270 with work, 256 in the first launch and 14 in the second */
  const int64_t m[] = {5, 0, 17, 64, 1, 100, 9, 33, 2, 48};
  for (int g = 0; g < MANY; g++) set_group(&a[g], &b[g], &c[g], m[g % 10], K, 128, F16, F16);
  ck_assert_msg(nvfp4_grouped_gemm_w4a16(fake_handle, MANY, a, b, c, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2);
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(0, &entry, &config);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), GG_MAX_GROUPS);
  uint32_t t = assert_w4a16_entry(entry, "f16", p);
  p = fake_launch(1, &entry, &config);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 270 - GG_MAX_GROUPS);
  ck_assert_uint_eq(assert_w4a16_entry(entry, "f16", p), t);
  /* every other group bf16 (the empty ones among them): 150 f16 groups and 120 bf16 ones, a launch each */
  for (int g = 0; g < MANY; g++) a[g].dtype = g % 2 ? BF16 : F16;
  ck_assert_msg(nvfp4_grouped_gemm_w4a16(fake_handle, MANY, a, b, c, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 4);
  p = fake_launch(2, &entry, &config);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 150);
  t = assert_w4a16_entry(entry, "f16", p);
  p = fake_launch(3, &entry, &config);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 120);
  ck_assert_uint_eq(assert_w4a16_entry(entry, "bf16", p), t);
  free(a);
  free(b);
  free(c);
}
END_TEST

/* An image that lacks a type's entries: a call that needs them is NOT_SUPPORTED before any launch, the f16
 * groups' included; a call that needs only the other type's runs. */
START_TEST(an_image_without_the_bf16_entry_refuses_bf16_groups_before_launching_any) {
  setenv("FAKE_CUDA_MISSING", w4a16_entries("bf16"), 1);
  create_fake_handle();
  w4a16_args w = valid_args(); /* f16 and bf16 groups */
  ck_assert_int_eq(call(&w), NVFP4_STATUS_NOT_SUPPORTED);
  ck_assert_msg(strstr(nvfp4_last_error(), "has no entry " W4A16_BF16_ENTRY) != NULL, "message: %s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 0);
  for (int g = 0; g < G; g++) w.a[g].dtype = F16;
  ck_assert_msg(call(&w) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
  destroy_fake_handle();
}
END_TEST

START_TEST(an_image_without_w4a16_serves_the_nvfp4_grouped_gemm) {
  char missing[4096];
  snprintf(missing, sizeof missing, "%s,%s", w4a16_entries("f16"), w4a16_entries("bf16"));
  setenv("FAKE_CUDA_MISSING", missing, 1);
  create_fake_handle();
  w4a16_args w = valid_args();
  for (int g = 0; g < G; g++) w.a[g].dtype = F16;
  ck_assert_int_eq(call(&w), NVFP4_STATUS_NOT_SUPPORTED);
  ck_assert_msg(strstr(nvfp4_last_error(), "has no entry " W4A16_F16_ENTRY) != NULL, "message: %s",
                nvfp4_last_error());
  nvfp4_tensor a = {weights, scales, 64, K, 1, K / 2, 0, K / 16, 0, NVFP4_SF_LINEAR};
  ck_assert_msg(nvfp4_grouped_gemm(fake_handle, 1, &a, w.b, w.c, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
  destroy_fake_handle();
}
END_TEST

Suite *w4a16_suite(void) {
  Suite *s = suite_create("w4a16");
  TCase *validation = tcase_create("grouped gemm w4a16 validation");
  tcase_add_checked_fixture(validation, create_fake_handle, destroy_fake_handle);
  tcase_add_test(validation, w4a16_launches_for_valid_arguments);
  tcase_add_loop_test(validation, w4a16_rejects_bad_arguments, 0, (int)(sizeof cases / sizeof cases[0]));
  tcase_add_test(validation, w4a16_skips_empty_groups_and_takes_null_arrays_for_zero_groups);
  suite_add_tcase(s, validation);
  TCase *launches = tcase_create("grouped gemm w4a16 launches");
  tcase_add_checked_fixture(launches, create_fake_handle, destroy_fake_handle);
  tcase_add_test(launches, w4a16_launches_f16_then_bf16_groups_with_dense_activation_descriptors);
  tcase_add_test(launches, w4a16_launches_the_entry_of_the_planned_width);
  tcase_add_test(launches, w4a16_orders_mixed_tiles_by_t_and_keeps_the_group_order_among_equal_t);
  tcase_add_test(launches, w4a16_tiles_all_of_32_rows_take_the_t32_entry);
  tcase_add_test(launches, w4a16_launches_only_the_activation_types_present);
  tcase_add_test(launches, w4a16_takes_256_groups_a_launch_and_launches_again_for_more);
  suite_add_tcase(s, launches);
  TCase *images = tcase_create("grouped gemm w4a16 from images without its entries");
  tcase_add_test(images, an_image_without_the_bf16_entry_refuses_bf16_groups_before_launching_any);
  tcase_add_test(images, an_image_without_w4a16_serves_the_nvfp4_grouped_gemm);
  suite_add_tcase(s, images);
  return s;
}
