/* The library's internal dequantize entry points, for its other operations (not part of nvfp4.h). */
#ifndef NVFP4_HOST_DEQUANTIZE_H
#define NVFP4_HOST_DEQUANTIZE_H

#include <stdint.h>

#include "nvfp4.h"

/* For g in [0, num_groups): the in[g].rows x in[g].k values of NVFP4 tensor in[g] (batch 1), exactly, into
 * out_data[g] as `dtype` (F16, BF16 or F32), rows out_ld[g] elements apart; nothing else of a destination is
 * written. A group with rows == 0 is skipped, its pointers unread (they may be NULL). One launch of
 * nvfp4_grouped_dequantize_sm90a per GDQ_MAX_GROUPS groups with rows, on `stream`; no allocation, no
 * synchronisation. The arrays are host memory, read during the call only.
 * It checks what a launch needs, not the caller's whole contract (a grouped GEMM has validated its operands):
 * every group with rows has data and scales, a valid scale layout and sf_ld, K a multiple of 32, batch 1,
 * 16-byte aligned data and ld, and a destination aligned to its elements with out_ld >= k; a failure returns
 * INVALID_VALUE (NOT_SUPPORTED for K or alignment, as nvfp4_dequantize), its message naming the group, and
 * launches nothing. It does not clear the last error: the public entry point calling it does. */
nvfp4_status nvfp4i_grouped_dequantize(nvfp4_handle *h, int num_groups, const nvfp4_tensor *in,
                                       void *const *out_data, const int64_t *out_ld, nvfp4_dtype dtype,
                                       CUstream stream);

/* As nvfp4i_grouped_dequantize, into the B-tile layout of ptx/sm90a/dequantize_layout.h (the order in which
 * the grouped W4A16 GEMM copies its token tiles: 64-element column blocks of rows x 128 bytes, 128B-swizzled,
 * K padded with +0 to a multiple of 128) at out_data[g], 16-byte aligned, nvfp4i_b_tile_bytes(rows, k) bytes;
 * dtype F16 or BF16. */
nvfp4_status nvfp4i_grouped_dequantize_b_tiles(nvfp4_handle *h, int num_groups, const nvfp4_tensor *in,
                                               void *const *out_data, nvfp4_dtype dtype, CUstream stream);

/* The dense activations in[g] (F16 or BF16, batch 1, 16-byte aligned data and ld, K a multiple of 32)
 * copied into the B-tile layout as nvfp4i_grouped_dequantize_b_tiles writes it, each group in its own type;
 * the same launches and checks. */
nvfp4_status nvfp4i_grouped_b_tiles_of_dense(nvfp4_handle *h, int num_groups, const nvfp4_dense *in,
                                             void *const *out_data, CUstream stream);

/* The bytes of a B-tile destination of rows x k elements (16-bit). */
uint64_t nvfp4i_b_tile_bytes(int64_t rows, int64_t k);

#endif
