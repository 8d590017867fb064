/* The grouped GEMM's finishing step (ptx/sm90a/grouped_finish.ptx): the f32 partials a split-K or dual GEMM
 * launch wrote into scratch, summed in slice order, scaled, gated for the dual GEMM, written to each group's
 * output. Internal to the library (not part of nvfp4.h). */
#ifndef NVFP4_HOST_GROUPED_FINISH_H
#define NVFP4_HOST_GROUPED_FINISH_H

#include <stdint.h>

#include "handle.h"
#include "sm90a/grouped_finish_layout.h"

/* One group's partials and output. Partials: slice s, row r, column n at gate + ((s * m + r) * ldp + n) * 4
 * (16-byte aligned, ldp a multiple of GF_COLS); `up` likewise for the dual GEMM's second product. */
typedef struct nvfp4i_finish_group {
  uintptr_t gate, up;
  uint32_t m, n, ldp, slices;
  const nvfp4_output *c;
} nvfp4i_finish_group;

/* Floats between partial rows for a group of n columns. */
uint32_t nvfp4i_finish_ldp(int64_t n);

/* Finishes `count` groups (1 <= count <= GF_MAX_GROUPS; m, n >= 1) in one launch, in mode GF_MODE_SUM
 * (c = alpha1 * sum) or GF_MODE_SILU_MUL (c = silu(alpha1 * gate) * (alpha2 * up)). The launch starts early
 * (programmatic dependent launch) after the GEMM that writes the partials and waits for it before reading. */
nvfp4_status nvfp4i_grouped_finish(nvfp4_handle *h, int count, const nvfp4i_finish_group *groups, uint32_t mode,
                                   float alpha1, float alpha2, CUstream stream);

#endif
