/* Links against an installed libnvfp4 (CI: pkg-config, shared and static) and calls every entry point of
 * include/nvfp4.h once, so a symbol the library fails to export, or a dependency its .pc omits, fails the
 * link or the run. Needs no GPU: without one nvfp4_create reports NO_DRIVER or NO_DEVICE, and the
 * operations are called with a NULL handle, which they must reject. Exit 0 when every status is as stated. */
#include <stdio.h>

#include <cuda.h>
#include <nvfp4.h>

static int expect(const char *call, nvfp4_status got, nvfp4_status want) {
  if (got == want) return 1;
  fprintf(stderr, "%s: %s (%s), expected %s\n", call, nvfp4_status_string(got), nvfp4_last_error(),
          nvfp4_status_string(want));
  return 0;
}

int main(void) {
  int ok = nvfp4_version() == NVFP4_VERSION_NUMBER;
  nvfp4_handle *h = NULL;
  nvfp4_status created = nvfp4_create(&h);
  if (created == NVFP4_STATUS_SUCCESS)
    ok &= expect("nvfp4_destroy", nvfp4_destroy(h), NVFP4_STATUS_SUCCESS);
  else
    ok &= created == NVFP4_STATUS_NO_DRIVER || created == NVFP4_STATUS_NO_DEVICE;
  ok &= expect("nvfp4_destroy(NULL)", nvfp4_destroy(NULL), NVFP4_STATUS_SUCCESS);
  nvfp4_tensor t = {0};
  nvfp4_output o = {0};
  ok &= expect("nvfp4_gemv(NULL handle)", nvfp4_gemv(NULL, &t, &t, &o, 1.0f, (CUstream)0),
               NVFP4_STATUS_INVALID_VALUE);
  ok &= expect("nvfp4_grouped_gemm(NULL handle)", nvfp4_grouped_gemm(NULL, 1, &t, &t, &o, 1.0f, (CUstream)0),
               NVFP4_STATUS_INVALID_VALUE);
  ok &= expect("nvfp4_gemm(NULL handle)", nvfp4_gemm(NULL, &t, &t, &o, 1.0f, (CUstream)0),
               NVFP4_STATUS_INVALID_VALUE);
  nvfp4_dense d = {0};
  ok &= expect("nvfp4_gemv_w4a16(NULL handle)", nvfp4_gemv_w4a16(NULL, &t, &d, &o, 1.0f, (CUstream)0),
               NVFP4_STATUS_INVALID_VALUE);
  ok &= expect("nvfp4_grouped_gemm_w4a16(NULL handle)",
               nvfp4_grouped_gemm_w4a16(NULL, 1, &d, &t, &o, 1.0f, (CUstream)0), NVFP4_STATUS_INVALID_VALUE);
  ok &= expect("nvfp4_dequantize(NULL handle)", nvfp4_dequantize(NULL, &t, &o, (CUstream)0),
               NVFP4_STATUS_INVALID_VALUE);
  ok &= expect("nvfp4_quantize(NULL handle)", nvfp4_quantize(NULL, &d, &t, 1.0f, (CUstream)0),
               NVFP4_STATUS_INVALID_VALUE);
  ok &= expect("nvfp4_scales_relayout(NULL handle)", nvfp4_scales_relayout(NULL, &t, &t, (CUstream)0),
               NVFP4_STATUS_INVALID_VALUE);
  ok &= expect("nvfp4_set_weights_stable(NULL handle)", nvfp4_set_weights_stable(NULL, 1),
               NVFP4_STATUS_INVALID_VALUE);
  printf("every entry point: %s (nvfp4_create: %s)\n", ok ? "ok" : "FAILED", nvfp4_status_string(created));
  return ok ? 0 : 1;
}
