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

/* The exponent and mantissa fields of finite a >= 0 rounded to nearest-even in a binary format with
 * `exponent_bits` (bias 2^(exponent_bits-1) - 1, subnormals) and `mantissa_bits`. The exponent field may
 * come out past the format's largest: the caller turns that into an infinity or saturates before. */
static uint32_t round_magnitude(double a, int exponent_bits, int mantissa_bits) {
  if (a == 0.0) return 0;
  int bias = (1 << (exponent_bits - 1)) - 1;
  int e;
  frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
  int unbiased = e - 1;
  if (unbiased < 1 - bias) unbiased = 1 - bias; /* subnormal range: fixed quantum */
  double quantum = ldexp(1.0, unbiased - mantissa_bits);
  double units = nearbyint(a / quantum); /* a/quantum is exact: a power-of-two division */
  uint64_t n = (uint64_t)units;          /* significand in units of quantum, maybe 2^(m+1) after rounding */
  if (n >= (1ull << (mantissa_bits + 1))) {
    n >>= 1;
    unbiased += 1;
  }
  uint32_t biased = n < (1ull << mantissa_bits) ? 0u : (uint32_t)(unbiased + bias); /* 0: subnormal or zero */
  return biased << mantissa_bits | ((uint32_t)n & ((1u << mantissa_bits) - 1u));
}

/* Rounds v to an IEEE-style binary format (1 + exponent_bits + mantissa_bits wide), round-to-nearest-even,
 * overflow to infinity, NaN to a quiet NaN. */
static uint32_t round_to_binary(double v, int exponent_bits, int mantissa_bits) {
  uint32_t sign = signbit(v) ? 1u << (exponent_bits + mantissa_bits) : 0u;
  uint32_t infinity = ((1u << exponent_bits) - 1u) << mantissa_bits;
  if (isnan(v)) return sign | infinity | 1u << (mantissa_bits - 1);
  if (isinf(v)) return sign | infinity;
  uint32_t magnitude = round_magnitude(fabs(v), exponent_bits, mantissa_bits);
  return sign | (magnitude < infinity ? magnitude : infinity);
}

unsigned nvfp4i_e2m1_from_float(float v) {
  unsigned sign = signbit(v) ? 8u : 0u;
  float a = fabsf(v);
  return sign | (a <= 6.0f ? round_magnitude(a, 2, 1) : 7u);
}

uint8_t nvfp4i_e4m3_from_float(float v) {
  if (isnan(v)) return 0x7F;
  unsigned sign = signbit(v) ? 0x80u : 0u;
  float a = fabsf(v);
  return (uint8_t)(sign | (a <= 448.0f ? round_magnitude(a, 4, 3) : 0x7Eu));
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
