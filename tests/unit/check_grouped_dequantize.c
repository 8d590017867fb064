/* The library's grouped dequantize (nvfp4i_grouped_dequantize, host/dequantize.h) without a GPU, on the fake
 * driver (tests/fake/libcuda.c): every check before a launch (right status, the group and field named, nothing
 * launched), the launches as the kernel reads them (dequantize_layout.h's GDQ_ block: the groups with rows in
 * order, strip_start, each descriptor, the grid, GDQ_MAX_GROUPS groups to a launch), the kernel's walk run in C
 * from those blocks against nvfp4i_dequantize_ref byte for byte over whole destination buffers (so nothing
 * between rows or destinations is written), an image without the entry, and the GPU suite's check failing
 * where nothing computes. */
#include <stdlib.h>
#include <string.h>

#include "dequantize.h"
#include "fake_driver.h"
#include "format.h"
#include "handle.h"
#include "quantize_ref.h"
#include "reference.h"
#include "sm90a/dequantize_layout.h"
#include "suites.h"
#include "testdata.h"
#include "validate.h"
#include "verify.h"

#define LIN NVFP4_SF_LINEAR
#define BLK NVFP4_SF_BLOCKED_128x4
#define F16 NVFP4_DTYPE_F16
#define BF16 NVFP4_DTYPE_BF16
#define F32 NVFP4_DTYPE_F32
#define GDQ_ENTRY_NAME "nvfp4_grouped_dequantize_sm90a"

enum { G = 3, K = 544, OUT_LD = K + 8 };

/* Fake device memory: the fake driver reads none of it, the library only looks at the addresses. */
static _Alignas(16) uint8_t data[64], scales[16], outputs[64];

/* Three groups (300 x 544 LINEAR with padded rows, 7 x 7168 BLOCKED, 1 x 2048 LINEAR), one broken at a time. */
typedef struct gdq_args {
  nvfp4_handle *h;
  int num_groups;
  nvfp4_tensor in[G];
  void *out[G];
  int64_t ld[G];
  nvfp4_dtype dtype;
  int null_in, null_out, null_ld;
} gdq_args;

static gdq_args valid_args(void) {
  return (gdq_args){
      .h = fake_handle,
      .num_groups = G,
      .in = {{data, scales, 300, K, 1, K / 2 + 16, 0, K / 16 + 3, 0, LIN},
             {data, scales, 7, 7168, 1, 3584, 0, 0, 0, BLK},
             {data, scales, 1, 2048, 1, 1024, 0, 128, 0, LIN}},
      .out = {outputs, outputs + 16, outputs + 32},
      .ld = {OUT_LD, 7168, 2048},
      .dtype = F16,
  };
}

static nvfp4_status call(const gdq_args *a) {
  return nvfp4i_grouped_dequantize(a->h, a->num_groups, a->null_in ? NULL : a->in, a->null_out ? NULL : a->out,
                                   a->null_ld ? NULL : a->ld, a->dtype, NULL);
}

typedef struct gdq_case {
  const char *what;
  void (*edit)(gdq_args *);
  nvfp4_status expected;
  const char *message; /* must appear in nvfp4_last_error() */
} gdq_case;

#define EDIT(name, body) \
  static void name(gdq_args *a) { body; }
EDIT(no_handle, a->h = NULL)
EDIT(groups_negative, a->num_groups = -1)
EDIT(no_in, a->null_in = 1)
EDIT(no_out, a->null_out = 1)
EDIT(no_ld, a->null_ld = 1)
EDIT(dtype_bad, a->dtype = (nvfp4_dtype)3)
EDIT(rows_negative, a->in[2].rows = -1)
EDIT(rows_huge, a->in[1].rows = (int64_t)1 << 31)
EDIT(k_zero, a->in[1].k = 0)
EDIT(k_not_32, a->in[1].k = 48)
EDIT(batch_two, a->in[1].batch = 2)
EDIT(data_null, a->in[0].data = NULL)
EDIT(scales_null, a->in[0].scales = NULL)
EDIT(ld_small, a->in[1].ld = 3584 - 16)
EDIT(sf_ld_small, a->in[0].sf_ld = K / 16 - 1)
EDIT(layout_bad, a->in[1].sf_layout = (nvfp4_sf_layout)2)
EDIT(data_not_16, a->in[1].data = data + 8)
EDIT(ld_not_16, a->in[0].ld = K / 2 + 8)
EDIT(out_null, a->out[2] = NULL)
EDIT(out_odd, a->out[1] = outputs + 1)
EDIT(out_f32_off_4, a->dtype = F32; a->out[0] = outputs + 2)
EDIT(out_ld_small, a->ld[0] = K - 1)

static const gdq_case cases[] = {
    {"NULL handle", no_handle, NVFP4_STATUS_INVALID_VALUE, "h is NULL"},
    {"num_groups < 0", groups_negative, NVFP4_STATUS_INVALID_VALUE, "num_groups = -1"},
    {"NULL in", no_in, NVFP4_STATUS_INVALID_VALUE, "in, out_data or out_ld is NULL"},
    {"NULL out_data", no_out, NVFP4_STATUS_INVALID_VALUE, "in, out_data or out_ld is NULL"},
    {"NULL out_ld", no_ld, NVFP4_STATUS_INVALID_VALUE, "in, out_data or out_ld is NULL"},
    {"dtype unknown", dtype_bad, NVFP4_STATUS_INVALID_VALUE, "dtype = 3"},
    {"rows < 0", rows_negative, NVFP4_STATUS_INVALID_VALUE, "group 2: in.rows = -1"},
    {"rows 2^31", rows_huge, NVFP4_STATUS_INVALID_VALUE, "group 1: in.rows = 2147483648"},
    {"k 0", k_zero, NVFP4_STATUS_INVALID_VALUE, "group 1: in.k = 0"},
    {"k not a multiple of 32", k_not_32, NVFP4_STATUS_NOT_SUPPORTED, "group 1: in.k = 48: only multiples of 32"},
    {"batch 2", batch_two, NVFP4_STATUS_INVALID_VALUE, "group 1: in.batch = 2: every group has batch 1"},
    {"data NULL", data_null, NVFP4_STATUS_INVALID_VALUE, "group 0: in.data is NULL"},
    {"scales NULL", scales_null, NVFP4_STATUS_INVALID_VALUE, "group 0: in.scales is NULL"},
    {"ld < k/2", ld_small, NVFP4_STATUS_INVALID_VALUE, "group 1: in.ld = 3568"},
    {"sf_ld < k/16", sf_ld_small, NVFP4_STATUS_INVALID_VALUE, "group 0: in.sf_ld = 33"},
    {"sf_layout unknown", layout_bad, NVFP4_STATUS_INVALID_VALUE, "group 1: in.sf_layout = 2"},
    {"data not 16-byte aligned", data_not_16, NVFP4_STATUS_NOT_SUPPORTED, "group 1: in: data"},
    {"ld not a multiple of 16", ld_not_16, NVFP4_STATUS_NOT_SUPPORTED, "group 0: in: data"},
    {"destination NULL", out_null, NVFP4_STATUS_INVALID_VALUE, "group 2: out.data is NULL"},
    {"destination off its f16 elements", out_odd, NVFP4_STATUS_INVALID_VALUE, "group 1: out.data = "},
    {"destination off its f32 elements", out_f32_off_4, NVFP4_STATUS_INVALID_VALUE, "not aligned to its 4-byte"},
    {"destination ld < k", out_ld_small, NVFP4_STATUS_INVALID_VALUE, "group 0: out.ld = 543"},
};

START_TEST(grouped_dequantize_launches_once_for_valid_arguments) {
  gdq_args a = valid_args();
  ck_assert_msg(call(&a) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
}
END_TEST

START_TEST(grouped_dequantize_rejects_bad_arguments) {
  const gdq_case *c = &cases[_i];
  gdq_args a = valid_args();
  c->edit(&a);
  assert_rejected(c->what, call(&a), c->expected, c->message);
}
END_TEST

/* No group with rows: nothing to launch, and nothing is read of an empty group (NULL pointers, any K). */
START_TEST(grouped_dequantize_launches_nothing_without_rows) {
  ck_assert_int_eq(nvfp4i_grouped_dequantize(fake_handle, 0, NULL, NULL, NULL, F16, NULL), NVFP4_STATUS_SUCCESS);
  gdq_args a = valid_args();
  for (int g = 0; g < G; g++) {
    a.in[g] = (nvfp4_tensor){NULL, NULL, 0, g == 1 ? 48 : 0, 0, 0, 0, 0, 0, LIN};
    a.out[g] = NULL;
    a.ld[g] = 0;
  }
  ck_assert_msg(call(&a) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 0);
}
END_TEST

/* A group that fails after more groups than one launch takes: the call launches nothing. */
START_TEST(grouped_dequantize_checks_every_group_before_the_first_launch) {
  enum { MANY = GDQ_MAX_GROUPS + 44 };
  nvfp4_tensor in[MANY];
  void *out[MANY];
  int64_t ld[MANY];
  for (int g = 0; g < MANY; g++) {
    in[g] = (nvfp4_tensor){data, scales, 1, 32, 1, 16, 0, 2, 0, LIN};
    out[g] = outputs;
    ld[g] = 32;
  }
  in[MANY - 1].k = 48;
  assert_rejected("the last of 300 groups", nvfp4i_grouped_dequantize(fake_handle, MANY, in, out, ld, F16, NULL),
                  NVFP4_STATUS_NOT_SUPPORTED, "group 299: in.k = 48");
}
END_TEST

/* More strips in one launch than the kernel numbers in 31 bits: refused, nothing launched. */
START_TEST(grouped_dequantize_refuses_more_than_2_31_strips_a_launch) {
  gdq_args a = valid_args();
  a.in[1].rows = INT32_MAX; /* 7 strips a row */
  a.ld[1] = 7168;
  assert_rejected("2^31 rows of 7168", call(&a), NVFP4_STATUS_NOT_SUPPORTED,
                  "group 1: more than 2^31 - 1 strips of 1024 elements in one launch");
}
END_TEST

/* The launch i of the process: the grouped entry, DEQ_THREADS threads, `ctas` CTAs and the staging area of
 * `esize`-byte outputs. */
static const unsigned char *grouped_launch(long i, uint32_t ctas, int esize) {
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(i, &entry, &config);
  ck_assert_str_eq(entry, GDQ_ENTRY_NAME);
  ck_assert_uint_eq(config.blockDimX, DEQ_THREADS);
  ck_assert_uint_eq(config.blockDimY * config.blockDimZ * config.gridDimY * config.gridDimZ, 1);
  ck_assert_uint_eq(config.gridDimX, ctas);
  ck_assert_uint_eq(config.sharedMemBytes, (unsigned)(DEQ_WARPS * 32 * 32 * esize));
  return p;
}

static uint32_t start_u32(const unsigned char *p, int g) { return param_u32(p, GDQ_P_STRIP_START + 4 * g); }
static uint32_t gdesc_u32(const unsigned char *p, int g, int field) {
  return param_u32(p, GDQ_P_DESCS + g * GDQ_DESC_BYTES + field);
}
static uint64_t gdesc_u64(const unsigned char *p, int g, int field) {
  return param_u64(p, GDQ_P_DESCS + g * GDQ_DESC_BYTES + field);
}

/* The three groups and an empty one between them: the block holds the three in order, their strips numbered
 * one after another (300 x 1, 7 x 7, 1 x 2 = 351 strips: 44 CTAs of 8 warps), every descriptor in bytes. */
/* B tiles: K padded to 128 (544 -> 640: 20 chunks, one strip a row; 2048: 64 chunks, two strips), the "ld" a
 * column block's bytes (rows x 128), the B_TILES flag; F32 and a destination off 16 bytes refused. */
START_TEST(grouped_dequantize_b_tiles_pad_k_and_step_by_column_blocks) {
  nvfp4_tensor in[2] = {{data, scales, 3, 544, 1, 272 + 16, 0, 34, 0, NVFP4_SF_LINEAR},
                        {data, scales, 300, 2048, 1, 1024, 0, 128, 0, BLK}};
  void *out[2] = {outputs, outputs + 16};
  ck_assert_msg(nvfp4i_grouped_dequantize_b_tiles(fake_handle, 2, in, out, F16, NULL) == NVFP4_STATUS_SUCCESS,
                "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
  const unsigned char *p = grouped_launch(0, (3 + 600 + 7) / 8, 2);
  ck_assert_uint_eq(param_u32(p, GDQ_P_TOTAL_STRIPS), 3 + 600);
  static const uint32_t rows[2] = {3, 300}, chunks[2] = {20, 64}, strips[2] = {1, 2};
  for (int d = 0; d < 2; d++) {
    ck_assert_uint_eq(gdesc_u64(p, d, GDQ_D_OUT_LD_BYTES), rows[d] * 128);
    ck_assert_uint_eq(gdesc_u32(p, d, GDQ_D_CHUNKS_PER_ROW), (uint32_t)(in[d].k / 32));
    ck_assert_uint_eq(gdesc_u32(p, d, GDQ_D_OUT_CHUNKS), chunks[d]);
    ck_assert_uint_eq(gdesc_u32(p, d, GDQ_D_STRIPS_PER_ROW), strips[d]);
    ck_assert_uint_eq(gdesc_u32(p, d, GDQ_D_B_TILES), 1);
  }
  ck_assert_uint_eq(nvfp4i_b_tile_bytes(3, 544), 3 * 640 * 2);
  ck_assert_int_eq(nvfp4i_grouped_dequantize_b_tiles(fake_handle, 2, in, out, F32, NULL),
                   NVFP4_STATUS_INVALID_VALUE);
  ck_assert_msg(strstr(nvfp4_last_error(), "dtype") != NULL, "%s", nvfp4_last_error());
  out[1] = outputs + 2;
  ck_assert_int_eq(nvfp4i_grouped_dequantize_b_tiles(fake_handle, 2, in, out, F16, NULL),
                   NVFP4_STATUS_INVALID_VALUE);
  ck_assert_msg(strstr(nvfp4_last_error(), "group 1") != NULL && strstr(nvfp4_last_error(), "out.data") != NULL,
                "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1); /* nothing launched for either */
}
END_TEST

START_TEST(grouped_dequantize_describes_the_groups_with_rows_in_order) {
  nvfp4_tensor in[4];
  void *out[4];
  int64_t ld[4];
  gdq_args a = valid_args();
  for (int g = 0, src = 0; g < 4; g++) {
    if (g == 1) { /* empty: skipped, its pointers unread */
      in[g] = (nvfp4_tensor){NULL, NULL, 0, 7168, 1, 3584, 0, 0, 0, BLK};
      out[g] = NULL;
      ld[g] = 0;
      continue;
    }
    in[g] = a.in[src];
    out[g] = a.out[src];
    ld[g] = a.ld[src++];
  }
  out[3] = outputs + 34; /* group 3: one row, 2 bytes past a 16-byte boundary: narrow stores */
  ld[0] = OUT_LD + 1;    /* group 0: odd rows start off 16 bytes: narrow stores */
  ck_assert_msg(nvfp4i_grouped_dequantize(fake_handle, 4, in, out, ld, BF16, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
  const unsigned char *p = grouped_launch(0, 44, 2);
  ck_assert_uint_eq(param_u32(p, GDQ_P_NUM_GROUPS), 3);
  ck_assert_uint_eq(param_u32(p, GDQ_P_TOTAL_STRIPS), 351);
  ck_assert_uint_eq(param_u32(p, GDQ_P_OUT_DTYPE), DEQ_DTYPE_BF16);
  ck_assert_uint_eq(start_u32(p, 0), 0);
  ck_assert_uint_eq(start_u32(p, 1), 300);
  ck_assert_uint_eq(start_u32(p, 2), 349);
  static const int from[3] = {0, 2, 3};
  for (int d = 0; d < 3; d++) {
    const nvfp4_tensor *t = &in[from[d]];
    ck_assert_uint_eq(gdesc_u64(p, d, GDQ_D_IN), (uintptr_t)t->data);
    ck_assert_uint_eq(gdesc_u64(p, d, GDQ_D_IN_SF), (uintptr_t)t->scales);
    ck_assert_uint_eq(gdesc_u64(p, d, GDQ_D_OUT), (uintptr_t)out[from[d]]);
    ck_assert_uint_eq(gdesc_u64(p, d, GDQ_D_IN_LD), (uint64_t)t->ld);
    ck_assert_uint_eq(gdesc_u64(p, d, GDQ_D_OUT_LD_BYTES), (uint64_t)ld[from[d]] * 2);
    ck_assert_uint_eq(gdesc_u32(p, d, GDQ_D_CHUNKS_PER_ROW), (uint32_t)(t->k / 32));
    ck_assert_uint_eq(gdesc_u32(p, d, GDQ_D_STRIPS_PER_ROW), (uint32_t)((t->k + 1023) / 1024));
  }
  /* scale steps: LINEAR rows of sf_ld bytes; BLOCKED tiles of 512 bytes, ceil(K/64) to a row block */
  ck_assert_uint_eq(gdesc_u64(p, 0, GDQ_D_SF_ROW_STEP128), 128 * (K / 16 + 3));
  ck_assert_uint_eq(gdesc_u64(p, 0, GDQ_D_SF_ROW_STEP32), 32 * (K / 16 + 3));
  ck_assert_uint_eq(gdesc_u64(p, 0, GDQ_D_SF_ROW_STEP1), K / 16 + 3);
  ck_assert_uint_eq(gdesc_u32(p, 0, GDQ_D_SF_PAIR_STEP), 4);
  ck_assert_uint_eq(gdesc_u64(p, 1, GDQ_D_SF_ROW_STEP128), 7168 / 64 * 512);
  ck_assert_uint_eq(gdesc_u64(p, 1, GDQ_D_SF_ROW_STEP32), 4);
  ck_assert_uint_eq(gdesc_u64(p, 1, GDQ_D_SF_ROW_STEP1), 16);
  ck_assert_uint_eq(gdesc_u32(p, 1, GDQ_D_SF_PAIR_STEP), 512);
  ck_assert_uint_eq(gdesc_u64(p, 2, GDQ_D_SF_ROW_STEP1), 128);
  /* 16-byte stores where every row of the destination starts 16-byte aligned (a single row needs no ld) */
  ck_assert_uint_eq(gdesc_u32(p, 0, GDQ_D_VECTOR_STORES), 0);
  ck_assert_uint_eq(gdesc_u32(p, 1, GDQ_D_VECTOR_STORES), 1);
  ck_assert_uint_eq(gdesc_u32(p, 2, GDQ_D_VECTOR_STORES), 0);
  ld[3] = 5;
  out[3] = outputs + 48;
  ck_assert_msg(nvfp4i_grouped_dequantize(fake_handle, 4, in, out, ld, BF16, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_uint_eq(gdesc_u32(grouped_launch(1, 44, 2), 2, GDQ_D_VECTOR_STORES), 1);
}
END_TEST

/* The grid: one warp a strip while the strips are fewer than the resident warps (64 groups of 0 to 24 rows
 * as in the MoE decode step, K = 2048: 1540 strips, fewer than the fake's 2112 resident warps), else every
 * SM's resident CTAs (the fake's 2 of 132 SMs); f32 doubles the staging area. */
START_TEST(grouped_dequantize_sizes_the_grid_by_the_strips) {
  enum { MOE = 64 };
  nvfp4_tensor in[MOE];
  void *out[MOE];
  int64_t ld[MOE];
  uint32_t strips = 0, with_rows = 0;
  for (int g = 0; g < MOE; g++) {
    int64_t rows = (g * 7) % 25;
    in[g] = (nvfp4_tensor){data, scales, rows, 2048, 1, 1024, 0, 0, 0, BLK};
    out[g] = outputs;
    ld[g] = 2048;
    strips += (uint32_t)rows * 2;
    with_rows += rows > 0;
  }
  ck_assert_msg(nvfp4i_grouped_dequantize(fake_handle, MOE, in, out, ld, F16, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  const unsigned char *p = grouped_launch(0, (strips + 7) / 8, 2);
  ck_assert_uint_eq(param_u32(p, GDQ_P_NUM_GROUPS), with_rows);
  ck_assert_uint_eq(param_u32(p, GDQ_P_TOTAL_STRIPS), strips);
  for (int g = 0; g < 8; g++) in[g] = (nvfp4_tensor){data, scales, 1000, 16384, 1, 8192, 0, 1024, 0, LIN};
  for (int g = 0; g < 8; g++) ld[g] = 16384;
  ck_assert_msg(nvfp4i_grouped_dequantize(fake_handle, 8, in, out, ld, F32, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_uint_eq(param_u32(grouped_launch(1, 132 * 2, 4), GDQ_P_TOTAL_STRIPS), 8 * 1000 * 16);
}
END_TEST

/* 300 groups, every third empty: the first launch takes the first GDQ_MAX_GROUPS groups with rows, the second
 * the rest, its strips numbered from 0 again. */
START_TEST(grouped_dequantize_launches_again_past_the_block) {
  enum { MANY = 400 };
  nvfp4_tensor in[MANY];
  void *out[MANY];
  int64_t ld[MANY];
  int first_of_second = -1, with_rows = 0;
  for (int g = 0; g < MANY; g++) {
    in[g] = (nvfp4_tensor){data, scales, g % 3 == 2 ? 0 : 1 + g % 5, 1024 * (1 + g % 2), 1, 1024, 0, 128, 0, LIN};
    out[g] = outputs + 2 * (g % 8);
    ld[g] = 2048;
    if (in[g].rows > 0 && with_rows++ == GDQ_MAX_GROUPS) first_of_second = g;
  }
  ck_assert_msg(first_of_second >= 0, "the data has only %d groups with rows", with_rows);
  ck_assert_msg(nvfp4i_grouped_dequantize(fake_handle, MANY, in, out, ld, F16, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2);
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(0, &entry, &config);
  ck_assert_uint_eq(param_u32(p, GDQ_P_NUM_GROUPS), GDQ_MAX_GROUPS);
  ck_assert_uint_eq(gdesc_u64(p, 0, GDQ_D_OUT), (uintptr_t)out[0]);
  ck_assert_uint_eq(gdesc_u64(p, 2, GDQ_D_OUT), (uintptr_t)out[3]); /* group 2 is empty */
  p = fake_launch(1, &entry, &config);
  ck_assert_uint_eq(param_u32(p, GDQ_P_NUM_GROUPS), (uint32_t)(with_rows - GDQ_MAX_GROUPS));
  ck_assert_uint_eq(start_u32(p, 0), 0);
  ck_assert_uint_eq(gdesc_u64(p, 0, GDQ_D_OUT), (uintptr_t)out[first_of_second]);
  ck_assert_uint_eq(start_u32(p, 1), (uint32_t)in[first_of_second].rows * (uint32_t)(in[first_of_second].k / 1024));
}
END_TEST

/* The grouped entry's walk in C, from the parameter block of a launch of `ctas` CTAs: warp w of the grid takes
 * strips w, w + W, ..., finds each one's group as the kernel does (a binary search of strip_start from the
 * warp's previous group), divides for the row, and its lanes decode their chunks (16 data bytes, two scale
 * bytes) into the group's destination. The addresses are host memory here. */
static void run_kernel_in_c(const unsigned char *p, uint32_t ctas) {
  uint32_t groups = param_u32(p, GDQ_P_NUM_GROUPS), total = param_u32(p, GDQ_P_TOTAL_STRIPS);
  uint32_t warps = ctas * DEQ_WARPS;
  nvfp4_dtype dtype = (nvfp4_dtype)param_u32(p, GDQ_P_OUT_DTYPE);
  for (uint32_t w = 0; w < warps; w++)
    for (uint32_t u = w, g = 0; u < total; u += warps) {
      uint32_t hi = groups - 1;
      while (g < hi) {
        uint32_t mid = (g + hi + 1) / 2;
        if (start_u32(p, (int)mid) <= u)
          g = mid;
        else
          hi = mid - 1;
      }
      int d = (int)g;
      uint32_t local = u - start_u32(p, d), spr = gdesc_u32(p, d, GDQ_D_STRIPS_PER_ROW);
      uint32_t row = local / spr, strip = local % spr;
      const uint8_t *row_data =
          (const uint8_t *)(uintptr_t)(gdesc_u64(p, d, GDQ_D_IN) + row * gdesc_u64(p, d, GDQ_D_IN_LD));
      const uint8_t *row_sf = (const uint8_t *)(uintptr_t)(gdesc_u64(p, d, GDQ_D_IN_SF) +
                                                           (row >> 7) * gdesc_u64(p, d, GDQ_D_SF_ROW_STEP128) +
                                                           ((row >> 5) & 3) * gdesc_u64(p, d, GDQ_D_SF_ROW_STEP32) +
                                                           (row & 31) * gdesc_u64(p, d, GDQ_D_SF_ROW_STEP1));
      void *row_out = (void *)(uintptr_t)(gdesc_u64(p, d, GDQ_D_OUT) + row * gdesc_u64(p, d, GDQ_D_OUT_LD_BYTES));
      for (uint32_t lane = 0; lane < 32; lane++) {
        uint32_t chunk = 32 * strip + lane;
        if (chunk >= gdesc_u32(p, d, GDQ_D_CHUNKS_PER_ROW)) continue;
        const uint8_t *sf = row_sf + (chunk / 2) * gdesc_u32(p, d, GDQ_D_SF_PAIR_STEP) + (chunk % 2) * 2;
        for (uint32_t i = 0; i < 32; i++) {
          uint8_t byte = row_data[16 * chunk + i / 2];
          double v = nvfp4i_e2m1_value(i % 2 ? byte >> 4 : byte & 15u) * nvfp4i_e4m3_value(sf[i / 16]);
          nvfp4i_output_store(dtype, row_out, 32 * (int64_t)chunk + i, v);
        }
      }
    }
}

/* A walk: `groups` groups, group g of rows[g % 5] rows, K = k[g % 3], scale layout layouts[g % 2]; data rows 16
 * bytes and LINEAR scale rows 3 bytes longer than needed, random bytes everywhere (every code, every scale,
 * NaN among them); destinations of ld = K + out_pad in one buffer, 64 poisoned bytes apart, odd groups
 * out_offset bytes past a 16-byte boundary. */
static const struct {
  int groups;
  int64_t rows[5], k[3];
  nvfp4_sf_layout layouts[2];
  nvfp4_dtype dtype;
  int64_t out_pad, out_offset;
} walks[] = {
    {1, {1, 1, 1, 1, 1}, {32, 32, 32}, {LIN, LIN}, F16, 0, 0},
    {3, {300, 0, 7, 0, 0}, {544, 7168, 96}, {LIN, BLK}, BF16, 8, 2},
    {8, {80, 176, 128, 72, 64}, {7168, 7168, 7168}, {LIN, BLK}, F16, 8, 0},
    {64, {3, 0, 24, 17, 9}, {2048, 2048, 2048}, {BLK, BLK}, F32, 3, 4},
    {300, {2, 3, 5, 1, 24}, {1024, 96, 544}, {LIN, BLK}, BF16, 1, 2},
    {5, {4000, 1, 2000, 129, 33}, {2048, 32, 1056}, {BLK, LIN}, F16, 8, 6},
};

/* The kernel's walk (in C) of every launch of a call, and the reference, on buffers poisoned alike: every
 * byte equal, between rows and destinations too. */
START_TEST(grouped_dequantize_walk_matches_the_reference) {
  int groups = walks[_i].groups, esize = nvfp4i_dtype_size(walks[_i].dtype);
  nvfp4i_rng rng = {0x67647175u + (uint64_t)_i};
  nvfp4_tensor *in = calloc((size_t)groups, sizeof *in);
  void **out = calloc((size_t)groups, sizeof *out);
  int64_t *ld = calloc((size_t)groups, sizeof *ld), *at = calloc((size_t)groups, sizeof *at), bytes = 0;
  int with_rows = 0;
  for (int g = 0; g < groups; g++) {
    nvfp4_tensor *t = &in[g];
    int64_t rows = walks[_i].rows[g % 5], k = walks[_i].k[g % 3];
    nvfp4_sf_layout layout = walks[_i].layouts[g % 2];
    int64_t sf_ld = layout == LIN ? k / 16 + 3 : 0;
    *t = (nvfp4_tensor){NULL, NULL, rows, k, 1, k / 2 + 16, 0, sf_ld, 0, layout};
    ld[g] = k + walks[_i].out_pad;
    at[g] = (bytes + 64 + 15) / 16 * 16 + (g % 2 ? walks[_i].out_offset : 0);
    bytes = at[g] + (rows > 0 ? ((rows - 1) * ld[g] + k) * esize : 0);
    if (rows == 0) continue;
    with_rows++;
    size_t data_bytes = (size_t)(rows * t->ld), sf_bytes = (size_t)nvfp4i_sf_batch_bytes(layout, sf_ld, rows, k);
    uint8_t *d = aligned_alloc(16, data_bytes), *s = malloc(sf_bytes);
    for (size_t i = 0; i < data_bytes; i++) d[i] = (uint8_t)nvfp4i_rng_next(&rng);
    for (size_t i = 0; i < sf_bytes; i++) s[i] = (uint8_t)nvfp4i_rng_next(&rng);
    t->data = d;
    t->scales = s;
  }
  bytes += 64;
  uint8_t *got = aligned_alloc(16, (size_t)(bytes + 15) / 16 * 16), *want = malloc((size_t)bytes);
  memset(got, 0xFF, (size_t)bytes);
  memset(want, 0xFF, (size_t)bytes);
  for (int g = 0; g < groups; g++) out[g] = got + at[g];
  ck_assert_msg(
      nvfp4i_grouped_dequantize(fake_handle, groups, in, out, ld, walks[_i].dtype, NULL) == NVFP4_STATUS_SUCCESS,
      "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), (with_rows + GDQ_MAX_GROUPS - 1) / GDQ_MAX_GROUPS);
  for (long i = 0; i < fake_launches(); i++) {
    const char *entry;
    CUlaunchConfig config;
    const unsigned char *p = fake_launch(i, &entry, &config);
    run_kernel_in_c(p, config.gridDimX);
  }
  for (int g = 0; g < groups; g++) {
    if (in[g].rows == 0) continue;
    nvfp4_output ref_out = {want + at[g], ld[g], 0, walks[_i].dtype};
    nvfp4i_dequantize_ref(&in[g], &ref_out);
  }
  int64_t first = 0; /* one assertion: a forked Check test reports every assertion it passes */
  while (first < bytes && got[first] == want[first]) first++;
  ck_assert_msg(first == bytes, "walk %d (%d groups): byte %lld = 0x%02x, expected 0x%02x", _i, groups,
                (long long)first, first < bytes ? got[first] : 0, first < bytes ? want[first] : 0);
  for (int g = 0; g < groups; g++) {
    free((void *)in[g].data);
    free((void *)in[g].scales);
  }
  free(got);
  free(want);
  free(in);
  free(out);
  free(ld);
  free(at);
}
END_TEST

/* An image without the grouped entry (an NVFP4_FATBIN of another family) refuses a call with rows before
 * launching anything. */
START_TEST(an_image_without_the_grouped_entry_refuses_it) {
  setenv("FAKE_CUDA_MISSING", GDQ_ENTRY_NAME, 1);
  create_fake_handle();
  gdq_args a = valid_args();
  assert_refused_for_missing_entry(GDQ_ENTRY_NAME, call(&a));
  destroy_fake_handle();
}
END_TEST

/* The GPU suite's check where nothing computes (the fake driver's launch does nothing): every element is
 * reported unwritten, so the check cannot pass on outputs it did not see written. */
START_TEST(the_gpu_check_fails_where_nothing_is_written) {
  nvfp4i_grouped_dequantize_case c = {
      .groups = 4,
      .rows = (const int64_t[]){3, 0, 7},
      .rows_count = 3,
      .k = (const int64_t[]){544, 96},
      .k_count = 2,
      .layouts = (const nvfp4_sf_layout[]){LIN, BLK},
      .layout_count = 2,
      .dtype = BF16,
      .seed = 5,
      .out_pad = 8,
      .out_offset = 2,
      .special_rows = 1,
  };
  nvfp4i_verdict v;
  ck_assert_int_eq(nvfp4i_cuda()->cuCtxSetCurrent(fake_handle->ctx), CUDA_SUCCESS);
  ck_assert_int_eq(nvfp4i_verify_grouped_dequantize(fake_handle, &c, &v), 0);
  ck_assert_msg(v.status == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(v.checked, 3 * 544 + 7 * 544 + 3 * 96); /* groups 0, 2, 3; group 1 is empty */
  ck_assert_int_eq(v.failures, v.checked);
  ck_assert_int_eq(v.clobbered, 0);
  ck_assert_int_eq(fake_launches(), 1);
}
END_TEST

Suite *grouped_dequantize_suite(void) {
  Suite *s = suite_create("grouped_dequantize");
  TCase *checks = tcase_create("grouped dequantize checks");
  tcase_add_checked_fixture(checks, create_fake_handle, destroy_fake_handle);
  tcase_add_test(checks, grouped_dequantize_launches_once_for_valid_arguments);
  tcase_add_loop_test(checks, grouped_dequantize_rejects_bad_arguments, 0, (int)(sizeof cases / sizeof cases[0]));
  tcase_add_test(checks, grouped_dequantize_launches_nothing_without_rows);
  tcase_add_test(checks, grouped_dequantize_checks_every_group_before_the_first_launch);
  tcase_add_test(checks, grouped_dequantize_refuses_more_than_2_31_strips_a_launch);
  suite_add_tcase(s, checks);
  TCase *launches = tcase_create("grouped dequantize launches");
  tcase_add_checked_fixture(launches, create_fake_handle, destroy_fake_handle);
  tcase_add_test(launches, grouped_dequantize_describes_the_groups_with_rows_in_order);
  tcase_add_test(launches, grouped_dequantize_b_tiles_pad_k_and_step_by_column_blocks);
  tcase_add_test(launches, grouped_dequantize_sizes_the_grid_by_the_strips);
  tcase_add_test(launches, grouped_dequantize_launches_again_past_the_block);
  tcase_add_loop_test(launches, grouped_dequantize_walk_matches_the_reference, 0,
                      (int)(sizeof walks / sizeof walks[0]));
  tcase_add_test(launches, the_gpu_check_fails_where_nothing_is_written);
  suite_add_tcase(s, launches);
  TCase *images = tcase_create("grouped dequantize from an image without its entry");
  tcase_add_test(images, an_image_without_the_grouped_entry_refuses_it);
  suite_add_tcase(s, images);
  return s;
}
