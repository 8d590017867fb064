/* nvfp4_gemv and nvfp4_gemv_w4a16: validate -> launch shape -> one launch. nvfp4_gemv (NVFP4 x,
 * ptx/sm90a/gemv.ptx) runs nvfp4_gemv_sm90a, or nvfp4_gemv_equal_steps_sm90a where the threads of a warp would
 * take different numbers of steps; nvfp4_gemv_w4a16 (dense f16 / bf16 x, ptx/sm90a/gemv_w4a16.ptx, tensor
 * cores) runs nvfp4_gemv_w4a16_sm90a. Both take the parameter block of ptx/sm90a/gemv_layout.h; their launch
 * shapes differ (4-row quads per thread group, 16-row tiles per warp group). */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "format.h"
#include "launch.h"
#include "validate.h"

enum {
  GEMV_MAX_LANES_LOG2 = GEMV_THREADS_LOG2, /* a group of threads sharing 4 rows spans at most the whole CTA */
  GEMV_MAX_BATCH = 65535,                  /* grid.y */
};

/* The kernels' parameter block (gemv_layout.h), passed as one .param array. */
typedef struct gemv_params {
  uint64_t a_data, a_sf, x_data, x_sf, y, a_ld, a_batch_stride, a_sf_batch_stride;
  uint64_t a_sf_row_step128, a_sf_row_step32, a_sf_row_step1, x_batch_stride, x_sf_batch_stride, y_ld;
  uint64_t y_batch_stride;
  uint32_t m, chunks_per_row, a_sf_pair_step, x_sf_pair_step, lanes_per_row_log2, quads_per_batch, quads_per_cta;
  uint32_t y_dtype;
  float alpha;
  uint32_t x_dtype;
  uint32_t weights_stable;
  uint32_t tiles_per_batch, tiles_per_cta, warps_per_tile_log2;
} gemv_params;

#define GEMV_PARAM_AT(field, offset) _Static_assert(offsetof(gemv_params, field) == (offset), #offset);
GEMV_PARAM_AT(a_data, GEMV_P_A_DATA)
GEMV_PARAM_AT(a_sf, GEMV_P_A_SF)
GEMV_PARAM_AT(x_data, GEMV_P_X_DATA)
GEMV_PARAM_AT(x_sf, GEMV_P_X_SF)
GEMV_PARAM_AT(y, GEMV_P_Y)
GEMV_PARAM_AT(a_ld, GEMV_P_A_LD)
GEMV_PARAM_AT(a_batch_stride, GEMV_P_A_BATCH_STRIDE)
GEMV_PARAM_AT(a_sf_batch_stride, GEMV_P_A_SF_BATCH_STRIDE)
GEMV_PARAM_AT(a_sf_row_step128, GEMV_P_A_SF_ROW_STEP128)
GEMV_PARAM_AT(a_sf_row_step32, GEMV_P_A_SF_ROW_STEP32)
GEMV_PARAM_AT(a_sf_row_step1, GEMV_P_A_SF_ROW_STEP1)
GEMV_PARAM_AT(x_batch_stride, GEMV_P_X_BATCH_STRIDE)
GEMV_PARAM_AT(x_sf_batch_stride, GEMV_P_X_SF_BATCH_STRIDE)
GEMV_PARAM_AT(y_ld, GEMV_P_Y_LD)
GEMV_PARAM_AT(y_batch_stride, GEMV_P_Y_BATCH_STRIDE)
GEMV_PARAM_AT(m, GEMV_P_M)
GEMV_PARAM_AT(chunks_per_row, GEMV_P_CHUNKS_PER_ROW)
GEMV_PARAM_AT(a_sf_pair_step, GEMV_P_A_SF_PAIR_STEP)
GEMV_PARAM_AT(x_sf_pair_step, GEMV_P_X_SF_PAIR_STEP)
GEMV_PARAM_AT(lanes_per_row_log2, GEMV_P_LANES_PER_ROW_LOG2)
GEMV_PARAM_AT(quads_per_batch, GEMV_P_QUADS_PER_BATCH)
GEMV_PARAM_AT(quads_per_cta, GEMV_P_QUADS_PER_CTA)
GEMV_PARAM_AT(y_dtype, GEMV_P_Y_DTYPE)
GEMV_PARAM_AT(alpha, GEMV_P_ALPHA)
GEMV_PARAM_AT(x_dtype, GEMV_P_X_DTYPE)
GEMV_PARAM_AT(weights_stable, GEMV_P_WEIGHTS_STABLE)
GEMV_PARAM_AT(tiles_per_batch, GEMV_P_TILES_PER_BATCH)
GEMV_PARAM_AT(tiles_per_cta, GEMV_P_TILES_PER_CTA)
GEMV_PARAM_AT(warps_per_tile_log2, GEMV_P_WARPS_PER_TILE_LOG2)
#undef GEMV_PARAM_AT
_Static_assert(GEMV_P_WARPS_PER_TILE_LOG2 + sizeof(uint32_t) == GEMV_PARAM_BYTES, "GEMV_PARAM_BYTES ends the block");
/* the driver copies the entry's GEMV_PARAM_BYTES; the struct's size is that rounded up to its 8-byte alignment */
_Static_assert(sizeof(gemv_params) == (GEMV_PARAM_BYTES + 7) / 8 * 8, "no padding inside the block");
_Static_assert(1 << GEMV_THREADS_LOG2 == GEMV_THREADS, "GEMV_THREADS_LOG2");
_Static_assert(GEMV_WARP_PARTIALS == 2 * (GEMV_THREADS / 32) * GEMV_ROWS_PER_QUAD, "two buffers of 4 rows per warp");
_Static_assert(GEMV_PARTIALS_BUFFER_BYTES * 2 == GEMV_STATIC_SMEM, "GEMV_PARTIALS_BUFFER_BYTES: one of two");
_Static_assert(GEMV_W4A16_PARTIALS == 2 * (GEMV_THREADS / 32) * GEMV_W4A16_TILE_ROWS,
               "two buffers of 16 rows per warp");
_Static_assert(GEMV_W4A16_PARTIALS_BUFFER_BYTES * 2 == GEMV_W4A16_STATIC_SMEM,
               "GEMV_W4A16_PARTIALS_BUFFER_BYTES: one of two");
_Static_assert(GEMV_W4A16_SMEM_PER_CHUNK >= 64 && GEMV_W4A16_SMEM_PER_CHUNK % 16 == 0, "a chunk: 32 x, 16-byte words");

/* How a GEMV takes x into shared memory: `bytes` per `k` of K, K rounded up to a whole `k` (NVFP4: 40 bytes
 * per 32; W4A16: 8 chunks of 80 bytes per 256, the zero-padded step), with `entries` the kernels that run it. */
typedef struct gemv_x_smem {
  const nvfp4i_kernel_id *entries;
  int n_entries;
  int64_t k, bytes;
} gemv_x_smem;

static const nvfp4i_kernel_id nvfp4_entries[] = {NVFP4I_KERNEL_GEMV, NVFP4I_KERNEL_GEMV_EQUAL_STEPS};
static const nvfp4i_kernel_id w4a16_entries[] = {NVFP4I_KERNEL_GEMV_W4A16};
static const gemv_x_smem nvfp4_x = {nvfp4_entries, 2, 32, GEMV_SMEM_PER_CHUNK};
static const gemv_x_smem dense_x = {w4a16_entries, 1, 32 * GEMV_W4A16_STEP_CHUNKS,
                                    GEMV_W4A16_STEP_CHUNKS * GEMV_W4A16_SMEM_PER_CHUNK};

static int64_t x_smem_bytes(const gemv_x_smem *f, int64_t k) { return (k + f->k - 1) / f->k * f->bytes; }

static nvfp4_status check_pointers(const nvfp4_handle *h, const void *a, const void *x, const void *y) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  if (h == NULL) return nvfp4i_fail(bad, "h is NULL");
  if (a == NULL) return nvfp4i_fail(bad, "a is NULL");
  if (x == NULL) return nvfp4i_fail(bad, "x is NULL");
  if (y == NULL) return nvfp4i_fail(bad, "y is NULL");
  return NVFP4_STATUS_SUCCESS;
}

/* The shared memory x may take: what all the entries may be launched with on this device (227 KB less their
 * static on sm_90, less on others), or the layout's bound where the handle lacks one (the launch then says
 * so). */
static int64_t x_smem_limit(const nvfp4_handle *h, const gemv_x_smem *f, int64_t layout_bound) {
  int64_t limit = INT64_MAX;
  for (int i = 0; i < f->n_entries; i++) {
    const nvfp4i_kernel *k = &h->kernels[f->entries[i]];
    if (k->fn == NULL) return layout_bound;
    if (k->max_dynamic_smem < limit) limit = k->max_dynamic_smem;
  }
  return limit;
}

/* What both GEMVs ask once a and x passed their own checks: x one row of a's K per batch of a, y a->rows x 1 per
 * batch, x in the family's shared memory, the batches in the grid, a's 16-byte loads. */
static nvfp4_status check_shape(const nvfp4_handle *h, const nvfp4_tensor *a, int64_t x_rows, int64_t x_k,
                                int64_t x_batch, const nvfp4_output *y, const gemv_x_smem *f,
                                int64_t layout_bound) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  if (x_rows != 1) return nvfp4i_fail(bad, "x.rows = %lld: must be 1", (long long)x_rows);
  if (x_k != a->k) return nvfp4i_fail(bad, "x.k = %lld: must equal a.k = %lld", (long long)x_k, (long long)a->k);
  if (x_batch != a->batch)
    return nvfp4i_fail(bad, "x.batch = %lld: must equal a.batch = %lld", (long long)x_batch, (long long)a->batch);
  nvfp4_status status = nvfp4i_validate_output("y", y, a->rows, 1, a->batch);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  int64_t smem_limit = x_smem_limit(h, f, layout_bound);
  if (x_smem_bytes(f, a->k) > smem_limit)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "a.k = %lld: GEMV holds x in shared memory, K <= %lld on this GPU",
                       (long long)a->k, (long long)(smem_limit / f->bytes * f->k));
  if (a->batch > GEMV_MAX_BATCH)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "a.batch = %lld: at most %d batches per call",
                       (long long)a->batch, GEMV_MAX_BATCH);
  return nvfp4i_validate_vector_alignment("a", a);
}

static nvfp4_status validate(const nvfp4_handle *h, const nvfp4_tensor *a, const nvfp4_tensor *x,
                             const nvfp4_output *y) {
  nvfp4_status status = check_pointers(h, a, x, y);
  if (status == NVFP4_STATUS_SUCCESS) status = nvfp4i_validate_tensor("a", a, 1);
  if (status == NVFP4_STATUS_SUCCESS) status = nvfp4i_validate_tensor("x", x, 1);
  if (status == NVFP4_STATUS_SUCCESS)
    status = check_shape(h, a, x->rows, x->k, x->batch, y, &nvfp4_x, GEMV_MAX_DYNAMIC_SMEM);
  if (status == NVFP4_STATUS_SUCCESS) status = nvfp4i_validate_vector_alignment("x", x);
  return status;
}

/* W4A16: x dense, F16 or BF16 (F32: NOT_SUPPORTED), at any element address with any batch stride. */
static nvfp4_status validate_w4a16(const nvfp4_handle *h, const nvfp4_tensor *a, const nvfp4_dense *x,
                                   const nvfp4_output *y) {
  nvfp4_status status = check_pointers(h, a, x, y);
  if (status == NVFP4_STATUS_SUCCESS) status = nvfp4i_validate_tensor("a", a, 1);
  if (status == NVFP4_STATUS_SUCCESS) status = nvfp4i_validate_dense("x", x, 1);
  if (status == NVFP4_STATUS_SUCCESS) status = check_shape(h, a, x->rows, x->k, x->batch, y, &dense_x,
                                                                   GEMV_W4A16_MAX_DYNAMIC_SMEM);
  return status;
}

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }
static uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }

/* floor(log2(v)), 0 for v <= 1 */
static uint32_t floor_log2(uint32_t v) {
  uint32_t r = 0;
  while (v >>= 1) r++;
  return r;
}

/* ceil(log2(v)), 0 for v <= 1 */
static uint32_t ceil_log2(uint32_t v) { return v <= 1 ? 0 : floor_log2(v - 1) + 1; }

static uint32_t round_up(uint32_t v, uint32_t to) { return (v + to - 1) / to * to; }

/* The share of a CTA's thread steps that do work with groups of 2^lanes_log2 threads: each thread of a
 * group takes ceil(chunks / lanes) steps of a row, and the CTA's quads fill ceil(quads / groups) tiles. */
static double busy_share(uint32_t lanes_log2, uint32_t chunks_per_row, uint32_t quads_per_cta) {
  uint32_t lanes = 1u << lanes_log2, groups = GEMV_THREADS >> lanes_log2;
  return (double)chunks_per_row / round_up(chunks_per_row, lanes) * quads_per_cta /
         round_up(quads_per_cta, groups);
}

/* The fields of the parameter block that A, y, alpha and the handle's options set, both families alike. */
static gemv_params operand_params(const nvfp4_handle *h, const nvfp4_tensor *a, const nvfp4_output *y,
                                  float alpha) {
  nvfp4i_sf_steps as = nvfp4i_sf_steps_of(a);
  return (gemv_params){
      .a_data = (uintptr_t)a->data,
      .a_sf = (uintptr_t)a->scales,
      .y = (uintptr_t)y->data,
      .a_ld = (uint64_t)a->ld,
      .a_batch_stride = (uint64_t)a->batch_stride,
      .a_sf_batch_stride = (uint64_t)a->sf_batch_stride,
      .a_sf_row_step128 = as.step128,
      .a_sf_row_step32 = as.step32,
      .a_sf_row_step1 = as.step1,
      .y_ld = (uint64_t)y->ld,
      .y_batch_stride = (uint64_t)y->batch_stride,
      .m = (uint32_t)a->rows,
      .chunks_per_row = (uint32_t)(a->k / 32),
      .a_sf_pair_step = as.quad_step,
      .y_dtype = (uint32_t)y->dtype,
      .alpha = alpha,
      .weights_stable = (uint32_t)nvfp4i_weights_stable(h),
  };
}

/* The CTAs of a persistent grid that fit an SM at once: by x's shared memory (1 KB per CTA is the driver's
 * reserve, besides the kernel's static) and by the entries' registers (a fit taken alike for all, so that the
 * launch shape does not depend on which of them runs it). */
static uint32_t ctas_per_sm(const nvfp4_handle *h, const gemv_x_smem *f, uint32_t smem, uint32_t static_smem) {
  uint32_t fit = (uint32_t)h->smem_per_sm / (smem + static_smem + 1024);
  for (int i = 0; i < f->n_entries; i++) {
    uint32_t blocks = (uint32_t)h->kernels[f->entries[i]].blocks_per_sm;
    if (fit > blocks) fit = blocks;
  }
  return fit;
}

/* The launch every GEMV makes: block GEMV_THREADS, programmatic dependent launch (every entry waits,
 * griddepcontrol.wait, before it reads x, or before it reads anything unless p->weights_stable, and before it
 * writes y: gemv_entry.inc, gemv_w4a16.ptx). */
static nvfp4_status launch(nvfp4_handle *h, nvfp4i_kernel_id id, uint32_t ctas, const nvfp4_tensor *a,
                           uint32_t smem, gemv_params *p, CUstream stream) {
  void *params[] = {p};
  nvfp4i_launch launch = {
      .grid = {ctas, (unsigned)a->batch, 1},
      .block = {GEMV_THREADS, 1, 1},
      .dynamic_smem = smem,
      .params = params,
      .early_start = 1,
  };
  return nvfp4i_launch_kernel(h, id, &launch, stream);
}

/* Completes p with the NVFP4 GEMV's launch shape for A (m rows, k, batch) and launches its entry for it. */
static nvfp4_status launch_gemv(nvfp4_handle *h, const nvfp4_tensor *a, gemv_params *p, CUstream stream) {
  /* Persistent grid: as many CTAs per batch as fit at once, each taking Q consecutive quads (4-row
   * groups), a tile of one quad per thread group at a time; the last tile may leave groups idle, so every
   * SM gets the same work to within one quad per CTA. */
  uint32_t chunks_per_row = p->chunks_per_row;
  uint32_t smem = (uint32_t)x_smem_bytes(&nvfp4_x, a->k);
  uint32_t quads = (uint32_t)((a->rows + GEMV_ROWS_PER_QUAD - 1) / GEMV_ROWS_PER_QUAD);
  /* without its 256 bytes of static shared memory, as its launch shapes were measured */
  uint64_t per_batch = (uint64_t)h->sm_count * ctas_per_sm(h, &nvfp4_x, smem, 0) / (uint64_t)a->batch;
  if (per_batch < 1) per_batch = 1;
  uint32_t quads_per_cta = (uint32_t)((quads + per_batch - 1) / per_batch);
  uint32_t ctas = (quads + quads_per_cta - 1) / quads_per_cta;

  /* Threads per group ("lanes", a power of two): as few as let the CTA's Q quads fill one tile (256 / Q),
   * so each thread walks a long run of a row's chunks and the CTA reduces once; but at least
   * min(8, chunks) and min(32, chunks / 4) (narrower groups spread a warp's loads over more rows: slower)
   * and at most the chunks per row (every thread has one). Lanes are even. */
  uint32_t least_log2 = max_u32(1, max_u32(min_u32(3, ceil_log2(chunks_per_row)),
                                           min_u32(5, floor_log2(chunks_per_row / 4))));
  uint32_t most_log2 = max_u32(least_log2, min_u32(GEMV_MAX_LANES_LOG2, floor_log2(chunks_per_row)));
  uint32_t fill_log2 = min_u32(GEMV_MAX_LANES_LOG2, floor_log2(GEMV_THREADS / quads_per_cta));
  uint32_t lanes_log2 = min_u32(max_u32(fill_log2, least_log2), most_log2);
  /* When those lanes do not divide the chunks, the threads of a group differ by a step at the end of
   * every tile: a split warp in the plain entry (4096x6400x8, 200 chunks on 32 lanes: 50.3 us), guarded
   * idle steps in the equal-steps entry (below). Then half or a quarter of the width is taken if it
   * divides them and leaves no more of the CTA's thread steps idle (8 lanes there, plain: 41.3-42.5 us). */
  if (chunks_per_row % (1u << lanes_log2) != 0) {
    uint32_t widest = lanes_log2;
    for (uint32_t l = widest - 1; l >= 1 && l + 2 >= widest; l--)
      if (chunks_per_row % (1u << l) == 0 &&
          busy_share(l, chunks_per_row, quads_per_cta) > busy_share(lanes_log2, chunks_per_row, quads_per_cta))
        lanes_log2 = l;
  }

  p->lanes_per_row_log2 = lanes_log2;
  p->quads_per_batch = quads;
  p->quads_per_cta = quads_per_cta;
  /* Where the width still leaves threads of one warp with different step counts (the chunks left over,
   * chunks % lanes, end inside a warp: not a multiple of 32), the equal-steps entry runs, whose threads
   * all take the same number of steps (4096x6368x8, 199 chunks on 32 lanes: 42.7 us against 51.6). Its
   * guards cost 1-4% on shapes without split warps (256x7168x1, 224 chunks on 128 lanes, whose fourth warp
   * stops a step early as a whole: 6.28 against 6.13 us), so it runs only where warps split. */
  int split = chunks_per_row % (1u << lanes_log2) % 32 != 0;
  return launch(h, split ? NVFP4I_KERNEL_GEMV_EQUAL_STEPS : NVFP4I_KERNEL_GEMV, ctas, a, smem, p, stream);
}

/* Completes p with the W4A16 GEMV's launch shape for A and launches it (gemv_w4a16.ptx). Persistent grid as
 * the NVFP4 GEMV's, in tiles of 16 rows (one mma's A): as many CTAs per batch as fit at once, each taking T
 * consecutive tiles. A CTA's 8 warps work in groups of W; a group takes a tile at a time and its warps split
 * the tile's K steps (256 of K each), adding their sums in shared memory: W as large as lets the CTA's T
 * tiles keep every group busy (8 groups of one warp from T = 8 on, where no warp waits for another), and at
 * most the steps, so every warp of a group has one. */
static nvfp4_status launch_w4a16(nvfp4_handle *h, const nvfp4_tensor *a, gemv_params *p, CUstream stream) {
  uint32_t smem = (uint32_t)x_smem_bytes(&dense_x, a->k);
  uint32_t steps = (p->chunks_per_row + GEMV_W4A16_STEP_CHUNKS - 1) / GEMV_W4A16_STEP_CHUNKS;
  uint32_t tiles = (uint32_t)((a->rows + GEMV_W4A16_TILE_ROWS - 1) / GEMV_W4A16_TILE_ROWS);
  uint64_t per_batch =
      (uint64_t)h->sm_count * ctas_per_sm(h, &dense_x, smem, GEMV_W4A16_STATIC_SMEM) / (uint64_t)a->batch;
  if (per_batch < 1) per_batch = 1;
  uint32_t tiles_per_cta = (uint32_t)((tiles + per_batch - 1) / per_batch);
  uint32_t ctas = (tiles + tiles_per_cta - 1) / tiles_per_cta;
  uint32_t warps_log2 = floor_log2(GEMV_THREADS / 32);
  uint32_t groups_log2 = ceil_log2(min_u32(tiles_per_cta, GEMV_THREADS / 32));
  p->tiles_per_batch = tiles;
  p->tiles_per_cta = tiles_per_cta;
  p->warps_per_tile_log2 = min_u32(warps_log2 - groups_log2, floor_log2(steps));
  return launch(h, NVFP4I_KERNEL_GEMV_W4A16, ctas, a, smem, p, stream);
}

NVFP4_API nvfp4_status nvfp4_gemv(nvfp4_handle *h, const nvfp4_tensor *a, const nvfp4_tensor *x,
                                  const nvfp4_output *y, float alpha, CUstream stream) {
  nvfp4i_clear_error();
  nvfp4_status status = validate(h, a, x, y);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  gemv_params p = operand_params(h, a, y, alpha);
  p.x_data = (uintptr_t)x->data;
  p.x_sf = (uintptr_t)x->scales;
  p.x_batch_stride = (uint64_t)x->batch_stride;
  p.x_sf_batch_stride = (uint64_t)x->sf_batch_stride;
  p.x_sf_pair_step = nvfp4i_sf_steps_of(x).quad_step; /* x's scales step from chunk pair to chunk pair */
  return launch_gemv(h, a, &p, stream);
}

NVFP4_API nvfp4_status nvfp4_gemv_w4a16(nvfp4_handle *h, const nvfp4_tensor *a, const nvfp4_dense *x,
                                        const nvfp4_output *y, float alpha, CUstream stream) {
  nvfp4i_clear_error();
  nvfp4_status status = validate_w4a16(h, a, x, y);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  gemv_params p = operand_params(h, a, y, alpha);
  p.x_data = (uintptr_t)x->data;
  /* bytes; a single batch's stride is never used (and may be anything) */
  p.x_batch_stride = a->batch > 1 ? (uint64_t)x->batch_stride * (uint64_t)nvfp4i_dtype_size(x->dtype) : 0;
  p.x_dtype = (uint32_t)x->dtype;
  return launch_w4a16(h, a, &p, stream);
}
