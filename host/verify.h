/* GPU-vs-reference checks shared by `nvfp4 verify` and the GPU test suite (not part of libnvfp4). */
#ifndef NVFP4_HOST_VERIFY_H
#define NVFP4_HOST_VERIFY_H

#include "nvfp4.h"

typedef struct nvfp4i_gemv_case {
  int64_t m, k, l;
  nvfp4_sf_layout a_layout, x_layout;
  nvfp4_dtype dtype;
  float alpha;
  uint64_t seed;
  int64_t a_pad;  /* extra bytes per row of A (multiple of 16): strided operands */
  int64_t y_ld;   /* elements between outputs of consecutive rows; 0 means 1 */
  int64_t nan_row; /* >= 0: that row of batch 0 gets a NaN scale and must come out NaN, alone */
} nvfp4i_gemv_case;

typedef struct nvfp4i_verdict {
  nvfp4_status status;  /* of the library call (or of the set-up); SUCCESS when the check ran */
  int64_t checked;      /* outputs compared with the reference */
  int64_t failures;     /* outputs outside the SPEC §4 bar */
  int64_t clobbered;    /* output-buffer elements outside the result that changed (must be 0) */
  double worst_ratio;   /* max |out - ref| / tolerance (<= 1 passes) */
  char detail[256];     /* the worst element: index, got, expected */
} nvfp4i_verdict;

/* Random operands from c->seed, poisoned output, nvfp4_gemv on the stream 0, reference, comparison.
 * Returns 1 when the call succeeded and every output passed. */
int nvfp4i_verify_gemv(nvfp4_handle *h, const nvfp4i_gemv_case *c, nvfp4i_verdict *v);

#endif
