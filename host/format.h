/* NVFP4 element and scale codecs, output-type codecs and scale-layout index math (the format of
 * docs/ACCURACY.md, the layouts of include/nvfp4.h). */
#ifndef NVFP4_HOST_FORMAT_H
#define NVFP4_HOST_FORMAT_H

#include <stdint.h>

#include "nvfp4.h"

/* FP4 E2M1 code (low 4 bits used) to its value: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives. */
double nvfp4i_e2m1_value(unsigned code);

/* FP8 E4M3 (OCP e4m3fn: bias 7, subnormals, no inf, 0x7F/0xFF NaN) to its value. */
double nvfp4i_e4m3_value(unsigned code);

/* f32 to the nearest E2M1 code, ties to even; magnitudes above 6 (and NaN) saturate to 6; the sign is kept,
 * so a negative value that rounds to zero gives code 8 (-0). */
unsigned nvfp4i_e2m1_from_float(float v);

/* f32 to the nearest E4M3 code, ties to even, subnormals included; magnitudes above 448 (and infinities)
 * saturate to 448; the sign is kept; NaN gives 0x7F. */
uint8_t nvfp4i_e4m3_from_float(float v);

/* The element at (row, kk) of one batch of packed data: even k in the low nibble. */
unsigned nvfp4i_e2m1_code_at(const uint8_t *data, int64_t ld, int64_t row, int64_t kk);

/* Byte offset of the scale of (row, block) within one batch of scales; block = k index / 16. */
int64_t nvfp4i_sf_offset(nvfp4_sf_layout layout, int64_t sf_ld, int64_t k, int64_t row, int64_t block);

/* The scale-layout index math in the form the kernels evaluate it: the scale of (row r, block j) lies at
 *   (r/128)*step128 + ((r%128)/32)*step32 + (r%32)*step1 + (j/4)*quad_step + j%4
 * LINEAR: 128*sf_ld, 32*sf_ld, sf_ld, 4.  BLOCKED_128x4: ceil(K/64)*512, 4, 16, 512. */
typedef struct nvfp4i_sf_steps {
  uint64_t step128, step32, step1;
  uint32_t quad_step;
} nvfp4i_sf_steps;

nvfp4i_sf_steps nvfp4i_sf_steps_of(const nvfp4_tensor *t);

/* Bytes one batch of scales spans (for LINEAR: up to the last row's last block; BLOCKED: whole tiles). */
int64_t nvfp4i_sf_batch_bytes(nvfp4_sf_layout layout, int64_t sf_ld, int64_t rows, int64_t k);

/* Round-to-nearest-even encodings from double (overflow to +-inf, NaN to a quiet NaN) and decodings. */
uint16_t nvfp4i_f16_from_double(double v);
uint16_t nvfp4i_bf16_from_double(double v);
double nvfp4i_f16_value(uint16_t bits);
double nvfp4i_bf16_value(uint16_t bits);

#endif
