/* Random full-range NVFP4 operands on host and device, for the tests and the CLI (not part of libnvfp4). */
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

/* Frees both copies; a zeroed operand is fine. */
void nvfp4i_operand_destroy(nvfp4i_operand *op);

#endif
