/* The kernel table: every entry point the fatbin must hold, by the name the PTX declares. */
#ifndef NVFP4_HOST_KERNELS_H
#define NVFP4_HOST_KERNELS_H

/* X(id, PTX entry name) */
#define NVFP4_KERNEL_LIST(X) X(NVFP4I_KERNEL_GEMV, "nvfp4_gemv_sm90a")

typedef enum nvfp4i_kernel_id {
#define NVFP4_KERNEL_ENUM(id, name) id,
  NVFP4_KERNEL_LIST(NVFP4_KERNEL_ENUM)
#undef NVFP4_KERNEL_ENUM
  NVFP4I_KERNEL_COUNT
} nvfp4i_kernel_id;

/* The entry name of a kernel id. */
const char *nvfp4i_kernel_name(nvfp4i_kernel_id id);

#endif
