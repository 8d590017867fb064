/* nvfp4_dequantize: validate -> strip walk of the grid -> one launch of nvfp4_dequantize_sm90a
 * (ptx/sm90a/dequantize.ptx; layout and parameter block: dequantize_layout.h). */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "format.h"
#include "launch.h"
#include "validate.h"

enum {
  DEQ_SM_SMEM = 228 * 1024,   /* shared memory of an sm_90 multiprocessor */
  DEQ_SMEM_RESERVE = 1024,    /* the driver's reserve per CTA */
};

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

/* Whether every output row starts 16-byte aligned: the kernel's 16-byte stores, else its 4- and 2-byte ones. */
static int rows_16_byte_aligned(const nvfp4_tensor *in, const nvfp4_output *out, int64_t esize) {
  return (uintptr_t)out->data % 16 == 0 && (in->rows == 1 || out->ld * esize % 16 == 0) &&
         (in->batch == 1 || out->batch_stride * esize % 16 == 0);
}

NVFP4_API nvfp4_status nvfp4_dequantize(nvfp4_handle *h, const nvfp4_tensor *in, const nvfp4_output *out,
                                        CUstream stream) {
  nvfp4i_clear_error();
  nvfp4_status status = validate(h, in, out);
  if (status != NVFP4_STATUS_SUCCESS) return status;

  /* As many CTAs as stay resident (registers and each warp's staging area permitting), fewer where the
   * strips run out first; their warps stride over the strips in (batch, row, strip) order. */
  int64_t esize = nvfp4i_dtype_size(out->dtype);
  uint32_t smem = (uint32_t)DEQ_SMEM_BYTES(esize);
  uint32_t ctas_per_sm = DEQ_SM_SMEM / (smem + DEQ_SMEM_RESERVE);
  uint32_t blocks_per_sm = (uint32_t)h->kernels[NVFP4I_KERNEL_DEQUANTIZE].blocks_per_sm;
  if (ctas_per_sm > blocks_per_sm) ctas_per_sm = blocks_per_sm;
  if (ctas_per_sm < 1) ctas_per_sm = 1;
  uint32_t chunks_per_row = (uint32_t)(in->k / DEQ_CHUNK_ELEMS);
  uint32_t strips_per_row = (chunks_per_row + DEQ_STRIP_CHUNKS - 1) / DEQ_STRIP_CHUNKS;
  uint64_t strips_per_batch = (uint64_t)in->rows * strips_per_row;
  uint64_t ctas = (uint64_t)h->sm_count * ctas_per_sm;
  if ((uint64_t)in->batch <= ctas * DEQ_WARPS / strips_per_batch) /* fewer strips than resident warps */
    ctas = ((uint64_t)in->batch * strips_per_batch + DEQ_WARPS - 1) / DEQ_WARPS;
  uint64_t warps = ctas * DEQ_WARPS, rows_stepped = warps / strips_per_row;

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
      .strips_per_row = strips_per_row,
      .sf_pair_step = sf.quad_step,
      .step_strips = (uint32_t)(warps % strips_per_row),
      .step_rows = (uint32_t)(rows_stepped % (uint64_t)in->rows),
      .step_batches = (uint32_t)(rows_stepped / (uint64_t)in->rows),
      .out_dtype = (uint32_t)out->dtype,
      .vector_stores = (uint32_t)rows_16_byte_aligned(in, out, esize),
  };
  void *params[] = {&p};
  nvfp4i_launch launch = {
      .grid = {(unsigned)ctas, 1, 1},
      .block = {DEQ_THREADS, 1, 1},
      .dynamic_smem = smem,
      .params = params,
  };
  return nvfp4i_launch_kernel(h, NVFP4I_KERNEL_DEQUANTIZE, &launch, stream);
}
