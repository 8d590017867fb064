/* CPU reference of the conversions into and out of NVFP4 (SPEC section 2): quantize, bit for bit the
 * recipe; dequantize, exact; scale relayout. Every pointer is a HOST pointer; arguments are assumed valid
 * (the library validates its own). K may be any multiple of 16. */
#ifndef NVFP4_TOOLS_QUANTIZE_REF_H
#define NVFP4_TOOLS_QUANTIZE_REF_H

#include <stdint.h>

#include "nvfp4.h"

/* out (rows, k, batch of in's) = NVFP4 of in (f16, bf16 or f32) * global_scale. Per row and 16-element
 * block, each step one f32 operation rounded to nearest even: t = x * g; a block with a NaN or infinite t
 * gets scale 0x7F and codes 0; else s = e4m3(amax|t| / 6); s == 0 gives codes 0; else code = e2m1(t / s),
 * s the value of the scale byte. Writes the k/2 data bytes of each row, and the k/16 scale bytes of each
 * row (LINEAR) or each batch's tiles whole, padding 0 (BLOCKED); no other byte. out->data and out->scales
 * are written. */
void nvfp4i_quantize_ref(const nvfp4_dense *in, const nvfp4_tensor *out, float global_scale);

/* out (in->rows x in->k per batch) = the value of every element of in, exact in all three types: -0 stays
 * -0, a NaN scale gives NaN. Writes only those elements. */
void nvfp4i_dequantize_ref(const nvfp4_tensor *in, const nvfp4_output *out);

/* Copies the scales of `from` into to->scales in to's layout and strides (to has from's rows, k and
 * batch); to->data is not touched. Writes what quantize writes: k/16 bytes per row (LINEAR) or whole
 * tiles, padding 0 (BLOCKED). */
void nvfp4i_scales_relayout_ref(const nvfp4_tensor *from, const nvfp4_tensor *to);

#endif
