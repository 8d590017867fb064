/* One place that launches a kernel of the handle: enters the handle's context, cuLaunchKernelEx. */
#ifndef NVFP4_HOST_LAUNCH_H
#define NVFP4_HOST_LAUNCH_H

#include "handle.h"

typedef struct nvfp4i_launch {
  unsigned grid[3];
  unsigned block[3];
  unsigned dynamic_smem;
  void **params; /* one pointer per .param of the entry, in order */
} nvfp4i_launch;

nvfp4_status nvfp4i_launch_kernel(const nvfp4_handle *h, nvfp4i_kernel_id id, const nvfp4i_launch *launch,
                                  CUstream stream);

#endif
