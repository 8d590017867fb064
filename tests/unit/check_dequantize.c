/* nvfp4_dequantize without a GPU, on the fake driver (tests/fake/libcuda.c): every validation path (right
 * status, the field named, nothing launched), the launch as the kernel reads it (dequantize_layout.h's
 * parameter block: strides in bytes, scale steps of both layouts, the grid's step, the store path), and an
 * image without the entry. */
#include <stdlib.h>
#include <string.h>

#include "fake_driver.h"
#include "sm90a/dequantize_layout.h"
#include "suites.h"

#define F16 NVFP4_DTYPE_F16
#define BF16 NVFP4_DTYPE_BF16
#define F32 NVFP4_DTYPE_F32
#define DEQ_ENTRY_NAME "nvfp4_dequantize_sm90a"

enum { ROWS = 300, K = 544, BATCH = 3, OUT_LD = K + 8 };

/* Fake device memory: the fake driver reads none of it, the library only looks at the addresses. */
static _Alignas(16) uint8_t data[64], scales[16], outputs[64];

typedef struct deq_args {
  nvfp4_handle *h;
  nvfp4_tensor in;
  nvfp4_output out;
  int null_in, null_out;
} deq_args;

static deq_args valid_args(void) {
  return (deq_args){
      .h = fake_handle,
      .in = {data, scales, ROWS, K, BATCH, K / 2 + 16, ROWS * (K / 2 + 16), K / 16 + 3, ROWS * (K / 16 + 3),
             NVFP4_SF_LINEAR},
      .out = {outputs, OUT_LD, ROWS * OUT_LD + 8, F16},
  };
}

static nvfp4_status call(const deq_args *d) {
  return nvfp4_dequantize(d->h, d->null_in ? NULL : &d->in, d->null_out ? NULL : &d->out, NULL);
}

typedef struct deq_case {
  const char *what;
  void (*edit)(deq_args *);
  nvfp4_status expected;
  const char *message; /* must appear in nvfp4_last_error() */
} deq_case;

#define EDIT(name, body) \
  static void name(deq_args *d) { body; }
EDIT(no_handle, d->h = NULL)
EDIT(no_in, d->null_in = 1)
EDIT(no_out, d->null_out = 1)
EDIT(in_rows_zero, d->in.rows = 0)
EDIT(in_rows_huge, d->in.rows = (int64_t)1 << 31)
EDIT(in_k_zero, d->in.k = 0)
EDIT(in_k_not_32, d->in.k = 48)
EDIT(in_batch_zero, d->in.batch = 0)
EDIT(in_data_null, d->in.data = NULL)
EDIT(in_scales_null, d->in.scales = NULL)
EDIT(in_ld_small, d->in.ld = K / 2 - 16)
EDIT(in_batch_stride_negative, d->in.batch_stride = -16)
EDIT(in_sf_batch_stride_negative, d->in.sf_batch_stride = -1)
EDIT(in_sf_ld_small, d->in.sf_ld = K / 16 - 1)
EDIT(in_layout_bad, d->in.sf_layout = (nvfp4_sf_layout)2)
EDIT(in_data_not_16, d->in.data = data + 8)
EDIT(in_ld_not_16, d->in.ld = K / 2 + 8)
EDIT(in_batch_stride_not_16, d->in.batch_stride = ROWS * (K / 2 + 16) + 4)
EDIT(out_data_null, d->out.data = NULL)
EDIT(out_dtype_bad, d->out.dtype = (nvfp4_dtype)3)
EDIT(out_data_odd, d->out.data = outputs + 1)
EDIT(out_f32_off_4, d->out.dtype = F32; d->out.data = outputs + 2)
EDIT(out_ld_small, d->out.ld = K - 1)
EDIT(out_batches_overlap, d->out.batch_stride = (ROWS - 1) * OUT_LD + K - 1)

static const deq_case cases[] = {
    {"NULL handle", no_handle, NVFP4_STATUS_INVALID_VALUE, "h is NULL"},
    {"NULL in", no_in, NVFP4_STATUS_INVALID_VALUE, "in is NULL"},
    {"NULL out", no_out, NVFP4_STATUS_INVALID_VALUE, "out is NULL"},
    {"in.rows 0", in_rows_zero, NVFP4_STATUS_INVALID_VALUE, "in.rows = 0"},
    {"in.rows 2^31", in_rows_huge, NVFP4_STATUS_INVALID_VALUE, "in.rows = 2147483648"},
    {"in.k 0", in_k_zero, NVFP4_STATUS_INVALID_VALUE, "in.k = 0"},
    {"k not a multiple of 32", in_k_not_32, NVFP4_STATUS_NOT_SUPPORTED, "in.k = 48: only multiples of 32"},
    {"in.batch 0", in_batch_zero, NVFP4_STATUS_INVALID_VALUE, "in.batch = 0"},
    {"in.data NULL", in_data_null, NVFP4_STATUS_INVALID_VALUE, "in.data is NULL"},
    {"in.scales NULL", in_scales_null, NVFP4_STATUS_INVALID_VALUE, "in.scales is NULL"},
    {"in.ld < k/2", in_ld_small, NVFP4_STATUS_INVALID_VALUE, "in.ld = 256"},
    {"in.batch_stride < 0", in_batch_stride_negative, NVFP4_STATUS_INVALID_VALUE, "in.batch_stride = -16"},
    {"in.sf_batch_stride < 0", in_sf_batch_stride_negative, NVFP4_STATUS_INVALID_VALUE, "in.sf_batch_stride = -1"},
    {"in.sf_ld < k/16", in_sf_ld_small, NVFP4_STATUS_INVALID_VALUE, "in.sf_ld = 33"},
    {"in.sf_layout unknown", in_layout_bad, NVFP4_STATUS_INVALID_VALUE, "in.sf_layout = 2"},
    {"in.data not 16-byte aligned", in_data_not_16, NVFP4_STATUS_NOT_SUPPORTED, "in: data"},
    {"in.ld not a multiple of 16", in_ld_not_16, NVFP4_STATUS_NOT_SUPPORTED, "ld (280)"},
    {"in.batch_stride not a multiple of 16", in_batch_stride_not_16, NVFP4_STATUS_NOT_SUPPORTED,
     "batch_stride (86404)"},
    {"out.data NULL", out_data_null, NVFP4_STATUS_INVALID_VALUE, "out.data is NULL"},
    {"out.dtype unknown", out_dtype_bad, NVFP4_STATUS_INVALID_VALUE, "out.dtype = 3"},
    {"out.data off its f16 elements", out_data_odd, NVFP4_STATUS_INVALID_VALUE, "out.data = "},
    {"out.data off its f32 elements", out_f32_off_4, NVFP4_STATUS_INVALID_VALUE, "not aligned to its 4-byte"},
    {"out.ld < k", out_ld_small, NVFP4_STATUS_INVALID_VALUE, "out.ld = 543"},
    {"out batches overlap", out_batches_overlap, NVFP4_STATUS_INVALID_VALUE, "out.batch_stride = "},
};

START_TEST(dequantize_launches_once_for_valid_arguments) {
  deq_args d = valid_args();
  ck_assert_msg(call(&d) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
}
END_TEST

START_TEST(dequantize_rejects_bad_arguments) {
  const deq_case *c = &cases[_i];
  deq_args d = valid_args();
  c->edit(&d);
  nvfp4_status s = call(&d);
  assert_rejected(c->what, s, c->expected, c->message);
}
END_TEST

/* The last launch: the dequantize entry, DEQ_THREADS threads, `ctas` CTAs and the staging area of `esize`,
 * launched early (the entry waits for the kernel before it before its first load). */
static const unsigned char *dequantize_launch(uint32_t ctas, int esize) {
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(fake_launches() - 1, &entry, &config);
  ck_assert_str_eq(entry, DEQ_ENTRY_NAME);
  assert_launched_early(&config, 1, "nvfp4_dequantize");
  ck_assert_uint_eq(config.blockDimX, DEQ_THREADS);
  ck_assert_uint_eq(config.blockDimY * config.blockDimZ * config.gridDimY * config.gridDimZ, 1);
  ck_assert_uint_eq(config.gridDimX, ctas);
  ck_assert_uint_eq(config.sharedMemBytes, (unsigned)(DEQ_WARPS * 32 * 32 * esize));
  return p;
}

/* Three batches of 300 rows of K = 544 (17 chunks, one strip a row), LINEAR scales with padded rows, an f16
 * output with padded rows and batches: 900 strips, 113 CTAs of 8 warps (fewer than the fake's 132 SMs x 2). */
START_TEST(dequantize_passes_strides_in_bytes_and_the_grid_step) {
  deq_args d = valid_args();
  ck_assert_msg(call(&d) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  const unsigned char *p = dequantize_launch(113, 2);
  ck_assert_uint_eq(param_u64(p, DEQ_P_IN), (uintptr_t)data);
  ck_assert_uint_eq(param_u64(p, DEQ_P_IN_SF), (uintptr_t)scales);
  ck_assert_uint_eq(param_u64(p, DEQ_P_OUT), (uintptr_t)outputs);
  ck_assert_uint_eq(param_u64(p, DEQ_P_IN_LD), K / 2 + 16);
  ck_assert_uint_eq(param_u64(p, DEQ_P_IN_BATCH_STRIDE), ROWS * (K / 2 + 16));
  ck_assert_uint_eq(param_u64(p, DEQ_P_SF_BATCH_STRIDE), ROWS * (K / 16 + 3));
  ck_assert_uint_eq(param_u64(p, DEQ_P_SF_ROW_STEP128), 128 * (K / 16 + 3));
  ck_assert_uint_eq(param_u64(p, DEQ_P_SF_ROW_STEP32), 32 * (K / 16 + 3));
  ck_assert_uint_eq(param_u64(p, DEQ_P_SF_ROW_STEP1), K / 16 + 3);
  ck_assert_uint_eq(param_u64(p, DEQ_P_OUT_LD_BYTES), OUT_LD * 2);
  ck_assert_uint_eq(param_u64(p, DEQ_P_OUT_BATCH_BYTES), (ROWS * OUT_LD + 8) * 2);
  ck_assert_uint_eq(param_u64(p, DEQ_P_BATCH), BATCH);
  ck_assert_uint_eq(param_u32(p, DEQ_P_ROWS), ROWS);
  ck_assert_uint_eq(param_u32(p, DEQ_P_CHUNKS_PER_ROW), K / 32);
  ck_assert_uint_eq(param_u32(p, DEQ_P_STRIPS_PER_ROW), 1);
  ck_assert_uint_eq(param_u32(p, DEQ_P_SF_PAIR_STEP), 4);
  /* 904 warps: a step of 904 rows = 3 batches and 4 rows */
  ck_assert_uint_eq(param_u32(p, DEQ_P_STEP_STRIPS), 0);
  ck_assert_uint_eq(param_u32(p, DEQ_P_STEP_ROWS), 4);
  ck_assert_uint_eq(param_u32(p, DEQ_P_STEP_BATCHES), 3);
  ck_assert_uint_eq(param_u32(p, DEQ_P_OUT_DTYPE), DEQ_DTYPE_F16);
  ck_assert_uint_eq(param_u32(p, DEQ_P_VECTOR_STORES), 1); /* 1104-byte rows, 16-byte aligned batches */
}
END_TEST

/* 16384 x 16384 with BLOCKED scales to bf16: 16 strips a row, more strips than resident warps, so every
 * SM's 2 CTAs (the fake's occupancy), 2112 warps: a step of 132 rows. */
START_TEST(dequantize_fills_every_sm_and_steps_blocked_scales) {
  deq_args d = valid_args();
  d.in = (nvfp4_tensor){data, scales, 16384, 16384, 1, 8192, 0, 0, 0, NVFP4_SF_BLOCKED_128x4};
  d.out = (nvfp4_output){outputs, 16384, 0, BF16};
  ck_assert_msg(call(&d) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  const unsigned char *p = dequantize_launch(132 * 2, 2);
  ck_assert_uint_eq(param_u64(p, DEQ_P_SF_ROW_STEP128), 16384 / 64 * 512);
  ck_assert_uint_eq(param_u64(p, DEQ_P_SF_ROW_STEP32), 4);
  ck_assert_uint_eq(param_u64(p, DEQ_P_SF_ROW_STEP1), 16);
  ck_assert_uint_eq(param_u32(p, DEQ_P_SF_PAIR_STEP), 512);
  ck_assert_uint_eq(param_u32(p, DEQ_P_CHUNKS_PER_ROW), 512);
  ck_assert_uint_eq(param_u32(p, DEQ_P_STRIPS_PER_ROW), 16);
  ck_assert_uint_eq(param_u32(p, DEQ_P_STEP_STRIPS), 0);
  ck_assert_uint_eq(param_u32(p, DEQ_P_STEP_ROWS), 132);
  ck_assert_uint_eq(param_u32(p, DEQ_P_STEP_BATCHES), 0);
  ck_assert_uint_eq(param_u32(p, DEQ_P_OUT_DTYPE), DEQ_DTYPE_BF16);
  ck_assert_uint_eq(param_u32(p, DEQ_P_VECTOR_STORES), 1);
}
END_TEST

/* The store path: 16-byte stores only where every output row starts 16-byte aligned (a single row or batch
 * needs no aligned ld or batch stride); f32 doubles the staging area. */
START_TEST(dequantize_takes_narrow_stores_where_an_output_row_is_off_16_bytes) {
  deq_args d = valid_args();
  d.out.data = outputs + 2; /* f16, 2 bytes past a 16-byte boundary */
  ck_assert_msg(call(&d) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_uint_eq(param_u32(dequantize_launch(113, 2), DEQ_P_VECTOR_STORES), 0);
  d = valid_args();
  d.out.ld = K + 1; /* odd rows start off 16 bytes */
  ck_assert_msg(call(&d) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_uint_eq(param_u32(dequantize_launch(113, 2), DEQ_P_VECTOR_STORES), 0);
  d = valid_args();
  d.out.batch_stride = ROWS * OUT_LD + 4; /* the second batch starts off 16 bytes */
  ck_assert_msg(call(&d) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_uint_eq(param_u32(dequantize_launch(113, 2), DEQ_P_VECTOR_STORES), 0);
  d = valid_args();
  d.in.rows = 1;
  d.in.batch = 1;
  d.out.ld = 3; /* ld and batch stride matter only between rows and batches */
  d.out.batch_stride = 5;
  ck_assert_msg(call(&d) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_uint_eq(param_u32(dequantize_launch(1, 2), DEQ_P_VECTOR_STORES), 1);
  d = valid_args();
  d.out.dtype = F32;
  d.out.data = outputs + 4;
  ck_assert_msg(call(&d) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  const unsigned char *p = dequantize_launch(113, 4);
  ck_assert_uint_eq(param_u32(p, DEQ_P_VECTOR_STORES), 0);
  ck_assert_uint_eq(param_u32(p, DEQ_P_OUT_DTYPE), DEQ_DTYPE_F32);
  ck_assert_uint_eq(param_u64(p, DEQ_P_OUT_LD_BYTES), OUT_LD * 4);
}
END_TEST

/* An image without the dequantize entry (an NVFP4_FATBIN of another family) refuses it before launching,
 * and still serves the rest. */
START_TEST(an_image_without_dequantize_refuses_it) {
  setenv("FAKE_CUDA_MISSING", DEQ_ENTRY_NAME, 1);
  create_fake_handle();
  deq_args d = valid_args();
  assert_refused_for_missing_entry(DEQ_ENTRY_NAME, call(&d));
  nvfp4_tensor a = {data, scales, 64, 256, 1, 128, 0, 16, 0, NVFP4_SF_LINEAR};
  nvfp4_tensor x = {data, scales, 1, 256, 1, 128, 0, 16, 0, NVFP4_SF_LINEAR};
  nvfp4_output y = {outputs, 1, 64, F16};
  ck_assert_msg(nvfp4_gemv(fake_handle, &a, &x, &y, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
  destroy_fake_handle();
}
END_TEST

Suite *dequantize_suite(void) {
  Suite *s = suite_create("dequantize");
  TCase *validation = tcase_create("dequantize validation");
  tcase_add_checked_fixture(validation, create_fake_handle, destroy_fake_handle);
  tcase_add_test(validation, dequantize_launches_once_for_valid_arguments);
  tcase_add_loop_test(validation, dequantize_rejects_bad_arguments, 0, (int)(sizeof cases / sizeof cases[0]));
  suite_add_tcase(s, validation);
  TCase *launches = tcase_create("dequantize launches");
  tcase_add_checked_fixture(launches, create_fake_handle, destroy_fake_handle);
  tcase_add_test(launches, dequantize_passes_strides_in_bytes_and_the_grid_step);
  tcase_add_test(launches, dequantize_fills_every_sm_and_steps_blocked_scales);
  tcase_add_test(launches, dequantize_takes_narrow_stores_where_an_output_row_is_off_16_bytes);
  suite_add_tcase(s, launches);
  TCase *images = tcase_create("dequantize from an image without its entry");
  tcase_add_test(images, an_image_without_dequantize_refuses_it);
  suite_add_tcase(s, images);
  return s;
}
