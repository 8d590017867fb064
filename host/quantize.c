/* nvfp4_quantize: validate -> strip walk of the grid -> one launch of nvfp4_quantize_sm90a
 * (ptx/sm90a/quantize.ptx; layout and parameter block: quantize_layout.h). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "format.h"
#include "launch.h"
#include "validate.h"

/* The kernel's parameter block (quantize_layout.h), passed as one .param array. */
typedef struct qnt_params {
  uint64_t in, out, out_sf, in_ld_bytes, in_batch_bytes, out_ld, out_batch_stride, sf_batch_stride;
  uint64_t sf_row_step128, sf_row_step32, sf_row_step1, batch;
  uint32_t rows, walk_rows, groups_per_row, sf_blocks, strips_per_row, sf_quad_step, step_strips, step_rows;
  uint32_t step_batches, in_dtype, vector_loads;
  float global_scale;
} qnt_params;

#define QNT_PARAM_AT(field, offset) _Static_assert(offsetof(qnt_params, field) == (offset), #offset);
QNT_PARAM_AT(in, QNT_P_IN)
QNT_PARAM_AT(out, QNT_P_OUT)
QNT_PARAM_AT(out_sf, QNT_P_OUT_SF)
QNT_PARAM_AT(in_ld_bytes, QNT_P_IN_LD_BYTES)
QNT_PARAM_AT(in_batch_bytes, QNT_P_IN_BATCH_BYTES)
QNT_PARAM_AT(out_ld, QNT_P_OUT_LD)
QNT_PARAM_AT(out_batch_stride, QNT_P_OUT_BATCH_STRIDE)
QNT_PARAM_AT(sf_batch_stride, QNT_P_SF_BATCH_STRIDE)
QNT_PARAM_AT(sf_row_step128, QNT_P_SF_ROW_STEP128)
QNT_PARAM_AT(sf_row_step32, QNT_P_SF_ROW_STEP32)
QNT_PARAM_AT(sf_row_step1, QNT_P_SF_ROW_STEP1)
QNT_PARAM_AT(batch, QNT_P_BATCH)
QNT_PARAM_AT(rows, QNT_P_ROWS)
QNT_PARAM_AT(walk_rows, QNT_P_WALK_ROWS)
QNT_PARAM_AT(groups_per_row, QNT_P_GROUPS_PER_ROW)
QNT_PARAM_AT(sf_blocks, QNT_P_SF_BLOCKS)
QNT_PARAM_AT(strips_per_row, QNT_P_STRIPS_PER_ROW)
QNT_PARAM_AT(sf_quad_step, QNT_P_SF_QUAD_STEP)
QNT_PARAM_AT(step_strips, QNT_P_STEP_STRIPS)
QNT_PARAM_AT(step_rows, QNT_P_STEP_ROWS)
QNT_PARAM_AT(step_batches, QNT_P_STEP_BATCHES)
QNT_PARAM_AT(in_dtype, QNT_P_IN_DTYPE)
QNT_PARAM_AT(vector_loads, QNT_P_VECTOR_LOADS)
QNT_PARAM_AT(global_scale, QNT_P_GLOBAL_SCALE)
#undef QNT_PARAM_AT
_Static_assert(QNT_P_GLOBAL_SCALE + sizeof(float) == QNT_PARAM_BYTES, "QNT_PARAM_BYTES ends the block");
_Static_assert(QNT_WARPS * 32 == QNT_THREADS, "QNT_WARPS");
_Static_assert(QNT_STRIP_ELEMS == 1024 && QNT_STRIP_BLOCKS == 64,
               "a strip is 2 blocks of 16 elements per lane (the kernel's section offsets assume it)");
_Static_assert(QNT_DTYPE_F16 == NVFP4_DTYPE_F16 && QNT_DTYPE_BF16 == NVFP4_DTYPE_BF16 &&
                   QNT_DTYPE_F32 == NVFP4_DTYPE_F32,
               "QNT_DTYPE_* are nvfp4_dtype's values");

/* out's shape must be in's: the NVFP4 tensor the dense one becomes. */
static nvfp4_status validate_same_shape(const nvfp4_dense *in, const nvfp4_tensor *out) {
  const struct {
    const char *field;
    int64_t got, want;
  } dims[] = {{"rows", out->rows, in->rows}, {"k", out->k, in->k}, {"batch", out->batch, in->batch}};
  for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
    if (dims[i].got != dims[i].want)
      return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "out.%s = %lld: must equal in.%s = %lld", dims[i].field,
                         (long long)dims[i].got, dims[i].field, (long long)dims[i].want);
  return NVFP4_STATUS_SUCCESS;
}

static nvfp4_status validate(const nvfp4_handle *h, const nvfp4_dense *in, const nvfp4_tensor *out,
                             float global_scale) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  if (h == NULL) return nvfp4i_fail(bad, "h is NULL");
  if (in == NULL) return nvfp4i_fail(bad, "in is NULL");
  if (out == NULL) return nvfp4i_fail(bad, "out is NULL");
  if (!isfinite(global_scale) || !(global_scale > 0.0f))
    return nvfp4i_fail(bad, "global_scale = %g: must be finite and > 0", (double)global_scale);
  nvfp4_status status = nvfp4i_validate_dense_input("in", in, 1);
  if (status == NVFP4_STATUS_SUCCESS) status = nvfp4i_validate_tensor("out", out, 1);
  if (status == NVFP4_STATUS_SUCCESS) status = validate_same_shape(in, out);
  if (status == NVFP4_STATUS_SUCCESS) status = nvfp4i_validate_vector_alignment("out", out);
  return status;
}

/* Whether every input row starts 16-byte aligned: the kernel's 16-byte loads, else its element loads. */
static int rows_16_byte_aligned(const nvfp4_dense *in, int64_t esize) {
  return (uintptr_t)in->data % 16 == 0 && (in->rows == 1 || in->ld * esize % 16 == 0) &&
         (in->batch == 1 || in->batch_stride * esize % 16 == 0);
}

NVFP4_API nvfp4_status nvfp4_quantize(nvfp4_handle *h, const nvfp4_dense *in, const nvfp4_tensor *out,
                                      float global_scale, CUstream stream) {
  nvfp4i_clear_error();
  nvfp4_status status = validate(h, in, out, global_scale);
  if (status != NVFP4_STATUS_SUCCESS) return status;

  /* BLOCKED scales are written in whole tiles: the warps walk the padding rows and blocks too, whose
   * scales come out 0. */
  int blocked = out->sf_layout == NVFP4_SF_BLOCKED_128x4;
  uint64_t walk_rows = blocked ? ((uint64_t)in->rows + 127) / 128 * 128 : (uint64_t)in->rows;
  uint32_t sf_blocks = (uint32_t)(blocked ? (in->k / 16 + 3) / 4 * 4 : in->k / 16);
  uint32_t strips_per_row = (sf_blocks * 16 + QNT_STRIP_ELEMS - 1) / QNT_STRIP_ELEMS;

  /* As many CTAs as stay resident, fewer where the strips run out first; their warps stride over the
   * strips in (batch, row, strip) order. */
  uint32_t ctas_per_sm = (uint32_t)h->kernels[NVFP4I_KERNEL_QUANTIZE].blocks_per_sm;
  if (ctas_per_sm < 1) ctas_per_sm = 1;
  uint64_t strips_per_batch = walk_rows * strips_per_row;
  uint64_t ctas = (uint64_t)h->sm_count * ctas_per_sm;
  if ((uint64_t)in->batch <= ctas * QNT_WARPS / strips_per_batch) /* fewer strips than resident warps */
    ctas = ((uint64_t)in->batch * strips_per_batch + QNT_WARPS - 1) / QNT_WARPS;
  uint64_t warps = ctas * QNT_WARPS, rows_stepped = warps / strips_per_row;

  int64_t esize = nvfp4i_dtype_size(in->dtype);
  nvfp4i_sf_steps sf = nvfp4i_sf_steps_of(out);
  qnt_params p = {
      .in = (uintptr_t)in->data,
      .out = (uintptr_t)out->data,
      .out_sf = (uintptr_t)out->scales,
      .in_ld_bytes = (uint64_t)(in->ld * esize),
      .in_batch_bytes = (uint64_t)(in->batch_stride * esize),
      .out_ld = (uint64_t)out->ld,
      .out_batch_stride = (uint64_t)out->batch_stride,
      .sf_batch_stride = (uint64_t)out->sf_batch_stride,
      .sf_row_step128 = sf.step128,
      .sf_row_step32 = sf.step32,
      .sf_row_step1 = sf.step1,
      .batch = (uint64_t)in->batch,
      .rows = (uint32_t)in->rows,
      .walk_rows = (uint32_t)walk_rows,
      .groups_per_row = (uint32_t)(in->k / QNT_GROUP_ELEMS),
      .sf_blocks = sf_blocks,
      .strips_per_row = strips_per_row,
      .sf_quad_step = sf.quad_step,
      .step_strips = (uint32_t)(warps % strips_per_row),
      .step_rows = (uint32_t)(rows_stepped % walk_rows),
      .step_batches = (uint32_t)(rows_stepped / walk_rows),
      .in_dtype = (uint32_t)in->dtype,
      .vector_loads = (uint32_t)rows_16_byte_aligned(in, esize),
      .global_scale = global_scale,
  };
  void *params[] = {&p};
  nvfp4i_launch launch = {
      .grid = {(unsigned)ctas, 1, 1},
      .block = {QNT_THREADS, 1, 1},
      .dynamic_smem = 0,
      .params = params,
      /* programmatic dependent launch: the kernel waits for the one before it before its first load */
      .early_start = 1,
  };
  return nvfp4i_launch_kernel(h, NVFP4I_KERNEL_QUANTIZE, &launch, stream);
}
