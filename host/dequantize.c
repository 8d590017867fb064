/* nvfp4_dequantize: validate -> strip walk of the grid -> one launch of nvfp4_dequantize_sm90a; and the
 * library's grouped dequantize (dequantize.h): every group's strips numbered in one walk -> one launch of
 * nvfp4_grouped_dequantize_sm90a per GDQ_MAX_GROUPS groups (ptx/sm90a/dequantize.ptx; layout and parameter
 * blocks: dequantize_layout.h). */
#include "dequantize.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "format.h"
#include "launch.h"
#include "validate.h"

enum { DEQ_SMEM_RESERVE = 1024 }; /* the driver's reserve per CTA */

/* The kernel's parameter block (dequantize_layout.h), passed as one .param array. */
typedef struct deq_params {
  uint64_t in, in_sf, out, in_ld, in_batch_stride, sf_batch_stride, sf_row_step128, sf_row_step32, sf_row_step1;
  uint64_t out_ld_bytes, out_batch_bytes, batch;
  uint32_t rows, chunks_per_row, strips_per_row, sf_pair_step, step_strips, step_rows, step_batches, out_dtype;
  uint32_t vector_stores;
} deq_params;

#define DEQ_PARAM_AT(field, offset) _Static_assert(offsetof(deq_params, field) == (offset), #offset);
DEQ_PARAM_AT(in, DEQ_P_IN)
DEQ_PARAM_AT(in_sf, DEQ_P_IN_SF)
DEQ_PARAM_AT(out, DEQ_P_OUT)
DEQ_PARAM_AT(in_ld, DEQ_P_IN_LD)
DEQ_PARAM_AT(in_batch_stride, DEQ_P_IN_BATCH_STRIDE)
DEQ_PARAM_AT(sf_batch_stride, DEQ_P_SF_BATCH_STRIDE)
DEQ_PARAM_AT(sf_row_step128, DEQ_P_SF_ROW_STEP128)
DEQ_PARAM_AT(sf_row_step32, DEQ_P_SF_ROW_STEP32)
DEQ_PARAM_AT(sf_row_step1, DEQ_P_SF_ROW_STEP1)
DEQ_PARAM_AT(out_ld_bytes, DEQ_P_OUT_LD_BYTES)
DEQ_PARAM_AT(out_batch_bytes, DEQ_P_OUT_BATCH_BYTES)
DEQ_PARAM_AT(batch, DEQ_P_BATCH)
DEQ_PARAM_AT(rows, DEQ_P_ROWS)
DEQ_PARAM_AT(chunks_per_row, DEQ_P_CHUNKS_PER_ROW)
DEQ_PARAM_AT(strips_per_row, DEQ_P_STRIPS_PER_ROW)
DEQ_PARAM_AT(sf_pair_step, DEQ_P_SF_PAIR_STEP)
DEQ_PARAM_AT(step_strips, DEQ_P_STEP_STRIPS)
DEQ_PARAM_AT(step_rows, DEQ_P_STEP_ROWS)
DEQ_PARAM_AT(step_batches, DEQ_P_STEP_BATCHES)
DEQ_PARAM_AT(out_dtype, DEQ_P_OUT_DTYPE)
DEQ_PARAM_AT(vector_stores, DEQ_P_VECTOR_STORES)
#undef DEQ_PARAM_AT
_Static_assert(DEQ_P_VECTOR_STORES + sizeof(uint32_t) == DEQ_PARAM_BYTES, "DEQ_PARAM_BYTES ends the block");
_Static_assert(DEQ_WARPS * 32 == DEQ_THREADS, "DEQ_WARPS");
_Static_assert(DEQ_STRIP_CHUNKS == 32, "a strip is one chunk per lane");
_Static_assert(DEQ_DTYPE_F16 == NVFP4_DTYPE_F16 && DEQ_DTYPE_BF16 == NVFP4_DTYPE_BF16 &&
                   DEQ_DTYPE_F32 == NVFP4_DTYPE_F32,
               "DEQ_DTYPE_* are nvfp4_dtype's values");

static nvfp4_status validate(const nvfp4_handle *h, const nvfp4_tensor *in, const nvfp4_output *out) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  if (h == NULL) return nvfp4i_fail(bad, "h is NULL");
  if (in == NULL) return nvfp4i_fail(bad, "in is NULL");
  if (out == NULL) return nvfp4i_fail(bad, "out is NULL");
  nvfp4_status status = nvfp4i_validate_tensor("in", in, 1);
  if (status == NVFP4_STATUS_SUCCESS) status = nvfp4i_validate_output("out", out, in->rows, in->k, in->batch);
  if (status == NVFP4_STATUS_SUCCESS) status = nvfp4i_validate_vector_alignment("in", in);
  return status;
}

/* The grouped entry's descriptor of one group, and its whole parameter block. */
typedef struct gdq_desc {
  uint64_t in, in_sf, out, in_ld, out_ld_bytes, sf_row_step128, sf_row_step32, sf_row_step1;
  uint32_t chunks_per_row, strips_per_row, sf_pair_step, vector_stores, out_chunks, b_tiles, in_dense, unused;
} gdq_desc;

typedef struct gdq_params {
  uint32_t num_groups, total_strips, out_dtype;
  uint32_t strip_start[GDQ_MAX_GROUPS];
  gdq_desc desc[GDQ_MAX_GROUPS];
} gdq_params;

#define GDQ_AT(type, field, offset) _Static_assert(offsetof(type, field) == (offset), #offset);
GDQ_AT(gdq_desc, in, GDQ_D_IN)
GDQ_AT(gdq_desc, in_sf, GDQ_D_IN_SF)
GDQ_AT(gdq_desc, out, GDQ_D_OUT)
GDQ_AT(gdq_desc, in_ld, GDQ_D_IN_LD)
GDQ_AT(gdq_desc, out_ld_bytes, GDQ_D_OUT_LD_BYTES)
GDQ_AT(gdq_desc, sf_row_step128, GDQ_D_SF_ROW_STEP128)
GDQ_AT(gdq_desc, sf_row_step32, GDQ_D_SF_ROW_STEP32)
GDQ_AT(gdq_desc, sf_row_step1, GDQ_D_SF_ROW_STEP1)
GDQ_AT(gdq_desc, chunks_per_row, GDQ_D_CHUNKS_PER_ROW)
GDQ_AT(gdq_desc, strips_per_row, GDQ_D_STRIPS_PER_ROW)
GDQ_AT(gdq_desc, sf_pair_step, GDQ_D_SF_PAIR_STEP)
GDQ_AT(gdq_desc, vector_stores, GDQ_D_VECTOR_STORES)
GDQ_AT(gdq_desc, out_chunks, GDQ_D_OUT_CHUNKS)
GDQ_AT(gdq_desc, b_tiles, GDQ_D_B_TILES)
GDQ_AT(gdq_desc, in_dense, GDQ_D_IN_DENSE)
GDQ_AT(gdq_params, num_groups, GDQ_P_NUM_GROUPS)
GDQ_AT(gdq_params, total_strips, GDQ_P_TOTAL_STRIPS)
GDQ_AT(gdq_params, out_dtype, GDQ_P_OUT_DTYPE)
GDQ_AT(gdq_params, strip_start, GDQ_P_STRIP_START)
GDQ_AT(gdq_params, desc, GDQ_P_DESCS)
#undef GDQ_AT
_Static_assert(sizeof(gdq_desc) == GDQ_DESC_BYTES, "GDQ_DESC_BYTES");
_Static_assert(sizeof(gdq_params) == GDQ_PARAM_BYTES, "GDQ_PARAM_BYTES");
_Static_assert(GDQ_PARAM_BYTES == GDQ_P_DESCS + GDQ_MAX_GROUPS * GDQ_DESC_BYTES, "GDQ_PARAM_BYTES");
_Static_assert(GDQ_PARAM_BYTES <= 32764, "the kernel parameter limit of sm_70 and later");

/* The largest strip count of one grouped launch: the kernel numbers strips, and adds the grid's stride to
 * them, in 32 bits. */
#define GDQ_MAX_STRIPS INT32_MAX

/* Whether every output row starts 16-byte aligned (rows ld_bytes apart, batches batch_bytes apart): the
 * kernels' 16-byte stores, else their 4- and 2-byte ones. */
static int rows_16_byte_aligned(const void *out, int64_t rows, int64_t ld_bytes, int64_t batch,
                                int64_t batch_bytes) {
  return (uintptr_t)out % 16 == 0 && (rows == 1 || ld_bytes % 16 == 0) && (batch == 1 || batch_bytes % 16 == 0);
}

/* CTAs of kernel id that stay resident on the device: registers and the warps' staging areas (smem bytes a
 * CTA) permitting, at least one per SM. */
static uint64_t resident_ctas(const nvfp4_handle *h, nvfp4i_kernel_id id, uint32_t smem) {
  uint32_t ctas_per_sm = (uint32_t)h->smem_per_sm / (smem + DEQ_SMEM_RESERVE);
  uint32_t blocks_per_sm = (uint32_t)h->kernels[id].blocks_per_sm;
  if (ctas_per_sm > blocks_per_sm) ctas_per_sm = blocks_per_sm;
  if (ctas_per_sm < 1) ctas_per_sm = 1;
  return (uint64_t)h->sm_count * ctas_per_sm;
}

/* Launches entry id (either dequantize entry: one parameter block) on ctas CTAs of DEQ_THREADS. */
static nvfp4_status launch_strips(const nvfp4_handle *h, nvfp4i_kernel_id id, uint64_t ctas, uint32_t smem,
                                  void *param_block, CUstream stream) {
  void *params[] = {param_block};
  nvfp4i_launch launch = {
      .grid = {(unsigned)ctas, 1, 1},
      .block = {DEQ_THREADS, 1, 1},
      .dynamic_smem = smem,
      .params = params,
      .early_start = 1, /* both entries wait for the kernel before them before their first load */
  };
  return nvfp4i_launch_kernel(h, id, &launch, stream);
}

static uint32_t strips_per_row(int64_t k) {
  uint32_t chunks_per_row = (uint32_t)(k / DEQ_CHUNK_ELEMS);
  return (chunks_per_row + DEQ_STRIP_CHUNKS - 1) / DEQ_STRIP_CHUNKS;
}

/* K rounded up to the B-tile layout's K stage: the elements a B-tile destination holds per row. */
static int64_t b_tile_k(int64_t k) { return (k + GDQ_B_TILE_K - 1) / GDQ_B_TILE_K * GDQ_B_TILE_K; }

uint64_t nvfp4i_b_tile_bytes(int64_t rows, int64_t k) { return (uint64_t)rows * (uint64_t)b_tile_k(k) * 2; }

NVFP4_API nvfp4_status nvfp4_dequantize(nvfp4_handle *h, const nvfp4_tensor *in, const nvfp4_output *out,
                                        CUstream stream) {
  nvfp4i_clear_error();
  nvfp4_status status = validate(h, in, out);
  if (status != NVFP4_STATUS_SUCCESS) return status;

  /* As many CTAs as stay resident, fewer where the strips run out first; their warps stride over the strips
   * in (batch, row, strip) order. */
  int64_t esize = nvfp4i_dtype_size(out->dtype);
  uint32_t smem = (uint32_t)DEQ_SMEM_BYTES(esize);
  uint32_t chunks_per_row = (uint32_t)(in->k / DEQ_CHUNK_ELEMS), spr = strips_per_row(in->k);
  uint64_t strips_per_batch = (uint64_t)in->rows * spr;
  uint64_t ctas = resident_ctas(h, NVFP4I_KERNEL_DEQUANTIZE, smem);
  if ((uint64_t)in->batch <= ctas * DEQ_WARPS / strips_per_batch) /* fewer strips than resident warps */
    ctas = ((uint64_t)in->batch * strips_per_batch + DEQ_WARPS - 1) / DEQ_WARPS;
  uint64_t warps = ctas * DEQ_WARPS, rows_stepped = warps / spr;

  nvfp4i_sf_steps sf = nvfp4i_sf_steps_of(in);
  deq_params p = {
      .in = (uintptr_t)in->data,
      .in_sf = (uintptr_t)in->scales,
      .out = (uintptr_t)out->data,
      .in_ld = (uint64_t)in->ld,
      .in_batch_stride = (uint64_t)in->batch_stride,
      .sf_batch_stride = (uint64_t)in->sf_batch_stride,
      .sf_row_step128 = sf.step128,
      .sf_row_step32 = sf.step32,
      .sf_row_step1 = sf.step1,
      .out_ld_bytes = (uint64_t)(out->ld * esize),
      .out_batch_bytes = (uint64_t)(out->batch_stride * esize),
      .batch = (uint64_t)in->batch,
      .rows = (uint32_t)in->rows,
      .chunks_per_row = chunks_per_row,
      .strips_per_row = spr,
      .sf_pair_step = sf.quad_step,
      .step_strips = (uint32_t)(warps % spr),
      .step_rows = (uint32_t)(rows_stepped % (uint64_t)in->rows),
      .step_batches = (uint32_t)(rows_stepped / (uint64_t)in->rows),
      .out_dtype = (uint32_t)out->dtype,
      .vector_stores = (uint32_t)rows_16_byte_aligned(out->data, in->rows, out->ld * esize, in->batch,
                                                      out->batch_stride * esize),
  };
  return launch_strips(h, NVFP4I_KERNEL_DEQUANTIZE, ctas, smem, &p, stream);
}

/* ---- the grouped dequantize */

/* One call: its groups (NVFP4 tensors, or with b_tiles dense activations to copy), their destinations (rows
 * out_ld elements apart, or B tiles) and the output type. */
typedef struct gdq_call {
  int num_groups;
  const nvfp4_tensor *in;
  void *const *out_data;
  const int64_t *out_ld; /* NULL with b_tiles */
  nvfp4_dtype dtype;
  int b_tiles;
  const nvfp4_dense *dense; /* instead of in: B tiles of each group's own dtype */
} gdq_call;

/* Group g's rows and K, of either kind of input. */
static int64_t group_rows(const gdq_call *call, int g) {
  return call->dense != NULL ? call->dense[g].rows : call->in[g].rows;
}
static int64_t group_k(const gdq_call *call, int g) { return call->dense != NULL ? call->dense[g].k : call->in[g].k; }

/* The message of a failed check of group g, which names the field ("in.k", "out.ld"), prefixed with the
 * group: formatted on failure only, so that checking 256 valid groups formats nothing. */
static nvfp4_status fail_in_group(nvfp4_status status, int g) {
  char detail[256];
  snprintf(detail, sizeof detail, "%s", nvfp4_last_error());
  return nvfp4i_fail(status, "grouped dequantize, group %d: %s", g, detail);
}

/* What the launch needs of group g with rows: a tensor to read with 16-byte loads, one batch, and a
 * destination of rows x k elements (B tiles: a 16-byte aligned one). */
static nvfp4_status check_group(const gdq_call *call, int g) {
  nvfp4_status status;
  int64_t batch;
  if (call->dense != NULL) {
    status = nvfp4i_validate_dense_input("in", &call->dense[g], 1);
    if (status == NVFP4_STATUS_SUCCESS) status = nvfp4i_validate_dense_alignment("in", &call->dense[g]);
    batch = call->dense[g].batch;
  } else {
    status = nvfp4i_validate_tensor("in", &call->in[g], 1);
    if (status == NVFP4_STATUS_SUCCESS) status = nvfp4i_validate_vector_alignment("in", &call->in[g]);
    batch = call->in[g].batch;
  }
  if (status == NVFP4_STATUS_SUCCESS && batch != 1)
    status = nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "in.batch = %lld: every group has batch 1", (long long)batch);
  if (status == NVFP4_STATUS_SUCCESS && call->b_tiles) {
    if (call->out_data[g] == NULL) status = nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "out.data is NULL");
    else if ((uintptr_t)call->out_data[g] % 16 != 0)
      status = nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "out.data = %p: B tiles start 16-byte aligned",
                           call->out_data[g]);
  } else if (status == NVFP4_STATUS_SUCCESS) {
    nvfp4_output out = {call->out_data[g], call->out_ld[g], 0, call->dtype};
    status = nvfp4i_validate_output("out", &out, group_rows(call, g), group_k(call, g), 1);
  }
  return status == NVFP4_STATUS_SUCCESS ? status : fail_in_group(status, g);
}

/* The elements written per row of group g, and the group's strips. */
static int64_t written_k(const gdq_call *call, int g) {
  return call->b_tiles ? b_tile_k(group_k(call, g)) : group_k(call, g);
}

static uint64_t group_strips(const gdq_call *call, int g) {
  return (uint64_t)group_rows(call, g) * strips_per_row(written_k(call, g));
}

/* The arguments, every group with rows, and every launch's strip count, before anything launches. */
static nvfp4_status check_call(const nvfp4_handle *h, const gdq_call *call) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  if (h == NULL) return nvfp4i_fail(bad, "grouped dequantize: h is NULL");
  if (call->num_groups < 0)
    return nvfp4i_fail(bad, "grouped dequantize: num_groups = %d: must be >= 0", call->num_groups);
  if (call->num_groups > 0 && ((call->in == NULL && call->dense == NULL) || call->out_data == NULL ||
                               (call->out_ld == NULL && !call->b_tiles)))
    return nvfp4i_fail(bad, "grouped dequantize: in, out_data or out_ld is NULL");
  if (nvfp4i_dtype_size(call->dtype) == 0)
    return nvfp4i_fail(bad, "grouped dequantize: dtype = %d: not a nvfp4_dtype", (int)call->dtype);
  if (call->b_tiles && nvfp4i_dtype_size(call->dtype) != 2)
    return nvfp4i_fail(bad, "grouped dequantize: dtype = %d: B tiles hold f16 or bf16", (int)call->dtype);
  uint64_t strips = 0;
  int work = 0;
  for (int g = 0; g < call->num_groups; g++) {
    if (group_rows(call, g) == 0) continue;
    nvfp4_status status = check_group(call, g);
    if (status != NVFP4_STATUS_SUCCESS) return status;
    if (work++ % GDQ_MAX_GROUPS == 0) strips = 0;
    strips += group_strips(call, g);
    if (strips > GDQ_MAX_STRIPS)
      return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "grouped dequantize, group %d: more than 2^31 - 1 strips "
                         "of %d elements in one launch", g, DEQ_STRIP_CHUNKS * DEQ_CHUNK_ELEMS);
  }
  return work > 0 ? nvfp4i_check_kernel(h, NVFP4I_KERNEL_GROUPED_DEQUANTIZE) : NVFP4_STATUS_SUCCESS;
}

/* Group g's descriptor of dense activations copied into B tiles (no scales). */
static gdq_desc dense_desc(const gdq_call *call, int g) {
  const nvfp4_dense *in = &call->dense[g];
  return (gdq_desc){
      .in = (uintptr_t)in->data,
      .out = (uintptr_t)call->out_data[g],
      .in_ld = (uint64_t)(in->ld * nvfp4i_dtype_size(in->dtype)),
      .out_ld_bytes = (uint64_t)(in->rows * GDQ_B_TILE_ROW_BYTES),
      .chunks_per_row = (uint32_t)(in->k / DEQ_CHUNK_ELEMS),
      .strips_per_row = strips_per_row(written_k(call, g)),
      .out_chunks = (uint32_t)(written_k(call, g) / DEQ_CHUNK_ELEMS),
      .b_tiles = 1,
      .in_dense = 1,
  };
}

static gdq_desc group_desc(const gdq_call *call, int g) {
  if (call->dense != NULL) return dense_desc(call, g);
  const nvfp4_tensor *in = &call->in[g];
  /* B tiles: the "ld" is the column block's bytes, R rows of 128 */
  int64_t esize = nvfp4i_dtype_size(call->dtype);
  int64_t ld_bytes = call->b_tiles ? in->rows * GDQ_B_TILE_ROW_BYTES : call->out_ld[g] * esize;
  nvfp4i_sf_steps sf = nvfp4i_sf_steps_of(in);
  return (gdq_desc){
      .in = (uintptr_t)in->data,
      .in_sf = (uintptr_t)in->scales,
      .out = (uintptr_t)call->out_data[g],
      .in_ld = (uint64_t)in->ld,
      .out_ld_bytes = (uint64_t)ld_bytes,
      .sf_row_step128 = sf.step128,
      .sf_row_step32 = sf.step32,
      .sf_row_step1 = sf.step1,
      .chunks_per_row = (uint32_t)(in->k / DEQ_CHUNK_ELEMS),
      .strips_per_row = strips_per_row(written_k(call, g)),
      .sf_pair_step = sf.quad_step,
      .vector_stores = (uint32_t)rows_16_byte_aligned(call->out_data[g], in->rows, ld_bytes, 1, 0),
      .out_chunks = (uint32_t)(written_k(call, g) / DEQ_CHUNK_ELEMS),
      .b_tiles = (uint32_t)call->b_tiles,
  };
}

/* Launches the groups with rows of [first, end) (at most GDQ_MAX_GROUPS): their strips numbered in group
 * order, as many CTAs as stay resident, fewer where the strips run out first. */
static nvfp4_status launch_groups(nvfp4_handle *h, const gdq_call *call, int first, int end, CUstream stream) {
  gdq_params p = {.out_dtype = (uint32_t)call->dtype};
  for (int g = first; g < end; g++) {
    if (group_rows(call, g) == 0) continue;
    p.strip_start[p.num_groups] = p.total_strips;
    p.desc[p.num_groups++] = group_desc(call, g);
    p.total_strips += (uint32_t)group_strips(call, g);
  }
  uint32_t smem = (uint32_t)DEQ_SMEM_BYTES(nvfp4i_dtype_size(call->dtype));
  uint64_t ctas = resident_ctas(h, NVFP4I_KERNEL_GROUPED_DEQUANTIZE, smem);
  if (p.total_strips < ctas * DEQ_WARPS) ctas = (p.total_strips + DEQ_WARPS - 1) / DEQ_WARPS;
  return launch_strips(h, NVFP4I_KERNEL_GROUPED_DEQUANTIZE, ctas, smem, &p, stream);
}

static nvfp4_status grouped_dequantize(nvfp4_handle *h, const gdq_call call, CUstream stream) {
  int num_groups = call.num_groups;
  nvfp4_status status = check_call(h, &call);
  for (int first = 0; first < num_groups && status == NVFP4_STATUS_SUCCESS;) {
    int end = first, work = 0;
    while (end < num_groups && work < GDQ_MAX_GROUPS) work += group_rows(&call, end++) > 0;
    if (work > 0) status = launch_groups(h, &call, first, end, stream);
    first = end;
  }
  return status;
}

nvfp4_status nvfp4i_grouped_dequantize(nvfp4_handle *h, int num_groups, const nvfp4_tensor *in,
                                       void *const *out_data, const int64_t *out_ld, nvfp4_dtype dtype,
                                       CUstream stream) {
  return grouped_dequantize(h, (gdq_call){num_groups, in, out_data, out_ld, dtype, 0, NULL}, stream);
}

nvfp4_status nvfp4i_grouped_dequantize_b_tiles(nvfp4_handle *h, int num_groups, const nvfp4_tensor *in,
                                               void *const *out_data, nvfp4_dtype dtype, CUstream stream) {
  return grouped_dequantize(h, (gdq_call){num_groups, in, out_data, NULL, dtype, 1, NULL}, stream);
}

nvfp4_status nvfp4i_grouped_b_tiles_of_dense(nvfp4_handle *h, int num_groups, const nvfp4_dense *in,
                                             void *const *out_data, CUstream stream) {
  /* the launch's type sizes its staging area only, which B tiles do not use: each group keeps its own */
  return grouped_dequantize(h, (gdq_call){num_groups, NULL, out_data, NULL, NVFP4_DTYPE_F16, 1, in}, stream);
}
