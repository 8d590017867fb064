/* One place that launches a kernel in a handle's context: enters the context, cuLaunchKernelEx. */
#ifndef NVFP4_HOST_LAUNCH_H
#define NVFP4_HOST_LAUNCH_H

#include "handle.h"

typedef struct nvfp4i_launch {
  unsigned grid[3];
  unsigned block[3];
  unsigned dynamic_smem;
  void **params; /* one pointer per .param of the entry, in order */
  /* 1: programmatic dependent launch: the kernel may start before the kernel before it on the stream has
   * finished, and must griddepcontrol.wait before it reads or writes anything that kernel may touch. Only
   * on the sm_90a path: a handle on the portable one launches without it. */
  int early_start;
} nvfp4i_launch;

/* NOT_SUPPORTED, saying so, when the handle's image lacks kernel id; an operation that launches more than one
 * kernel asks before its first launch. */
nvfp4_status nvfp4i_check_kernel(const nvfp4_handle *h, nvfp4i_kernel_id id);

/* Launches a kernel of the handle's table; NOT_SUPPORTED, launching nothing, when its image lacks it. */
nvfp4_status nvfp4i_launch_kernel(const nvfp4_handle *h, nvfp4i_kernel_id id, const nvfp4i_launch *launch,
                                  CUstream stream);

/* Launches fn (a function of a module loaded in h's context; `name` for messages). */
nvfp4_status nvfp4i_launch_function(const nvfp4_handle *h, CUfunction fn, const char *name,
                                    const nvfp4i_launch *launch, CUstream stream);

#endif
