/*
 * examples/quantize_gemm.c - bf16 weights and activations quantized to NVFP4 on the GPU, then multiplied:
 * C (M x N, f32) = X (M x K, activations) * W (N x K, weights)^T, both quantized by nvfp4_quantize with a
 * global scale each, the product by nvfp4_grouped_gemm (one group).
 *
 * The global scale of a tensor is g = 6 * 448 / amax (amax its largest |value|): the largest block then
 * gets the largest e4m3 scale, 448, and its largest element the largest e2m1 value, 6, so the scales use
 * e4m3's whole range from the top. The GEMM undoes both with alpha = 1 / (g_x * g_w). X's scales are
 * row-major (NVFP4_SF_LINEAR), W's in cuBLAS's 128x4 tiles (NVFP4_SF_BLOCKED_128x4).
 *
 * The result is compared with a float64 GEMM of the original bf16 data: the relative Frobenius error
 * ||C - C_ref|| / ||C_ref|| is NVFP4's quantization error, not the library's (the GEMM itself is exact to
 * the accuracy bar of docs/ACCURACY.md). On Gaussian data each quantized operand is off by about 10% (RMS,
 * relative: e2m1 has one mantissa bit, and most of a block lies far below its largest element), and the two
 * errors add in quadrature in a long dot product, so the error comes out near 0.14 (0.134 for this data,
 * computed with the library's CPU implementation of the quantize recipe). The bound, 0.25, leaves
 * room for other data yet fails a wrong alpha, a wrong layout or a swapped operand, each of which gives an
 * error of 1 or more.
 *
 *   cc -std=c11 quantize_gemm.c -o quantize_gemm $(pkg-config --cflags --libs nvfp4) -I$CUDA_HOME/include -ldl -lm
 *
 * Exit status: 0 when every call succeeded and the error is below the bound, 1 otherwise (no GPU
 * included), with the reason on stderr. Everything made is freed on every path.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"

enum { M = 256, N = 512, K = 2048 }; /* K a multiple of 32 */
static const double ERROR_BOUND = 0.25;

/* Where things lie in the device buffers: the dense bf16 inputs in one, the NVFP4 tensors in another. */
enum {
  X_BYTES = M * K * 2,
  W_BYTES = N * K * 2,
  QX_DATA = 0,
  QX_SCALES = QX_DATA + M * K / 2,
  QW_DATA = QX_SCALES + M * K / 16,
};
#define QW_SCALES (QW_DATA + N * K / 2)
#define NVFP4_BYTES (QW_SCALES + blocked_bytes(N, K))

/* A standard normal deviate (Box-Muller), rounded to bf16. */
static uint16_t gaussian_bf16(uint64_t *state) {
  double u1 = ((double)(random_next(state) >> 11) + 1.0) * 0x1p-53, u2 = (double)(random_next(state) >> 11) * 0x1p-53;
  const double two_pi = 6.283185307179586;
  return bf16_from_float((float)(sqrt(-2.0 * log(u1)) * cos(two_pi * u2)));
}

/* g = 6 * 448 / amax of n bf16 values. */
static float global_scale(const uint16_t *v, size_t n) {
  double amax = 0.0;
  for (size_t i = 0; i < n; i++) amax = fmax(amax, fabs(bf16_value(v[i])));
  return (float)(6.0 * 448.0 / amax);
}

/* ||c - x w^T|| / ||x w^T|| (Frobenius), the reference in float64 from the bf16 values. */
static double relative_error(const uint16_t *x, const uint16_t *w, const float *c) {
  double diff = 0.0, norm = 0.0;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      double ref = 0.0;
      for (int64_t k = 0; k < K; k++) ref += bf16_value(x[i * K + k]) * bf16_value(w[j * K + k]);
      diff += (c[i * N + j] - ref) * (c[i * N + j] - ref);
      norm += ref * ref;
    }
  return sqrt(diff / norm);
}

int main(void) {
  const char *program = "quantize_gemm";
  int ok = 0;
  if (nvfp4_version() != NVFP4_VERSION_NUMBER)
    fprintf(stderr, "%s: note: built with nvfp4.h %u, running libnvfp4 %u\n", program, NVFP4_VERSION_NUMBER,
            nvfp4_version());
  uint16_t *dense = malloc(X_BYTES + W_BYTES); /* x (M x K), then the weights w (N x K) */
  float *c_host = malloc(sizeof(float) * M * N);
  CUdevice device;
  CUdeviceptr d_dense = 0, d_nvfp4 = 0, d_c = 0;
  CUstream stream = NULL;
  nvfp4_handle *handle = NULL;
  if (dense == NULL || c_host == NULL) {
    fprintf(stderr, "%s: no host memory\n", program);
    goto free_host;
  }
  uint16_t *x = dense, *w = dense + M * K;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < (size_t)(M + N) * K; i++) dense[i] = gaussian_bf16(&state);
  const float g_x = global_scale(x, (size_t)M * K), g_w = global_scale(w, (size_t)N * K);

  if (!context_open(program, &device)) goto free_host;
  if (!NVFP4(nvfp4_create(&handle))) goto release_context;
  if (!CU(cu.cuMemAlloc(&d_dense, X_BYTES + W_BYTES)) || !CU(cu.cuMemAlloc(&d_nvfp4, (size_t)NVFP4_BYTES)) ||
      !CU(cu.cuMemAlloc(&d_c, sizeof(float) * M * N)) || !CU(cu.cuMemcpyHtoD(d_dense, dense, X_BYTES + W_BYTES)) ||
      !CU(cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)))
    goto free_device;

  /* The dense inputs (ld in elements) and the NVFP4 tensors they become (ld, sf_ld in bytes). */
  const uint8_t *fp4 = (const uint8_t *)(uintptr_t)d_nvfp4;
  nvfp4_dense x_dense = {.data = (const void *)(uintptr_t)d_dense, .rows = M, .k = K, .batch = 1, .ld = K,
                         .dtype = NVFP4_DTYPE_BF16};
  nvfp4_dense w_dense = {.data = (const void *)(uintptr_t)(d_dense + X_BYTES), .rows = N, .k = K, .batch = 1,
                         .ld = K, .dtype = NVFP4_DTYPE_BF16};
  nvfp4_tensor qx = {.data = fp4 + QX_DATA, .scales = fp4 + QX_SCALES, .rows = M, .k = K, .batch = 1,
                     .ld = K / 2, .sf_ld = K / 16, .sf_layout = NVFP4_SF_LINEAR};
  nvfp4_tensor qw = {.data = fp4 + QW_DATA, .scales = fp4 + QW_SCALES, .rows = N, .k = K, .batch = 1,
                     .ld = K / 2, .sf_layout = NVFP4_SF_BLOCKED_128x4};
  nvfp4_output c = {.data = (void *)(uintptr_t)d_c, .ld = N, .dtype = NVFP4_DTYPE_F32};

  /* Three calls on one stream, in order; nothing synchronises until the result is read. */
  if (!NVFP4(nvfp4_quantize(handle, &x_dense, &qx, g_x, stream)) ||
      !NVFP4(nvfp4_quantize(handle, &w_dense, &qw, g_w, stream)) ||
      !NVFP4(nvfp4_grouped_gemm(handle, 1, &qx, &qw, &c, 1.0f / (g_x * g_w), stream)))
    goto free_device;
  if (!CU(cu.cuStreamSynchronize(stream)) || !CU(cu.cuMemcpyDtoH(c_host, d_c, sizeof(float) * M * N)))
    goto free_device;
  double error = relative_error(x, w, c_host);
  printf("quantize -> gemm, %d x %d x %d, Gaussian bf16: g_x %.6g, g_w %.6g, relative Frobenius error %.4f "
         "(bound %.2f)\n", M, N, K, (double)g_x, (double)g_w, error, ERROR_BOUND);
  ok = error < ERROR_BOUND;

free_device:
  if (stream != NULL) CU(cu.cuStreamDestroy(stream));
  if (d_c != 0) CU(cu.cuMemFree(d_c));
  if (d_nvfp4 != 0) CU(cu.cuMemFree(d_nvfp4));
  if (d_dense != 0) CU(cu.cuMemFree(d_dense));
  NVFP4(nvfp4_destroy(handle));
release_context:
  CU(cu.cuDevicePrimaryCtxRelease(device));
free_host:
  free(dense);
  free(c_host);
  return ok ? 0 : 1;
}
