/*
 * examples/gemv.c - y = alpha * A x with libnvfp4, from host data to the GPU and back.
 *
 * A is M x K NVFP4 per batch and x is 1 x K, L batches, scales row-major (NVFP4_SF_LINEAR); y is f16. The
 * operands are made on the host, copied to the device, one nvfp4_gemv call runs on a stream, y comes back
 * and every element is checked against a float64 computation on the host.
 *
 *   cc -std=c11 gemv.c -o gemv $(pkg-config --cflags --libs nvfp4) -I$CUDA_HOME/include -ldl -lm
 *
 * Exit status: 0 when every output passed, 1 when anything failed (no GPU included), with the reason on
 * stderr. Every call's status is checked and everything made is freed on every path.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

enum {
  M = 1000, /* rows: any count works (1000 leaves a tail of the kernel's row groups) */
  K = 7168, /* a multiple of 32 */
  L = 2,    /* batches */
};

/* Host copies of the operands. Each batch of A is M rows of K/2 bytes (a multiple of 16, as the kernels
 * need for ld and batch_stride) with K/16 scales per row; x likewise with one row. */
typedef struct host_operands {
  uint8_t a[L][M][K / 2], a_sf[L][M][K / 16];
  uint8_t x[L][K / 2], x_sf[L][K / 16];
} host_operands;

static void make_operands(host_operands *h) {
  uint64_t state = 0x9E3779B97F4A7C15ull;
  random_codes(&h->a[0][0][0], sizeof h->a, &state);
  random_codes(&h->x[0][0], sizeof h->x, &state);
  for (size_t i = 0; i < sizeof h->a_sf; i++) (&h->a_sf[0][0][0])[i] = random_scale(&state);
  for (size_t i = 0; i < sizeof h->x_sf; i++) (&h->x_sf[0][0])[i] = random_scale(&state);
}

/* Checks every y[l][m] against alpha * sum_k A[l][m][k] * x[l][k] in float64; prints the worst element. */
static int check(const host_operands *h, const uint16_t *y, float alpha) {
  double worst = 0.0;
  int64_t worst_at = 0;
  for (int64_t l = 0; l < L; l++)
    for (int64_t m = 0; m < M; m++) {
      double sum = 0.0, magnitude = 0.0;
      for (int64_t k = 0; k < K; k++) {
        double p = nvfp4_value(h->a[l][m], h->a_sf[l][m][k / 16], k) * nvfp4_value(h->x[l], h->x_sf[l][k / 16], k);
        sum += p;
        magnitude += fabs(p);
      }
      double ratio = error_ratio(f16_value(y[l * M + m]), alpha * sum, fabs(alpha) * magnitude, ldexp(1.0, -10));
      if (!(ratio <= worst)) {
        worst = ratio;
        worst_at = l * M + m;
      }
    }
  printf("gemv %dx%dx%d: worst error/tolerance %.3g at y[%lld] (passes at <= 1)\n", M, K, L, worst,
         (long long)worst_at);
  return worst <= 1.0;
}

int main(void) {
  const char *program = "gemv";
  const float alpha = 0.5f;
  int ok = 0;
  host_operands *h = malloc(sizeof *h);
  uint16_t *y = malloc(sizeof(uint16_t) * M * L);
  CUdevice device;
  CUdeviceptr d_in = 0, d_y = 0;
  CUstream stream = NULL;
  nvfp4_handle *handle = NULL;
  if (h == NULL || y == NULL) {
    fprintf(stderr, "%s: no host memory\n", program);
    goto free_host;
  }
  make_operands(h);
  if (!context_open(program, &device)) goto free_host;
  if (!NVFP4(nvfp4_create(&handle))) goto release_context;

  /* one device buffer holds the four inputs at the offsets they have in host_operands (16-byte aligned) */
  if (!CU(cu.cuMemAlloc(&d_in, sizeof *h)) || !CU(cu.cuMemAlloc(&d_y, sizeof(uint16_t) * M * L)) ||
      !CU(cu.cuMemcpyHtoD(d_in, h, sizeof *h)) || !CU(cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)))
    goto free_device;
  const uint8_t *base = (const uint8_t *)(uintptr_t)d_in;
  nvfp4_tensor a = {
      .data = base + offsetof(host_operands, a),
      .scales = base + offsetof(host_operands, a_sf),
      .rows = M, .k = K, .batch = L,
      .ld = K / 2, .batch_stride = (int64_t)M * K / 2,          /* bytes */
      .sf_ld = K / 16, .sf_batch_stride = (int64_t)M * K / 16,  /* bytes */
      .sf_layout = NVFP4_SF_LINEAR,
  };
  nvfp4_tensor x = {
      .data = base + offsetof(host_operands, x),
      .scales = base + offsetof(host_operands, x_sf),
      .rows = 1, .k = K, .batch = L,
      .ld = K / 2, .batch_stride = K / 2,
      .sf_ld = K / 16, .sf_batch_stride = K / 16,
      .sf_layout = NVFP4_SF_LINEAR,
  };
  nvfp4_output out = {.data = (void *)(uintptr_t)d_y, .ld = 1, .batch_stride = M, .dtype = NVFP4_DTYPE_F16};

  if (!NVFP4(nvfp4_gemv(handle, &a, &x, &out, alpha, stream))) goto free_device;
  /* the call only queued the work: wait for it before reading y */
  if (!CU(cu.cuStreamSynchronize(stream)) || !CU(cu.cuMemcpyDtoH(y, d_y, sizeof(uint16_t) * M * L)))
    goto free_device;
  ok = check(h, y, alpha);

free_device:
  if (stream != NULL) CU(cu.cuStreamDestroy(stream));
  if (d_y != 0) CU(cu.cuMemFree(d_y));
  if (d_in != 0) CU(cu.cuMemFree(d_in));
  NVFP4(nvfp4_destroy(handle)); /* NULL is a no-op */
release_context:
  CU(cu.cuDevicePrimaryCtxRelease(device));
free_host:
  free(h);
  free(y);
  return ok ? 0 : 1;
}
