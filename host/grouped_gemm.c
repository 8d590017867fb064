/* nvfp4_grouped_gemm: every group validated before anything launches. The kernel is not written yet. */
#include <stdio.h>

#include "error.h"
#include "validate.h"

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
  return nvfp4i_validate_output(name, c, a->rows, b->rows, 1);
}

NVFP4_API nvfp4_status nvfp4_grouped_gemm(nvfp4_handle *h, int num_groups, const nvfp4_tensor *a,
                                          const nvfp4_tensor *b, const nvfp4_output *c, float alpha,
                                          CUstream stream) {
  (void)alpha;
  (void)stream;
  nvfp4i_clear_error();
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  if (h == NULL) return nvfp4i_fail(bad, "h is NULL");
  if (num_groups < 0) return nvfp4i_fail(bad, "num_groups = %d: must be >= 0", num_groups);
  if (num_groups > 0 && a == NULL) return nvfp4i_fail(bad, "a is NULL");
  if (num_groups > 0 && b == NULL) return nvfp4i_fail(bad, "b is NULL");
  if (num_groups > 0 && c == NULL) return nvfp4i_fail(bad, "c is NULL");
  for (int g = 0; g < num_groups; g++) {
    nvfp4_status status = validate_group(g, &a[g], &b[g], &c[g]);
    if (status != NVFP4_STATUS_SUCCESS) return status;
  }
  return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "nvfp4_grouped_gemm: not implemented yet");
}
