#include "launch.h"

#include "error.h"

nvfp4_status nvfp4i_launch_function(const nvfp4_handle *h, CUfunction fn, const char *name,
                                    const nvfp4i_launch *launch, CUstream stream) {
  /* only kernels built for sm_90 or newer wait for the grid before them (no griddepcontrol before sm_90) */
  int early_start = launch->early_start && h->kernels_wait;
  CUlaunchAttribute early = {.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                             .value.programmaticStreamSerializationAllowed = 1};
  CUlaunchConfig config = {
      .gridDimX = launch->grid[0],
      .gridDimY = launch->grid[1],
      .gridDimZ = launch->grid[2],
      .blockDimX = launch->block[0],
      .blockDimY = launch->block[1],
      .blockDimZ = launch->block[2],
      .sharedMemBytes = launch->dynamic_smem,
      .hStream = stream,
      .attrs = early_start ? &early : NULL,
      .numAttrs = early_start ? 1 : 0,
  };
  int pushed;
  nvfp4_status status = nvfp4i_context_enter(h, &pushed);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  CUresult r = nvfp4i_cuda()->cuLaunchKernelEx(&config, fn, launch->params, NULL);
  if (r != CUDA_SUCCESS) status = nvfp4i_cuda_fail(r, name);
  nvfp4i_context_leave(pushed);
  return status;
}

nvfp4_status nvfp4i_check_kernel(const nvfp4_handle *h, nvfp4i_kernel_id id) {
  if (h->kernels[id].fn != NULL) return NVFP4_STATUS_SUCCESS;
  const char *name = nvfp4i_kernel_name(h->path, id);
  if (name == NULL)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "the portable kernel path (sm_%d%d%s) has no %s kernel yet",
                       h->cc_major, h->cc_minor, h->forced_portable ? ", NVFP4_FORCE_PORTABLE=1" : "",
                       nvfp4i_kernel_what(id));
  return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "kernel image (%s) has no entry %s", h->image_source, name);
}

nvfp4_status nvfp4i_launch_kernel(const nvfp4_handle *h, nvfp4i_kernel_id id, const nvfp4i_launch *launch,
                                  CUstream stream) {
  nvfp4_status status = nvfp4i_check_kernel(h, id);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  return nvfp4i_launch_function(h, h->kernels[id].fn, nvfp4i_kernel_name(h->path, id), launch, stream);
}
