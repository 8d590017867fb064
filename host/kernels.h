/* The kernel table: every entry point the fatbin must hold, by the name the PTX declares. */
#ifndef NVFP4_HOST_KERNELS_H
#define NVFP4_HOST_KERNELS_H

#include "sm90a/grouped_gemm_layout.h"

/* Dynamic shared memory a kernel may be launched with beyond the default 48 KB (opted into at create). */
#define NVFP4I_GEMV_MAX_DYNAMIC_SMEM (227 * 1024 - 256) /* the sm_90 limit less the static 256 bytes */

#define NVFP4I_GEMV_THREADS 256         /* 8 warps: ptx/sm90a/gemv.ptx's .maxntid (both entries) */
#define NVFP4I_WGMMA_PEAK_THREADS 256
#define NVFP4I_READ_PROBE_THREADS 512

/* X(id, PTX entry name, threads per CTA it is launched with, largest dynamic shared memory it takes) */
#define NVFP4_KERNEL_LIST(X)                                                                              \
  X(NVFP4I_KERNEL_GEMV, "nvfp4_gemv_sm90a", NVFP4I_GEMV_THREADS, NVFP4I_GEMV_MAX_DYNAMIC_SMEM)            \
  X(NVFP4I_KERNEL_GEMV_EQUAL_STEPS, "nvfp4_gemv_equal_steps_sm90a", NVFP4I_GEMV_THREADS,                 \
    NVFP4I_GEMV_MAX_DYNAMIC_SMEM)                                                                         \
  X(NVFP4I_KERNEL_GROUPED_GEMM, "nvfp4_grouped_gemm_sm90a", GG_THREADS, GG_SMEM_LIMIT)                      \
  X(NVFP4I_KERNEL_WGMMA_PEAK, "nvfp4_wgmma_peak_sm90a", NVFP4I_WGMMA_PEAK_THREADS, 0)                  \
  X(NVFP4I_KERNEL_READ_PROBE, "nvfp4_read_probe_sm90a", NVFP4I_READ_PROBE_THREADS, 0)

typedef enum nvfp4i_kernel_id {
#define NVFP4_KERNEL_ENUM(id, name, threads, smem) id,
  NVFP4_KERNEL_LIST(NVFP4_KERNEL_ENUM)
#undef NVFP4_KERNEL_ENUM
  NVFP4I_KERNEL_COUNT
} nvfp4i_kernel_id;

/* The entry name of a kernel id. */
const char *nvfp4i_kernel_name(nvfp4i_kernel_id id);

#endif
