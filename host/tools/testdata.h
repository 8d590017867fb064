/* Random full-range NVFP4 operands and dense activations on host and device, for the tests and the CLI (not
 * part of libnvfp4). */
#ifndef NVFP4_TOOLS_TESTDATA_H
#define NVFP4_TOOLS_TESTDATA_H

#include <stdint.h>

#include "cuda_driver.h"

typedef struct nvfp4i_rng {
  uint64_t state;
} nvfp4i_rng;

uint64_t nvfp4i_rng_next(nvfp4i_rng *rng); /* splitmix64 */

/* A random e4m3 scale of magnitude in [2^-6, 2^4), either sign: the test spread of docs/ACCURACY.md. */
uint8_t nvfp4i_random_scale(nvfp4i_rng *rng);

typedef struct nvfp4i_operand {
  nvfp4_tensor host; /* data and scales in host memory: what the reference reads */
  nvfp4_tensor dev;  /* the same layout in device memory: what the library reads */
  int64_t data_bytes, sf_bytes;
  int64_t sf_misalign; /* bytes dev.scales lies past the start of its allocation */
} nvfp4i_operand;

/* Allocates and fills an operand: every e2m1 code uniformly, random scales, and random garbage (NaN codes
 * included) in every byte no scale occupies (row padding, BLOCKED tile padding, gaps between batches).
 * pad_bytes > 0 adds that many bytes (a multiple of 16) to each data row, 3 bytes to each LINEAR scale
 * row, and 16 bytes between batches. Needs a current context. */
nvfp4_status nvfp4i_operand_create(nvfp4i_operand *op, int64_t rows, int64_t k, int64_t batch,
                                   nvfp4_sf_layout layout, int64_t pad_bytes, nvfp4i_rng *rng);

/* Moves the device scales `bytes` (1..15) past a 16-byte boundary: a new allocation, the scales copied there. */
nvfp4_status nvfp4i_operand_misalign_scales(nvfp4i_operand *op, int64_t bytes);

/* Copies the host buffers to the device again (after a test edited them). */
nvfp4_status nvfp4i_operand_upload(const nvfp4i_operand *op);

/* Copies the device buffers into the host ones (after a kernel wrote them). */
nvfp4_status nvfp4i_operand_download(nvfp4i_operand *op);

/* Frees both copies; a zeroed operand is fine. */
void nvfp4i_operand_destroy(nvfp4i_operand *op);

/* A random activation of `dtype` (F16 or BF16), as its bits: either sign; magnitudes spread over [2^-8, 2^4)
 * by exponent, with a random mantissa; 1/64 of them zeros, 1/256 subnormals, 1/256 large (in [2^4, 2^8)). Wide,
 * yet an f16 result of thousands of products against full-range weights rarely overflows. */
uint16_t nvfp4i_random_activation(nvfp4i_rng *rng, nvfp4_dtype dtype);

typedef struct nvfp4i_dense_operand {
  nvfp4_dense host; /* data in host memory: what the reference reads */
  nvfp4_dense dev;  /* the same layout in device memory: what the library reads */
  int64_t bytes;    /* of each allocation */
  int64_t offset;   /* elements from the start of each allocation to the first element */
} nvfp4i_dense_operand;

/* Allocates and fills a dense operand of `dtype` (F16 or BF16): nvfp4i_random_activation in every element
 * and random garbage (NaN and infinity patterns included) in every element past k of a row and between
 * batches. pad > 0 adds that many elements (a multiple of 8: rows stay 16-byte aligned) to each row and 8
 * between batches. rows > 0. Needs a current context. */
nvfp4_status nvfp4i_dense_operand_create(nvfp4i_dense_operand *op, int64_t rows, int64_t k, int64_t batch,
                                         nvfp4_dtype dtype, int64_t pad, nvfp4i_rng *rng);

/* The same with the layout given: ld and batch_stride in elements (ld >= k, batch_stride >= (rows - 1) * ld + k
 * where batch > 1), the first element `offset` elements past the start of the allocation, which cuMemAlloc
 * aligns to 256 bytes: any offset, any ld and batch_stride, so rows and batches may start off every alignment
 * beyond the element's. Garbage in every element outside the rows x k of each batch, the offset included. */
nvfp4_status nvfp4i_dense_operand_create_laid_out(nvfp4i_dense_operand *op, int64_t rows, int64_t k,
                                                  int64_t batch, nvfp4_dtype dtype, int64_t ld,
                                                  int64_t batch_stride, int64_t offset, nvfp4i_rng *rng);

/* Frees both copies; a zeroed operand is fine. */
void nvfp4i_dense_operand_destroy(nvfp4i_dense_operand *op);

#endif
