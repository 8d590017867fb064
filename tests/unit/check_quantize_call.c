/* nvfp4_quantize without a GPU, on the fake driver (tests/fake/libcuda.c): every validation path (right
 * status, the field named, nothing launched), the launch as the kernel reads it (quantize_layout.h's
 * parameter block: strides in bytes, the walk over BLOCKED padding, the grid's step, the load path), and an
 * image without the entry. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fake_driver.h"
#include "sm90a/quantize_layout.h"
#include "suites.h"

#define F16 NVFP4_DTYPE_F16
#define BF16 NVFP4_DTYPE_BF16
#define F32 NVFP4_DTYPE_F32
#define QNT_ENTRY_NAME "nvfp4_quantize_sm90a"

enum { ROWS = 300, K = 544, BATCH = 3, IN_LD = K + 8 };

/* Fake device memory: the fake driver reads none of it, the library only looks at the addresses. */
static _Alignas(16) uint8_t inputs[64], data[64], scales[16];

typedef struct qnt_args {
  nvfp4_handle *h;
  nvfp4_dense in;
  nvfp4_tensor out;
  float g;
  int null_in, null_out;
} qnt_args;

static qnt_args valid_args(void) {
  return (qnt_args){
      .h = fake_handle,
      .in = {inputs, ROWS, K, BATCH, IN_LD, ROWS * IN_LD + 8, BF16},
      .out = {data, scales, ROWS, K, BATCH, K / 2 + 16, ROWS * (K / 2 + 16), K / 16 + 3, ROWS * (K / 16 + 3),
              NVFP4_SF_LINEAR},
      .g = 1.0f,
  };
}

static nvfp4_status call(const qnt_args *q) {
  return nvfp4_quantize(q->h, q->null_in ? NULL : &q->in, q->null_out ? NULL : &q->out, q->g, NULL);
}

typedef struct qnt_case {
  const char *what;
  void (*edit)(qnt_args *);
  nvfp4_status expected;
  const char *message; /* must appear in nvfp4_last_error() */
} qnt_case;

#define EDIT(name, body) \
  static void name(qnt_args *q) { body; }
EDIT(no_handle, q->h = NULL)
EDIT(no_in, q->null_in = 1)
EDIT(no_out, q->null_out = 1)
EDIT(g_zero, q->g = 0.0f)
EDIT(g_negative, q->g = -2.0f)
EDIT(g_nan, q->g = NAN)
EDIT(g_inf, q->g = INFINITY)
EDIT(in_dtype_bad, q->in.dtype = (nvfp4_dtype)3)
EDIT(in_rows_zero, q->in.rows = 0)
EDIT(in_k_not_32, q->in.k = 48; q->out.k = 48)
EDIT(in_batch_zero, q->in.batch = 0)
EDIT(in_data_null, q->in.data = NULL)
EDIT(in_data_odd, q->in.data = inputs + 1)
EDIT(in_f32_off_4, q->in.dtype = F32; q->in.data = inputs + 2)
EDIT(in_ld_small, q->in.ld = K - 1)
EDIT(in_batches_overlap, q->in.batch_stride = (ROWS - 1) * IN_LD + K - 1)
EDIT(out_data_null, q->out.data = NULL)
EDIT(out_scales_null, q->out.scales = NULL)
EDIT(out_ld_small, q->out.ld = K / 2 - 16)
EDIT(out_sf_ld_small, q->out.sf_ld = K / 16 - 1)
EDIT(out_layout_bad, q->out.sf_layout = (nvfp4_sf_layout)2)
EDIT(out_rows_differ, q->out.rows = ROWS - 1)
EDIT(out_k_differs, q->out.k = K + 32)
EDIT(out_batch_differs, q->out.batch = 1)
EDIT(out_data_not_16, q->out.data = data + 8)
EDIT(out_ld_not_16, q->out.ld = K / 2 + 8)

static const qnt_case cases[] = {
    {"NULL handle", no_handle, NVFP4_STATUS_INVALID_VALUE, "h is NULL"},
    {"NULL in", no_in, NVFP4_STATUS_INVALID_VALUE, "in is NULL"},
    {"NULL out", no_out, NVFP4_STATUS_INVALID_VALUE, "out is NULL"},
    {"global_scale 0", g_zero, NVFP4_STATUS_INVALID_VALUE, "global_scale = 0: must be finite and > 0"},
    {"global_scale < 0", g_negative, NVFP4_STATUS_INVALID_VALUE, "global_scale = -2"},
    {"global_scale NaN", g_nan, NVFP4_STATUS_INVALID_VALUE, "global_scale = nan"},
    {"global_scale inf", g_inf, NVFP4_STATUS_INVALID_VALUE, "global_scale = inf"},
    {"in.dtype unknown", in_dtype_bad, NVFP4_STATUS_INVALID_VALUE, "in.dtype = 3"},
    {"in.rows 0", in_rows_zero, NVFP4_STATUS_INVALID_VALUE, "in.rows = 0"},
    {"k not a multiple of 32", in_k_not_32, NVFP4_STATUS_NOT_SUPPORTED, "in.k = 48: only multiples of 32"},
    {"in.batch 0", in_batch_zero, NVFP4_STATUS_INVALID_VALUE, "in.batch = 0"},
    {"in.data NULL", in_data_null, NVFP4_STATUS_INVALID_VALUE, "in.data is NULL"},
    {"in.data off its bf16 elements", in_data_odd, NVFP4_STATUS_INVALID_VALUE, "not aligned to its 2-byte"},
    {"in.data off its f32 elements", in_f32_off_4, NVFP4_STATUS_INVALID_VALUE, "not aligned to its 4-byte"},
    {"in.ld < k", in_ld_small, NVFP4_STATUS_INVALID_VALUE, "in.ld = 543"},
    {"in batches overlap", in_batches_overlap, NVFP4_STATUS_INVALID_VALUE, "in.batch_stride = "},
    {"out.data NULL", out_data_null, NVFP4_STATUS_INVALID_VALUE, "out.data is NULL"},
    {"out.scales NULL", out_scales_null, NVFP4_STATUS_INVALID_VALUE, "out.scales is NULL"},
    {"out.ld < k/2", out_ld_small, NVFP4_STATUS_INVALID_VALUE, "out.ld = 256"},
    {"out.sf_ld < k/16", out_sf_ld_small, NVFP4_STATUS_INVALID_VALUE, "out.sf_ld = 33"},
    {"out.sf_layout unknown", out_layout_bad, NVFP4_STATUS_INVALID_VALUE, "out.sf_layout = 2"},
    {"out.rows != in.rows", out_rows_differ, NVFP4_STATUS_INVALID_VALUE, "out.rows = 299: must equal in.rows"},
    {"out.k != in.k", out_k_differs, NVFP4_STATUS_INVALID_VALUE, "out.k = 576: must equal in.k"},
    {"out.batch != in.batch", out_batch_differs, NVFP4_STATUS_INVALID_VALUE, "out.batch = 1: must equal in.batch"},
    {"out.data not 16-byte aligned", out_data_not_16, NVFP4_STATUS_NOT_SUPPORTED, "out: data"},
    {"out.ld not a multiple of 16", out_ld_not_16, NVFP4_STATUS_NOT_SUPPORTED, "ld (280)"},
};

START_TEST(quantize_launches_once_for_valid_arguments) {
  for (int dtype = F16; dtype <= F32; dtype++) {
    qnt_args q = valid_args();
    q.in.dtype = (nvfp4_dtype)dtype;
    ck_assert_msg(call(&q) == NVFP4_STATUS_SUCCESS, "dtype %d: %s", dtype, nvfp4_last_error());
    CUlaunchConfig config;
    fake_last_launch(&config);
    /* programmatic dependent launch: the kernel waits for the one before it before its first load */
    assert_launched_early(&config, 1, "nvfp4_quantize");
  }
  ck_assert_int_eq(fake_launches(), 3);
}
END_TEST

START_TEST(quantize_rejects_bad_arguments) {
  const qnt_case *c = &cases[_i];
  qnt_args q = valid_args();
  c->edit(&q);
  nvfp4_status s = call(&q);
  assert_rejected(c->what, s, c->expected, c->message);
}
END_TEST

static float param_f32(const unsigned char *block, int offset) {
  float v;
  memcpy(&v, block + offset, sizeof v);
  return v;
}

/* The last launch: the quantize entry, QNT_THREADS threads, `ctas` CTAs, no shared memory. */
static const unsigned char *quantize_launch(uint32_t ctas) {
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(fake_launches() - 1, &entry, &config);
  ck_assert_str_eq(entry, QNT_ENTRY_NAME);
  ck_assert_uint_eq(config.blockDimX, QNT_THREADS);
  ck_assert_uint_eq(config.blockDimY * config.blockDimZ * config.gridDimY * config.gridDimZ, 1);
  ck_assert_uint_eq(config.gridDimX, ctas);
  ck_assert_uint_eq(config.sharedMemBytes, 0);
  return p;
}

/* Three batches of 300 rows of K = 544 (68 groups, one strip a row), bf16 input with padded rows and
 * batches, LINEAR scales with padded rows: 900 strips, 113 CTAs of 8 warps (fewer than the fake's 132 SMs
 * x 2). */
START_TEST(quantize_passes_strides_in_bytes_and_the_grid_step) {
  qnt_args q = valid_args();
  q.g = 3.5f;
  ck_assert_msg(call(&q) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  const unsigned char *p = quantize_launch(113);
  ck_assert_uint_eq(param_u64(p, QNT_P_IN), (uintptr_t)inputs);
  ck_assert_uint_eq(param_u64(p, QNT_P_OUT), (uintptr_t)data);
  ck_assert_uint_eq(param_u64(p, QNT_P_OUT_SF), (uintptr_t)scales);
  ck_assert_uint_eq(param_u64(p, QNT_P_IN_LD_BYTES), IN_LD * 2);
  ck_assert_uint_eq(param_u64(p, QNT_P_IN_BATCH_BYTES), (ROWS * IN_LD + 8) * 2);
  ck_assert_uint_eq(param_u64(p, QNT_P_OUT_LD), K / 2 + 16);
  ck_assert_uint_eq(param_u64(p, QNT_P_OUT_BATCH_STRIDE), ROWS * (K / 2 + 16));
  ck_assert_uint_eq(param_u64(p, QNT_P_SF_BATCH_STRIDE), ROWS * (K / 16 + 3));
  ck_assert_uint_eq(param_u64(p, QNT_P_SF_ROW_STEP128), 128 * (K / 16 + 3));
  ck_assert_uint_eq(param_u64(p, QNT_P_SF_ROW_STEP32), 32 * (K / 16 + 3));
  ck_assert_uint_eq(param_u64(p, QNT_P_SF_ROW_STEP1), K / 16 + 3);
  ck_assert_uint_eq(param_u64(p, QNT_P_BATCH), BATCH);
  ck_assert_uint_eq(param_u32(p, QNT_P_ROWS), ROWS);
  ck_assert_uint_eq(param_u32(p, QNT_P_WALK_ROWS), ROWS);
  ck_assert_uint_eq(param_u32(p, QNT_P_GROUPS_PER_ROW), K / 8);
  ck_assert_uint_eq(param_u32(p, QNT_P_SF_BLOCKS), K / 16);
  ck_assert_uint_eq(param_u32(p, QNT_P_STRIPS_PER_ROW), 1);
  ck_assert_uint_eq(param_u32(p, QNT_P_SF_QUAD_STEP), 4);
  /* 904 warps: a step of 904 rows = 3 batches and 4 rows */
  ck_assert_uint_eq(param_u32(p, QNT_P_STEP_STRIPS), 0);
  ck_assert_uint_eq(param_u32(p, QNT_P_STEP_ROWS), 4);
  ck_assert_uint_eq(param_u32(p, QNT_P_STEP_BATCHES), 3);
  ck_assert_uint_eq(param_u32(p, QNT_P_IN_DTYPE), QNT_DTYPE_BF16);
  ck_assert_uint_eq(param_u32(p, QNT_P_VECTOR_LOADS), 1); /* 1104-byte rows, 16-byte aligned batches */
  ck_assert(param_f32(p, QNT_P_GLOBAL_SCALE) == 3.5f);
}
END_TEST

/* BLOCKED scales: the warps walk the padding too, rows up to a multiple of 128 and blocks up to a multiple
 * of 4: 300 rows -> 384, K = 544 (34 blocks) -> 36 blocks. */
START_TEST(quantize_walks_blocked_padding) {
  qnt_args q = valid_args();
  q.out.sf_layout = NVFP4_SF_BLOCKED_128x4;
  q.out.sf_batch_stride = 3 * 9 * 512;
  ck_assert_msg(call(&q) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  const unsigned char *p = quantize_launch(144); /* 1152 strips, fewer than the 2112 resident warps */
  ck_assert_uint_eq(param_u32(p, QNT_P_ROWS), ROWS);
  ck_assert_uint_eq(param_u32(p, QNT_P_WALK_ROWS), 384);
  ck_assert_uint_eq(param_u32(p, QNT_P_GROUPS_PER_ROW), K / 8);
  ck_assert_uint_eq(param_u32(p, QNT_P_SF_BLOCKS), 36);
  ck_assert_uint_eq(param_u32(p, QNT_P_STRIPS_PER_ROW), 1);
  ck_assert_uint_eq(param_u64(p, QNT_P_SF_ROW_STEP128), 9 * 512);
  ck_assert_uint_eq(param_u64(p, QNT_P_SF_ROW_STEP32), 4);
  ck_assert_uint_eq(param_u64(p, QNT_P_SF_ROW_STEP1), 16);
  ck_assert_uint_eq(param_u32(p, QNT_P_SF_QUAD_STEP), 512);
  /* 1152 warps: a step of 3 batches */
  ck_assert_uint_eq(param_u32(p, QNT_P_STEP_STRIPS), 0);
  ck_assert_uint_eq(param_u32(p, QNT_P_STEP_ROWS), 0);
  ck_assert_uint_eq(param_u32(p, QNT_P_STEP_BATCHES), 3);
}
END_TEST

/* The load path: 16-byte loads only where every input row starts 16-byte aligned (a single row or batch
 * needs no aligned ld or batch stride); an element-aligned input takes element loads, never an error. */
START_TEST(quantize_takes_element_loads_where_an_input_row_is_off_16_bytes) {
  qnt_args q = valid_args();
  q.in.data = inputs + 2;
  ck_assert_msg(call(&q) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_uint_eq(param_u32(quantize_launch(113), QNT_P_VECTOR_LOADS), 0);
  q = valid_args();
  q.in.ld = K + 1;
  ck_assert_msg(call(&q) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_uint_eq(param_u32(quantize_launch(113), QNT_P_VECTOR_LOADS), 0);
  q = valid_args();
  q.in.batch_stride = ROWS * IN_LD + 4;
  ck_assert_msg(call(&q) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_uint_eq(param_u32(quantize_launch(113), QNT_P_VECTOR_LOADS), 0);
  q = valid_args();
  q.in.dtype = F32;
  q.in.ld = K + 4; /* 16-byte multiple in f32 */
  q.in.batch_stride = ROWS * (K + 4);
  ck_assert_msg(call(&q) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  const unsigned char *p = quantize_launch(113);
  ck_assert_uint_eq(param_u32(p, QNT_P_VECTOR_LOADS), 1);
  ck_assert_uint_eq(param_u32(p, QNT_P_IN_DTYPE), QNT_DTYPE_F32);
  ck_assert_uint_eq(param_u64(p, QNT_P_IN_LD_BYTES), (K + 4) * 4);
}
END_TEST

/* An image without the quantize entry (an NVFP4_FATBIN of another family) refuses it before launching. */
START_TEST(an_image_without_quantize_refuses_it) {
  setenv("FAKE_CUDA_MISSING", QNT_ENTRY_NAME, 1);
  create_fake_handle();
  qnt_args q = valid_args();
  assert_refused_for_missing_entry(QNT_ENTRY_NAME, call(&q));
  destroy_fake_handle();
}
END_TEST

Suite *quantize_call_suite(void) {
  Suite *s = suite_create("quantize_call");
  TCase *validation = tcase_create("quantize validation");
  tcase_add_checked_fixture(validation, create_fake_handle, destroy_fake_handle);
  tcase_add_test(validation, quantize_launches_once_for_valid_arguments);
  tcase_add_loop_test(validation, quantize_rejects_bad_arguments, 0, (int)(sizeof cases / sizeof cases[0]));
  suite_add_tcase(s, validation);
  TCase *launches = tcase_create("quantize launches");
  tcase_add_checked_fixture(launches, create_fake_handle, destroy_fake_handle);
  tcase_add_test(launches, quantize_passes_strides_in_bytes_and_the_grid_step);
  tcase_add_test(launches, quantize_walks_blocked_padding);
  tcase_add_test(launches, quantize_takes_element_loads_where_an_input_row_is_off_16_bytes);
  suite_add_tcase(s, launches);
  TCase *images = tcase_create("quantize from an image without its entry");
  tcase_add_test(images, an_image_without_quantize_refuses_it);
  suite_add_tcase(s, images);
  return s;
}
