/* Argument checks shared by every operation: each failure names the field (e.g. "a[3].ld") and nothing
 * has been launched when one is reported. */
#ifndef NVFP4_HOST_VALIDATE_H
#define NVFP4_HOST_VALIDATE_H

#include "nvfp4.h"

/* Checks one NVFP4 operand. `name` is how the message names it ("a", "b[2]"). min_rows is 1, or 0 where an
 * empty operand is valid. K must be a positive multiple of 32 (NOT_SUPPORTED otherwise). */
nvfp4_status nvfp4i_validate_tensor(const char *name, const nvfp4_tensor *t, int64_t min_rows);

/* Checks the scales of an NVFP4 operand alone (data, ld and batch_stride not looked at): shape as
 * nvfp4i_validate_tensor with rows >= 1, scales, sf_batch_stride, sf_layout and sf_ld. */
nvfp4_status nvfp4i_validate_scales(const char *name, const nvfp4_tensor *t);

/* Checks a dense operand (activations): NULL, dtype (F16 or BF16; F32 activations are NOT_SUPPORTED), shape
 * as nvfp4i_validate_tensor, data aligned to its element, ld >= k with more than one row, and batches that
 * never overlap. */
nvfp4_status nvfp4i_validate_dense(const char *name, const nvfp4_dense *d, int64_t min_rows);

/* The same for a dense input of any nvfp4_dtype, F32 included (quantize's). */
nvfp4_status nvfp4i_validate_dense_input(const char *name, const nvfp4_dense *d, int64_t min_rows);

/* Checks a dense output of rows x cols per batch: pointer, dtype, element alignment, and that rows and
 * batches never overlap (the last element of a row comes before the next row starts). */
nvfp4_status nvfp4i_validate_output(const char *name, const nvfp4_output *o, int64_t rows, int64_t cols,
                                    int64_t batch);

/* Checks what the kernels' 16-byte vector loads and TMA copies need: the data base, ld (with more than one
 * row) and batch_stride (with more than one batch) multiples of 16. */
nvfp4_status nvfp4i_validate_vector_alignment(const char *name, const nvfp4_tensor *t);

/* The same for a dense operand's 16-byte copies: data 16-byte aligned, ld (with more than one row) and
 * batch_stride (with more than one batch) multiples of 16 bytes. */
nvfp4_status nvfp4i_validate_dense_alignment(const char *name, const nvfp4_dense *d);

/* Bytes per element of an output dtype (0 for an invalid one). */
int nvfp4i_dtype_size(nvfp4_dtype dtype);

#endif
