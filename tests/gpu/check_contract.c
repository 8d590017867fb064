/* What every call promises, on the GPU: a call that fails writes no output byte (every operation, and a
 * grouped GEMM, NVFP4 or W4A16, whose other groups are valid does none of them); grouped GEMM groups that differ in output
 * type and scale layouts in one call; BLOCKED scales that do not start on a 16-byte boundary; grouped GEMM
 * from several host threads on one handle; scale relayouts of scales on no 16-byte boundary, and from
 * several host threads. Fresh data from the run's seed, outputs poisoned. */
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "handle.h"
#include "quantize_ref.h"
#include "suites.h"
#include "testdata.h"
#include "verify.h"

#define LIN NVFP4_SF_LINEAR
#define BLK NVFP4_SF_BLOCKED_128x4
#define F16 NVFP4_DTYPE_F16
#define BF16 NVFP4_DTYPE_BF16
#define F32 NVFP4_DTYPE_F32

/* A device buffer of `bytes`, every byte 0xFF. */
static CUdeviceptr poisoned(size_t bytes) {
  CUdeviceptr d;
  ck_assert_int_eq(nvfp4i_cuda()->cuMemAlloc(&d, bytes), CUDA_SUCCESS);
  ck_assert_int_eq(nvfp4i_cuda()->cuMemsetD8(d, 0xFF, bytes), CUDA_SUCCESS);
  return d;
}

/* A device buffer of `count` f16 elements, every byte 0xFF (a NaN no valid call here writes). */
static CUdeviceptr poisoned_f16(size_t count) { return poisoned(count * sizeof(uint16_t)); }

/* How many of the buffer's f16 elements have any byte written, once the device is idle. */
static size_t elements_written(CUdeviceptr d, size_t count) {
  uint16_t *host = malloc(count * sizeof(uint16_t));
  ck_assert_ptr_nonnull(host);
  ck_assert_int_eq(nvfp4i_cuda()->cuCtxSynchronize(), CUDA_SUCCESS);
  ck_assert_int_eq(nvfp4i_cuda()->cuMemcpyDtoH(host, d, count * sizeof(uint16_t)), CUDA_SUCCESS);
  size_t written = 0;
  for (size_t i = 0; i < count; i++) written += host[i] != 0xFFFF;
  free(host);
  return written;
}

/* GEMV: real operands, calls each broken in one argument; the output keeps every poisoned byte. The same
 * call unbroken then writes it, so the check could see a write. */
enum { GEMV_M = 300, GEMV_K = 1024, GEMV_L = 2 };

START_TEST(a_rejected_gemv_writes_no_output_byte) {
  uint64_t seed = gpu_seed(0xFA11);
  nvfp4i_rng rng = {seed};
  nvfp4i_operand a, x;
  ck_assert_int_eq(nvfp4i_operand_create(&a, GEMV_M, GEMV_K, GEMV_L, BLK, 0, &rng), NVFP4_STATUS_SUCCESS);
  ck_assert_int_eq(nvfp4i_operand_create(&x, 1, GEMV_K, GEMV_L, LIN, 0, &rng), NVFP4_STATUS_SUCCESS);
  size_t count = GEMV_M * GEMV_L;
  CUdeviceptr y = poisoned_f16(count);
  const nvfp4_output out = {(void *)(uintptr_t)y, 1, GEMV_M, F16};
  nvfp4_tensor two_row_x = x.dev, misaligned_a = a.dev, mismatched_a = a.dev;
  two_row_x.rows = 2;                                           /* INVALID_VALUE */
  misaligned_a.data = (const uint8_t *)a.dev.data + 8;          /* NOT_SUPPORTED */
  mismatched_a.batch = GEMV_L + 1;                              /* INVALID_VALUE */
  nvfp4_output bad_dtype = out, overlapping = out;
  bad_dtype.dtype = (nvfp4_dtype)7;                             /* INVALID_VALUE */
  overlapping.batch_stride = GEMV_M - 1;                        /* INVALID_VALUE */
  const struct {
    const char *what;
    const nvfp4_tensor *a, *x;
    const nvfp4_output *y;
  } calls[] = {{"x.rows 2", &a.dev, &two_row_x, &out},       {"a.data misaligned", &misaligned_a, &x.dev, &out},
               {"a.batch != x.batch", &mismatched_a, &x.dev, &out}, {"y.dtype unknown", &a.dev, &x.dev, &bad_dtype},
               {"y batches overlap", &a.dev, &x.dev, &overlapping}};
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    nvfp4_status s = nvfp4_gemv(gpu_handle, calls[i].a, calls[i].x, calls[i].y, 1.0f, NULL);
    ck_assert_msg(s != NVFP4_STATUS_SUCCESS, "%s: accepted", calls[i].what);
    ck_assert_msg(elements_written(y, count) == 0, "%s (%s): output written", calls[i].what, nvfp4_last_error());
  }
  ck_assert_int_eq(nvfp4_gemv(gpu_handle, &a.dev, &x.dev, &out, 1.0f, NULL), NVFP4_STATUS_SUCCESS);
  ck_assert_msg(elements_written(y, count) == count, "the valid call left outputs unwritten (seed %llu, "
                "NVFP4_TEST_SEED=%llu)", (unsigned long long)seed, (unsigned long long)gpu_run_seed());
  nvfp4i_cuda()->cuMemFree(y);
  nvfp4i_operand_destroy(&a);
  nvfp4i_operand_destroy(&x);
}
END_TEST

/* Grouped GEMM: groups 0 and 1 valid, group 2 broken in one argument at a time; the call fails and no group
 * writes a byte (nothing was launched). The unbroken call then writes them all. */
enum { GG_GROUPS = 3, GG_N = 160, GG_K = 512 };
static const int64_t gg_m[GG_GROUPS] = {64, 130, 7};

START_TEST(a_rejected_grouped_gemm_writes_no_output_byte) {
  uint64_t seed = gpu_seed(0xFA12);
  nvfp4i_rng rng = {seed};
  nvfp4i_operand a[GG_GROUPS], b[GG_GROUPS];
  nvfp4_tensor ta[GG_GROUPS], tb[GG_GROUPS];
  nvfp4_output tc[GG_GROUPS];
  size_t count = 0;
  for (int g = 0; g < GG_GROUPS; g++) count += (size_t)(gg_m[g] * GG_N);
  CUdeviceptr c = poisoned_f16(count), at = c;
  for (int g = 0; g < GG_GROUPS; g++) {
    nvfp4_sf_layout layout = g % 2 ? BLK : LIN;
    ck_assert_int_eq(nvfp4i_operand_create(&a[g], gg_m[g], GG_K, 1, layout, 0, &rng), NVFP4_STATUS_SUCCESS);
    ck_assert_int_eq(nvfp4i_operand_create(&b[g], GG_N, GG_K, 1, BLK, 0, &rng), NVFP4_STATUS_SUCCESS);
    ta[g] = a[g].dev;
    tb[g] = b[g].dev;
    tc[g] = (nvfp4_output){(void *)(uintptr_t)at, GG_N, 0, F16};
    at += sizeof(uint16_t) * (CUdeviceptr)(gg_m[g] * GG_N);
  }
  static const char *const breaks[] = {"c[2].dtype unknown", "b[2].data misaligned", "b[2].k != a[2].k",
                                       "c[2].ld < N", "a[2].batch 2"};
  for (int i = 0; i < (int)(sizeof breaks / sizeof breaks[0]); i++) {
    nvfp4_tensor broken_a = ta[2], broken_b = tb[2];
    nvfp4_output broken_c = tc[2];
    switch (i) {
      case 0: broken_c.dtype = (nvfp4_dtype)5; break;
      case 1: broken_b.data = (const uint8_t *)tb[2].data + 8; break;
      case 2: broken_b.k = GG_K + 32; broken_b.ld = (GG_K + 32) / 2; break;
      case 3: broken_c.ld = GG_N - 1; break;
      case 4: broken_a.batch = 2; break;
    }
    nvfp4_tensor call_a[GG_GROUPS] = {ta[0], ta[1], broken_a}, call_b[GG_GROUPS] = {tb[0], tb[1], broken_b};
    nvfp4_output call_c[GG_GROUPS] = {tc[0], tc[1], broken_c};
    nvfp4_status s = nvfp4_grouped_gemm(gpu_handle, GG_GROUPS, call_a, call_b, call_c, 1.0f, NULL);
    ck_assert_msg(s != NVFP4_STATUS_SUCCESS, "%s: accepted", breaks[i]);
    ck_assert_msg(elements_written(c, count) == 0, "%s (%s): output written", breaks[i], nvfp4_last_error());
  }
  ck_assert_int_eq(nvfp4_grouped_gemm(gpu_handle, GG_GROUPS, ta, tb, tc, 1.0f, NULL), NVFP4_STATUS_SUCCESS);
  ck_assert_msg(elements_written(c, count) == count, "the valid call left outputs unwritten (seed %llu, "
                "NVFP4_TEST_SEED=%llu)", (unsigned long long)seed, (unsigned long long)gpu_run_seed());
  nvfp4i_cuda()->cuMemFree(c);
  for (int g = 0; g < GG_GROUPS; g++) {
    nvfp4i_operand_destroy(&a[g]);
    nvfp4i_operand_destroy(&b[g]);
  }
}
END_TEST

/* W4A16 grouped GEMM: group 0's activations f16, group 1's bf16 (two launches, were the call to make them),
 * group 2 broken in one argument at a time; the call fails and no group writes a byte. The unbroken call
 * then writes them all. */
START_TEST(a_rejected_w4a16_grouped_gemm_writes_no_output_byte) {
  uint64_t seed = gpu_seed(0xFA13);
  nvfp4i_rng rng = {seed};
  nvfp4i_dense_operand a[GG_GROUPS];
  nvfp4i_operand b[GG_GROUPS];
  nvfp4_dense ta[GG_GROUPS];
  nvfp4_tensor tb[GG_GROUPS];
  nvfp4_output tc[GG_GROUPS];
  size_t count = 0;
  for (int g = 0; g < GG_GROUPS; g++) count += (size_t)(gg_m[g] * GG_N);
  CUdeviceptr c = poisoned_f16(count), at = c;
  for (int g = 0; g < GG_GROUPS; g++) {
    ck_assert_int_eq(nvfp4i_dense_operand_create(&a[g], gg_m[g], GG_K, 1, g % 2 ? BF16 : F16, 8, &rng),
                     NVFP4_STATUS_SUCCESS);
    ck_assert_int_eq(nvfp4i_operand_create(&b[g], GG_N, GG_K, 1, g % 2 ? LIN : BLK, 0, &rng), NVFP4_STATUS_SUCCESS);
    ta[g] = a[g].dev;
    tb[g] = b[g].dev;
    tc[g] = (nvfp4_output){(void *)(uintptr_t)at, GG_N, 0, F16};
    at += sizeof(uint16_t) * (CUdeviceptr)(gg_m[g] * GG_N);
  }
  static const char *const breaks[] = {"a[2].ld not a multiple of 8", "a[2].data not 16-byte aligned",
                                       "a[2].dtype f32", "a[2].k != b[2].k", "c[2].dtype unknown"};
  for (int i = 0; i < (int)(sizeof breaks / sizeof breaks[0]); i++) {
    nvfp4_dense broken_a = ta[2];
    nvfp4_output broken_c = tc[2];
    switch (i) {
      case 0: broken_a.ld = GG_K + 4; break;
      case 1: broken_a.data = (const uint16_t *)ta[2].data + 4; break;
      case 2: broken_a.dtype = F32; break;
      case 3: broken_a.k = GG_K - 32; break;
      case 4: broken_c.dtype = (nvfp4_dtype)5; break;
    }
    nvfp4_dense call_a[GG_GROUPS] = {ta[0], ta[1], broken_a};
    nvfp4_output call_c[GG_GROUPS] = {tc[0], tc[1], broken_c};
    nvfp4_status s = nvfp4_grouped_gemm_w4a16(gpu_handle, GG_GROUPS, call_a, tb, call_c, 1.0f, NULL);
    ck_assert_msg(s != NVFP4_STATUS_SUCCESS, "%s: accepted", breaks[i]);
    ck_assert_msg(elements_written(c, count) == 0, "%s (%s): output written", breaks[i], nvfp4_last_error());
  }
  ck_assert_msg(nvfp4_grouped_gemm_w4a16(gpu_handle, GG_GROUPS, ta, tb, tc, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_msg(elements_written(c, count) == count, "the valid call left outputs unwritten (seed %llu, "
                "NVFP4_TEST_SEED=%llu)", (unsigned long long)seed, (unsigned long long)gpu_run_seed());
  nvfp4i_cuda()->cuMemFree(c);
  for (int g = 0; g < GG_GROUPS; g++) {
    nvfp4i_dense_operand_destroy(&a[g]);
    nvfp4i_operand_destroy(&b[g]);
  }
}
END_TEST

/* Scale relayout: a real LINEAR source (padded rows, a gap between batches) and a BLOCKED destination, calls
 * each broken in one argument; the destination keeps every poisoned byte. The unbroken call then leaves
 * there exactly the reference's bytes, so the check could see a write. */
enum { RLY_ROWS = 300, RLY_K = 544, RLY_BATCH = 2 };

/* Fails unless the `bytes` at d, once the device is idle, are want's (got: a host buffer as large). */
static void assert_device_bytes(CUdeviceptr d, uint8_t *got, const uint8_t *want, size_t bytes, const char *what) {
  ck_assert_int_eq(nvfp4i_cuda()->cuCtxSynchronize(), CUDA_SUCCESS);
  ck_assert_int_eq(nvfp4i_cuda()->cuMemcpyDtoH(got, d, bytes), CUDA_SUCCESS);
  gpu_assert_bytes(got, want, bytes, what);
}

START_TEST(a_rejected_relayout_writes_no_output_byte) {
  nvfp4i_rng rng = {gpu_seed(0xFA14)};
  nvfp4i_operand from;
  ck_assert_int_eq(nvfp4i_operand_create(&from, RLY_ROWS, RLY_K, RLY_BATCH, LIN, 16, &rng), NVFP4_STATUS_SUCCESS);
  int64_t tiles = nvfp4i_sf_batch_bytes(BLK, 0, RLY_ROWS, RLY_K);
  size_t bytes = (size_t)(tiles * RLY_BATCH);
  CUdeviceptr d = poisoned(bytes);
  uint8_t *want = malloc(bytes), *got = malloc(bytes);
  ck_assert(want != NULL && got != NULL);
  memset(want, 0xFF, bytes);
  const nvfp4_tensor to = {NULL, (const void *)(uintptr_t)d, RLY_ROWS, RLY_K, RLY_BATCH, 0, 0, 0, tiles, BLK};
  nvfp4_tensor more_rows = to, odd_k = to, one_batch = to, bad_layout = to, short_ld = to, overlapping = to;
  nvfp4_tensor from_in_to = from.dev, no_scales = from.dev;
  more_rows.rows = RLY_ROWS + 1;                             /* INVALID_VALUE */
  odd_k.k = RLY_K + 16;                                      /* NOT_SUPPORTED */
  one_batch.batch = 1;                                       /* INVALID_VALUE */
  bad_layout.sf_layout = (nvfp4_sf_layout)2;                 /* INVALID_VALUE */
  short_ld.sf_layout = LIN;                                  /* INVALID_VALUE */
  short_ld.sf_ld = RLY_K / 16 - 1;
  overlapping.sf_batch_stride = tiles - 512;                 /* INVALID_VALUE */
  from_in_to.scales = (const uint8_t *)to.scales + 512;      /* INVALID_VALUE: it spans less than to */
  no_scales.scales = NULL;                                   /* INVALID_VALUE */
  const struct {
    const char *what;
    const nvfp4_tensor *from, *to;
  } calls[] = {{"to.rows + 1", &from.dev, &more_rows},           {"to.k not a multiple of 32", &from.dev, &odd_k},
               {"to.batch 1", &from.dev, &one_batch},            {"to.sf_layout unknown", &from.dev, &bad_layout},
               {"to.sf_ld < k/16", &from.dev, &short_ld},        {"to's batches overlap", &from.dev, &overlapping},
               {"from.scales inside to's", &from_in_to, &to},    {"from.scales NULL", &no_scales, &to}};
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    nvfp4_status s = nvfp4_scales_relayout(gpu_handle, calls[i].from, calls[i].to, NULL);
    ck_assert_msg(s != NVFP4_STATUS_SUCCESS, "%s: accepted", calls[i].what);
    assert_device_bytes(d, got, want, bytes, calls[i].what);
  }
  ck_assert_msg(nvfp4_scales_relayout(gpu_handle, &from.dev, &to, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  nvfp4_tensor host_to = to;
  host_to.scales = want;
  nvfp4i_scales_relayout_ref(&from.host, &host_to);
  assert_device_bytes(d, got, want, bytes, "the valid call");
  free(want);
  free(got);
  nvfp4i_cuda()->cuMemFree(d);
  nvfp4i_operand_destroy(&from);
}
END_TEST

/* Grouped GEMM calls checked against the reference: each row a case for nvfp4i_verify_grouped_gemm. */
typedef struct contract_case {
  const char *what;
  int small; /* kept by NVFP4_GPU_QUICK (compute-sanitizer runs) */
  nvfp4i_grouped_case c;
} contract_case;

static const nvfp4_dtype every_dtype[] = {F16, BF16, F32};
static const nvfp4_sf_layout a_mix[] = {LIN, BLK, BLK, LIN}, b_mix[] = {BLK, LIN, BLK, LIN};

#define MIXED .dtypes = every_dtype, .dtype_count = 3, .a_layouts = a_mix, .b_layouts = b_mix, .layout_count = 4

static const contract_case cases[] = {
    /* every pairing of output type and A/B layout across the groups of one call, tails and an empty group */
    {"mixed types and layouts", 1,
     {GROUPS(12, (64, 7, 130, 0, 33, 200), (96, 129, 40), (256, 1056)), .alpha = 0.75f, MIXED}},
    {"mixed, GPU MODE gg4", 0, {GROUPS(2, (128, 384), (4096), (1536)), .alpha = 1.0f, MIXED}},
    {"mixed, strided", 1, {GROUPS(4, (70, 1), (200, 33), (512)), .alpha = -1.5f, .pad = 32, .c_pad = 3, MIXED}},
    /* BLOCKED scales that start off a 16-byte boundary are read another way: every misalignment class */
    {"blocked scales + 1 byte", 1,
     {GROUPS(3, (129, 7, 64), (130, 33), (1056, 96)), .a_layout = BLK, .b_layout = BLK, .dtype = F16, .alpha = 1.0f,
      .sf_misalign = 1}},
    {"blocked scales + 4 bytes", 1,
     {GROUPS(2, (200, 40), (300), (2048)), .a_layout = BLK, .b_layout = BLK, .dtype = BF16, .alpha = 1.0f,
      .sf_misalign = 4}},
    {"blocked scales + 8 bytes, K 7168", 0,
     {GROUPS(2, (80, 176), (512), (7168)), .a_layout = BLK, .b_layout = BLK, .dtype = F32, .alpha = 0.5f,
      .sf_misalign = 8}},
    {"blocked + 12 bytes, mixed", 1,
     {GROUPS(4, (65, 300), (129, 64), (32, 544)), .alpha = 1.0f, .sf_misalign = 12, MIXED}},
    {"linear scales + 3 bytes", 1,
     {GROUPS(2, (33, 100), (257), (1024)), .a_layout = LIN, .b_layout = LIN, .dtype = F16, .alpha = 1.0f,
      .sf_misalign = 3}},
};
enum { CASE_COUNT = sizeof cases / sizeof cases[0] };

static int selected[CASE_COUNT], selected_count;

static void select_cases(void) {
  selected_count = gpu_select_cases(&cases[0].small, sizeof cases[0], CASE_COUNT, selected);
}

static void assert_verified(const char *what, int pass, const nvfp4i_grouped_case *c, const nvfp4i_verdict *v) {
  ck_assert_msg(pass,
                "%s (seed %llu, NVFP4_TEST_SEED=%llu): status %s (%s), %lld/%lld outside the bar, %lld stray "
                "writes, worst %s",
                what, (unsigned long long)c->seed, (unsigned long long)gpu_run_seed(), nvfp4_status_string(v->status),
                nvfp4_last_error(), (long long)v->failures, (long long)v->checked, (long long)v->clobbered, v->detail);
}

START_TEST(grouped_gemm_keeps_its_promise) {
  const contract_case *t = &cases[selected[_i]];
  nvfp4i_grouped_case c = t->c;
  c.seed = gpu_seed(0xC0470000u + (uint64_t)selected[_i]);
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_grouped_gemm(gpu_handle, &c, &v);
  assert_verified(t->what, pass, &c, &v);
}
END_TEST

/* Several host threads on one handle at once, each its own grouped GEMM case. */
START_TEST(grouped_gemm_from_several_threads_on_one_handle) {
  enum { THREADS = 4 };
  nvfp4i_grouped_case c[THREADS];
  gpu_verify_job jobs[THREADS];
  for (int t = 0; t < THREADS; t++) {
    c[t] = cases[selected[t % selected_count]].c;
    c[t].seed = gpu_seed(0x74670000u + (uint64_t)t);
    jobs[t] = (gpu_verify_job){.grouped = &c[t]};
  }
  gpu_verify_in_threads(THREADS, jobs);
  for (int t = 0; t < THREADS; t++)
    assert_verified(cases[selected[t % selected_count]].what, jobs[t].pass, &c[t], &jobs[t].v);
}
END_TEST

/* Scale relayouts of scales that start off a 16-byte boundary (none is asked for), source and destination
 * alike, there and back: every byte of the poisoned destinations against the reference. */
static const struct {
  const char *what;
  nvfp4i_relayout_case c;
} relayout_cases[] = {
    {"relayout LINEAR -> BLOCKED, scales + 1 byte",
     {.rows = 129, .k = 544, .batch = 3, .from_layout = LIN, .to_layout = BLK, .and_back = 1, .sf_misalign = 1}},
    {"relayout BLOCKED -> LINEAR, scales + 3 bytes",
     {.rows = 300, .k = 96, .batch = 2, .from_layout = BLK, .to_layout = LIN, .to_sf_ld_pad = 1, .and_back = 1,
      .sf_misalign = 3}},
    {"relayout LINEAR -> LINEAR, scales + 7 bytes",
     {.rows = 7, .k = 1056, .batch = 1, .from_layout = LIN, .to_layout = LIN, .to_sf_ld_pad = 5, .and_back = 1,
      .sf_misalign = 7}},
    {"relayout BLOCKED -> BLOCKED, scales + 13 bytes",
     {.rows = 130, .k = 32, .batch = 3, .from_layout = BLK, .to_layout = BLK, .and_back = 1, .sf_misalign = 13}},
};
enum { RELAYOUT_CASES = sizeof relayout_cases / sizeof relayout_cases[0] };

static void assert_relayout_verified(const char *what, int pass, const nvfp4i_relayout_case *c,
                                     const nvfp4i_verdict *v) {
  ck_assert_msg(pass, "%s (seed %llu, NVFP4_TEST_SEED=%llu): status %s (%s), %lld/%lld bytes differ, first: %s",
                what, (unsigned long long)c->seed, (unsigned long long)gpu_run_seed(), nvfp4_status_string(v->status),
                nvfp4_last_error(), (long long)v->failures, (long long)v->checked, v->detail);
}

START_TEST(relayout_of_unaligned_scales_matches_reference) {
  nvfp4i_relayout_case c = relayout_cases[_i].c;
  c.seed = gpu_seed(0xC0520000u + (uint64_t)_i);
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_scales_relayout(gpu_handle, &c, &v);
  assert_relayout_verified(relayout_cases[_i].what, pass, &c, &v);
}
END_TEST

/* Several host threads on one handle at once, each its own relayout case. */
START_TEST(relayout_from_several_threads_on_one_handle) {
  nvfp4i_relayout_case c[RELAYOUT_CASES];
  gpu_verify_job jobs[RELAYOUT_CASES];
  for (int t = 0; t < RELAYOUT_CASES; t++) {
    c[t] = relayout_cases[t].c;
    c[t].seed = gpu_seed(0x74720000u + (uint64_t)t);
    jobs[t] = (gpu_verify_job){.relayout = &c[t]};
  }
  gpu_verify_in_threads(RELAYOUT_CASES, jobs);
  for (int t = 0; t < RELAYOUT_CASES; t++)
    assert_relayout_verified(relayout_cases[t].what, jobs[t].pass, &c[t], &jobs[t].v);
}
END_TEST

Suite *contract_gpu_suite(void) {
  Suite *s = suite_create("contract gpu");
  TCase *failures = gpu_tcase("a failed call writes nothing", 120);
  tcase_add_test(failures, a_rejected_gemv_writes_no_output_byte);
  if (!gpu_path_lacks_nvfp4_grouped_gemm("contract gpu, a rejected grouped gemm writes no output byte"))
    tcase_add_test(failures, a_rejected_grouped_gemm_writes_no_output_byte);
  if (!gpu_path_lacks(NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16,
                      "contract gpu, a rejected w4a16 grouped gemm writes no output byte"))
    tcase_add_test(failures, a_rejected_w4a16_grouped_gemm_writes_no_output_byte);
  tcase_add_test(failures, a_rejected_relayout_writes_no_output_byte);
  suite_add_tcase(s, failures);
  if (!gpu_path_lacks_nvfp4_grouped_gemm("contract gpu, grouped gemm: mixed groups, unaligned scales, "
                      "threads")) {
    TCase *grouped = gpu_tcase("grouped gemm: mixed groups, unaligned scales, threads", 300);
    select_cases();
    tcase_add_loop_test(grouped, grouped_gemm_keeps_its_promise, 0, selected_count);
    tcase_add_test(grouped, grouped_gemm_from_several_threads_on_one_handle);
    suite_add_tcase(s, grouped);
  }
  TCase *relayout = gpu_tcase("relayout: unaligned scales, threads", 120);
  tcase_add_loop_test(relayout, relayout_of_unaligned_scales_matches_reference, 0, RELAYOUT_CASES);
  tcase_add_test(relayout, relayout_from_several_threads_on_one_handle);
  suite_add_tcase(s, relayout);
  return s;
}
