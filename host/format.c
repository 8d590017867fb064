#include "format.h"

#include <math.h>

double nvfp4i_e2m1_value(unsigned code) {
  static const double magnitude[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  double v = magnitude[code & 7u];
  return (code & 8u) ? -v : v;
}

double nvfp4i_e4m3_value(unsigned code) {
  unsigned exponent = (code >> 3) & 15u, mantissa = code & 7u;
  if (exponent == 15u && mantissa == 7u) return NAN;
  double v = exponent == 0 ? ldexp((double)mantissa, -9) : ldexp(8.0 + mantissa, (int)exponent - 10);
  return (code & 0x80u) ? -v : v;
}

unsigned nvfp4i_e2m1_code_at(const uint8_t *data, int64_t ld, int64_t row, int64_t kk) {
  uint8_t byte = data[row * ld + kk / 2];
  return (kk & 1) ? byte >> 4 : byte & 15u;
}

int64_t nvfp4i_sf_offset(nvfp4_sf_layout layout, int64_t sf_ld, int64_t k, int64_t row, int64_t block) {
  if (layout == NVFP4_SF_LINEAR) return row * sf_ld + block;
  int64_t tiles_per_row_tile = (k / 16 + 3) / 4;
  int64_t tile = (row / 128) * tiles_per_row_tile + block / 4;
  return tile * 512 + (row % 32) * 16 + ((row % 128) / 32) * 4 + block % 4;
}

nvfp4i_sf_steps nvfp4i_sf_steps_of(const nvfp4_tensor *t) {
  if (t->sf_layout == NVFP4_SF_LINEAR)
    return (nvfp4i_sf_steps){(uint64_t)t->sf_ld * 128, (uint64_t)t->sf_ld * 32, (uint64_t)t->sf_ld, 4};
  return (nvfp4i_sf_steps){(uint64_t)((t->k / 16 + 3) / 4) * 512, 4, 16, 512};
}

int64_t nvfp4i_sf_batch_bytes(nvfp4_sf_layout layout, int64_t sf_ld, int64_t rows, int64_t k) {
  if (layout == NVFP4_SF_LINEAR) return (rows - 1) * sf_ld + k / 16;
  return (rows + 127) / 128 * ((k / 16 + 3) / 4) * 512;
}

/* Rounds v to a binary format with `mantissa_bits` stored bits and exponent bias `bias` (IEEE layout,
 * 1 + exponent_bits + mantissa_bits wide), round-to-nearest-even, overflow to infinity. */
static uint32_t round_to_binary(double v, int exponent_bits, int mantissa_bits) {
  uint32_t sign = signbit(v) ? 1u << (exponent_bits + mantissa_bits) : 0u;
  uint32_t exp_all_ones = (1u << exponent_bits) - 1u;
  if (isnan(v)) return sign | exp_all_ones << mantissa_bits | 1u << (mantissa_bits - 1);
  double a = fabs(v);
  if (isinf(a)) return sign | exp_all_ones << mantissa_bits;
  int bias = (int)exp_all_ones / 2;
  int e;
  frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
  int unbiased = e - 1;
  if (a == 0.0) return sign;
  if (unbiased < 1 - bias) unbiased = 1 - bias; /* subnormal range: fixed quantum */
  double quantum = ldexp(1.0, unbiased - mantissa_bits);
  double units = nearbyint(a / quantum); /* a/quantum is exact: a power-of-two division */
  uint64_t n = (uint64_t)units;          /* significand in units of quantum, maybe 2^(m+1) after rounding */
  uint32_t biased;
  if (n >= (1ull << (mantissa_bits + 1))) {
    n >>= 1;
    unbiased += 1;
  }
  if (n < (1ull << mantissa_bits)) {
    biased = 0; /* subnormal (or rounded to zero) */
  } else {
    biased = (uint32_t)(unbiased + bias);
  }
  if (biased >= exp_all_ones) return sign | exp_all_ones << mantissa_bits;
  return sign | biased << mantissa_bits | ((uint32_t)n & ((1u << mantissa_bits) - 1u));
}

uint16_t nvfp4i_f16_from_double(double v) { return (uint16_t)round_to_binary(v, 5, 10); }
uint16_t nvfp4i_bf16_from_double(double v) { return (uint16_t)round_to_binary(v, 8, 7); }

static double binary_value(uint32_t bits, int exponent_bits, int mantissa_bits) {
  uint32_t exp_all_ones = (1u << exponent_bits) - 1u;
  int bias = (int)exp_all_ones / 2;
  uint32_t exponent = (bits >> mantissa_bits) & exp_all_ones;
  uint32_t mantissa = bits & ((1u << mantissa_bits) - 1u);
  double v;
  if (exponent == exp_all_ones) v = mantissa ? NAN : INFINITY;
  else if (exponent == 0) v = ldexp((double)mantissa, 1 - bias - mantissa_bits);
  else v = ldexp((double)(mantissa | 1u << mantissa_bits), (int)exponent - bias - mantissa_bits);
  return (bits >> (exponent_bits + mantissa_bits)) & 1u ? -v : v;
}

double nvfp4i_f16_value(uint16_t bits) { return binary_value(bits, 5, 10); }
double nvfp4i_bf16_value(uint16_t bits) { return binary_value(bits, 8, 7); }
