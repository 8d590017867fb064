#include "bench.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dequantize.h"
#include "error.h"
#include "format.h"
#include "launch.h"
#include "testdata.h"
#include "validate.h"

enum {
  FLUSH_BYTES = 256 << 20, /* > 4x the H200's 60 MB L2: written before every timed repetition */
  MAX_SETS = 1024,         /* raising the set count past L2 stops here */
  SET_ALIGN = 256,         /* where every buffer of a set starts */
  POOL_SLACK = 1 << 20,    /* room in the random pools for each buffer's own offset */
};
#define DEVICE_RESERVE (2ull << 30) /* device memory input sets leave free: the flush buffer, the driver */

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts v and returns its median. */
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare_doubles);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The thing being timed: one call on input set `set`, launched on the stream. */
typedef nvfp4_status (*timed_fn)(void *arg, int set, CUstream stream);

/* One repetition: synchronise, flush L2, event, fn on sets 0 .. sets-1 back to back, event; *us = the
 * time between the events. */
static nvfp4_status time_repetition(timed_fn fn, void *arg, int sets, CUdeviceptr flush, unsigned char fill,
                                    CUevent start, CUevent stop, double *us) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  float ms;
  NVFP4_CU_TRY(cu->cuCtxSynchronize(), status, out);
  NVFP4_CU_TRY(cu->cuMemsetD8Async(flush, fill, FLUSH_BYTES, NULL), status, out);
  NVFP4_CU_TRY(cu->cuEventRecord(start, NULL), status, out);
  for (int s = 0; s < sets && status == NVFP4_STATUS_SUCCESS; s++) status = fn(arg, s, NULL);
  if (status != NVFP4_STATUS_SUCCESS) goto out;
  NVFP4_CU_TRY(cu->cuEventRecord(stop, NULL), status, out);
  NVFP4_CU_TRY(cu->cuEventSynchronize(stop), status, out);
  NVFP4_CU_TRY(cu->cuEventElapsedTime(&ms, start, stop), status, out);
  *us = ms * 1000.0;
out:
  return status;
}

/* The method of docs/TIMING.md: a warm-up call on every set, then `runs` repetitions of the back-to-back
 * pass over the sets (time = elapsed / sets), each followed by one call alone (the single-call latency). */
static nvfp4_status time_sets(timed_fn fn, void *arg, int sets, int runs, nvfp4i_timing *t) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  CUdeviceptr flush = 0;
  CUevent start = NULL, stop = NULL;
  double *per_call = malloc(2 * sizeof(double) * (size_t)runs);
  if (per_call == NULL) return nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
  double *single = per_call + runs;
  NVFP4_CU_TRY(cu->cuMemAlloc(&flush, FLUSH_BYTES), status, out);
  NVFP4_CU_TRY(cu->cuEventCreate(&start, CU_EVENT_DEFAULT), status, out);
  NVFP4_CU_TRY(cu->cuEventCreate(&stop, CU_EVENT_DEFAULT), status, out);
  for (int s = 0; s < sets && status == NVFP4_STATUS_SUCCESS; s++) status = fn(arg, s, NULL);
  for (int r = 0; r < runs && status == NVFP4_STATUS_SUCCESS; r++) {
    status = time_repetition(fn, arg, sets, flush, (unsigned char)(2 * r), start, stop, &per_call[r]);
    per_call[r] /= sets;
    if (status == NVFP4_STATUS_SUCCESS)
      status = time_repetition(fn, arg, 1, flush, (unsigned char)(2 * r + 1), start, stop, &single[r]);
  }
  if (status != NVFP4_STATUS_SUCCESS) goto out;
  *t = (nvfp4i_timing){.runs = runs, .sets = sets, .single_us = median(single, runs)};
  t->median_us = median(per_call, runs);
  t->min_us = per_call[0];
  t->max_us = per_call[runs - 1];
out:
  if (start) cu->cuEventDestroy(start);
  if (stop) cu->cuEventDestroy(stop);
  if (flush) cu->cuMemFree(flush);
  free(per_call);
  return status;
}

/* ---- input sets: each its own device allocation, filled from random pools at offsets of its own */

/* Reserves `bytes` at the next SET_ALIGN boundary after *end; returns where. */
static size_t place(size_t *end, size_t bytes) {
  size_t at = (*end + SET_ALIGN - 1) / SET_ALIGN * SET_ALIGN;
  *end = at + bytes;
  return at;
}

/* A LINEAR operand of rows x k x batch packed tightly, placed after *end in a set whose base is 0 (the
 * pointers are offsets until at_base moves them into a set). */
static nvfp4_tensor place_operand(size_t *end, int64_t rows, int64_t k, int64_t batch) {
  int64_t data_bytes = rows * k / 2, sf_bytes = rows * k / 16;
  size_t data = place(end, (size_t)(data_bytes * batch)), scales = place(end, (size_t)(sf_bytes * batch));
  return (nvfp4_tensor){(const void *)data, (const void *)scales, rows, k, batch, k / 2, data_bytes, k / 16,
                        sf_bytes, NVFP4_SF_LINEAR};
}

static nvfp4_tensor at_base(nvfp4_tensor t, CUdeviceptr base) {
  t.data = (const uint8_t *)(uintptr_t)base + (uintptr_t)t.data;
  t.scales = (const uint8_t *)(uintptr_t)base + (uintptr_t)t.scales;
  return t;
}

/* Dense activations of rows x k x batch packed tightly, placed as place_operand places an operand. */
static nvfp4_dense place_dense(size_t *end, int64_t rows, int64_t k, int64_t batch, nvfp4_dtype dtype) {
  size_t data = place(end, (size_t)(rows * k * batch) * sizeof(uint16_t));
  return (nvfp4_dense){(const void *)data, rows, k, batch, k, rows * k, dtype};
}

static nvfp4_dense dense_at_base(nvfp4_dense d, CUdeviceptr base) {
  d.data = (const uint8_t *)(uintptr_t)base + (uintptr_t)d.data;
  return d;
}

/* Random bytes to fill operands from: codes (every byte is two valid e2m1 codes), e4m3 scales of the test
 * spread and, for the W4A16 benchmark, activations (nvfp4i_random_activation). A buffer takes its bytes from
 * an offset that depends on its set, so no two sets hold the same. */
typedef struct pools {
  uint8_t *codes, *scales;
  uint16_t *activations; /* bytes / 2 of them, or NULL */
  size_t bytes;
} pools;

static nvfp4_status pools_create(pools *p, size_t largest_buffer) {
  nvfp4i_rng rng = {0x706F6F6Cull};
  p->bytes = largest_buffer + POOL_SLACK;
  p->codes = malloc(p->bytes);
  p->scales = malloc(p->bytes);
  if (p->codes == NULL || p->scales == NULL) return nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
  for (size_t i = 0; i < p->bytes; i++) {
    p->codes[i] = (uint8_t)nvfp4i_rng_next(&rng);
    p->scales[i] = nvfp4i_random_scale(&rng);
  }
  return NVFP4_STATUS_SUCCESS;
}

static nvfp4_status pools_add_activations(pools *p, nvfp4_dtype dtype) {
  nvfp4i_rng rng = {0x61637473ull};
  p->activations = malloc(p->bytes);
  if (p->activations == NULL) return nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
  for (size_t i = 0; i < p->bytes / sizeof(uint16_t); i++) p->activations[i] = nvfp4i_random_activation(&rng, dtype);
  return NVFP4_STATUS_SUCCESS;
}

static void pools_destroy(pools *p) {
  free(p->codes);
  free(p->scales);
  free(p->activations);
}

/* Fills operand t of a set (device pointers) from the pools; `salt` picks the offsets. An empty operand (an
 * empty group's A) has nothing to fill. */
static nvfp4_status upload_operand(const nvfp4_tensor *t, const pools *p, uint64_t salt) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  if (t->rows == 0) return status;
  size_t data_offset = (size_t)(salt * 2 * 64 % POOL_SLACK), sf_offset = (size_t)((salt * 2 + 1) * 64 % POOL_SLACK);
  NVFP4_CU_TRY(cu->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)t->data, p->codes + data_offset,
                                (size_t)(t->batch_stride * t->batch)),
               status, out);
  NVFP4_CU_TRY(cu->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)t->scales, p->scales + sf_offset,
                                (size_t)(t->sf_batch_stride * t->batch)),
               status, out);
out:
  return status;
}

/* Fills dense activations of a set (a device pointer) from the pools, as upload_operand fills an operand. */
static nvfp4_status upload_dense(const nvfp4_dense *d, const pools *p, uint64_t salt) {
  if (d->rows == 0) return NVFP4_STATUS_SUCCESS;
  size_t offset = (size_t)(salt * 64 % (POOL_SLACK / sizeof(uint16_t)));
  CUresult r = nvfp4i_cuda()->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)d->data, p->activations + offset,
                                           (size_t)(d->batch * d->batch_stride) * sizeof(uint16_t));
  return r == CUDA_SUCCESS ? NVFP4_STATUS_SUCCESS : nvfp4i_cuda_fail(r, "cuMemcpyHtoD");
}

/* The device allocations of a benchmark's input sets, set_bytes each. */
typedef struct input_sets {
  int count;
  CUdeviceptr *memory;
} input_sets;

/* Allocates the sets: method->sets of them, more while together they would fit in L2 (up to MAX_SETS),
 * fewer where device memory cannot hold them (at least one). */
static nvfp4_status sets_create(input_sets *s, const nvfp4_handle *h, const nvfp4i_bench_method *method,
                                size_t set_bytes) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  int l2 = 0;
  size_t free_bytes = 0, total_bytes = 0;
  s->memory = NULL;
  s->count = 0;
  NVFP4_CU_TRY(cu->cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, h->device), status, out);
  NVFP4_CU_TRY(cu->cuMemGetInfo(&free_bytes, &total_bytes), status, out);
  size_t count = (size_t)method->sets;
  if (count * set_bytes <= (size_t)l2) count = (size_t)l2 / set_bytes + 1;
  if (count > MAX_SETS) count = MAX_SETS;
  size_t fit = free_bytes > DEVICE_RESERVE ? (free_bytes - DEVICE_RESERVE) / set_bytes : 0;
  if (count > fit) count = fit > 0 ? fit : 1;
  s->memory = calloc(count, sizeof *s->memory);
  if (s->memory == NULL) return nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
  for (; s->count < (int)count; s->count++)
    NVFP4_CU_TRY(cu->cuMemAlloc(&s->memory[s->count], set_bytes), status, out);
out:
  return status;
}

static void sets_destroy(input_sets *s) {
  for (int i = 0; i < s->count; i++) nvfp4i_cuda()->cuMemFree(s->memory[i]);
  free(s->memory);
}

/* ---- the ceilings */

typedef struct copy_arg {
  CUdeviceptr src, dst;
  size_t bytes;
} copy_arg;

static nvfp4_status launch_copy(void *arg, int set, CUstream stream) {
  (void)set;
  copy_arg *c = arg;
  CUresult r = nvfp4i_cuda()->cuMemcpyDtoDAsync(c->dst, c->src, c->bytes, stream);
  return r == CUDA_SUCCESS ? NVFP4_STATUS_SUCCESS : nvfp4i_cuda_fail(r, "cuMemcpyDtoDAsync");
}

nvfp4_status nvfp4i_bench_copy_bandwidth(const nvfp4i_bench_method *method, double *tb_per_s) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  copy_arg c = {0, 0, (size_t)1 << 30};
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  nvfp4i_timing t;
  NVFP4_CU_TRY(cu->cuMemAlloc(&c.src, c.bytes), status, out);
  NVFP4_CU_TRY(cu->cuMemAlloc(&c.dst, c.bytes), status, out);
  NVFP4_CU_TRY(cu->cuMemsetD8(c.src, 0x5A, c.bytes), status, out);
  status = time_sets(launch_copy, &c, 1, method->runs, &t); /* 2 GiB of traffic: no set can hide in L2 */
  if (status == NVFP4_STATUS_SUCCESS) *tb_per_s = 2.0 * (double)c.bytes / (t.median_us * 1e-6) / 1e12;
out:
  if (c.src) cu->cuMemFree(c.src);
  if (c.dst) cu->cuMemFree(c.dst);
  return status;
}

static nvfp4_status launch_small_memset(void *arg, int set, CUstream stream) {
  CUdeviceptr dst = *(CUdeviceptr *)arg + (CUdeviceptr)set * SET_ALIGN;
  CUresult r = nvfp4i_cuda()->cuMemsetD8Async(dst, 0x3C, 16, stream);
  return r == CUDA_SUCCESS ? NVFP4_STATUS_SUCCESS : nvfp4i_cuda_fail(r, "cuMemsetD8Async");
}

nvfp4_status nvfp4i_bench_launch_floor(const nvfp4i_bench_method *method, nvfp4i_timing *t) {
  CUdeviceptr dst = 0;
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  NVFP4_CU_TRY(nvfp4i_cuda()->cuMemAlloc(&dst, (size_t)method->sets * SET_ALIGN), status, out);
  status = time_sets(launch_small_memset, &dst, method->sets, method->runs, t);
out:
  if (dst) nvfp4i_cuda()->cuMemFree(dst);
  return status;
}

/* ---- GEMV and dense GEMM: A (m x k) against a second operand of n rows (the GEMV's x: n = 1), L batches */

/* The call such a benchmark times. */
typedef enum pair_call { PAIR_GEMV, PAIR_GEMV_W4A16, PAIR_GEMM } pair_call;

typedef struct pair_arg {
  nvfp4_handle *h;
  pair_call call;
  nvfp4_tensor *a, *b; /* per set; b: the GEMV's x or the GEMM's B */
  nvfp4_dense *dense;  /* W4A16: x, in place of b */
  nvfp4_output *c;     /* the GEMV's y (m x 1 a batch) or the GEMM's C (m x n) */
} pair_arg;

static nvfp4_status launch_pair(void *arg, int set, CUstream stream) {
  pair_arg *g = arg;
  switch (g->call) {
    case PAIR_GEMV_W4A16: return nvfp4_gemv_w4a16(g->h, &g->a[set], &g->dense[set], &g->c[set], 1.0f, stream);
    case PAIR_GEMM: return nvfp4_gemm(g->h, &g->a[set], &g->b[set], &g->c[set], 1.0f, stream);
    case PAIR_GEMV: break;
  }
  return nvfp4_gemv(g->h, &g->a[set], &g->b[set], &g->c[set], 1.0f, stream);
}

/* The GEMVs' and the dense GEMM's benchmark: A (m x k x l) against b (n x k x l; the GEMV's x: n = 1), or with
 * PAIR_GEMV_W4A16 dense x of x_dtype; the f16 output m x n a batch, rows packed (the GEMV's y: ld 1). *bytes
 * is one call's traffic floor: A, b and their scales (dense x: 2 bytes an element), the output, each once. */
static nvfp4_status bench_pair(nvfp4_handle *h, pair_call call, int64_t m, int64_t n, int64_t k, int64_t l,
                               nvfp4_dtype x_dtype, const nvfp4i_bench_method *method, nvfp4i_timing *t,
                               double *bytes) {
  int dense = call == PAIR_GEMV_W4A16;
  size_t set_bytes = 0;
  nvfp4_tensor a0 = place_operand(&set_bytes, m, k, l), b0 = {0};
  nvfp4_dense dense0 = {0};
  if (dense)
    dense0 = place_dense(&set_bytes, n, k, l, x_dtype);
  else
    b0 = place_operand(&set_bytes, n, k, l);
  size_t c_offset = place(&set_bytes, (size_t)(m * n * l) * sizeof(uint16_t));
  double b_bytes = (double)n * (double)k * (dense ? 2.0 : 0.5 + 1.0 / 16);
  *bytes = (double)l * ((double)m * (double)k * (0.5 + 1.0 / 16) + b_bytes + 2.0 * (double)m * (double)n);
  input_sets sets;
  pools p = {0};
  pair_arg g = {h, call, NULL, NULL, NULL, NULL};
  nvfp4_status status = sets_create(&sets, h, method, set_bytes);
  size_t a_bytes = (size_t)(a0.batch_stride * l), b_size = dense ? (size_t)(2 * n * k * l) /* the largest buffers */
                                                                 : (size_t)(b0.batch_stride * l);
  if (status == NVFP4_STATUS_SUCCESS) status = pools_create(&p, a_bytes > b_size ? a_bytes : b_size);
  if (status == NVFP4_STATUS_SUCCESS && dense) status = pools_add_activations(&p, x_dtype);
  if (status != NVFP4_STATUS_SUCCESS) goto out;
  g.a = calloc((size_t)sets.count, sizeof *g.a);
  g.b = dense ? NULL : calloc((size_t)sets.count, sizeof *g.b);
  g.dense = dense ? calloc((size_t)sets.count, sizeof *g.dense) : NULL;
  g.c = calloc((size_t)sets.count, sizeof *g.c);
  if (g.a == NULL || (g.b == NULL && g.dense == NULL) || g.c == NULL) {
    status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
    goto out;
  }
  for (int s = 0; s < sets.count && status == NVFP4_STATUS_SUCCESS; s++) {
    g.a[s] = at_base(a0, sets.memory[s]);
    g.c[s] = (nvfp4_output){(void *)(uintptr_t)(sets.memory[s] + c_offset), n, m * n, NVFP4_DTYPE_F16};
    status = upload_operand(&g.a[s], &p, 2 * (uint64_t)s);
    if (status != NVFP4_STATUS_SUCCESS) break;
    if (dense) {
      g.dense[s] = dense_at_base(dense0, sets.memory[s]);
      status = upload_dense(&g.dense[s], &p, 2 * (uint64_t)s + 1);
    } else {
      g.b[s] = at_base(b0, sets.memory[s]);
      status = upload_operand(&g.b[s], &p, 2 * (uint64_t)s + 1);
    }
  }
  if (status == NVFP4_STATUS_SUCCESS) status = time_sets(launch_pair, &g, sets.count, method->runs, t);
out:
  free(g.a);
  free(g.b);
  free(g.dense);
  free(g.c);
  pools_destroy(&p);
  sets_destroy(&sets);
  return status;
}

nvfp4_status nvfp4i_bench_gemv(nvfp4_handle *h, int64_t m, int64_t k, int64_t l, const nvfp4i_bench_method *method,
                               nvfp4i_timing *t, double *bytes) {
  return bench_pair(h, PAIR_GEMV, m, 1, k, l, NVFP4_DTYPE_F16, method, t, bytes);
}

nvfp4_status nvfp4i_bench_gemv_w4a16(nvfp4_handle *h, int64_t m, int64_t k, int64_t l, nvfp4_dtype x_dtype,
                                     const nvfp4i_bench_method *method, nvfp4i_timing *t, double *bytes) {
  return bench_pair(h, PAIR_GEMV_W4A16, m, 1, k, l, x_dtype, method, t, bytes);
}

nvfp4_status nvfp4i_bench_gemm(nvfp4_handle *h, int64_t m, int64_t n, int64_t k, int64_t l,
                               const nvfp4i_bench_method *method, nvfp4i_timing *t, double *flops, double *bytes) {
  *flops = 2.0 * (double)m * (double)n * (double)k * (double)l;
  return bench_pair(h, PAIR_GEMM, m, n, k, l, NVFP4_DTYPE_F16, method, t, bytes);
}

/* ---- grouped GEMM and dual GEMM */

/* The call a grouped benchmark times. */
typedef enum grouped_call { GROUPED_NVFP4, GROUPED_W4A16, GROUPED_DUAL } grouped_call;

typedef struct grouped_arg {
  nvfp4_handle *h;
  int groups;
  grouped_call call;
  nvfp4_tensor *a, *b; /* groups per set, set after set */
  nvfp4_dense *dense;  /* W4A16: the activations, in place of a */
  nvfp4_tensor *b2;    /* the dual GEMM: its second weights (b its first) */
  nvfp4_output *c;
} grouped_arg;

static nvfp4_status launch_grouped(void *arg, int set, CUstream stream) {
  grouped_arg *g = arg;
  size_t first = (size_t)set * (size_t)g->groups;
  switch (g->call) {
    case GROUPED_W4A16:
      return nvfp4_grouped_gemm_w4a16(g->h, g->groups, g->dense + first, g->b + first, g->c + first, 1.0f, stream);
    case GROUPED_DUAL:
      return nvfp4_grouped_dual_gemm_silu(g->h, g->groups, g->a + first, g->b + first, g->b2 + first, g->c + first,
                                          1.0f, 1.0f, stream);
    case GROUPED_NVFP4: break;
  }
  return nvfp4_grouped_gemm(g->h, g->groups, g->a + first, g->b + first, g->c + first, 1.0f, stream);
}

/* The grouped benchmarks: nvfp4_grouped_gemm, nvfp4_grouped_gemm_w4a16 on activations of act_dtype, or
 * nvfp4_grouped_dual_gemm_silu with a second B per group. Alphas 1: on these operands most of the dual GEMM's
 * f16 outputs are then 0 or infinite, which is fine here, where nothing reads them. */
static nvfp4_status bench_grouped(nvfp4_handle *h, int groups, const int64_t *m, int64_t n, int64_t k,
                                  grouped_call call, nvfp4_dtype act_dtype, const nvfp4i_bench_method *method,
                                  nvfp4i_timing *t, double *flops, double *bytes) {
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  input_sets sets = {0, NULL};
  pools p = {0};
  grouped_arg g = {h, groups, call, NULL, NULL, NULL, NULL, NULL};
  int dense = call == GROUPED_W4A16, dual = call == GROUPED_DUAL;
  /* one set's layout (offsets from its base): every group's A (or dense activations), B (and B2) and C */
  nvfp4_tensor *a0 = calloc((size_t)groups, sizeof *a0), *b0 = calloc((size_t)groups, sizeof *b0);
  nvfp4_tensor *b20 = calloc((size_t)groups, sizeof *b20);
  nvfp4_dense *dense0 = calloc((size_t)groups, sizeof *dense0);
  size_t *c_offset = calloc((size_t)groups, sizeof *c_offset), set_bytes = 0, largest = 0;
  if (a0 == NULL || b0 == NULL || b20 == NULL || dense0 == NULL || c_offset == NULL) {
    status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
    goto out;
  }
  *flops = *bytes = 0.0;
  /* bytes per activation element: packed e2m1 and its share of a scale, or an f16/bf16 value */
  double act_bytes = dense ? 2.0 : 0.5 + 1.0 / 16;
  int products = dual ? 2 : 1; /* weight operands, and products, per group */
  for (int i = 0; i < groups; i++) {
    size_t a_bytes;
    if (dense) {
      dense0[i] = place_dense(&set_bytes, m[i], k, 1, act_dtype);
      a_bytes = (size_t)(m[i] * k) * sizeof(uint16_t);
    } else {
      a0[i] = place_operand(&set_bytes, m[i], k, 1);
      a_bytes = (size_t)a0[i].batch_stride;
    }
    b0[i] = place_operand(&set_bytes, n, k, 1);
    if (dual) b20[i] = place_operand(&set_bytes, n, k, 1);
    c_offset[i] = place(&set_bytes, (size_t)(m[i] * n) * sizeof(uint16_t));
    if ((size_t)b0[i].batch_stride > largest) largest = (size_t)b0[i].batch_stride;
    if (a_bytes > largest) largest = a_bytes;
    *flops += 2.0 * products * (double)m[i] * (double)n * (double)k;
    if (m[i] > 0) /* an empty group reads nothing */
      *bytes += (double)m[i] * (double)k * act_bytes + products * (double)n * (double)k * (0.5 + 1.0 / 16) +
                2.0 * (double)m[i] * (double)n;
  }
  status = sets_create(&sets, h, method, set_bytes);
  if (status == NVFP4_STATUS_SUCCESS) status = pools_create(&p, largest);
  if (status == NVFP4_STATUS_SUCCESS && dense) status = pools_add_activations(&p, act_dtype);
  if (status != NVFP4_STATUS_SUCCESS) goto out;
  size_t total = (size_t)sets.count * (size_t)groups;
  g.a = dense ? NULL : calloc(total, sizeof *g.a);
  g.dense = dense ? calloc(total, sizeof *g.dense) : NULL;
  g.b = calloc(total, sizeof *g.b);
  g.b2 = dual ? calloc(total, sizeof *g.b2) : NULL;
  g.c = calloc(total, sizeof *g.c);
  if ((g.a == NULL && g.dense == NULL) || g.b == NULL || (dual && g.b2 == NULL) || g.c == NULL) {
    status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
    goto out;
  }
  for (size_t s = 0, i = 0; s < (size_t)sets.count && status == NVFP4_STATUS_SUCCESS; s++)
    for (int group = 0; group < groups && status == NVFP4_STATUS_SUCCESS; group++, i++) {
      g.b[i] = at_base(b0[group], sets.memory[s]);
      g.c[i] = (nvfp4_output){(void *)(uintptr_t)(sets.memory[s] + c_offset[group]), n, 0, NVFP4_DTYPE_F16};
      if (dense) {
        g.dense[i] = dense_at_base(dense0[group], sets.memory[s]);
        status = upload_dense(&g.dense[i], &p, 2 * i);
      } else {
        g.a[i] = at_base(a0[group], sets.memory[s]);
        status = upload_operand(&g.a[i], &p, 2 * i);
      }
      if (status == NVFP4_STATUS_SUCCESS) status = upload_operand(&g.b[i], &p, 2 * i + 1);
      if (status == NVFP4_STATUS_SUCCESS && dual) {
        g.b2[i] = at_base(b20[group], sets.memory[s]);
        status = upload_operand(&g.b2[i], &p, 2 * total + i); /* past every A's and B's salt */
      }
    }
  if (status == NVFP4_STATUS_SUCCESS) status = time_sets(launch_grouped, &g, sets.count, method->runs, t);
out:
  free(g.a);
  free(g.b);
  free(g.b2);
  free(g.dense);
  free(g.c);
  free(a0);
  free(b0);
  free(b20);
  free(dense0);
  free(c_offset);
  pools_destroy(&p);
  sets_destroy(&sets);
  return status;
}

nvfp4_status nvfp4i_bench_grouped_gemm(nvfp4_handle *h, int groups, const int64_t *m, int64_t n, int64_t k,
                                       const nvfp4i_bench_method *method, nvfp4i_timing *t, double *flops,
                                       double *bytes) {
  return bench_grouped(h, groups, m, n, k, GROUPED_NVFP4, NVFP4_DTYPE_F16, method, t, flops, bytes);
}

nvfp4_status nvfp4i_bench_grouped_gemm_w4a16(nvfp4_handle *h, int groups, const int64_t *m, int64_t n, int64_t k,
                                             nvfp4_dtype act_dtype, const nvfp4i_bench_method *method,
                                             nvfp4i_timing *t, double *flops, double *bytes) {
  return bench_grouped(h, groups, m, n, k, GROUPED_W4A16, act_dtype, method, t, flops, bytes);
}

nvfp4_status nvfp4i_bench_dual_gemm(nvfp4_handle *h, int groups, const int64_t *m, int64_t n, int64_t k,
                                    const nvfp4i_bench_method *method, nvfp4i_timing *t, double *flops,
                                    double *bytes) {
  return bench_grouped(h, groups, m, n, k, GROUPED_DUAL, NVFP4_DTYPE_F16, method, t, flops, bytes);
}

/* ---- dequantize */

typedef struct dequantize_arg {
  nvfp4_handle *h;
  nvfp4_tensor *in; /* per set */
  nvfp4_output *out;
} dequantize_arg;

static nvfp4_status launch_dequantize(void *arg, int set, CUstream stream) {
  dequantize_arg *d = arg;
  return nvfp4_dequantize(d->h, &d->in[set], &d->out[set], stream);
}

nvfp4_status nvfp4i_bench_dequantize(nvfp4_handle *h, int64_t m, int64_t k, nvfp4_dtype dtype,
                                     const nvfp4i_bench_method *method, nvfp4i_timing *t, double *bytes) {
  size_t set_bytes = 0, esize = (size_t)nvfp4i_dtype_size(dtype);
  nvfp4_tensor in0 = place_operand(&set_bytes, m, k, 1);
  size_t out_offset = place(&set_bytes, (size_t)(m * k) * esize);
  *bytes = (double)m * (double)k * (0.5 + 1.0 / 16 + (double)esize);
  input_sets sets;
  pools p = {0};
  dequantize_arg d = {h, NULL, NULL};
  nvfp4_status status = sets_create(&sets, h, method, set_bytes);
  if (status == NVFP4_STATUS_SUCCESS) status = pools_create(&p, (size_t)in0.batch_stride);
  if (status != NVFP4_STATUS_SUCCESS) goto out;
  d.in = calloc((size_t)sets.count, sizeof *d.in);
  d.out = calloc((size_t)sets.count, sizeof *d.out);
  if (d.in == NULL || d.out == NULL) {
    status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
    goto out;
  }
  for (int s = 0; s < sets.count && status == NVFP4_STATUS_SUCCESS; s++) {
    d.in[s] = at_base(in0, sets.memory[s]);
    d.out[s] = (nvfp4_output){(void *)(uintptr_t)(sets.memory[s] + out_offset), k, m * k, dtype};
    status = upload_operand(&d.in[s], &p, (uint64_t)s);
  }
  if (status == NVFP4_STATUS_SUCCESS) status = time_sets(launch_dequantize, &d, sets.count, method->runs, t);
out:
  free(d.in);
  free(d.out);
  pools_destroy(&p);
  sets_destroy(&sets);
  return status;
}

/* ---- the library's grouped dequantize (host/dequantize.h) */

typedef struct grouped_dequantize_arg {
  nvfp4_handle *h;
  int groups;
  nvfp4_tensor *in; /* groups per set */
  void **out;       /* groups per set */
  const int64_t *ld;
  nvfp4_dtype dtype;
} grouped_dequantize_arg;

static nvfp4_status launch_grouped_dequantize(void *arg, int set, CUstream stream) {
  grouped_dequantize_arg *d = arg;
  size_t first = (size_t)set * (size_t)d->groups;
  return nvfp4i_grouped_dequantize(d->h, d->groups, &d->in[first], &d->out[first], d->ld, d->dtype, stream);
}

nvfp4_status nvfp4i_bench_grouped_dequantize(nvfp4_handle *h, int groups, const int64_t *m, int64_t k,
                                             nvfp4_dtype dtype, const nvfp4i_bench_method *method,
                                             nvfp4i_timing *t, double *bytes) {
  size_t set_bytes = 0, esize = (size_t)nvfp4i_dtype_size(dtype), n = (size_t)groups, largest = 0;
  nvfp4_tensor *in0 = calloc(n, sizeof *in0);
  size_t *out_offset = calloc(n, sizeof *out_offset);
  int64_t *ld = calloc(n, sizeof *ld);
  grouped_dequantize_arg d = {h, groups, NULL, NULL, ld, dtype};
  input_sets sets = {0};
  pools p = {0};
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  if (in0 == NULL || out_offset == NULL || ld == NULL) {
    status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
    goto out;
  }
  *bytes = 0.0;
  for (int g = 0; g < groups; g++) {
    in0[g] = place_operand(&set_bytes, m[g], k, 1);
    out_offset[g] = place(&set_bytes, (size_t)(m[g] * k) * esize);
    ld[g] = k;
    *bytes += (double)m[g] * (double)k * (0.5 + 1.0 / 16 + (double)esize);
    if ((size_t)in0[g].batch_stride > largest) largest = (size_t)in0[g].batch_stride;
  }
  status = sets_create(&sets, h, method, set_bytes);
  if (status == NVFP4_STATUS_SUCCESS) status = pools_create(&p, largest);
  if (status != NVFP4_STATUS_SUCCESS) goto out;
  d.in = calloc((size_t)sets.count * n, sizeof *d.in);
  d.out = calloc((size_t)sets.count * n, sizeof *d.out);
  if (d.in == NULL || d.out == NULL) {
    status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
    goto out;
  }
  for (int s = 0; s < sets.count && status == NVFP4_STATUS_SUCCESS; s++)
    for (int g = 0; g < groups && status == NVFP4_STATUS_SUCCESS; g++) {
      size_t i = (size_t)s * n + (size_t)g;
      d.in[i] = at_base(in0[g], sets.memory[s]);
      d.out[i] = (void *)(uintptr_t)(sets.memory[s] + out_offset[g]);
      status = upload_operand(&d.in[i], &p, (uint64_t)i);
    }
  if (status == NVFP4_STATUS_SUCCESS)
    status = time_sets(launch_grouped_dequantize, &d, sets.count, method->runs, t);
out:
  free(d.in);
  free(d.out);
  free(in0);
  free(out_offset);
  free(ld);
  pools_destroy(&p);
  sets_destroy(&sets);
  return status;
}

/* ---- quantize */

typedef struct quantize_arg {
  nvfp4_handle *h;
  nvfp4_dense *in; /* per set */
  nvfp4_tensor *out;
} quantize_arg;

static nvfp4_status launch_quantize(void *arg, int set, CUstream stream) {
  quantize_arg *q = arg;
  return nvfp4_quantize(q->h, &q->in[set], &q->out[set], 1.0f, stream);
}

nvfp4_status nvfp4i_bench_quantize(nvfp4_handle *h, int64_t m, int64_t k, nvfp4_dtype dtype,
                                   const nvfp4i_bench_method *method, nvfp4i_timing *t, double *bytes) {
  size_t set_bytes = 0, esize = (size_t)nvfp4i_dtype_size(dtype), in_bytes = (size_t)(m * k) * esize;
  size_t in_offset = place(&set_bytes, in_bytes);
  nvfp4_tensor out0 = place_operand(&set_bytes, m, k, 1);
  *bytes = (double)m * (double)k * ((double)esize + 0.5 + 1.0 / 16);
  input_sets sets;
  pools p = {0};
  quantize_arg q = {h, NULL, NULL};
  nvfp4_status status = sets_create(&sets, h, method, set_bytes);
  /* activations alone (no codes or scales): f32 inputs read the pool's pairs of bf16 ones as one f32, its
   * high half an activation, its low half random mantissa bits, a value of the activation's magnitude */
  p.bytes = in_bytes + POOL_SLACK;
  if (status == NVFP4_STATUS_SUCCESS)
    status = pools_add_activations(&p, dtype == NVFP4_DTYPE_F16 ? NVFP4_DTYPE_F16 : NVFP4_DTYPE_BF16);
  if (status != NVFP4_STATUS_SUCCESS) goto out;
  q.in = calloc((size_t)sets.count, sizeof *q.in);
  q.out = calloc((size_t)sets.count, sizeof *q.out);
  if (q.in == NULL || q.out == NULL) {
    status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
    goto out;
  }
  for (int s = 0; s < sets.count && status == NVFP4_STATUS_SUCCESS; s++) {
    q.in[s] = (nvfp4_dense){(const void *)(uintptr_t)(sets.memory[s] + in_offset), m, k, 1, k, m * k, dtype};
    q.out[s] = at_base(out0, sets.memory[s]);
    size_t offset = (size_t)((uint64_t)s * 64 % (POOL_SLACK / sizeof(uint32_t))) * sizeof(uint16_t);
    CUresult r = nvfp4i_cuda()->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)q.in[s].data, p.activations + offset, in_bytes);
    if (r != CUDA_SUCCESS) status = nvfp4i_cuda_fail(r, "cuMemcpyHtoD");
  }
  if (status == NVFP4_STATUS_SUCCESS) status = time_sets(launch_quantize, &q, sets.count, method->runs, t);
out:
  free(q.in);
  free(q.out);
  pools_destroy(&p);
  sets_destroy(&sets);
  return status;
}

/* ---- scale relayout */

typedef struct relayout_arg {
  nvfp4_handle *h;
  nvfp4_tensor *from, *to; /* per set */
} relayout_arg;

static nvfp4_status launch_relayout(void *arg, int set, CUstream stream) {
  relayout_arg *r = arg;
  return nvfp4_scales_relayout(r->h, &r->from[set], &r->to[set], stream);
}

/* The scales alone of a rows x k tensor (one batch, LINEAR sf_ld k/16), placed as place_operand places an
 * operand; no data (relayout never looks at it). */
static nvfp4_tensor place_scales(size_t *end, int64_t rows, int64_t k, nvfp4_sf_layout layout) {
  int64_t sf_ld = layout == NVFP4_SF_LINEAR ? k / 16 : 0, sf_bytes = nvfp4i_sf_batch_bytes(layout, sf_ld, rows, k);
  size_t scales = place(end, (size_t)sf_bytes);
  return (nvfp4_tensor){NULL, (const void *)scales, rows, k, 1, 0, 0, sf_ld, sf_bytes, layout};
}

static nvfp4_tensor scales_at_base(nvfp4_tensor t, CUdeviceptr base) {
  t.scales = (const uint8_t *)(uintptr_t)base + (uintptr_t)t.scales;
  return t;
}

nvfp4_status nvfp4i_bench_scales_relayout(nvfp4_handle *h, int64_t m, int64_t k, nvfp4_sf_layout to_layout,
                                          const nvfp4i_bench_method *method, nvfp4i_timing *t, double *bytes) {
  nvfp4_sf_layout from_layout = to_layout == NVFP4_SF_LINEAR ? NVFP4_SF_BLOCKED_128x4 : NVFP4_SF_LINEAR;
  size_t set_bytes = 0;
  nvfp4_tensor from0 = place_scales(&set_bytes, m, k, from_layout), to0 = place_scales(&set_bytes, m, k, to_layout);
  *bytes = (double)m * (double)(k / 16) + (double)to0.sf_batch_stride;
  input_sets sets;
  pools p = {0};
  relayout_arg r = {h, NULL, NULL};
  nvfp4_status status = sets_create(&sets, h, method, set_bytes);
  if (status == NVFP4_STATUS_SUCCESS) status = pools_create(&p, (size_t)from0.sf_batch_stride);
  if (status != NVFP4_STATUS_SUCCESS) goto out;
  r.from = calloc((size_t)sets.count, sizeof *r.from);
  r.to = calloc((size_t)sets.count, sizeof *r.to);
  if (r.from == NULL || r.to == NULL) {
    status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
    goto out;
  }
  for (int s = 0; s < sets.count && status == NVFP4_STATUS_SUCCESS; s++) {
    r.from[s] = scales_at_base(from0, sets.memory[s]);
    r.to[s] = scales_at_base(to0, sets.memory[s]);
    /* BLOCKED sources: whole tiles, padding as random as the scales */
    size_t offset = (size_t)((uint64_t)s * 64 % POOL_SLACK);
    CUresult cr = nvfp4i_cuda()->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)r.from[s].scales, p.scales + offset,
                                              (size_t)from0.sf_batch_stride);
    if (cr != CUDA_SUCCESS) status = nvfp4i_cuda_fail(cr, "cuMemcpyHtoD");
  }
  if (status == NVFP4_STATUS_SUCCESS) status = time_sets(launch_relayout, &r, sets.count, method->runs, t);
out:
  free(r.from);
  free(r.to);
  pools_destroy(&p);
  sets_destroy(&sets);
  return status;
}

/* ---- the probes */

/* The probes' parameter blocks (read_probe_layout.h, wgmma_peak_layout.h), each passed as one .param array. */
typedef struct read_probe_params {
  CUdeviceptr src;
  uint64_t n16;
  CUdeviceptr out;
  uint32_t never;
} read_probe_params;

_Static_assert(offsetof(read_probe_params, src) == READ_PROBE_P_SRC, "READ_PROBE_P_SRC");
_Static_assert(offsetof(read_probe_params, n16) == READ_PROBE_P_N16, "READ_PROBE_P_N16");
_Static_assert(offsetof(read_probe_params, out) == READ_PROBE_P_OUT, "READ_PROBE_P_OUT");
_Static_assert(offsetof(read_probe_params, never) == READ_PROBE_P_NEVER, "READ_PROBE_P_NEVER");
_Static_assert(READ_PROBE_P_NEVER + sizeof(uint32_t) == READ_PROBE_PARAM_BYTES, "READ_PROBE_PARAM_BYTES");

typedef struct wgmma_peak_params {
  CUdeviceptr out;
  uint32_t iters;
} wgmma_peak_params;

_Static_assert(offsetof(wgmma_peak_params, out) == WGMMA_PEAK_P_OUT, "WGMMA_PEAK_P_OUT");
_Static_assert(offsetof(wgmma_peak_params, iters) == WGMMA_PEAK_P_ITERS, "WGMMA_PEAK_P_ITERS");
_Static_assert(WGMMA_PEAK_P_ITERS + sizeof(uint32_t) == WGMMA_PEAK_PARAM_BYTES, "WGMMA_PEAK_PARAM_BYTES");

nvfp4_status nvfp4i_probes_load(const nvfp4_handle *h, nvfp4i_probes *p) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  *p = (nvfp4i_probes){.h = h};
  int pushed;
  nvfp4_status status = nvfp4i_context_enter(h, &pushed);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  NVFP4_CU_TRY(cu->cuModuleLoadData(&p->module, nvfp4i_probes_fatbin), status, leave);
  NVFP4_CU_TRY(cu->cuModuleGetFunction(&p->read, p->module, NVFP4I_READ_PROBE_ENTRY), status, unload);
  NVFP4_CU_TRY(cu->cuModuleGetFunction(&p->wgmma_peak, p->module, NVFP4I_WGMMA_PEAK_ENTRY), status, unload);
  goto leave;
unload:
  cu->cuModuleUnload(p->module);
  p->module = NULL;
leave:
  nvfp4i_context_leave(pushed);
  return status;
}

void nvfp4i_probes_unload(nvfp4i_probes *p) {
  int pushed;
  if (p->module != NULL && nvfp4i_context_enter(p->h, &pushed) == NVFP4_STATUS_SUCCESS) {
    nvfp4i_cuda()->cuModuleUnload(p->module);
    nvfp4i_context_leave(pushed);
  }
  p->module = NULL;
}

uint32_t nvfp4i_read_probe_threads(const nvfp4i_probes *p) {
  return (uint32_t)p->h->sm_count * READ_PROBE_CTAS_PER_SM * READ_PROBE_THREADS;
}

nvfp4_status nvfp4i_read_probe(const nvfp4i_probes *p, CUdeviceptr src, uint64_t vectors, CUdeviceptr out,
                               uint32_t never, CUstream stream) {
  read_probe_params block = {src, vectors, out, never};
  void *params[] = {&block};
  nvfp4i_launch launch = {.grid = {(unsigned)p->h->sm_count * READ_PROBE_CTAS_PER_SM, 1, 1},
                          .block = {READ_PROBE_THREADS, 1, 1},
                          .params = params};
  return nvfp4i_launch_function(p->h, p->read, NVFP4I_READ_PROBE_ENTRY, &launch, stream);
}

typedef struct read_arg {
  const nvfp4i_probes *p;
  CUdeviceptr src, out;
  uint64_t vectors; /* 16-byte vectors to read per set */
  size_t set_stride;
} read_arg;

static nvfp4_status launch_read(void *arg, int set, CUstream stream) {
  read_arg *r = arg;
  /* the buffer is all 0x5A bytes: every thread's xor is 0 or 0x5A5A5A5A, never this, so nothing is stored */
  return nvfp4i_read_probe(r->p, r->src + (CUdeviceptr)set * r->set_stride, r->vectors, r->out, 0x9E3779B9u,
                           stream);
}

nvfp4_status nvfp4i_bench_read(const nvfp4i_probes *p, double bytes, int runs, int sets, nvfp4i_timing *t) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  read_arg r = {p, 0, 0, ((uint64_t)bytes + 15) / 16, 0};
  r.set_stride = (size_t)(r.vectors * 16 + SET_ALIGN - 1) / SET_ALIGN * SET_ALIGN;
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  NVFP4_CU_TRY(cu->cuMemAlloc(&r.src, r.set_stride * (size_t)sets), status, out);
  NVFP4_CU_TRY(cu->cuMemAlloc(&r.out, sizeof(uint32_t) * nvfp4i_read_probe_threads(p)), status, out);
  NVFP4_CU_TRY(cu->cuMemsetD8(r.src, 0x5A, r.set_stride * (size_t)sets), status, out);
  status = time_sets(launch_read, &r, sets, runs, t);
out:
  if (r.src) cu->cuMemFree(r.src);
  if (r.out) cu->cuMemFree(r.out);
  return status;
}

typedef struct peak_arg {
  const nvfp4i_probes *p;
  wgmma_peak_params params;
} peak_arg;

static nvfp4_status launch_peak(void *arg, int set, CUstream stream) {
  (void)set;
  peak_arg *a = arg;
  void *params[] = {&a->params};
  nvfp4i_launch launch = {.grid = {(unsigned)a->p->h->sm_count, 1, 1},
                          .block = {WGMMA_PEAK_THREADS, 1, 1},
                          .params = params};
  return nvfp4i_launch_function(a->p->h, a->p->wgmma_peak, NVFP4I_WGMMA_PEAK_ENTRY, &launch, stream);
}

nvfp4_status nvfp4i_bench_wgmma_peak(const nvfp4i_probes *p, int runs, double *tflops) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  peak_arg a = {p, {0, 2000}};
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  nvfp4i_timing t;
  NVFP4_CU_TRY(cu->cuMemAlloc(&a.params.out, sizeof(float) * (size_t)p->h->sm_count), status, out);
  status = time_sets(launch_peak, &a, 1, runs, &t); /* compute-bound: nothing to hide in L2 */
  if (status == NVFP4_STATUS_SUCCESS) {
    double warpgroups = (double)p->h->sm_count * (WGMMA_PEAK_THREADS / 128);
    double flops = warpgroups * a.params.iters * WGMMA_PEAK_MMAS_PER_TRIP * (2.0 * 64 * 256 * 16);
    *tflops = flops / (t.median_us * 1e-6) / 1e12;
  }
out:
  if (a.params.out) cu->cuMemFree(a.params.out);
  return status;
}

/* ---- the workloads */

const nvfp4i_gemv_workload nvfp4i_gemv_workloads[] = {
    {"gemv1", 7168, 16384, 1}, {"gemv2", 4096, 7168, 8}, {"gemv3", 7168, 2048, 4}};
const int nvfp4i_gemv_workload_count = sizeof nvfp4i_gemv_workloads / sizeof nvfp4i_gemv_workloads[0];

const nvfp4i_dequantize_workload nvfp4i_dequantize_workloads[] = {
    {"deq-f16", 16384, 16384, NVFP4_DTYPE_F16},
    {"deq-bf16", 16384, 16384, NVFP4_DTYPE_BF16},
};
const int nvfp4i_dequantize_workload_count =
    sizeof nvfp4i_dequantize_workloads / sizeof nvfp4i_dequantize_workloads[0];

const nvfp4i_relayout_workload nvfp4i_relayout_workloads[] = {
    {"rly-lin2blk", 16384, 16384, NVFP4_SF_BLOCKED_128x4},
    {"rly-blk2lin", 16384, 16384, NVFP4_SF_LINEAR},
};
const int nvfp4i_relayout_workload_count = sizeof nvfp4i_relayout_workloads / sizeof nvfp4i_relayout_workloads[0];

/* tests/unit/check_bench.c draws them again from NVFP4I_MOE_SEED */
const int64_t nvfp4i_moe_m[NVFP4I_MOE_GROUPS] = {
    11, 24, 5,  21, 18, 19, 22, 7,  19, 8,  0,  10, 17, 5,  1,  4,  1,  17, 15, 10, 11, 24,
    9,  23, 10, 17, 19, 5,  2,  20, 12, 4,  9,  13, 8,  12, 4,  23, 7,  19, 13, 11, 16, 11,
    14, 22, 22, 7,  6,  3,  4,  8,  9,  18, 6,  20, 7,  14, 19, 19, 0,  24, 6,  0};

const nvfp4i_grouped_workload nvfp4i_grouped_workloads[] = {
    {"gg1", 8, (const int64_t[]){80, 176, 128, 72, 64, 248, 96, 160}, 4096, 7168},
    {"gg2", 8, (const int64_t[]){40, 76, 168, 72, 164, 148, 196, 160}, 7168, 2048},
    {"gg3", 2, (const int64_t[]){192, 320}, 3072, 4096},
    {"gg4", 2, (const int64_t[]){128, 384}, 4096, 1536},
    {"moe1", NVFP4I_MOE_GROUPS, nvfp4i_moe_m, 4096, 7168},
};
const int nvfp4i_grouped_workload_count = sizeof nvfp4i_grouped_workloads / sizeof nvfp4i_grouped_workloads[0];

const nvfp4i_gemm_workload nvfp4i_gemm_workloads[] = {
    {"gemm1", 128, 7168, 16384, 1}, {"gemm2", 128, 4096, 7168, 1}, {"gemm3", 128, 7168, 2048, 1}};
const int nvfp4i_gemm_workload_count = sizeof nvfp4i_gemm_workloads / sizeof nvfp4i_gemm_workloads[0];

const nvfp4i_grouped_workload nvfp4i_dual_workloads[] = {
    {"dual1", 1, (const int64_t[]){256}, 4096, 7168},
    {"dual2", 1, (const int64_t[]){512}, 4096, 7168},
    {"dual3", 1, (const int64_t[]){256}, 3072, 4096},
    {"dual4", 1, (const int64_t[]){512}, 3072, 7168},
};
const int nvfp4i_dual_workload_count = sizeof nvfp4i_dual_workloads / sizeof nvfp4i_dual_workloads[0];
