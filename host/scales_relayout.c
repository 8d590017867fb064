/* nvfp4_scales_relayout: validate -> one launch of nvfp4_scales_relayout_sm90a (ptx/sm90a/scales_relayout.ptx;
 * layout and parameter block: scales_relayout_layout.h). */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "format.h"
#include "launch.h"
#include "validate.h"

/* The kernel's parameter block (scales_relayout_layout.h), passed as one .param array. */
typedef struct rly_params {
  uint64_t from_sf, to_sf, from_batch_stride, to_batch_stride, from_step128, from_step32, from_step1;
  uint64_t to_step128, to_step32, to_step1, batch;
  uint32_t from_quad_step, to_quad_step, rows, to_rows, tiles, quads, whole_quads, to_whole_quads, groups;
  uint32_t step_groups, step_tiles, step_batches, from_access, to_access;
} rly_params;

#define RLY_PARAM_AT(field, offset) _Static_assert(offsetof(rly_params, field) == (offset), #offset);
RLY_PARAM_AT(from_sf, RLY_P_FROM_SF)
RLY_PARAM_AT(to_sf, RLY_P_TO_SF)
RLY_PARAM_AT(from_batch_stride, RLY_P_FROM_BATCH_STRIDE)
RLY_PARAM_AT(to_batch_stride, RLY_P_TO_BATCH_STRIDE)
RLY_PARAM_AT(from_step128, RLY_P_FROM_STEP128)
RLY_PARAM_AT(from_step32, RLY_P_FROM_STEP32)
RLY_PARAM_AT(from_step1, RLY_P_FROM_STEP1)
RLY_PARAM_AT(to_step128, RLY_P_TO_STEP128)
RLY_PARAM_AT(to_step32, RLY_P_TO_STEP32)
RLY_PARAM_AT(to_step1, RLY_P_TO_STEP1)
RLY_PARAM_AT(batch, RLY_P_BATCH)
RLY_PARAM_AT(from_quad_step, RLY_P_FROM_QUAD_STEP)
RLY_PARAM_AT(to_quad_step, RLY_P_TO_QUAD_STEP)
RLY_PARAM_AT(rows, RLY_P_ROWS)
RLY_PARAM_AT(to_rows, RLY_P_TO_ROWS)
RLY_PARAM_AT(tiles, RLY_P_TILES)
RLY_PARAM_AT(quads, RLY_P_QUADS)
RLY_PARAM_AT(whole_quads, RLY_P_WHOLE_QUADS)
RLY_PARAM_AT(to_whole_quads, RLY_P_TO_WHOLE_QUADS)
RLY_PARAM_AT(groups, RLY_P_GROUPS)
RLY_PARAM_AT(step_groups, RLY_P_STEP_GROUPS)
RLY_PARAM_AT(step_tiles, RLY_P_STEP_TILES)
RLY_PARAM_AT(step_batches, RLY_P_STEP_BATCHES)
RLY_PARAM_AT(from_access, RLY_P_FROM_ACCESS)
RLY_PARAM_AT(to_access, RLY_P_TO_ACCESS)
#undef RLY_PARAM_AT
_Static_assert(RLY_P_TO_ACCESS + sizeof(uint32_t) == RLY_PARAM_BYTES, "RLY_PARAM_BYTES ends the block");
_Static_assert(sizeof(rly_params) == RLY_PARAM_BYTES, "no tail padding");
_Static_assert(RLY_THREADS == 32 * RLY_QUAD_SPACING && RLY_THREAD_QUADS == 4,
               "a CTA's threads are 32 rows x RLY_QUAD_SPACING quads of a tile row, each with 4 rows x 4 quads "
               "(the kernel's FOR_EACH_WORD)");

/* to's shape must be from's: the same scales, placed differently. */
static nvfp4_status validate_same_shape(const nvfp4_tensor *from, const nvfp4_tensor *to) {
  const struct {
    const char *field;
    int64_t got, want;
  } dims[] = {{"rows", to->rows, from->rows}, {"k", to->k, from->k}, {"batch", to->batch, from->batch}};
  for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
    if (dims[i].got != dims[i].want)
      return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "to.%s = %lld: must equal from.%s = %lld", dims[i].field,
                         (long long)dims[i].got, dims[i].field, (long long)dims[i].want);
  return NVFP4_STATUS_SUCCESS;
}

/* Bytes from t->scales to the end of its last batch's scales. */
static uint64_t scales_span(const nvfp4_tensor *t) {
  return (uint64_t)(t->batch - 1) * (uint64_t)t->sf_batch_stride +
         (uint64_t)nvfp4i_sf_batch_bytes(t->sf_layout, t->sf_ld, t->rows, t->k);
}

/* The destination is written from many threads at once: its batches must lie apart, and apart from the
 * source's scales. */
static nvfp4_status validate_apart(const nvfp4_tensor *from, const nvfp4_tensor *to) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  int64_t to_batch_bytes = nvfp4i_sf_batch_bytes(to->sf_layout, to->sf_ld, to->rows, to->k);
  if (to->batch > 1 && to->sf_batch_stride < to_batch_bytes)
    return nvfp4i_fail(bad, "to.sf_batch_stride = %lld: must be >= %lld so batches do not overlap",
                       (long long)to->sf_batch_stride, (long long)to_batch_bytes);
  uintptr_t from_first = (uintptr_t)from->scales, to_first = (uintptr_t)to->scales;
  uint64_t from_span = scales_span(from), to_span = scales_span(to);
  if (from_first < to_first + to_span && to_first < from_first + from_span)
    return nvfp4i_fail(bad, "from.scales (%p, %llu bytes) and to.scales (%p, %llu bytes) overlap: they must lie "
                       "apart", from->scales, (unsigned long long)from_span, to->scales,
                       (unsigned long long)to_span);
  return NVFP4_STATUS_SUCCESS;
}

static nvfp4_status validate(const nvfp4_handle *h, const nvfp4_tensor *from, const nvfp4_tensor *to) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  if (h == NULL) return nvfp4i_fail(bad, "h is NULL");
  if (from == NULL) return nvfp4i_fail(bad, "from is NULL");
  if (to == NULL) return nvfp4i_fail(bad, "to is NULL");
  nvfp4_status status = nvfp4i_validate_scales("from", from);
  if (status == NVFP4_STATUS_SUCCESS) status = nvfp4i_validate_scales("to", to);
  if (status == NVFP4_STATUS_SUCCESS) status = validate_same_shape(from, to);
  if (status == NVFP4_STATUS_SUCCESS) status = validate_apart(from, to);
  return status;
}

/* The widest access the side's addresses allow (RLY_ACCESS_*): every quad of a LINEAR side lies at
 * base + b*sf_batch_stride + r*sf_ld + 4q, every quad's 4 rows of a BLOCKED side at base + b*sf_batch_stride
 * + a multiple of 16; a stride that is never applied (one batch, one row) does not count. */
static uint32_t access_of(const nvfp4_tensor *t) {
  uint64_t offsets = (uintptr_t)t->scales | (t->batch > 1 ? (uint64_t)t->sf_batch_stride : 0);
  if (t->sf_layout == NVFP4_SF_LINEAR) {
    offsets |= t->rows > 1 ? (uint64_t)t->sf_ld : 0;
    return offsets % 4 == 0 ? RLY_ACCESS_WORDS : RLY_ACCESS_BYTES;
  }
  return offsets % 16 == 0 ? RLY_ACCESS_VEC16 : offsets % 4 == 0 ? RLY_ACCESS_WORDS : RLY_ACCESS_BYTES;
}

NVFP4_API nvfp4_status nvfp4_scales_relayout(nvfp4_handle *h, const nvfp4_tensor *from, const nvfp4_tensor *to,
                                             CUstream stream) {
  nvfp4i_clear_error();
  nvfp4_status status = validate(h, from, to);
  if (status != NVFP4_STATUS_SUCCESS) return status;

  /* The items: per batch, the tile rows x groups of RLY_ITEM_QUADS quads that cover rows x K/16; the
   * destination's extent within them: LINEAR, the scales alone; BLOCKED, whole tiles (the padding written 0). */
  int blocked = to->sf_layout == NVFP4_SF_BLOCKED_128x4;
  uint64_t tiles = ((uint64_t)to->rows + 127) / 128, blocks = (uint64_t)to->k / 16;
  uint64_t quads = (blocks + 3) / 4, groups = (quads + RLY_ITEM_QUADS - 1) / RLY_ITEM_QUADS;
  uint64_t items = (uint64_t)to->batch * tiles * groups;

  /* A CTA per item, or as many CTAs as stay resident, striding over the rest in (batch, tile row, group). */
  uint64_t ctas_per_sm = (uint64_t)h->kernels[NVFP4I_KERNEL_SCALES_RELAYOUT].blocks_per_sm;
  if (ctas_per_sm < 1) ctas_per_sm = 1;
  uint64_t ctas = items;
  if (ctas > (uint64_t)h->sm_count * ctas_per_sm) ctas = (uint64_t)h->sm_count * ctas_per_sm;
  uint64_t tile_rows_stepped = ctas / groups;

  nvfp4i_sf_steps sf_from = nvfp4i_sf_steps_of(from), sf_to = nvfp4i_sf_steps_of(to);
  rly_params p = {
      .from_sf = (uintptr_t)from->scales,
      .to_sf = (uintptr_t)to->scales,
      .from_batch_stride = (uint64_t)from->sf_batch_stride,
      .to_batch_stride = (uint64_t)to->sf_batch_stride,
      .from_step128 = sf_from.step128,
      .from_step32 = sf_from.step32,
      .from_step1 = sf_from.step1,
      .to_step128 = sf_to.step128,
      .to_step32 = sf_to.step32,
      .to_step1 = sf_to.step1,
      .batch = (uint64_t)to->batch,
      .from_quad_step = sf_from.quad_step,
      .to_quad_step = sf_to.quad_step,
      .rows = (uint32_t)to->rows,
      .to_rows = (uint32_t)(blocked ? tiles * 128 : (uint64_t)to->rows),
      .tiles = (uint32_t)tiles,
      .quads = (uint32_t)quads,
      .whole_quads = (uint32_t)(blocks / 4),
      .to_whole_quads = (uint32_t)(blocked ? quads : blocks / 4),
      .groups = (uint32_t)groups,
      .step_groups = (uint32_t)(ctas % groups),
      .step_tiles = (uint32_t)(tile_rows_stepped % tiles),
      .step_batches = (uint32_t)(tile_rows_stepped / tiles),
      .from_access = access_of(from),
      .to_access = access_of(to),
  };
  void *params[] = {&p};
  nvfp4i_launch launch = {
      .grid = {(unsigned)ctas, 1, 1},
      .block = {RLY_THREADS, 1, 1},
      .dynamic_smem = 0,
      .params = params,
  };
  return nvfp4i_launch_kernel(h, NVFP4I_KERNEL_SCALES_RELAYOUT, &launch, stream);
}
