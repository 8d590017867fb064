/* nvfp4_grouped_gemm: validate every group -> per-group TMA maps and descriptors in the kernel's parameter
 * block (up to GG_MAX_GROUPS non-empty groups per launch) -> nvfp4_grouped_gemm_sm90a
 * (ptx/sm90a/grouped_gemm.ptx). Everything a launch needs travels in its parameters, so a call allocates
 * nothing on the device, never synchronises, is capturable, and calls on one handle never share state. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "format.h"
#include "launch.h"
#include "validate.h"

enum {
  GG_MAX_GROUPS = 10, /* per launch: MAX_GROUPS in the PTX */
  GG_TILE = 128,      /* rows of A and rows of B per tile */
  GG_K_STEP_BYTES = 64,
  GG_THREADS = NVFP4I_GROUPED_GEMM_THREADS,
};

/* One group as the kernel reads it (the desc[g] block of the PTX header; 128 bytes). */
typedef struct gg_desc {
  uint64_t a_sf, a_step128, a_step32, a_step1;
  uint64_t b_sf, b_step128, b_step32, b_step1;
  uint64_t c, ldc;
  uint32_t m, n, k, ktiles, tile_start, m_tiles, dtype, a_quad_step, b_quad_step, a_bulk, b_bulk, sf_blocks;
} gg_desc;

/* The kernel's whole parameter block (PARAM_BYTES in the PTX). Tensor maps are kept as bytes: CUtensorMap's
 * own 128-byte alignment would move them off the PTX offsets. */
typedef struct gg_params {
  uint32_t num_groups, total_tiles;
  float alpha;
  uint8_t reserved[52];
  uint8_t maps[GG_MAX_GROUPS][2][128]; /* [0] A data, [1] B data */
  gg_desc desc[GG_MAX_GROUPS];
} gg_params;

_Static_assert(sizeof(gg_desc) == 128, "desc[g] is 128 bytes in the PTX");
_Static_assert(offsetof(gg_params, maps) == 64, "MAPS_OFFSET");
_Static_assert(offsetof(gg_params, desc) == 2624, "DESCS_OFFSET");
_Static_assert(sizeof(gg_params) == 3904, "PARAM_BYTES");

static int is_empty(const nvfp4_tensor *a, const nvfp4_tensor *b) { return a->rows == 0 || b->rows == 0; }

/* Validates group g; a group with work must also suit the TMA copies (16-byte base and row pitch). */
static nvfp4_status validate_group(int g, const nvfp4_tensor *a, const nvfp4_tensor *b, const nvfp4_output *c) {
  char name[32];
  snprintf(name, sizeof name, "a[%d]", g);
  nvfp4_status status = nvfp4i_validate_tensor(name, a, 0);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  snprintf(name, sizeof name, "b[%d]", g);
  status = nvfp4i_validate_tensor(name, b, 0);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  if (a->batch != 1 || b->batch != 1)
    return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "%s[%d].batch = %lld: every group has batch 1",
                       a->batch != 1 ? "a" : "b", g, (long long)(a->batch != 1 ? a->batch : b->batch));
  if (a->k != b->k)
    return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "b[%d].k = %lld: must equal a[%d].k = %lld", g,
                       (long long)b->k, g, (long long)a->k);
  snprintf(name, sizeof name, "c[%d]", g);
  status = nvfp4i_validate_output(name, c, a->rows, b->rows, 1);
  if (status != NVFP4_STATUS_SUCCESS || is_empty(a, b)) return status;
  snprintf(name, sizeof name, "a[%d]", g);
  status = nvfp4i_validate_vector_alignment(name, a);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  snprintf(name, sizeof name, "b[%d]", g);
  return nvfp4i_validate_vector_alignment(name, b);
}

/* A 2-D uint8 map over rows x K/2 packed bytes, box 64 bytes x 128 rows, zero fill out of bounds. */
static nvfp4_status encode_data_map(uint8_t out[128], const char *op, int g, const nvfp4_tensor *t) {
  CUtensorMap map;
  cuuint64_t dims[2] = {(cuuint64_t)(t->k / 2), (cuuint64_t)t->rows};
  cuuint64_t strides[1] = {(cuuint64_t)(t->rows > 1 ? t->ld : (t->k / 2 + 15) / 16 * 16)};
  cuuint32_t box[2] = {GG_K_STEP_BYTES, GG_TILE};
  cuuint32_t element_strides[2] = {1, 1};
  CUresult r = nvfp4i_cuda()->cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, (void *)t->data, dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    char what[256];
    snprintf(what, sizeof what,
             "cuTensorMapEncodeTiled(%s[%d] data: uint8, rank 2, address %p, dims {%llu, %llu}, stride %llu, "
             "box {%u, %u}, element strides {1, 1}, no interleave, no swizzle, L2 128B, zero fill)",
             op, g, t->data, (unsigned long long)dims[0], (unsigned long long)dims[1],
             (unsigned long long)strides[0], box[0], box[1]);
    return nvfp4i_cuda_fail(r, what);
  }
  memcpy(out, &map, 128);
  return NVFP4_STATUS_SUCCESS;
}

/* BLOCKED scales with a 16-byte aligned base come by cp.async.bulk; the rest by byte loads. */
static uint32_t scales_by_bulk_copy(const nvfp4_tensor *t) {
  return t->sf_layout == NVFP4_SF_BLOCKED_128x4 && (uintptr_t)t->scales % 16 == 0;
}

static nvfp4_status fill_group(gg_params *p, int slot, int g, const nvfp4_tensor *a, const nvfp4_tensor *b,
                               const nvfp4_output *c) {
  nvfp4_status status = encode_data_map(p->maps[slot][0], "a", g, a);
  if (status == NVFP4_STATUS_SUCCESS) status = encode_data_map(p->maps[slot][1], "b", g, b);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  /* scales in the kernel's form: see the PTX header and nvfp4i_sf_steps_of */
  nvfp4i_sf_steps as = nvfp4i_sf_steps_of(a), bs = nvfp4i_sf_steps_of(b);
  gg_desc *d = &p->desc[slot];
  *d = (gg_desc){
      .a_sf = (uintptr_t)a->scales,
      .a_step128 = as.step128,
      .a_step32 = as.step32,
      .a_step1 = as.step1,
      .b_sf = (uintptr_t)b->scales,
      .b_step128 = bs.step128,
      .b_step32 = bs.step32,
      .b_step1 = bs.step1,
      .c = (uintptr_t)c->data,
      .ldc = (uint64_t)(a->rows > 1 ? c->ld : 0),
      .m = (uint32_t)a->rows,
      .n = (uint32_t)b->rows,
      .k = (uint32_t)a->k,
      .ktiles = (uint32_t)((a->k + 2 * GG_K_STEP_BYTES - 1) / (2 * GG_K_STEP_BYTES)),
      .tile_start = p->total_tiles,
      .m_tiles = (uint32_t)((a->rows + GG_TILE - 1) / GG_TILE),
      .dtype = (uint32_t)c->dtype,
      .a_quad_step = as.quad_step,
      .b_quad_step = bs.quad_step,
      .a_bulk = scales_by_bulk_copy(a),
      .b_bulk = scales_by_bulk_copy(b),
      .sf_blocks = (uint32_t)(a->k / 16),
  };
  uint64_t tiles = (uint64_t)d->m_tiles * (uint64_t)((b->rows + GG_TILE - 1) / GG_TILE);
  if (tiles + p->total_tiles > UINT32_MAX)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "group %d: more than 2^32 tiles in one launch", g);
  p->total_tiles += (uint32_t)tiles;
  p->num_groups = (uint32_t)slot + 1;
  return NVFP4_STATUS_SUCCESS;
}

NVFP4_API nvfp4_status nvfp4_grouped_gemm(nvfp4_handle *h, int num_groups, const nvfp4_tensor *a,
                                          const nvfp4_tensor *b, const nvfp4_output *c, float alpha,
                                          CUstream stream) {
  nvfp4i_clear_error();
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  if (h == NULL) return nvfp4i_fail(bad, "h is NULL");
  if (num_groups < 0) return nvfp4i_fail(bad, "num_groups = %d: must be >= 0", num_groups);
  if (num_groups > 0 && a == NULL) return nvfp4i_fail(bad, "a is NULL");
  if (num_groups > 0 && b == NULL) return nvfp4i_fail(bad, "b is NULL");
  if (num_groups > 0 && c == NULL) return nvfp4i_fail(bad, "c is NULL");
  int work = 0;
  for (int g = 0; g < num_groups; g++) {
    nvfp4_status status = validate_group(g, &a[g], &b[g], &c[g]);
    if (status != NVFP4_STATUS_SUCCESS) return status;
    if (!is_empty(&a[g], &b[g])) work++;
  }
  if (work == 0) return NVFP4_STATUS_SUCCESS; /* nothing to compute, nothing launched */

  /* Every launch's parameters are encoded before the first launch, so a failure launches nothing. */
  int launches = (work + GG_MAX_GROUPS - 1) / GG_MAX_GROUPS;
  gg_params *params = calloc((size_t)launches, sizeof *params);
  if (params == NULL) return nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "no host memory for %d launches", launches);
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  for (int g = 0, done = 0; g < num_groups && status == NVFP4_STATUS_SUCCESS; g++) {
    if (is_empty(&a[g], &b[g])) continue;
    gg_params *p = &params[done / GG_MAX_GROUPS];
    p->alpha = alpha;
    status = fill_group(p, done % GG_MAX_GROUPS, g, &a[g], &b[g], &c[g]);
    done++;
  }
  for (int l = 0; l < launches && status == NVFP4_STATUS_SUCCESS; l++) {
    unsigned grid = params[l].total_tiles < (uint32_t)h->sm_count ? params[l].total_tiles : (unsigned)h->sm_count;
    void *args[] = {&params[l]};
    nvfp4i_launch launch = {
        .grid = {grid, 1, 1},
        .block = {GG_THREADS, 1, 1},
        .dynamic_smem = NVFP4I_GROUPED_GEMM_SMEM,
        .params = args,
    };
    status = nvfp4i_launch_kernel(h, NVFP4I_KERNEL_GROUPED_GEMM, &launch, stream);
  }
  free(params);
  return status;
}
