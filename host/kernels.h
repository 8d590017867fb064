/* The kernel table: the library's entry points, by the name the PTX declares. An image may lack some (an
 * NVFP4_FATBIN of one kernel family): an operation whose kernel is missing returns NOT_SUPPORTED. */
#ifndef NVFP4_HOST_KERNELS_H
#define NVFP4_HOST_KERNELS_H

#include "sm90a/dequantize_layout.h"
#include "sm90a/gemv_layout.h"
#include "sm90a/grouped_finish_layout.h"
#include "sm90a/grouped_gemm_layout.h"
#include "sm90a/quantize_layout.h"
#include "sm90a/scales_relayout_layout.h"

#define NVFP4I_STRINGIFY2(x) #x
#define NVFP4I_STRINGIFY(x) NVFP4I_STRINGIFY2(x) /* a layout header's entry name as a C string */

/* X(id, PTX entry name, threads per CTA it is launched with, largest dynamic shared memory it takes) */
#define NVFP4_KERNEL_LIST(X)                                                                              \
  X(NVFP4I_KERNEL_GEMV, NVFP4I_STRINGIFY(GEMV_ENTRY_PLAIN), GEMV_THREADS, GEMV_MAX_DYNAMIC_SMEM)          \
  X(NVFP4I_KERNEL_GEMV_EQUAL_STEPS, NVFP4I_STRINGIFY(GEMV_ENTRY_EQUAL_STEPS), GEMV_THREADS,               \
    GEMV_MAX_DYNAMIC_SMEM)                                                                                \
  X(NVFP4I_KERNEL_GEMV_W4A16, NVFP4I_STRINGIFY(GEMV_W4A16_ENTRY_PLAIN), GEMV_THREADS,                     \
    GEMV_MAX_DYNAMIC_SMEM)                                                                                \
  X(NVFP4I_KERNEL_GEMV_W4A16_EQUAL_STEPS, NVFP4I_STRINGIFY(GEMV_W4A16_ENTRY_EQUAL_STEPS), GEMV_THREADS,   \
    GEMV_MAX_DYNAMIC_SMEM)                                                                                \
  X(NVFP4I_KERNEL_GROUPED_GEMM, "nvfp4_grouped_gemm_sm90a", GG_THREADS, GG_SMEM_LIMIT)                    \
  X(NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16, "nvfp4_grouped_gemm_w4a16_f16_sm90a", GG_THREADS,               \
    GG_SMEM_LIMIT)                                                                                        \
  X(NVFP4I_KERNEL_GROUPED_GEMM_W4A16_BF16, "nvfp4_grouped_gemm_w4a16_bf16_sm90a", GG_THREADS,             \
    GG_SMEM_LIMIT)                                                                                        \
  X(NVFP4I_KERNEL_GROUPED_FINISH, NVFP4I_STRINGIFY(GF_ENTRY), GF_THREADS, 0)                              \
  X(NVFP4I_KERNEL_DEQUANTIZE, NVFP4I_STRINGIFY(DEQ_ENTRY), DEQ_THREADS, DEQ_MAX_DYNAMIC_SMEM)            \
  X(NVFP4I_KERNEL_GROUPED_DEQUANTIZE, NVFP4I_STRINGIFY(GDQ_ENTRY), DEQ_THREADS, DEQ_MAX_DYNAMIC_SMEM)    \
  X(NVFP4I_KERNEL_QUANTIZE, NVFP4I_STRINGIFY(QNT_ENTRY), QNT_THREADS, 0)                                 \
  X(NVFP4I_KERNEL_SCALES_RELAYOUT, NVFP4I_STRINGIFY(RLY_ENTRY), RLY_THREADS, 0)

typedef enum nvfp4i_kernel_id {
#define NVFP4_KERNEL_ENUM(id, name, threads, smem) id,
  NVFP4_KERNEL_LIST(NVFP4_KERNEL_ENUM)
#undef NVFP4_KERNEL_ENUM
  NVFP4I_KERNEL_COUNT
} nvfp4i_kernel_id;

/* The entry name of a kernel id. */
const char *nvfp4i_kernel_name(nvfp4i_kernel_id id);

#endif
