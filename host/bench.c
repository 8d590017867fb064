#include "bench.h"

#include <stdlib.h>

#include "cuda_driver.h"
#include "error.h"
#include "launch.h"
#include "testdata.h"

enum { FLUSH_BYTES = 256 << 20 }; /* > 4x the H200's 60 MB L2: written before every timed launch */

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void summarise(double *us, int runs, nvfp4i_timing *t) {
  qsort(us, (size_t)runs, sizeof *us, compare_doubles);
  t->runs = runs;
  t->min_us = us[0];
  t->max_us = us[runs - 1];
  t->median_us = runs % 2 ? us[runs / 2] : 0.5 * (us[runs / 2 - 1] + us[runs / 2]);
}

/* The thing being timed, launched on the stream between the two events. */
typedef nvfp4_status (*timed_fn)(void *arg, CUstream stream);

/* runs+1 launches (the first one warms up), each after an L2 flush, timed with events. */
static nvfp4_status time_launches(timed_fn fn, void *arg, int runs, nvfp4i_timing *t) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  CUdeviceptr flush = 0;
  CUevent start = NULL, stop = NULL;
  double *us = malloc(sizeof(double) * (size_t)runs);
  if (us == NULL) return nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
  NVFP4_CU_TRY(cu->cuMemAlloc(&flush, FLUSH_BYTES), status, out);
  NVFP4_CU_TRY(cu->cuEventCreate(&start, CU_EVENT_DEFAULT), status, out);
  NVFP4_CU_TRY(cu->cuEventCreate(&stop, CU_EVENT_DEFAULT), status, out);
  for (int i = -1; i < runs; i++) {
    NVFP4_CU_TRY(cu->cuMemsetD8Async(flush, (unsigned char)i, FLUSH_BYTES, NULL), status, out);
    NVFP4_CU_TRY(cu->cuEventRecord(start, NULL), status, out);
    status = fn(arg, NULL);
    if (status != NVFP4_STATUS_SUCCESS) goto out;
    NVFP4_CU_TRY(cu->cuEventRecord(stop, NULL), status, out);
    NVFP4_CU_TRY(cu->cuEventSynchronize(stop), status, out);
    float ms;
    NVFP4_CU_TRY(cu->cuEventElapsedTime(&ms, start, stop), status, out);
    if (i >= 0) us[i] = ms * 1000.0;
  }
  summarise(us, runs, t);
out:
  if (start) cu->cuEventDestroy(start);
  if (stop) cu->cuEventDestroy(stop);
  if (flush) cu->cuMemFree(flush);
  free(us);
  return status;
}

typedef struct copy_arg {
  CUdeviceptr src, dst;
  size_t bytes;
} copy_arg;

static nvfp4_status launch_copy(void *arg, CUstream stream) {
  copy_arg *c = arg;
  CUresult r = nvfp4i_cuda()->cuMemcpyDtoDAsync(c->dst, c->src, c->bytes, stream);
  return r == CUDA_SUCCESS ? NVFP4_STATUS_SUCCESS : nvfp4i_cuda_fail(r, "cuMemcpyDtoDAsync");
}

nvfp4_status nvfp4i_bench_copy_bandwidth(int runs, double *tb_per_s) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  copy_arg c = {0, 0, (size_t)1 << 30};
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  nvfp4i_timing t;
  NVFP4_CU_TRY(cu->cuMemAlloc(&c.src, c.bytes), status, out);
  NVFP4_CU_TRY(cu->cuMemAlloc(&c.dst, c.bytes), status, out);
  NVFP4_CU_TRY(cu->cuMemsetD8(c.src, 0x5A, c.bytes), status, out);
  status = time_launches(launch_copy, &c, runs, &t);
  if (status == NVFP4_STATUS_SUCCESS) *tb_per_s = 2.0 * (double)c.bytes / (t.median_us * 1e-6) / 1e12;
out:
  if (c.src) cu->cuMemFree(c.src);
  if (c.dst) cu->cuMemFree(c.dst);
  return status;
}

typedef struct memset_arg {
  CUdeviceptr dst;
} memset_arg;

static nvfp4_status launch_small_memset(void *arg, CUstream stream) {
  CUresult r = nvfp4i_cuda()->cuMemsetD8Async(((memset_arg *)arg)->dst, 0x3C, 16, stream);
  return r == CUDA_SUCCESS ? NVFP4_STATUS_SUCCESS : nvfp4i_cuda_fail(r, "cuMemsetD8Async");
}

nvfp4_status nvfp4i_bench_launch_floor(int runs, double *us) {
  memset_arg m = {0};
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  nvfp4i_timing t;
  NVFP4_CU_TRY(nvfp4i_cuda()->cuMemAlloc(&m.dst, 16), status, out);
  status = time_launches(launch_small_memset, &m, runs, &t);
  if (status == NVFP4_STATUS_SUCCESS) *us = t.median_us;
out:
  if (m.dst) nvfp4i_cuda()->cuMemFree(m.dst);
  return status;
}

typedef struct gemv_arg {
  nvfp4_handle *h;
  const nvfp4_tensor *a, *x;
  nvfp4_output y;
} gemv_arg;

static nvfp4_status launch_gemv(void *arg, CUstream stream) {
  gemv_arg *g = arg;
  return nvfp4_gemv(g->h, g->a, g->x, &g->y, 1.0f, stream);
}

nvfp4_status nvfp4i_bench_gemv(nvfp4_handle *h, int64_t m, int64_t k, int64_t l, int runs, nvfp4i_timing *t,
                               double *bytes) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4i_rng rng = {0x6E76667034ull ^ (uint64_t)(m * 31 + k * 7 + l)};
  nvfp4i_operand a, x;
  CUdeviceptr d_y = 0;
  nvfp4_status status = nvfp4i_operand_create(&a, m, k, l, NVFP4_SF_LINEAR, 0, &rng);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  status = nvfp4i_operand_create(&x, 1, k, l, NVFP4_SF_LINEAR, 0, &rng);
  if (status != NVFP4_STATUS_SUCCESS) goto free_a;
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_y, (size_t)(m * l * 2)), status, free_x);
  gemv_arg g = {h, &a.dev, &x.dev, {(void *)(uintptr_t)d_y, 1, m, NVFP4_DTYPE_F16}};
  status = time_launches(launch_gemv, &g, runs, t);
  *bytes = (double)l * ((double)m * (double)k * (0.5 + 1.0 / 16) + (double)k * (0.5 + 1.0 / 16) + 2.0 * (double)m);
  cu->cuMemFree(d_y);
free_x:
  nvfp4i_operand_destroy(&x);
free_a:
  nvfp4i_operand_destroy(&a);
  return status;
}

typedef struct peak_arg {
  nvfp4_handle *h;
  CUdeviceptr out;
  uint32_t iters;
} peak_arg;

static nvfp4_status launch_peak(void *arg, CUstream stream) {
  peak_arg *p = arg;
  void *params[] = {&p->out, &p->iters};
  nvfp4i_launch launch = {.grid = {(unsigned)p->h->sm_count, 1, 1},
                          .block = {NVFP4I_WGMMA_PEAK_THREADS, 1, 1},
                          .params = params};
  return nvfp4i_launch_kernel(p->h, NVFP4I_KERNEL_WGMMA_PEAK, &launch, stream);
}

nvfp4_status nvfp4i_bench_wgmma_peak(nvfp4_handle *h, int runs, double *tflops) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  peak_arg p = {h, 0, 2000};
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  nvfp4i_timing t;
  NVFP4_CU_TRY(cu->cuMemAlloc(&p.out, sizeof(float) * (size_t)h->sm_count), status, out);
  status = time_launches(launch_peak, &p, runs, &t);
  if (status == NVFP4_STATUS_SUCCESS) {
    double flops = (double)h->sm_count * 2 * p.iters * 8 * (2.0 * 64 * 256 * 16);
    *tflops = flops / (t.median_us * 1e-6) / 1e12;
  }
out:
  if (p.out) cu->cuMemFree(p.out);
  return status;
}

typedef struct grouped_arg {
  nvfp4_handle *h;
  int groups;
  const nvfp4_tensor *a, *b;
  const nvfp4_output *c;
} grouped_arg;

static nvfp4_status launch_grouped(void *arg, CUstream stream) {
  grouped_arg *g = arg;
  return nvfp4_grouped_gemm(g->h, g->groups, g->a, g->b, g->c, 1.0f, stream);
}

nvfp4_status nvfp4i_bench_grouped_gemm(nvfp4_handle *h, int groups, const int64_t *m, int64_t n, int64_t k,
                                       int runs, nvfp4i_timing *t, double *flops, double *bytes) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4i_rng rng = {0x67726F7570ull ^ (uint64_t)(groups * 131 + n * 7 + k)};
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  nvfp4i_operand *a = calloc((size_t)groups, sizeof *a), *b = calloc((size_t)groups, sizeof *b);
  nvfp4_tensor *ta = calloc((size_t)groups, sizeof *ta), *tb = calloc((size_t)groups, sizeof *tb);
  nvfp4_output *tc = calloc((size_t)groups, sizeof *tc);
  CUdeviceptr *d_c = calloc((size_t)groups, sizeof *d_c);
  *flops = *bytes = 0.0;
  if (!a || !b || !ta || !tb || !tc || !d_c) {
    status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "bench: no host memory");
    goto out;
  }
  for (int g = 0; g < groups && status == NVFP4_STATUS_SUCCESS; g++) {
    status = nvfp4i_operand_create(&a[g], m[g], k, 1, NVFP4_SF_LINEAR, 0, &rng);
    if (status == NVFP4_STATUS_SUCCESS) status = nvfp4i_operand_create(&b[g], n, k, 1, NVFP4_SF_LINEAR, 0, &rng);
    if (status != NVFP4_STATUS_SUCCESS) break;
    NVFP4_CU_TRY(cu->cuMemAlloc(&d_c[g], (size_t)(m[g] * n * 2)), status, out);
    ta[g] = a[g].dev;
    tb[g] = b[g].dev;
    tc[g] = (nvfp4_output){(void *)(uintptr_t)d_c[g], n, 0, NVFP4_DTYPE_F16};
    *flops += 2.0 * (double)m[g] * (double)n * (double)k;
    *bytes += (double)(m[g] + n) * (double)k * (0.5 + 1.0 / 16) + 2.0 * (double)m[g] * (double)n;
  }
  if (status == NVFP4_STATUS_SUCCESS) {
    grouped_arg arg = {h, groups, ta, tb, tc};
    status = time_launches(launch_grouped, &arg, runs, t);
  }
out:
  for (int g = 0; d_c && g < groups; g++) {
    if (d_c[g]) cu->cuMemFree(d_c[g]);
    nvfp4i_operand_destroy(&a[g]);
    nvfp4i_operand_destroy(&b[g]);
  }
  free(a);
  free(b);
  free(ta);
  free(tb);
  free(tc);
  free(d_c);
  return status;
}

enum { READ_PROBE_CTAS_PER_SM = 4 }; /* 2048 threads per SM: ptx/sm90a/read_probe.ptx */

uint32_t nvfp4i_read_probe_threads(const nvfp4_handle *h) {
  return (uint32_t)h->sm_count * READ_PROBE_CTAS_PER_SM * NVFP4I_READ_PROBE_THREADS;
}

nvfp4_status nvfp4i_read_probe(nvfp4_handle *h, CUdeviceptr src, uint64_t vectors, CUdeviceptr out, uint32_t never,
                               CUstream stream) {
  void *params[] = {&src, &vectors, &out, &never};
  nvfp4i_launch launch = {.grid = {(unsigned)h->sm_count * READ_PROBE_CTAS_PER_SM, 1, 1},
                          .block = {NVFP4I_READ_PROBE_THREADS, 1, 1},
                          .params = params};
  return nvfp4i_launch_kernel(h, NVFP4I_KERNEL_READ_PROBE, &launch, stream);
}

typedef struct read_arg {
  nvfp4_handle *h;
  CUdeviceptr src, out;
  uint64_t vectors; /* 16-byte vectors to read */
} read_arg;

static nvfp4_status launch_read(void *arg, CUstream stream) {
  read_arg *r = arg;
  /* the buffer is all 0x5A bytes: every thread's xor is 0 or 0x5A5A5A5A, never this, so nothing is stored */
  return nvfp4i_read_probe(r->h, r->src, r->vectors, r->out, 0x9E3779B9u, stream);
}

nvfp4_status nvfp4i_bench_read(nvfp4_handle *h, double bytes, int runs, nvfp4i_timing *t) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  read_arg r = {h, 0, 0, ((uint64_t)bytes + 15) / 16};
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  NVFP4_CU_TRY(cu->cuMemAlloc(&r.src, r.vectors * 16), status, out);
  NVFP4_CU_TRY(cu->cuMemAlloc(&r.out, sizeof(uint32_t) * nvfp4i_read_probe_threads(h)), status, out);
  NVFP4_CU_TRY(cu->cuMemsetD8(r.src, 0x5A, r.vectors * 16), status, out);
  status = time_launches(launch_read, &r, runs, t);
out:
  if (r.src) cu->cuMemFree(r.src);
  if (r.out) cu->cuMemFree(r.out);
  return status;
}
