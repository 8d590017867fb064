/* The kernel table: every entry point the fatbin must hold, by the name the PTX declares. */
#ifndef NVFP4_HOST_KERNELS_H
#define NVFP4_HOST_KERNELS_H

/* X(id, PTX entry name, largest dynamic shared memory it is launched with, in bytes: above 48 KB the
 * handle opts in once at create) */
#define NVFP4_KERNEL_LIST(X)                                              \
  X(NVFP4I_KERNEL_GEMV, "nvfp4_gemv_sm90a", 0)                            \
  X(NVFP4I_KERNEL_GROUPED_GEMM, "nvfp4_grouped_gemm_sm90a", NVFP4I_GROUPED_GEMM_SMEM) \
  X(NVFP4I_KERNEL_WGMMA_PEAK, "nvfp4_wgmma_peak_sm90a", 0)

/* Dynamic shared memory of nvfp4_grouped_gemm_sm90a (SMEM_BYTES in ptx/sm90a/grouped_gemm.ptx). */
#define NVFP4I_GROUPED_GEMM_SMEM 140416

typedef enum nvfp4i_kernel_id {
#define NVFP4_KERNEL_ENUM(id, name, smem) id,
  NVFP4_KERNEL_LIST(NVFP4_KERNEL_ENUM)
#undef NVFP4_KERNEL_ENUM
  NVFP4I_KERNEL_COUNT
} nvfp4i_kernel_id;

/* The entry name of a kernel id. */
const char *nvfp4i_kernel_name(nvfp4i_kernel_id id);

#endif
