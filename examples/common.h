/*
 * examples/common.h - what the examples share (header only; copy it along with an example):
 *   - the few CUDA driver calls they make, opened at run time, and a context to make them in;
 *   - status checks that print the library's or the driver's own words;
 *   - host-side NVFP4 helpers: random codes and scales, decoding, the BLOCKED_128x4 scale offset, and the
 *     accuracy bar a result is checked against;
 *   - f16 decoding, and bf16 encoding and decoding, for dense activations and outputs.
 *
 * The driver is opened with dlopen so that an example also starts on a machine without a GPU and exits 1
 * saying so. A program of your own would include <cuda.h>, link -lcuda and call the driver directly: every
 * `cu.` below is then just the function of that name.
 */
#ifndef NVFP4_EXAMPLES_COMMON_H
#define NVFP4_EXAMPLES_COMMON_H

#include <cuda.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <nvfp4.h>

/* The driver calls the examples make. cuda.h maps some names to their current ABI (cuMemAlloc is
 * cuMemAlloc_v2), and the table below goes through the same macros, so each pointer has the type and the
 * symbol of the function a program linked with -lcuda would call. */
#define DRIVER_CALLS(X)                                                                                    \
  X(cuInit) X(cuGetErrorName) X(cuDeviceGet) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)     \
  X(cuCtxSetCurrent) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuStreamCreate)         \
  X(cuStreamDestroy) X(cuStreamSynchronize)

static struct {
#define DRIVER_FIELD(name) __typeof__(name) *name;
  DRIVER_CALLS(DRIVER_FIELD)
#undef DRIVER_FIELD
} cu;

#define STRINGIFY(x) #x
#define SYMBOL_NAME(x) STRINGIFY(x)

/* Opens libcuda.so.1 and resolves DRIVER_CALLS. Prints why and returns 0 when it cannot. */
static int driver_open(const char *program) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "%s: %s: %s\n", program, nvfp4_status_string(NVFP4_STATUS_NO_DRIVER), dlerror());
    return 0;
  }
#define DRIVER_RESOLVE(name)                                                                              \
  if ((*(void **)&cu.name = dlsym(lib, SYMBOL_NAME(name))) == NULL) {                                     \
    fprintf(stderr, "%s: the CUDA driver has no %s\n", program, SYMBOL_NAME(name));                      \
    return 0;                                                                                             \
  }
  DRIVER_CALLS(DRIVER_RESOLVE)
#undef DRIVER_RESOLVE
  return 1;
}

/* 1 when a driver call succeeded; otherwise prints the call and the driver's error name and returns 0. */
static int cu_ok(CUresult r, const char *call) {
  if (r == CUDA_SUCCESS) return 1;
  const char *name = NULL;
  if (cu.cuGetErrorName == NULL || cu.cuGetErrorName(r, &name) != CUDA_SUCCESS) name = "unknown error";
  fprintf(stderr, "%s failed: %s\n", call, name);
  return 0;
}
#define CU(call) cu_ok((call), #call)

/* 1 when a library call succeeded; otherwise prints its status and nvfp4_last_error() and returns 0. */
static int nvfp4_ok(nvfp4_status s, const char *call) {
  if (s == NVFP4_STATUS_SUCCESS) return 1;
  fprintf(stderr, "%s failed: %s: %s\n", call, nvfp4_status_string(s), nvfp4_last_error());
  return 0;
}
#define NVFP4(call) nvfp4_ok((call), #call)

/* Opens the driver and makes device 0's primary context current on this thread (the context the library
 * binds a handle to). On success the caller releases it with cu.cuDevicePrimaryCtxRelease(*device). */
static int context_open(const char *program, CUdevice *device) {
  if (!driver_open(program)) return 0;
  CUresult r = cu.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char *name = "unknown error";
    cu.cuGetErrorName(r, &name);
    fprintf(stderr, "%s: %s: cuInit: %s\n", program, nvfp4_status_string(NVFP4_STATUS_NO_DEVICE), name);
    return 0;
  }
  CUcontext ctx;
  if (!CU(cu.cuDeviceGet(device, 0)) || !CU(cu.cuDevicePrimaryCtxRetain(&ctx, *device))) return 0;
  if (!CU(cu.cuCtxSetCurrent(ctx))) {
    cu.cuDevicePrimaryCtxRelease(*device);
    return 0;
  }
  return 1;
}

/* --- NVFP4 on the host */

/* A small deterministic generator (xorshift64*), so every run checks the same numbers. */
static inline uint64_t random_next(uint64_t *state) {
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 0x2545F4914F6CDD1Dull;
}

/* Packed e2m1 bytes, every code equally likely (two per byte, the even k in the low nibble). */
static inline void random_codes(uint8_t *bytes, size_t n, uint64_t *state) {
  for (size_t i = 0; i < n; i++) bytes[i] = (uint8_t)random_next(state);
}

/* An e4m3 block scale of magnitude 2^-3 .. 2^3 (any sign and mantissa): 0x20..0x57 with the sign bit. */
static inline uint8_t random_scale(uint64_t *state) {
  uint64_t r = random_next(state);
  return (uint8_t)((r & 0x80) | (0x20 + (r >> 8) % 0x38));
}

static inline double e2m1_value(unsigned code) {
  static const double magnitude[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return code & 8 ? -magnitude[code & 7] : magnitude[code & 7];
}

/* e4m3 (OCP e4m3fn) to its value; random_scale never makes the NaN codes 0x7F / 0xFF. */
static inline double e4m3_value(uint8_t b) {
  int exponent = (b >> 3) & 15, mantissa = b & 7;
  double v = exponent ? ldexp(1.0 + mantissa / 8.0, exponent - 7) : ldexp(mantissa / 8.0, -6);
  return b & 0x80 ? -v : v;
}

/* Element k of a row of packed e2m1 bytes (the even k in the low nibble) whose block k/16 has scale sf. */
static inline double nvfp4_value(const uint8_t *row, uint8_t sf, int64_t k) {
  uint8_t byte = row[k / 2];
  return e2m1_value(k % 2 ? byte >> 4 : byte & 15u) * e4m3_value(sf);
}

/* Byte offset of the scale of (row, block) in NVFP4_SF_BLOCKED_128x4 (cuBLAS's layout): rows padded to 128
 * and blocks to 4; tiles of 128 rows x 4 blocks are 512 contiguous bytes, stored row-tile-major. */
static inline int64_t blocked_offset(int64_t k, int64_t row, int64_t block) {
  int64_t tile = (row / 128) * ((k / 16 + 3) / 4) + block / 4;
  return tile * 512 + (row % 32) * 16 + (row % 128) / 32 * 4 + block % 4;
}

/* Bytes of one matrix's scales in NVFP4_SF_BLOCKED_128x4, padding included. */
static inline int64_t blocked_bytes(int64_t rows, int64_t k) { return (rows + 127) / 128 * ((k / 16 + 3) / 4) * 512; }

/* f16 bits to their value. */
static inline double f16_value(uint16_t h) {
  int exponent = (h >> 10) & 31, mantissa = h & 1023;
  double v = exponent == 31 ? (mantissa ? NAN : INFINITY)
             : exponent    ? ldexp(1024 + mantissa, exponent - 25)
                           : ldexp(mantissa, -24);
  return h & 0x8000 ? -v : v;
}

/* float to bf16 bits, rounded to nearest even (overflow to +-infinity, NaN stays a quiet NaN). */
static inline uint16_t bf16_from_float(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  if (isnan(f)) return (uint16_t)((bits >> 16) | 0x40);
  bits += 0x7FFF + ((bits >> 16) & 1);
  return (uint16_t)(bits >> 16);
}

/* bf16 bits to their value (bf16 is the top half of an f32). */
static inline double bf16_value(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* The library's accuracy bar (docs/ACCURACY.md): |out - ref| <= rel * |ref| + 2^-16 * magnitude, rel 2^-10
 * for f16, 2^-8 for bf16 and 2^-20 for f32 output; magnitude = |alpha| * sum |a_k * b_k|. Returns error / tolerance. */
static inline double error_ratio(double out, double ref, double magnitude, double rel) {
  double tolerance = rel * fabs(ref) + ldexp(magnitude, -16);
  if (out == ref) return 0.0;
  return tolerance > 0.0 ? fabs(out - ref) / tolerance : INFINITY;
}

#endif
