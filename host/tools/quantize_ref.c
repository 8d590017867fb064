#include "quantize_ref.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "reference.h"

/* The recipe is a chain of f32 operations, each rounded once: float expressions must be evaluated in float
 * (no x87 excess precision). No product feeds a sum, so there is nothing to contract into an fma. */
_Static_assert(FLT_EVAL_METHOD == 0, "the quantize reference needs float arithmetic evaluated in float");

/* One 16-element block of t = x * g: its scale byte, and its codes in codes[0..15]. */
static uint8_t quantize_block(const float *t, uint8_t *codes) {
  int finite = 1;
  float amax = 0.0f;
  for (int i = 0; i < 16; i++) {
    finite &= isfinite(t[i]) != 0;
    if (fabsf(t[i]) > amax) amax = fabsf(t[i]);
  }
  memset(codes, 0, 16);
  if (!finite) return 0x7F;
  uint8_t scale = nvfp4i_e4m3_from_float(amax / 6.0f);
  float s = (float)nvfp4i_e4m3_value(scale);
  if (s != 0.0f)
    for (int i = 0; i < 16; i++) codes[i] = (uint8_t)nvfp4i_e2m1_from_float(t[i] / s);
  return scale;
}

/* BLOCKED scales are written in whole tiles: a batch's padding bytes are 0 before its scales land. */
static void clear_blocked_tiles(const nvfp4_tensor *t, uint8_t *scales) {
  if (t->sf_layout == NVFP4_SF_BLOCKED_128x4)
    memset(scales, 0, (size_t)nvfp4i_sf_batch_bytes(t->sf_layout, t->sf_ld, t->rows, t->k));
}

void nvfp4i_quantize_ref(const nvfp4_dense *in, const nvfp4_tensor *out, float global_scale) {
  for (int64_t b = 0; b < in->batch; b++) {
    uint8_t *data = (uint8_t *)out->data + b * out->batch_stride;
    uint8_t *scales = (uint8_t *)out->scales + b * out->sf_batch_stride;
    clear_blocked_tiles(out, scales);
    for (int64_t r = 0; r < in->rows; r++)
      for (int64_t j = 0; j < in->k / 16; j++) {
        float t[16];
        uint8_t codes[16];
        int64_t first = b * in->batch_stride + r * in->ld + j * 16;
        for (int i = 0; i < 16; i++) t[i] = (float)nvfp4i_output_value(in->dtype, in->data, first + i) * global_scale;
        scales[nvfp4i_sf_offset(out->sf_layout, out->sf_ld, out->k, r, j)] = quantize_block(t, codes);
        for (int i = 0; i < 16; i += 2) data[r * out->ld + j * 8 + i / 2] = (uint8_t)(codes[i] | codes[i + 1] << 4);
      }
  }
}

void nvfp4i_dequantize_ref(const nvfp4_tensor *in, const nvfp4_output *out) {
  double *row = malloc(sizeof(double) * (size_t)in->k);
  for (int64_t b = 0; b < in->batch; b++)
    for (int64_t r = 0; r < in->rows; r++) {
      nvfp4i_decode_row(in, b, r, row);
      for (int64_t kk = 0; kk < in->k; kk++)
        nvfp4i_output_store(out->dtype, out->data, b * out->batch_stride + r * out->ld + kk, row[kk]);
    }
  free(row);
}

void nvfp4i_scales_relayout_ref(const nvfp4_tensor *from, const nvfp4_tensor *to) {
  for (int64_t b = 0; b < from->batch; b++) {
    const uint8_t *src = (const uint8_t *)from->scales + b * from->sf_batch_stride;
    uint8_t *dst = (uint8_t *)to->scales + b * to->sf_batch_stride;
    clear_blocked_tiles(to, dst);
    for (int64_t r = 0; r < from->rows; r++)
      for (int64_t j = 0; j < from->k / 16; j++)
        dst[nvfp4i_sf_offset(to->sf_layout, to->sf_ld, to->k, r, j)] =
            src[nvfp4i_sf_offset(from->sf_layout, from->sf_ld, from->k, r, j)];
  }
}
