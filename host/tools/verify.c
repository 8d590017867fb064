#include "verify.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_driver.h"
#include "dequantize.h"
#include "error.h"
#include "format.h"
#include "quantize_ref.h"
#include "reference.h"
#include "testdata.h"
#include "validate.h"

enum { POISON_BYTE = 0xFF }; /* NaN in f16, bf16 and f32: an unwritten output can never pass */

/* Compares out[index[i]] with ref[i] for n results under the bar of the GEMMs (gated 0) or of the dual GEMM's
 * gated output (gated 1); v keeps the first failure (else the worst result). */
static void compare_bar(nvfp4_dtype dtype, int gated, const void *out, const int64_t *index, const double *ref,
                        const double *mag, int64_t n, nvfp4i_verdict *v) {
  for (int64_t i = 0; i < n; i++) {
    double got = nvfp4i_output_value(dtype, out, index[i]), ratio;
    int ok = gated ? nvfp4i_check_gated_value(dtype, got, ref[i], mag[i], &ratio)
                   : nvfp4i_check_value(dtype, got, ref[i], mag[i], &ratio);
    v->checked++;
    int first_failure = !ok && v->failures++ == 0;
    if (ratio > v->worst_ratio) v->worst_ratio = ratio;
    if (first_failure || (v->failures == 0 && ratio == v->worst_ratio))
      snprintf(v->detail, sizeof v->detail, "result %lld: got %.9g, expected %.9g (error/tolerance %.3g)",
               (long long)i, got, ref[i], ratio);
  }
}

static void compare(nvfp4_dtype dtype, const void *out, const int64_t *index, const double *ref,
                    const double *mag, int64_t n, nvfp4i_verdict *v) {
  compare_bar(dtype, 0, out, index, ref, mag, n, v);
}

/* Counts bytes of a poisoned output buffer that are not part of the result yet changed (is_result NULL: no
 * byte is). */
static int64_t count_clobbered(const uint8_t *buf, int64_t bytes, const uint8_t *is_result) {
  int64_t n = 0;
  for (int64_t i = 0; i < bytes; i++)
    if ((is_result == NULL || !is_result[i]) && buf[i] != POISON_BYTE) n++;
  return n;
}

/* Sets one random block scale of row `row` of batch `batch` of op's host copy to NaN (0x7F); the caller
 * uploads. */
static void inject_nan(nvfp4i_operand *op, int64_t batch, int64_t row, nvfp4i_rng *rng) {
  uint8_t *scales = (uint8_t *)op->host.scales + batch * op->host.sf_batch_stride;
  int64_t block = (int64_t)(nvfp4i_rng_next(rng) % (uint64_t)(op->host.k / 16));
  scales[nvfp4i_sf_offset(op->host.sf_layout, op->host.sf_ld, op->host.k, row, block)] = 0x7F;
}

/* Both GEMVs' check: with `dense`, nvfp4_gemv_w4a16 on dense x. */
static int verify_gemv(nvfp4_handle *h, const nvfp4i_gemv_case *c, int dense, nvfp4i_verdict *v) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  memset(v, 0, sizeof *v);
  nvfp4i_rng rng = {c->seed};
  nvfp4i_operand a, x;
  nvfp4i_dense_operand dx;
  memset(&x, 0, sizeof x);
  memset(&dx, 0, sizeof dx);
  int64_t y_ld = c->y_ld > 0 ? c->y_ld : 1;
  int esize = nvfp4i_dtype_size(c->dtype);
  int64_t y_bs = (c->m - 1) * y_ld + 1 + (c->l > 1 ? 3 : 0); /* a gap between batches too */
  int64_t y_elems = y_bs * c->l, n = c->m * c->l;
  size_t y_bytes = (size_t)(y_elems * esize);
  double *ref = malloc(sizeof(double) * (size_t)n), *mag = malloc(sizeof(double) * (size_t)n);
  int64_t *index = malloc(sizeof(int64_t) * (size_t)n);
  uint8_t *out = malloc(y_bytes), *is_result = calloc(y_bytes, 1);
  CUdeviceptr d_y = 0;
  if (!ref || !mag || !index || !out || !is_result) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    goto free_host;
  }
  v->status = nvfp4i_operand_create(&a, c->m, c->k, c->l, c->a_layout, c->a_pad, &rng);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_host;
  v->status = dense ? nvfp4i_dense_operand_create_laid_out(&dx, 1, c->k, c->l, c->x_dtype, c->k,
                                                          c->k + c->x_batch_pad, c->x_offset, &rng)
                    : nvfp4i_operand_create(&x, 1, c->k, c->l, c->x_layout, 0, &rng);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_a;
  if (c->nan_row >= 0 && c->nan_row < c->m) {
    inject_nan(&a, 0, c->nan_row, &rng);
    v->status = nvfp4i_operand_upload(&a);
    if (v->status != NVFP4_STATUS_SUCCESS) goto free_x;
  }
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_y, y_bytes), v->status, free_x);
  NVFP4_CU_TRY(cu->cuMemsetD8(d_y, POISON_BYTE, y_bytes), v->status, free_y);

  nvfp4_output y = {(void *)(uintptr_t)d_y, y_ld, y_bs, c->dtype};
  v->status = dense ? nvfp4_gemv_w4a16(h, &a.dev, &dx.dev, &y, c->alpha, NULL)
                    : nvfp4_gemv(h, &a.dev, &x.dev, &y, c->alpha, NULL);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_y;
  NVFP4_CU_TRY(cu->cuCtxSynchronize(), v->status, free_y);
  NVFP4_CU_TRY(cu->cuMemcpyDtoH(out, d_y, y_bytes), v->status, free_y);

  if (dense)
    nvfp4i_reference_gemv_w4a16(&a.host, &dx.host, c->alpha, ref, mag);
  else
    nvfp4i_reference_gemv(&a.host, &x.host, c->alpha, ref, mag);
  for (int64_t l = 0; l < c->l; l++)
    for (int64_t m = 0; m < c->m; m++) {
      int64_t e = l * y_bs + m * y_ld;
      index[l * c->m + m] = e;
      memset(is_result + e * esize, 1, (size_t)esize);
    }
  compare(c->dtype, out, index, ref, mag, n, v);
  v->clobbered = count_clobbered(out, (int64_t)y_bytes, is_result);

free_y:
  cu->cuMemFree(d_y);
free_x:
  nvfp4i_operand_destroy(&x);
  nvfp4i_dense_operand_destroy(&dx);
free_a:
  nvfp4i_operand_destroy(&a);
free_host:
  free(ref);
  free(mag);
  free(index);
  free(out);
  free(is_result);
  return v->status == NVFP4_STATUS_SUCCESS && v->failures == 0 && v->clobbered == 0 && v->checked == n;
}

int nvfp4i_verify_gemv(nvfp4_handle *h, const nvfp4i_gemv_case *c, nvfp4i_verdict *v) {
  return verify_gemv(h, c, 0, v);
}

int nvfp4i_verify_gemv_w4a16(nvfp4_handle *h, const nvfp4i_gemv_case *c, nvfp4i_verdict *v) {
  return verify_gemv(h, c, 1, v);
}

enum { FULL_CHECK_MACS = 200000000 }; /* per group: above it, a sample of columns (unless every_column) */

/* One group's operands, output placement and type, and injected NaN rows; for nvfp4_gemm, one batch of its
 * operands. */
/* What verify_grouped calls: nvfp4_grouped_gemm, nvfp4_grouped_gemm_w4a16 (dense activations) or
 * nvfp4_grouped_dual_gemm_silu (a second weight operand b2). */
typedef enum grouped_kind { GROUPED_NVFP4, GROUPED_W4A16, GROUPED_DUAL } grouped_kind;

typedef struct grouped_group {
  nvfp4i_operand a, b;
  nvfp4i_operand b2;            /* the dual GEMM's up projection (b is its gate projection) */
  nvfp4i_dense_operand dense_a; /* W4A16: the activations, in place of a */
  int64_t batch;                /* the batch of a and b this group reads (0 but for nvfp4_gemm) */
  int every_column;             /* 1: every output is checked, whatever the MAC count */
  int64_t m, n, k;
  nvfp4_dtype dtype;
  int64_t c_offset; /* bytes from the start of the output buffer (16-byte aligned) */
  int64_t c_ld;     /* elements */
  int64_t nan_a_row, nan_b_row; /* -1: none */
} grouped_group;

/* nvfp4i_operand_create (its device scales moved sf_misalign bytes off their alignment), or for 0 rows an
 * empty tensor with no memory behind it (a skipped group). */
static nvfp4_status create_operand(nvfp4i_operand *op, int64_t rows, int64_t k, nvfp4_sf_layout layout,
                                   int64_t pad, int64_t sf_misalign, nvfp4i_rng *rng) {
  if (rows > 0) {
    nvfp4_status status = nvfp4i_operand_create(op, rows, k, 1, layout, pad, rng);
    if (status == NVFP4_STATUS_SUCCESS && sf_misalign > 0) status = nvfp4i_operand_misalign_scales(op, sf_misalign);
    if (status != NVFP4_STATUS_SUCCESS) nvfp4i_operand_destroy(op);
    return status;
  }
  memset(op, 0, sizeof *op);
  op->dev = op->host = (nvfp4_tensor){NULL, NULL, 0, k, 1, k / 2, 0, k / 16, 0, layout};
  return NVFP4_STATUS_SUCCESS;
}

/* nvfp4i_dense_operand_create, or for 0 rows an empty operand with no memory behind it (a skipped group). */
static nvfp4_status create_dense_operand(nvfp4i_dense_operand *op, int64_t rows, int64_t k, nvfp4_dtype dtype,
                                         int64_t pad, nvfp4i_rng *rng) {
  if (rows > 0) return nvfp4i_dense_operand_create(op, rows, k, 1, dtype, pad, rng);
  memset(op, 0, sizeof *op);
  op->dev = op->host = (nvfp4_dense){NULL, 0, k, 1, k, 0, dtype};
  return NVFP4_STATUS_SUCCESS;
}

/* The columns (rows of B) checked for a group: all, or the first 16, the last 40, the NaN row and random
 * ones up to the MAC budget. Returns the count written to cols (sized n), -1 without host memory. */
static int64_t choose_columns(const grouped_group *gr, nvfp4i_rng *rng, int64_t *cols) {
  int64_t n = gr->n, count = 0;
  if (gr->every_column || gr->m * gr->n * gr->k <= FULL_CHECK_MACS) {
    for (int64_t j = 0; j < n; j++) cols[count++] = j;
    return count;
  }
  int64_t budget = FULL_CHECK_MACS / (gr->m * gr->k);
  if (budget < 64) budget = 64;
  uint8_t *taken = calloc((size_t)n, 1);
  if (taken == NULL) return -1;
  for (int64_t j = 0; j < n; j++)
    if (j < 16 || j >= n - 40 || j == gr->nan_b_row) taken[j] = 1;
  for (int64_t extra = 0; extra < budget; extra++) taken[nvfp4i_rng_next(rng) % (uint64_t)n] = 1;
  for (int64_t j = 0; j < n; j++)
    if (taken[j]) cols[count++] = j;
  free(taken);
  return count;
}

/* The reference and the comparison of columns [first, end) of a group's chosen ones, COLUMN_BLOCK at a time:
 * their rows of b (and b2) decoded, then each row of a against all of them while it is in the cache
 * (nvfp4i_dot_rows), so that a is read from memory once a block, not once a column. Into a verdict of its own:
 * one thread's share of check_group. */
enum { COLUMN_BLOCK = 8 };

typedef struct column_range {
  const grouped_group *gr;
  grouped_kind kind;
  double alpha, alpha2;
  const double *arows; /* every row of a, decoded */
  const int64_t *cols; /* the chosen columns */
  int64_t first, end;
  const uint8_t *c_out;
  nvfp4i_verdict v; /* this range's comparisons */
  int no_memory;
} column_range;

static void *compare_columns(void *arg) {
  column_range *w = arg;
  const grouped_group *gr = w->gr;
  int64_t m = gr->m, k = gr->k;
  size_t row_bytes = sizeof(double) * (size_t)(COLUMN_BLOCK * k), results = sizeof(double) * (size_t)(COLUMN_BLOCK * m);
  double *brows = malloc(row_bytes), *b2rows = malloc(row_bytes);
  double *ref = malloc(results), *mag = malloc(results); /* the dual GEMM's gate, then its output */
  double *up = malloc(results), *up_mag = malloc(results); /* the dual GEMM's up product */
  int64_t *index = malloc(sizeof(int64_t) * (size_t)m);
  w->no_memory = !(brows && b2rows && ref && mag && up && up_mag && index);
  for (int64_t first = w->first; !w->no_memory && first < w->end; first += COLUMN_BLOCK) {
    int count = w->end - first < COLUMN_BLOCK ? (int)(w->end - first) : COLUMN_BLOCK;
    for (int c = 0; c < count; c++) {
      nvfp4i_decode_row(&gr->b.host, gr->batch, w->cols[first + c], brows + c * k);
      if (w->kind == GROUPED_DUAL) nvfp4i_decode_row(&gr->b2.host, gr->batch, w->cols[first + c], b2rows + c * k);
    }
    /* ref[c * m + i]: row i against column first + c */
    for (int64_t i = 0; i < m; i++) {
      nvfp4i_dot_rows(w->arows + i * k, brows, count, k, w->alpha, ref + i, mag + i, m);
      if (w->kind == GROUPED_DUAL)
        nvfp4i_dot_rows(w->arows + i * k, b2rows, count, k, w->alpha2, up + i, up_mag + i, m);
    }
    for (int c = 0; c < count; c++) {
      double *cref = ref + c * m, *cmag = mag + c * m;
      for (int64_t i = 0; i < m; i++) {
        if (w->kind == GROUPED_DUAL) {
          double silu = cref[i] / (1.0 + exp(-cref[i])), g2 = up[c * m + i];
          cmag[i] = 1.1 * cmag[i] * fabs(g2) + up_mag[c * m + i] * fabs(silu);
          cref[i] = silu * g2;
        }
        index[i] = i * gr->c_ld + w->cols[first + c];
      }
      compare_bar(gr->dtype, w->kind == GROUPED_DUAL, w->c_out, index, cref, cmag, m, &w->v);
    }
  }
  free(brows);
  free(b2rows);
  free(ref);
  free(mag);
  free(up);
  free(up_mag);
  free(index);
  return NULL;
}

/* Adds a range's comparisons to v as if they came after v's: v keeps its first failure; with none, the
 * detail is the worst result's (of equal ones, the later). */
static void merge_verdict(nvfp4i_verdict *v, const nvfp4i_verdict *part) {
  int failed_before = v->failures > 0;
  v->checked += part->checked;
  v->failures += part->failures;
  if (!failed_before && (part->failures > 0 || (v->failures == 0 && part->worst_ratio >= v->worst_ratio)))
    memcpy(v->detail, part->detail, sizeof v->detail);
  if (part->worst_ratio > v->worst_ratio) v->worst_ratio = part->worst_ratio;
}

/* Reference for the chosen columns of one group, compared in place; marks every result element. Returns how
 * many outputs it compared (m times the columns chosen; 0 without host memory, which sets v->status).
 * The dual GEMM's reference: g1 = alpha * a b^T and g2 = alpha2 * a b2^T (magnitudes S1, S2) in float64,
 * silu(g1) * g2 under the bar with S = 1.1 * S1 * |g2| + S2 * |silu(g1)| (SPEC section 2). A large group's
 * columns are split into contiguous ranges, one a thread (at most MAX_THREADS, as many as the processors);
 * their verdicts are merged in column order, so the verdict is the one a single thread gives. */
enum { MAX_THREADS = 32, THREAD_MACS = 1 << 26 /* a thread's least share of the multiply-adds */ };

static int64_t check_group(double alpha, double alpha2, const grouped_group *gr, grouped_kind kind,
                           const uint8_t *out, uint8_t *is_result, nvfp4i_rng *rng, nvfp4i_verdict *v) {
  int esize = nvfp4i_dtype_size(gr->dtype);
  int64_t m = gr->m, n = gr->n, k = gr->k;
  const uint8_t *c_out = out + gr->c_offset;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      int64_t e = i * gr->c_ld + j;
      memset(is_result + gr->c_offset + e * esize, 1, (size_t)esize);
      const uint8_t *bytes = c_out + e * esize;
      int unwritten = 1;
      for (int b = 0; b < esize; b++) unwritten &= bytes[b] == POISON_BYTE;
      if (unwritten && v->failures++ == 0)
        snprintf(v->detail, sizeof v->detail, "C[%lld, %lld] never written", (long long)i, (long long)j);
    }
  int64_t *cols = malloc(sizeof(int64_t) * (size_t)n);
  double *arows = malloc(sizeof(double) * (size_t)(m * k));
  int64_t ncols = cols && arows ? choose_columns(gr, rng, cols) : -1;
  int no_memory = ncols < 0;
  for (int64_t i = 0; ncols > 0 && i < m; i++) {
    if (kind == GROUPED_W4A16)
      nvfp4i_decode_dense_row(&gr->dense_a.host, 0, i, arows + i * k);
    else
      nvfp4i_decode_row(&gr->a.host, gr->batch, i, arows + i * k);
  }
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int64_t macs = ncols > 0 ? m * ncols * k * (kind == GROUPED_DUAL ? 2 : 1) : 0;
  int64_t blocks = (ncols + COLUMN_BLOCK - 1) / COLUMN_BLOCK, threads = macs / THREAD_MACS;
  if (threads > cpus) threads = cpus;
  if (threads > MAX_THREADS) threads = MAX_THREADS;
  if (threads > blocks) threads = blocks;
  if (threads < 1) threads = 1;
  column_range ranges[MAX_THREADS];
  pthread_t thread[MAX_THREADS];
  int started[MAX_THREADS] = {0};
  for (int t = 0; ncols > 0 && t < threads; t++) {
    ranges[t] = (column_range){gr, kind, alpha, alpha2, arows, cols, blocks * t / threads * COLUMN_BLOCK,
                               blocks * (t + 1) / threads * COLUMN_BLOCK, c_out, {0}, 0};
    if (ranges[t].end > ncols) ranges[t].end = ncols;
    /* the last range runs here; one whose thread cannot start, too */
    started[t] = t + 1 < threads && pthread_create(&thread[t], NULL, compare_columns, &ranges[t]) == 0;
    if (!started[t]) compare_columns(&ranges[t]);
  }
  for (int t = 0; ncols > 0 && t < threads; t++) {
    if (started[t]) pthread_join(thread[t], NULL);
    no_memory |= ranges[t].no_memory;
    merge_verdict(v, &ranges[t].v);
  }
  if (no_memory) v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
  free(cols);
  free(arows);
  return ncols > 0 && !no_memory ? m * ncols : 0;
}

/* The grouped GEMMs' check, of the call `kind` names. */
static int verify_grouped(nvfp4_handle *h, const nvfp4i_grouped_case *c, grouped_kind kind, nvfp4i_verdict *v) {
  int dense = kind == GROUPED_W4A16;
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  memset(v, 0, sizeof *v);
  nvfp4i_rng rng = {c->seed};
  int G = c->groups, created = 0;
  grouped_group *gr = calloc((size_t)(G > 0 ? G : 1), sizeof *gr);
  nvfp4_tensor *ta = calloc((size_t)(G > 0 ? G : 1), sizeof *ta), *tb = calloc((size_t)(G > 0 ? G : 1), sizeof *tb);
  nvfp4_tensor *tb2 = calloc((size_t)(G > 0 ? G : 1), sizeof *tb2);
  nvfp4_dense *td = calloc((size_t)(G > 0 ? G : 1), sizeof *td);
  nvfp4_output *tc = calloc((size_t)(G > 0 ? G : 1), sizeof *tc);
  uint8_t *out = NULL, *is_result = NULL;
  CUdeviceptr d_c = 0;
  int64_t c_end = 0; /* bytes of the output buffer the groups so far take */
  int unchecked = 0; /* groups with outputs of which none was compared */
  if (!gr || !ta || !tb || !tb2 || !td || !tc) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    goto free_host;
  }
  for (int g = 0; g < G; g++, created++) {
    grouped_group *x = &gr[g];
    x->m = c->m[g % c->m_count];
    x->n = c->n[g % c->n_count];
    x->k = c->k[g % c->k_count];
    x->dtype = c->dtype_count > 0 ? c->dtypes[g % c->dtype_count] : c->dtype;
    x->c_ld = x->n + c->c_pad;
    x->c_offset = (c_end + 15) / 16 * 16 + 16; /* a gap before every group */
    c_end = x->c_offset + (x->m > 0 ? (x->m - 1) * x->c_ld + x->n : 0) * nvfp4i_dtype_size(x->dtype);
    x->nan_a_row = c->nan && !dense && g == 0 && x->m > 0 ? x->m / 3 : -1;
    x->nan_b_row = c->nan && (g == G - 1 || (dense && g == 0)) && x->n > 0 ? x->n / 2 : -1;
    nvfp4_sf_layout a_layout = c->layout_count > 0 ? c->a_layouts[g % c->layout_count] : c->a_layout;
    nvfp4_sf_layout b_layout = c->layout_count > 0 ? c->b_layouts[g % c->layout_count] : c->b_layout;
    nvfp4_dtype act_dtype = c->act_dtype_count > 0 ? c->act_dtypes[g % c->act_dtype_count] : NVFP4_DTYPE_F16;
    v->status = dense ? create_dense_operand(&x->dense_a, x->m, x->k, act_dtype, c->pad / 2, &rng)
                      : create_operand(&x->a, x->m, x->k, a_layout, c->pad, c->sf_misalign, &rng);
    if (v->status != NVFP4_STATUS_SUCCESS) goto free_operands;
    v->status = create_operand(&x->b, x->n, x->k, b_layout, c->pad, c->sf_misalign, &rng);
    if (v->status == NVFP4_STATUS_SUCCESS && kind == GROUPED_DUAL)
      v->status = create_operand(&x->b2, x->n, x->k, b_layout, c->pad + c->b2_pad, c->sf_misalign, &rng);
    if (v->status != NVFP4_STATUS_SUCCESS) {
      nvfp4i_operand_destroy(&x->a);
      nvfp4i_dense_operand_destroy(&x->dense_a);
      nvfp4i_operand_destroy(&x->b);
      goto free_operands;
    }
    if (x->nan_a_row >= 0) inject_nan(&x->a, 0, x->nan_a_row, &rng);
    if (x->nan_b_row >= 0) inject_nan(&x->b, 0, x->nan_b_row, &rng);
    if (x->nan_a_row >= 0) v->status = nvfp4i_operand_upload(&x->a);
    if (x->nan_b_row >= 0 && v->status == NVFP4_STATUS_SUCCESS) v->status = nvfp4i_operand_upload(&x->b);
    if (v->status != NVFP4_STATUS_SUCCESS) {
      created++;
      goto free_operands;
    }
    ta[g] = x->a.dev;
    td[g] = x->dense_a.dev;
    tb[g] = x->b.dev;
    tb2[g] = x->b2.dev;
  }
  size_t c_bytes = (size_t)c_end + 16;
  out = malloc(c_bytes);
  is_result = calloc(c_bytes, 1);
  if (!out || !is_result) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    goto free_operands;
  }
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_c, c_bytes), v->status, free_operands);
  NVFP4_CU_TRY(cu->cuMemsetD8(d_c, POISON_BYTE, c_bytes), v->status, free_c);
  for (int g = 0; g < G; g++)
    tc[g] = (nvfp4_output){(void *)(uintptr_t)(d_c + (CUdeviceptr)gr[g].c_offset), gr[g].c_ld, 0, gr[g].dtype};
  v->status = kind == GROUPED_W4A16 ? nvfp4_grouped_gemm_w4a16(h, G, td, tb, tc, c->alpha, NULL)
              : kind == GROUPED_DUAL ? nvfp4_grouped_dual_gemm_silu(h, G, ta, tb, tb2, tc, c->alpha, c->alpha2, NULL)
                                     : nvfp4_grouped_gemm(h, G, ta, tb, tc, c->alpha, NULL);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_c;
  NVFP4_CU_TRY(cu->cuCtxSynchronize(), v->status, free_c);
  NVFP4_CU_TRY(cu->cuMemcpyDtoH(out, d_c, c_bytes), v->status, free_c);
  for (int g = 0; g < G; g++)
    if (check_group(c->alpha, c->alpha2, &gr[g], kind, out, is_result, &rng, v) == 0 && gr[g].m * gr[g].n > 0)
      unchecked++;
  v->clobbered = count_clobbered(out, (int64_t)c_bytes, is_result);

free_c:
  cu->cuMemFree(d_c);
free_operands:
  for (int g = 0; g < created; g++) {
    nvfp4i_operand_destroy(&gr[g].a);
    nvfp4i_dense_operand_destroy(&gr[g].dense_a);
    nvfp4i_operand_destroy(&gr[g].b);
    nvfp4i_operand_destroy(&gr[g].b2);
  }
free_host:
  free(out);
  free(is_result);
  free(gr);
  free(ta);
  free(td);
  free(tb);
  free(tb2);
  free(tc);
  return v->status == NVFP4_STATUS_SUCCESS && v->failures == 0 && v->clobbered == 0 && unchecked == 0;
}

int nvfp4i_verify_grouped_gemm(nvfp4_handle *h, const nvfp4i_grouped_case *c, nvfp4i_verdict *v) {
  return verify_grouped(h, c, GROUPED_NVFP4, v);
}

int nvfp4i_verify_grouped_gemm_w4a16(nvfp4_handle *h, const nvfp4i_grouped_case *c, nvfp4i_verdict *v) {
  return verify_grouped(h, c, GROUPED_W4A16, v);
}

int nvfp4i_verify_dual_gemm(nvfp4_handle *h, const nvfp4i_grouped_case *c, nvfp4i_verdict *v) {
  return verify_grouped(h, c, GROUPED_DUAL, v);
}

enum { GEMM_GUARD_BYTES = 16 }; /* poisoned bytes before and after a dense GEMM's output */

int nvfp4i_verify_gemm(nvfp4_handle *h, const nvfp4i_gemm_case *c, nvfp4i_verdict *v) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  memset(v, 0, sizeof *v);
  nvfp4i_rng rng = {c->seed};
  nvfp4i_operand a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  int esize = nvfp4i_dtype_size(c->dtype);
  int64_t c_ld = c->n + c->c_pad, c_bs = c->m * c_ld + c->c_batch_pad;
  int64_t elems = (c->l - 1) * c_bs + (c->m - 1) * c_ld + c->n;
  size_t bytes = (size_t)(GEMM_GUARD_BYTES + elems * esize + GEMM_GUARD_BYTES);
  uint8_t *out = malloc(bytes), *is_result = calloc(bytes, 1);
  int64_t nan_a_row = c->nan ? c->m / 3 : -1, nan_b_row = c->nan ? c->n / 2 : -1;
  CUdeviceptr d_c = 0;
  if (!out || !is_result) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    goto free_host;
  }
  v->status = nvfp4i_operand_create(&a, c->m, c->k, c->l, c->a_layout, c->pad, &rng);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_host;
  v->status = nvfp4i_operand_create(&b, c->n, c->k, c->l, c->b_layout, c->pad, &rng);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_operands;
  if (c->nan) { /* a row of A's first batch, a column of the last batch's output */
    inject_nan(&a, 0, nan_a_row, &rng);
    inject_nan(&b, c->l - 1, nan_b_row, &rng);
    v->status = nvfp4i_operand_upload(&a);
    if (v->status == NVFP4_STATUS_SUCCESS) v->status = nvfp4i_operand_upload(&b);
    if (v->status != NVFP4_STATUS_SUCCESS) goto free_operands;
  }
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_c, bytes), v->status, free_operands);
  NVFP4_CU_TRY(cu->cuMemsetD8(d_c, POISON_BYTE, bytes), v->status, free_c);

  nvfp4_output out_c = {(void *)(uintptr_t)(d_c + GEMM_GUARD_BYTES), c_ld, c_bs, c->dtype};
  v->status = nvfp4_gemm(h, &a.dev, &b.dev, &out_c, c->alpha, NULL);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_c;
  NVFP4_CU_TRY(cu->cuCtxSynchronize(), v->status, free_c);
  NVFP4_CU_TRY(cu->cuMemcpyDtoH(out, d_c, bytes), v->status, free_c);
  int64_t expected = 0;
  for (int64_t l = 0; l < c->l && v->status == NVFP4_STATUS_SUCCESS; l++) {
    grouped_group batch = {.a = a, .b = b, .batch = l, .every_column = 1, .m = c->m, .n = c->n, .k = c->k,
                           .dtype = c->dtype, .c_offset = GEMM_GUARD_BYTES + l * c_bs * esize, .c_ld = c_ld,
                           .nan_a_row = l == 0 ? nan_a_row : -1, .nan_b_row = l == c->l - 1 ? nan_b_row : -1};
    expected += c->m * c->n;
    check_group(c->alpha, 0.0, &batch, GROUPED_NVFP4, out, is_result, &rng, v);
  }
  v->clobbered = count_clobbered(out, (int64_t)bytes, is_result);

free_c:
  cu->cuMemFree(d_c);
free_operands:
  nvfp4i_operand_destroy(&a);
  nvfp4i_operand_destroy(&b);
free_host:
  free(out);
  free(is_result);
  return v->status == NVFP4_STATUS_SUCCESS && v->failures == 0 && v->clobbered == 0 &&
         v->checked == c->m * c->n * c->l;
}

/* ---- dequantize */

enum { DEQ_GUARD_BYTES = 64 }; /* poisoned bytes before and after a dequantize output */

/* One block scale of every fifth row from row 1 NaN (0x7F, or 0xFF on odd fifths), of every fifth from row
 * 3 zero (0x00 or 0x80), in every batch of op's host copy; the caller uploads. */
static void inject_special_scales(nvfp4i_operand *op) {
  const nvfp4_tensor *t = &op->host;
  int64_t blocks = t->k / 16;
  for (int64_t b = 0; b < t->batch; b++)
    for (int64_t r = 1; r < t->rows; r++) {
      uint8_t *scales = (uint8_t *)t->scales + b * t->sf_batch_stride;
      int odd_fifth = (int)(r / 5 % 2);
      uint8_t *scale = &scales[nvfp4i_sf_offset(t->sf_layout, t->sf_ld, t->k, r, (r + b) % blocks)];
      if (r % 5 == 1) *scale = odd_fifth ? 0xFF : 0x7F;
      if (r % 5 == 3) *scale = odd_fifth ? 0x80 : 0x00;
    }
}

/* Compares row r (of k elements of `dtype`) of batch or group b (`unit` says which) of got with want (element
 * pointers of the same layout) bit for bit, any NaN the kernel wrote matching any NaN, then poisons those
 * elements of got so that only stray writes differ from the poison. */
static void compare_dequantized_row(nvfp4_dtype dtype, int64_t k, const char *unit, int64_t b, int64_t r,
                                    uint8_t *got, const uint8_t *want, nvfp4i_verdict *v) {
  static const uint8_t poison[4] = {POISON_BYTE, POISON_BYTE, POISON_BYTE, POISON_BYTE};
  int esize = nvfp4i_dtype_size(dtype);
  for (int64_t kk = 0; kk < k; kk++) {
    uint8_t *g = got + kk * esize;
    const uint8_t *w = want + kk * esize;
    double gv = nvfp4i_output_value(dtype, g, 0), wv = nvfp4i_output_value(dtype, w, 0);
    /* the poison is a NaN the kernel never writes (its NaNs are the canonical 0x7FFF.. ones) */
    int unwritten = memcmp(g, poison, (size_t)esize) == 0;
    int same = memcmp(g, w, (size_t)esize) == 0 || (isnan(gv) && isnan(wv) && !unwritten);
    v->checked++;
    if (!same && v->failures++ == 0) {
      unsigned long long gbits = 0, wbits = 0;
      memcpy(&gbits, g, (size_t)esize);
      memcpy(&wbits, w, (size_t)esize);
      snprintf(v->detail, sizeof v->detail, "%s %lld row %lld k %lld: got 0x%0*llx (%.9g), expected 0x%0*llx "
               "(%.9g)", unit, (long long)b, (long long)r, (long long)kk, 2 * esize, gbits, gv, 2 * esize, wbits,
               wv);
    }
    memset(g, POISON_BYTE, (size_t)esize);
  }
}

int nvfp4i_verify_dequantize(nvfp4_handle *h, const nvfp4i_dequantize_case *c, nvfp4i_verdict *v) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  memset(v, 0, sizeof *v);
  snprintf(v->detail, sizeof v->detail, "every element matched");
  nvfp4i_rng rng = {c->seed};
  nvfp4i_operand in;
  int esize = nvfp4i_dtype_size(c->dtype);
  int64_t ld = c->k + c->out_pad, batch_stride = c->rows * ld + c->out_batch_pad;
  int64_t elems = (c->batch - 1) * batch_stride + (c->rows - 1) * ld + c->k;
  int64_t head = DEQ_GUARD_BYTES + c->out_offset; /* the output's first byte in the buffer */
  size_t bytes = (size_t)(head + elems * esize + DEQ_GUARD_BYTES);
  uint8_t *got = malloc(bytes), *want = malloc(bytes);
  CUdeviceptr d_out = 0;
  if (!got || !want) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    goto free_host;
  }
  v->status = nvfp4i_operand_create(&in, c->rows, c->k, c->batch, c->layout, c->pad, &rng);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_host;
  if (c->special_rows) {
    inject_special_scales(&in);
    v->status = nvfp4i_operand_upload(&in);
    if (v->status != NVFP4_STATUS_SUCCESS) goto free_in;
  }
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_out, bytes), v->status, free_in);
  NVFP4_CU_TRY(cu->cuMemsetD8(d_out, POISON_BYTE, bytes), v->status, free_out);

  nvfp4_output out = {(void *)(uintptr_t)(d_out + (CUdeviceptr)head), ld, batch_stride, c->dtype};
  v->status = nvfp4_dequantize(h, &in.dev, &out, NULL);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_out;
  NVFP4_CU_TRY(cu->cuCtxSynchronize(), v->status, free_out);
  NVFP4_CU_TRY(cu->cuMemcpyDtoH(got, d_out, bytes), v->status, free_out);

  memset(want, POISON_BYTE, bytes);
  nvfp4_output ref_out = {want + head, ld, batch_stride, c->dtype};
  nvfp4i_dequantize_ref(&in.host, &ref_out);
  for (int64_t b = 0; b < c->batch; b++)
    for (int64_t r = 0; r < c->rows; r++) {
      int64_t first = head + (b * batch_stride + r * ld) * esize;
      compare_dequantized_row(c->dtype, c->k, "batch", b, r, got + first, want + first, v);
    }
  v->worst_ratio = v->failures ? INFINITY : 0.0;
  v->clobbered = count_clobbered(got, (int64_t)bytes, NULL); /* the results are poison again */

free_out:
  cu->cuMemFree(d_out);
free_in:
  nvfp4i_operand_destroy(&in);
free_host:
  free(got);
  free(want);
  return v->status == NVFP4_STATUS_SUCCESS && v->failures == 0 && v->clobbered == 0 &&
         v->checked == c->rows * c->k * c->batch;
}

/* Where group g's destination starts in the grouped check's buffer: past a poisoned guard, 16-byte aligned, then
 * out_offset bytes further on odd groups; *end is the byte after its last element. */
static int64_t grouped_destination(const nvfp4i_grouped_dequantize_case *c, int g, int64_t rows, int64_t k,
                                   int64_t cursor, int64_t *end) {
  int esize = nvfp4i_dtype_size(c->dtype);
  int64_t start = (cursor + DEQ_GUARD_BYTES + 15) / 16 * 16 + (g % 2 && !c->b_tiles ? c->out_offset : 0);
  if (c->b_tiles) *end = start + (int64_t)nvfp4i_b_tile_bytes(rows, k);
  else *end = start + (rows > 0 ? ((rows - 1) * (k + c->out_pad) + k) * esize : 0);
  return start;
}

/* Byte offset of element (r, kk) in a B-tile destination of `rows` rows (dequantize_layout.h). */
static int64_t b_tile_offset(int64_t rows, int64_t r, int64_t kk) {
  /* the permuted K order of dequantize_layout.h: k = 128S + 32t + 16h + 8j + 4e + s sits at position
   * 128S + 64h + 16s + 8j + 2t + e */
  int64_t p = kk % 128, t = p / 32, h = p / 16 % 2, j = p / 8 % 2, e = p / 4 % 2, s = p % 4;
  int64_t at = kk / 128 * 128 + 64 * h + 16 * s + 8 * j + 2 * t + e;
  return at / 64 * rows * 128 + r * 128 + (((at % 64) / 8) ^ (r % 8)) * 16 + (at % 8) * 2;
}

/* Group g's B tiles against the reference `want_rows` (rows x k, row-major): row by row, each row gathered
 * from the tiles (and those bytes poisoned again in got), its k elements compared as any destination's, the
 * padding to K_pad +0. */
static void compare_b_tiles(const nvfp4i_grouped_dequantize_case *c, int g, const nvfp4_tensor *t, uint8_t *got,
                            const uint8_t *want_rows, uint8_t *row, nvfp4i_verdict *v) {
  int64_t kpad = (int64_t)nvfp4i_b_tile_bytes(1, t->k) / 2;
  for (int64_t r = 0; r < t->rows; r++) {
    for (int64_t kk = 0; kk < kpad; kk++) {
      uint8_t *at = got + b_tile_offset(t->rows, r, kk);
      memcpy(row + kk * 2, at, 2);
      memset(at, POISON_BYTE, 2);
    }
    compare_dequantized_row(c->dtype, t->k, "group", g, r, row, want_rows + r * t->k * 2, v);
    for (int64_t kk = t->k; kk < kpad; kk++) {
      v->checked++;
      if ((row[kk * 2] != 0 || row[kk * 2 + 1] != 0) && v->failures++ == 0)
        snprintf(v->detail, sizeof v->detail, "group %d row %lld k %lld (K padding): got 0x%02x%02x, expected +0", g,
                 (long long)r, (long long)kk, row[kk * 2 + 1], row[kk * 2]);
    }
  }
}

int nvfp4i_verify_grouped_dequantize(nvfp4_handle *h, const nvfp4i_grouped_dequantize_case *c,
                                     nvfp4i_verdict *v) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  memset(v, 0, sizeof *v);
  snprintf(v->detail, sizeof v->detail, "every element matched");
  nvfp4i_rng rng = {c->seed};
  int G = c->groups, created = 0;
  size_t n = (size_t)(G > 0 ? G : 1);
  nvfp4i_operand *ops = calloc(n, sizeof *ops);
  nvfp4_tensor *in = calloc(n, sizeof *in);
  void **outs = calloc(n, sizeof *outs);
  int64_t *lds = calloc(n, sizeof *lds), *starts = calloc(n, sizeof *starts), expected = 0, bytes = 0;
  uint8_t *got = NULL, *want = NULL;
  CUdeviceptr d_out = 0;
  if (!ops || !in || !outs || !lds || !starts) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    goto free_host;
  }
  for (int g = 0; g < G; g++) {
    int64_t rows = c->rows[g % c->rows_count], k = c->k[g % c->k_count];
    starts[g] = grouped_destination(c, g, rows, k, bytes, &bytes);
    lds[g] = k + c->out_pad;
    expected += c->b_tiles ? rows * ((int64_t)nvfp4i_b_tile_bytes(1, k) / 2) : rows * k;
    if (rows == 0) { /* an empty group: nothing to read, its pointers NULL; its destination must stay poison */
      in[g] = (nvfp4_tensor){NULL, NULL, 0, k, 1, k / 2, 0, k / 16, 0, c->layouts[g % c->layout_count]};
      continue;
    }
    v->status = nvfp4i_operand_create(&ops[g], rows, k, 1, c->layouts[g % c->layout_count], c->pad, &rng);
    if (v->status != NVFP4_STATUS_SUCCESS) goto free_operands;
    created = g + 1;
    if (c->special_rows) {
      inject_special_scales(&ops[g]);
      v->status = nvfp4i_operand_upload(&ops[g]);
      if (v->status != NVFP4_STATUS_SUCCESS) goto free_operands;
    }
    in[g] = ops[g].dev;
  }
  bytes += DEQ_GUARD_BYTES;
  got = malloc((size_t)bytes);
  want = malloc((size_t)bytes);
  if (!got || !want) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    goto free_operands;
  }
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_out, (size_t)bytes), v->status, free_operands);
  NVFP4_CU_TRY(cu->cuMemsetD8(d_out, POISON_BYTE, (size_t)bytes), v->status, free_out);
  for (int g = 0; g < G; g++) outs[g] = (void *)(uintptr_t)(d_out + (CUdeviceptr)starts[g]);

  v->status = c->b_tiles ? nvfp4i_grouped_dequantize_b_tiles(h, G, in, outs, c->dtype, NULL)
                          : nvfp4i_grouped_dequantize(h, G, in, outs, lds, c->dtype, NULL);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_out;
  NVFP4_CU_TRY(cu->cuCtxSynchronize(), v->status, free_out);
  NVFP4_CU_TRY(cu->cuMemcpyDtoH(got, d_out, (size_t)bytes), v->status, free_out);

  memset(want, POISON_BYTE, (size_t)bytes);
  int esize = nvfp4i_dtype_size(c->dtype);
  for (int g = 0; g < G; g++) {
    const nvfp4_tensor *t = &ops[g].host;
    if (in[g].rows == 0) continue;
    if (c->b_tiles) {
      uint8_t *rows = malloc((size_t)(t->rows * t->k * esize)), *row = malloc(nvfp4i_b_tile_bytes(1, t->k));
      if (!rows || !row) {
        free(rows);
        free(row);
        v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
        goto free_out;
      }
      nvfp4_output ref_rows = {rows, t->k, 0, c->dtype};
      nvfp4i_dequantize_ref(t, &ref_rows);
      compare_b_tiles(c, g, t, got + starts[g], rows, row, v);
      free(rows);
      free(row);
      continue;
    }
    nvfp4_output ref_out = {want + starts[g], lds[g], 0, c->dtype};
    nvfp4i_dequantize_ref(t, &ref_out);
    for (int64_t r = 0; r < t->rows; r++) {
      int64_t first = starts[g] + r * lds[g] * esize;
      compare_dequantized_row(c->dtype, t->k, "group", g, r, got + first, want + first, v);
    }
  }
  v->worst_ratio = v->failures ? INFINITY : 0.0;
  v->clobbered = count_clobbered(got, bytes, NULL); /* the results are poison again */

free_out:
  cu->cuMemFree(d_out);
free_operands:
  for (int g = 0; g < created; g++) nvfp4i_operand_destroy(&ops[g]);
free_host:
  free(got);
  free(want);
  free(ops);
  free(in);
  free(outs);
  free(lds);
  free(starts);
  return v->status == NVFP4_STATUS_SUCCESS && v->failures == 0 && v->clobbered == 0 && v->checked == expected;
}

/* ---- quantize */

/* Element i of a dense buffer of `dtype` set to v (rounded to nearest even into f16 or bf16). */
static void store_input(nvfp4_dtype dtype, void *buffer, int64_t i, float v) {
  if (dtype == NVFP4_DTYPE_F32) ((float *)buffer)[i] = v;
  else if (dtype == NVFP4_DTYPE_F16) ((uint16_t *)buffer)[i] = nvfp4i_f16_from_double(v);
  else ((uint16_t *)buffer)[i] = nvfp4i_bf16_from_double(v);
}

/* v moved by `ulps` units in the last place of the input type (the bit pattern of its encoding +- ulps). */
static float nudge_input(nvfp4_dtype dtype, float v, int ulps) {
  if (ulps == 0 || v == 0.0f) return v;
  if (dtype == NVFP4_DTYPE_F32) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    u = (uint32_t)((int64_t)u + ulps);
    memcpy(&v, &u, sizeof v);
    return v;
  }
  uint16_t bits = dtype == NVFP4_DTYPE_F16 ? nvfp4i_f16_from_double(v) : nvfp4i_bf16_from_double(v);
  bits = (uint16_t)((int)bits + ulps);
  return (float)(dtype == NVFP4_DTYPE_F16 ? nvfp4i_f16_value(bits) : nvfp4i_bf16_value(bits));
}

static double uniform(nvfp4i_rng *rng) { return (double)(nvfp4i_rng_next(rng) >> 11) * 0x1p-53; }

/* One 16-element block of the input, `first` its first element, of the kinds nvfp4i_quantize_case lists. */
static void fill_input_block(const nvfp4i_quantize_case *c, void *buffer, int64_t first, nvfp4i_rng *rng) {
  static const float edges[] = {0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f, 3.5f, 4.0f,
                                5.0f, 6.0f};
  unsigned kind = (unsigned)(nvfp4i_rng_next(rng) % 24);
  double scale = 1.0 / c->global_scale;
  if (kind == 0) scale *= 0x1p-14; /* subnormal or zero e4m3 scales */
  for (int i = 0; i < 16; i++) {
    float v;
    int sign = nvfp4i_rng_next(rng) & 1 ? -1 : 1;
    if (kind < 3) { /* boundaries: amax / 6 on an e4m3 value or midpoint, the rest on e2m1 boundaries */
      unsigned code = 1 + (unsigned)(nvfp4i_rng_next(rng) % 0x7D);
      double s = (i == 0 && kind == 1) ? (nvfp4i_e4m3_value(code) + nvfp4i_e4m3_value(code + 1)) / 2
                                       : nvfp4i_e4m3_value(code);
      double e = i == 0 ? 6.0 : edges[nvfp4i_rng_next(rng) % (sizeof edges / sizeof edges[0])];
      v = nudge_input(c->dtype, (float)(sign * e * s * scale), (int)(nvfp4i_rng_next(rng) % 3) - 1);
    } else if (kind == 3) {
      v = 0.0f;
    } else if (kind == 4) {
      v = -0.0f;
    } else if (kind == 5 && i == (int)(first / 16 % 16)) {
      static const float specials[] = {NAN, INFINITY, -INFINITY};
      v = specials[nvfp4i_rng_next(rng) % 3];
    } else { /* random: magnitudes over 2^-20 .. 2^20 around the block's exponent */
      int exponent = (int)(first / 16 % 41) - 20;
      v = (float)(sign * ldexp(uniform(rng), exponent + (int)(nvfp4i_rng_next(rng) % 6)) * scale);
    }
    store_input(c->dtype, buffer, first + i, v);
  }
}

int nvfp4i_verify_quantize(nvfp4_handle *h, const nvfp4i_quantize_case *c, nvfp4i_verdict *v) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  memset(v, 0, sizeof *v);
  snprintf(v->detail, sizeof v->detail, "every byte matched");
  nvfp4i_rng rng = {c->seed};
  int esize = nvfp4i_dtype_size(c->dtype);
  int64_t in_ld = c->k + c->in_pad, in_bs = c->rows * in_ld + c->in_batch_pad;
  size_t in_bytes = (size_t)(c->in_offset + ((c->batch - 1) * in_bs + (c->rows - 1) * in_ld + c->k) * esize);
  nvfp4_tensor out = {NULL, NULL, c->rows, c->k, c->batch, c->k / 2 + c->pad, 0,
                      c->layout == NVFP4_SF_LINEAR ? c->k / 16 + 3 : 0, 0, c->layout};
  out.batch_stride = c->rows * out.ld + 16;
  out.sf_batch_stride = nvfp4i_sf_batch_bytes(c->layout, out.sf_ld, c->rows, c->k) + 16;
  size_t data_bytes = (size_t)(out.batch_stride * c->batch), sf_bytes = (size_t)(out.sf_batch_stride * c->batch);
  uint8_t *in_host = malloc(in_bytes), *got = malloc(data_bytes + sf_bytes), *want = malloc(data_bytes + sf_bytes);
  CUdeviceptr d_in = 0, d_out = 0;
  if (!in_host || !got || !want) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    goto free_host;
  }
  for (size_t i = 0; i < in_bytes; i++) in_host[i] = (uint8_t)nvfp4i_rng_next(&rng); /* garbage in the gaps */
  nvfp4_dense in = {in_host + c->in_offset, c->rows, c->k, c->batch, in_ld, in_bs, c->dtype};
  for (int64_t b = 0; b < c->batch; b++)
    for (int64_t r = 0; r < c->rows; r++)
      for (int64_t j = 0; j < c->k / 16; j++)
        fill_input_block(c, (void *)(uintptr_t)in.data, b * in_bs + r * in_ld + j * 16, &rng);
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_in, in_bytes), v->status, free_host);
  NVFP4_CU_TRY(cu->cuMemcpyHtoD(d_in, in_host, in_bytes), v->status, free_in);
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_out, data_bytes + sf_bytes), v->status, free_in);
  NVFP4_CU_TRY(cu->cuMemsetD8(d_out, POISON_BYTE, data_bytes + sf_bytes), v->status, free_out);

  nvfp4_dense d_dense = in;
  d_dense.data = (const void *)(uintptr_t)(d_in + (CUdeviceptr)c->in_offset);
  nvfp4_tensor d_tensor = out;
  d_tensor.data = (const void *)(uintptr_t)d_out;
  d_tensor.scales = (const void *)(uintptr_t)(d_out + data_bytes);
  v->status = nvfp4_quantize(h, &d_dense, &d_tensor, c->global_scale, NULL);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_out;
  NVFP4_CU_TRY(cu->cuCtxSynchronize(), v->status, free_out);
  NVFP4_CU_TRY(cu->cuMemcpyDtoH(got, d_out, data_bytes + sf_bytes), v->status, free_out);

  memset(want, POISON_BYTE, data_bytes + sf_bytes);
  out.data = want;
  out.scales = want + data_bytes;
  nvfp4i_quantize_ref(&in, &out, c->global_scale);
  for (size_t i = 0; i < data_bytes + sf_bytes; i++) {
    v->checked++;
    if (got[i] != want[i] && v->failures++ == 0)
      snprintf(v->detail, sizeof v->detail, "%s byte %zu: got 0x%02X, expected 0x%02X",
               i < data_bytes ? "data" : "scale", i < data_bytes ? i : i - data_bytes, got[i], want[i]);
  }
  v->worst_ratio = v->failures ? INFINITY : 0.0;

free_out:
  cu->cuMemFree(d_out);
free_in:
  cu->cuMemFree(d_in);
free_host:
  free(in_host);
  free(got);
  free(want);
  return v->status == NVFP4_STATUS_SUCCESS && v->failures == 0;
}

/* ---- scale relayout */

enum { RLY_GUARD_BYTES = 64 }; /* poisoned bytes before and after a destination: stray writes land there */

static int64_t round_up16(int64_t v) { return (v + 15) / 16 * 16; }

nvfp4_tensor nvfp4i_relayout_target(const nvfp4_tensor *shape, nvfp4_sf_layout layout, int64_t sf_ld_pad,
                                    int aligned) {
  nvfp4_tensor t = {NULL, NULL, shape->rows, shape->k, shape->batch, 0, 0,
                    layout == NVFP4_SF_LINEAR ? shape->k / 16 + sf_ld_pad : 0, 0, layout};
  if (aligned) t.sf_ld = round_up16(t.sf_ld);
  t.sf_batch_stride = nvfp4i_sf_batch_bytes(layout, t.sf_ld, t.rows, t.k) + 16;
  if (aligned) t.sf_batch_stride = round_up16(t.sf_batch_stride);
  return t;
}

/* nvfp4_scales_relayout of *from (device scales) into a poisoned device buffer laid out as *to, starting
 * `misalign` bytes past a 16-byte boundary, then every byte of that buffer, guards included, against
 * nvfp4i_scales_relayout_ref of *expected (host scales, the same shape) run on a buffer poisoned alike. The
 * result stays in *d_to (freed by the caller, also on failure); to->scales points into it. */
static void relayout_and_compare(nvfp4_handle *h, const nvfp4_tensor *from, const nvfp4_tensor *expected,
                                 nvfp4_tensor *to, int64_t misalign, CUdeviceptr *d_to, const char *pass,
                                 nvfp4i_verdict *v) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  size_t lead = RLY_GUARD_BYTES + (size_t)misalign; /* the poisoned bytes before the destination */
  size_t bytes = lead + (size_t)(to->sf_batch_stride * to->batch) + RLY_GUARD_BYTES;
  uint8_t *got = malloc(bytes), *want = malloc(bytes);
  if (!got || !want) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    goto free_host;
  }
  NVFP4_CU_TRY(cu->cuMemAlloc(d_to, bytes), v->status, free_host);
  NVFP4_CU_TRY(cu->cuMemsetD8(*d_to, POISON_BYTE, bytes), v->status, free_host);
  to->scales = (const void *)(uintptr_t)(*d_to + lead);
  v->status = nvfp4_scales_relayout(h, from, to, NULL);
  if (v->status != NVFP4_STATUS_SUCCESS) goto free_host;
  NVFP4_CU_TRY(cu->cuCtxSynchronize(), v->status, free_host);
  NVFP4_CU_TRY(cu->cuMemcpyDtoH(got, *d_to, bytes), v->status, free_host);

  memset(want, POISON_BYTE, bytes);
  nvfp4_tensor host_to = *to;
  host_to.scales = want + lead;
  nvfp4i_scales_relayout_ref(expected, &host_to);
  for (size_t i = 0; i < bytes; i++) {
    v->checked++;
    if (got[i] != want[i] && v->failures++ == 0)
      snprintf(v->detail, sizeof v->detail, "%s: byte %lld of the scales: got 0x%02X, expected 0x%02X", pass,
               (long long)i - (long long)lead, got[i], want[i]);
  }
free_host:
  free(got);
  free(want);
}

int nvfp4i_verify_scales_relayout(nvfp4_handle *h, const nvfp4i_relayout_case *c, nvfp4i_verdict *v) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  memset(v, 0, sizeof *v);
  snprintf(v->detail, sizeof v->detail, "every byte matched");
  nvfp4i_rng rng = {c->seed};
  nvfp4_tensor from = {NULL, NULL, c->rows, c->k, c->batch, 0, 0, 0, 0, c->from_layout};
  from = nvfp4i_relayout_target(&from, c->from_layout, 3, c->aligned_strides);
  size_t from_bytes = (size_t)(from.sf_batch_stride * from.batch), misalign = (size_t)c->sf_misalign;
  uint8_t *from_host = malloc(from_bytes);
  CUdeviceptr d_from = 0, d_to = 0, d_back = 0;
  if (!from_host) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    return 0;
  }
  for (size_t i = 0; i < from_bytes; i++) from_host[i] = (uint8_t)nvfp4i_rng_next(&rng); /* every byte value */
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_from, misalign + from_bytes), v->status, free_host);
  NVFP4_CU_TRY(cu->cuMemcpyHtoD(d_from + misalign, from_host, from_bytes), v->status, free_from);
  from.scales = (const void *)(uintptr_t)(d_from + misalign);

  nvfp4_tensor expected = from; /* what every destination must hold: from's scales, placed its way */
  expected.scales = from_host;
  nvfp4_tensor to = nvfp4i_relayout_target(&from, c->to_layout, c->to_sf_ld_pad, c->aligned_strides);
  relayout_and_compare(h, &from, &expected, &to, c->sf_misalign, &d_to, "there", v);
  if (v->status != NVFP4_STATUS_SUCCESS || v->failures || !c->and_back) goto free_to;
  /* and back into from's layout and strides: the scales of from again, BLOCKED padding 0 */
  nvfp4_tensor back = nvfp4i_relayout_target(&from, c->from_layout, 3, c->aligned_strides);
  relayout_and_compare(h, &to, &expected, &back, c->sf_misalign, &d_back, "and back", v);

free_to:
  cu->cuMemFree(d_back);
  cu->cuMemFree(d_to);
free_from:
  cu->cuMemFree(d_from);
free_host:
  free(from_host);
  v->worst_ratio = v->failures ? INFINITY : 0.0;
  return v->status == NVFP4_STATUS_SUCCESS && v->failures == 0;
}

/* ---- round trips through quantize */

/* A device NVFP4 tensor of rows x k (one batch, ld k/2, LINEAR sf_ld k/16 or BLOCKED) in one allocation,
 * data then scales, poisoned; *bytes its size. */
static nvfp4_status quantized_alloc(int64_t rows, int64_t k, nvfp4_sf_layout layout, nvfp4_tensor *t,
                                    CUdeviceptr *d, size_t *bytes) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  size_t data_bytes = (size_t)(rows * (k / 2));
  *t = (nvfp4_tensor){NULL, NULL, rows, k, 1, k / 2, 0, layout == NVFP4_SF_LINEAR ? k / 16 : 0, 0, layout};
  *bytes = data_bytes + (size_t)nvfp4i_sf_batch_bytes(layout, t->sf_ld, rows, k);
  NVFP4_CU_TRY(cu->cuMemAlloc(d, *bytes), status, done);
  NVFP4_CU_TRY(cu->cuMemsetD8(*d, POISON_BYTE, *bytes), status, done);
  t->data = (const void *)(uintptr_t)*d;
  t->scales = (const void *)(uintptr_t)(*d + data_bytes);
done:
  return status;
}

/* f32 rows x k, each 16-element block with |x| <= amax, one element at +-amax, amax = 6 * 2^u with u
 * uniform in [-5, 8): amax / 6 is in e4m3's normal range, so every scale comes out normal. */
static void fill_normal_scale_blocks(float *x, int64_t rows, int64_t k, nvfp4i_rng *rng) {
  for (int64_t b = 0; b < rows * k / 16; b++) {
    float amax = 6.0f * exp2f((float)(-5.0 + 13.0 * uniform(rng)));
    for (int i = 0; i < 16; i++) x[b * 16 + i] = (float)((2.0 * uniform(rng) - 1.0) * amax);
    x[b * 16 + (int)(nvfp4i_rng_next(rng) % 16)] = nvfp4i_rng_next(rng) & 1 ? amax : -amax;
  }
}

/* Whether an e4m3 code is a normal number (exponent field 1..15, not NaN). */
static int e4m3_is_normal(uint8_t code) { return (code & 0x78) != 0 && (code & 0x7F) != 0x7F; }

int nvfp4i_verify_quantize_round_trip(nvfp4_handle *h, int64_t rows, int64_t k, nvfp4_sf_layout layout,
                                      uint64_t seed, nvfp4i_verdict *v) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  memset(v, 0, sizeof *v);
  snprintf(v->detail, sizeof v->detail, "every byte matched");
  nvfp4i_rng rng = {seed};
  size_t in_bytes = (size_t)(rows * k) * sizeof(float), q_bytes = 0;
  float *x = malloc(in_bytes);
  uint8_t *first = NULL, *again = NULL;
  CUdeviceptr d_x = 0, d_deq = 0, d_q1 = 0, d_q2 = 0;
  nvfp4_tensor q1, q2;
  if (!x) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    return 0;
  }
  fill_normal_scale_blocks(x, rows, k, &rng);
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_x, in_bytes), v->status, free_all);
  NVFP4_CU_TRY(cu->cuMemcpyHtoD(d_x, x, in_bytes), v->status, free_all);
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_deq, in_bytes), v->status, free_all);
  if ((v->status = quantized_alloc(rows, k, layout, &q1, &d_q1, &q_bytes)) != NVFP4_STATUS_SUCCESS) goto free_all;
  if ((v->status = quantized_alloc(rows, k, layout, &q2, &d_q2, &q_bytes)) != NVFP4_STATUS_SUCCESS) goto free_all;

  /* x -> q1 -> f32 (exact) -> q2, both quantizations with global scale 1 */
  nvfp4_dense in = {(const void *)(uintptr_t)d_x, rows, k, 1, k, 0, NVFP4_DTYPE_F32};
  nvfp4_output deq = {(void *)(uintptr_t)d_deq, k, 0, NVFP4_DTYPE_F32};
  nvfp4_dense deq_in = {(const void *)(uintptr_t)d_deq, rows, k, 1, k, 0, NVFP4_DTYPE_F32};
  if ((v->status = nvfp4_quantize(h, &in, &q1, 1.0f, NULL)) != NVFP4_STATUS_SUCCESS) goto free_all;
  if ((v->status = nvfp4_dequantize(h, &q1, &deq, NULL)) != NVFP4_STATUS_SUCCESS) goto free_all;
  if ((v->status = nvfp4_quantize(h, &deq_in, &q2, 1.0f, NULL)) != NVFP4_STATUS_SUCCESS) goto free_all;
  NVFP4_CU_TRY(cu->cuCtxSynchronize(), v->status, free_all);
  first = malloc(q_bytes);
  again = malloc(q_bytes);
  if (!first || !again) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    goto free_all;
  }
  NVFP4_CU_TRY(cu->cuMemcpyDtoH(first, d_q1, q_bytes), v->status, free_all);
  NVFP4_CU_TRY(cu->cuMemcpyDtoH(again, d_q2, q_bytes), v->status, free_all);

  /* the premise: every scale normal (BLOCKED padding, 0, aside) */
  const uint8_t *scales = first + rows * (k / 2);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t j = 0; j < k / 16; j++) {
      uint8_t s = scales[nvfp4i_sf_offset(layout, q1.sf_ld, k, r, j)];
      if (!e4m3_is_normal(s) && v->failures++ == 0)
        snprintf(v->detail, sizeof v->detail, "premise: scale (%lld, %lld) = 0x%02X is not a normal e4m3",
                 (long long)r, (long long)j, s);
    }
  for (size_t i = 0; i < q_bytes; i++) {
    v->checked++;
    if (first[i] != again[i] && v->failures++ == 0)
      snprintf(v->detail, sizeof v->detail, "%s byte %zu: first 0x%02X, after the round trip 0x%02X",
               i < (size_t)(rows * (k / 2)) ? "data" : "scale", i, first[i], again[i]);
  }
  v->worst_ratio = v->failures ? INFINITY : 0.0;

free_all:
  cu->cuMemFree(d_q2);
  cu->cuMemFree(d_q1);
  cu->cuMemFree(d_deq);
  cu->cuMemFree(d_x);
  free(x);
  free(first);
  free(again);
  return v->status == NVFP4_STATUS_SUCCESS && v->failures == 0;
}

/* A host copy of device tensor t (one batch) in *host, its buffer in *buffer. */
static nvfp4_status download_quantized(const nvfp4_tensor *t, size_t bytes, nvfp4_tensor *host, uint8_t **buffer) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  *buffer = malloc(bytes);
  if (*buffer == NULL) return nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
  NVFP4_CU_TRY(cu->cuMemcpyDtoH(*buffer, (CUdeviceptr)(uintptr_t)t->data, bytes), status, done);
  *host = *t;
  host->data = *buffer;
  host->scales = *buffer + ((const uint8_t *)t->scales - (const uint8_t *)t->data);
done:
  return status;
}

int nvfp4i_verify_quantize_gemm(nvfp4_handle *h, int64_t m, int64_t n, int64_t k, nvfp4_sf_layout layout,
                                uint64_t seed, nvfp4i_verdict *v) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  memset(v, 0, sizeof *v);
  snprintf(v->detail, sizeof v->detail, "every output passed");
  nvfp4i_rng rng = {seed};
  const int64_t rows[2] = {m, n};
  const float g[2] = {3.0f, 0.5f}; /* alpha = 1 / (g_a * g_b) */
  uint16_t *x[2] = {NULL, NULL};
  uint8_t *host_buffer[2] = {NULL, NULL}, *c_host = NULL;
  CUdeviceptr d_x[2] = {0, 0}, d_q[2] = {0, 0}, d_c = 0;
  nvfp4_tensor q[2], host_q[2];
  size_t q_bytes[2], c_bytes = (size_t)(m * n) * 2;
  for (int o = 0; o < 2; o++) {
    size_t bytes = (size_t)(rows[o] * k) * 2;
    x[o] = malloc(bytes);
    if (!x[o]) {
      v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
      goto free_all;
    }
    for (int64_t i = 0; i < rows[o] * k; i++) x[o][i] = nvfp4i_random_activation(&rng, NVFP4_DTYPE_BF16);
    NVFP4_CU_TRY(cu->cuMemAlloc(&d_x[o], bytes), v->status, free_all);
    NVFP4_CU_TRY(cu->cuMemcpyHtoD(d_x[o], x[o], bytes), v->status, free_all);
    v->status = quantized_alloc(rows[o], k, layout, &q[o], &d_q[o], &q_bytes[o]);
    if (v->status != NVFP4_STATUS_SUCCESS) goto free_all;
    nvfp4_dense in = {(const void *)(uintptr_t)d_x[o], rows[o], k, 1, k, 0, NVFP4_DTYPE_BF16};
    if ((v->status = nvfp4_quantize(h, &in, &q[o], g[o], NULL)) != NVFP4_STATUS_SUCCESS) goto free_all;
  }
  NVFP4_CU_TRY(cu->cuMemAlloc(&d_c, c_bytes), v->status, free_all);
  NVFP4_CU_TRY(cu->cuMemsetD8(d_c, POISON_BYTE, c_bytes), v->status, free_all);
  nvfp4_output c = {(void *)(uintptr_t)d_c, n, 0, NVFP4_DTYPE_F16};
  float alpha = 1.0f / (g[0] * g[1]);
  if ((v->status = nvfp4_grouped_gemm(h, 1, &q[0], &q[1], &c, alpha, NULL)) != NVFP4_STATUS_SUCCESS) goto free_all;
  NVFP4_CU_TRY(cu->cuCtxSynchronize(), v->status, free_all);
  for (int o = 0; o < 2; o++)
    if ((v->status = download_quantized(&q[o], q_bytes[o], &host_q[o], &host_buffer[o])) != NVFP4_STATUS_SUCCESS)
      goto free_all;
  c_host = malloc(c_bytes);
  if (!c_host) {
    v->status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "verify: no host memory");
    goto free_all;
  }
  NVFP4_CU_TRY(cu->cuMemcpyDtoH(c_host, d_c, c_bytes), v->status, free_all);

  /* every output against the float64 GEMM of the quantized values, SPEC section 4's bar */
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double ref, mag, ratio, out = nvfp4i_output_value(NVFP4_DTYPE_F16, c_host, i * n + j);
      nvfp4i_reference_gemm_element(&host_q[0], &host_q[1], i, j, (double)alpha, &ref, &mag);
      v->checked++;
      int ok = nvfp4i_check_value(NVFP4_DTYPE_F16, out, ref, mag, &ratio);
      if (ratio > v->worst_ratio) v->worst_ratio = ratio;
      if (!ok && v->failures++ == 0)
        snprintf(v->detail, sizeof v->detail, "c[%lld, %lld] = %.9g, reference %.9g (magnitude %.9g)",
                 (long long)i, (long long)j, out, ref, mag);
    }

free_all:
  cu->cuMemFree(d_c);
  free(c_host);
  for (int o = 0; o < 2; o++) {
    cu->cuMemFree(d_q[o]);
    cu->cuMemFree(d_x[o]);
    free(x[o]);
    free(host_buffer[o]);
  }
  return v->status == NVFP4_STATUS_SUCCESS && v->failures == 0 && v->checked == m * n;
}
