/* The grouped GEMM's internal entry points, for the library's other operations (not part of nvfp4.h):
 * nvfp4_gemm runs each batch as a group of nvfp4_grouped_gemm. */
#ifndef NVFP4_HOST_GROUPED_GEMM_H
#define NVFP4_HOST_GROUPED_GEMM_H

#include "nvfp4.h"

/* nvfp4_grouped_gemm without clearing the last error (the public entry point calling it does): every group
 * validated, every launch checked, then the same launches, so its messages name groups ("a[3].ld"). */
nvfp4_status nvfp4i_grouped_gemm(nvfp4_handle *h, int num_groups, const nvfp4_tensor *a, const nvfp4_tensor *b,
                                 const nvfp4_output *c, float alpha, CUstream stream);

/* What the grouped GEMM asks of an NVFP4 operand with work beyond nvfp4i_validate_tensor: the 16-byte copies'
 * alignment (nvfp4i_validate_vector_alignment) and a row pitch and scale steps below 2^32 bytes
 * (NOT_SUPPORTED otherwise). `name` is how the message names the operand ("a", "b[2]"). */
nvfp4_status nvfp4i_grouped_gemm_check_copies(const char *name, const nvfp4_tensor *t);

#endif
