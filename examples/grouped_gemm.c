/*
 * examples/grouped_gemm.c - G independent GEMMs in one libnvfp4 call, from host data to the GPU and back:
 * C_g (M_g x N_g) = alpha * A_g (M_g x K_g) * B_g (N_g x K_g)^T, both operands K-major.
 *
 * The groups differ in M, N and K, and one is empty (M_g = 0: valid, skipped). A's scales are row-major
 * (NVFP4_SF_LINEAR), B's in cuBLAS's 128x4 tiles (NVFP4_SF_BLOCKED_128x4), C is f32. All inputs share one
 * device buffer, all outputs another; every output is checked against a float64 computation on the host.
 *
 *   cc -std=c11 grouped_gemm.c -o grouped_gemm $(pkg-config --cflags --libs nvfp4) -I$CUDA_HOME/include -ldl -lm
 *
 * Exit status: 0 when every output passed, 1 when anything failed (no GPU included), with the reason on
 * stderr. Every call's status is checked and everything made is freed on every path.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"

enum { G = 4 };
static const int64_t shapes[G][3] = {/* M, N, K (K a multiple of 32) */
                                     {64, 256, 1024},
                                     {0, 256, 1024},
                                     {200, 384, 512},
                                     {7, 129, 2048}};

/* Where group g's operands lie: byte offsets into the input buffer, and C's into the output buffer. */
typedef struct group_layout {
  int64_t m, n, k;
  size_t a, a_sf, b, b_sf, c;
} group_layout;

/* Reserves `bytes` at the next 16-byte boundary (what data and ld need) after *end; returns the offset. */
static size_t place(size_t *end, size_t bytes) {
  size_t at = (*end + 15) / 16 * 16;
  *end = at + bytes;
  return at;
}

/* Lays the groups out; *in_bytes and *out_bytes are the two buffers' sizes. */
static void lay_out(group_layout *gl, size_t *in_bytes, size_t *out_bytes) {
  *in_bytes = *out_bytes = 0;
  for (int g = 0; g < G; g++) {
    int64_t m = shapes[g][0], n = shapes[g][1], k = shapes[g][2];
    gl[g] = (group_layout){.m = m, .n = n, .k = k};
    gl[g].a = place(in_bytes, (size_t)(m * k / 2));
    gl[g].a_sf = place(in_bytes, (size_t)(m * k / 16));
    gl[g].b = place(in_bytes, (size_t)(n * k / 2));
    gl[g].b_sf = place(in_bytes, (size_t)blocked_bytes(n, k));
    gl[g].c = place(out_bytes, sizeof(float) * (size_t)(m * n));
  }
}

/* Random codes everywhere, and a random scale for every (row, block) of A and B; BLOCKED padding stays 0
 * (it may hold anything). */
static void make_inputs(const group_layout *gl, uint8_t *in) {
  uint64_t state = 0xD1B54A32D192ED03ull;
  for (int g = 0; g < G; g++) {
    int64_t m = gl[g].m, n = gl[g].n, k = gl[g].k;
    random_codes(in + gl[g].a, (size_t)(m * k / 2), &state);
    random_codes(in + gl[g].b, (size_t)(n * k / 2), &state);
    for (int64_t i = 0; i < m * k / 16; i++) in[gl[g].a_sf + (size_t)i] = random_scale(&state);
    for (int64_t row = 0; row < n; row++)
      for (int64_t block = 0; block < k / 16; block++)
        in[gl[g].b_sf + (size_t)blocked_offset(k, row, block)] = random_scale(&state);
  }
}

/* Checks every C_g[i][j] against float64; prints the worst element of the call. */
static int check(const group_layout *gl, const uint8_t *in, const uint8_t *out, float alpha) {
  double worst = 0.0;
  int worst_g = 0;
  int64_t worst_i = 0, worst_j = 0;
  for (int g = 0; g < G; g++) {
    int64_t m = gl[g].m, n = gl[g].n, k = gl[g].k;
    const uint8_t *a = in + gl[g].a, *a_sf = in + gl[g].a_sf, *b = in + gl[g].b, *b_sf = in + gl[g].b_sf;
    const float *c = (const float *)(out + gl[g].c);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double sum = 0.0, magnitude = 0.0;
        for (int64_t kk = 0; kk < k; kk++) {
          double p = nvfp4_value(a + i * k / 2, a_sf[i * k / 16 + kk / 16], kk) *
                     nvfp4_value(b + j * k / 2, b_sf[blocked_offset(k, j, kk / 16)], kk);
          sum += p;
          magnitude += fabs(p);
        }
        double ratio = error_ratio(c[i * n + j], alpha * sum, fabs(alpha) * magnitude, ldexp(1.0, -20));
        if (!(ratio <= worst)) {
          worst = ratio;
          worst_g = g;
          worst_i = i;
          worst_j = j;
        }
      }
  }
  printf("grouped gemm, %d groups: worst error/tolerance %.3g at C_%d[%lld][%lld] (passes at <= 1)\n", G, worst,
         worst_g, (long long)worst_i, (long long)worst_j);
  return worst <= 1.0;
}

int main(void) {
  const char *program = "grouped_gemm";
  const float alpha = 1.0f;
  int ok = 0;
  if (nvfp4_version() != NVFP4_VERSION_NUMBER)
    fprintf(stderr, "%s: note: built with nvfp4.h %u, running libnvfp4 %u\n", program, NVFP4_VERSION_NUMBER,
            nvfp4_version());
  group_layout gl[G];
  size_t in_bytes, out_bytes;
  lay_out(gl, &in_bytes, &out_bytes);
  uint8_t *in = calloc(in_bytes, 1), *out = malloc(out_bytes);
  CUdevice device;
  CUdeviceptr d_in = 0, d_out = 0;
  CUstream stream = NULL;
  nvfp4_handle *handle = NULL;
  if (in == NULL || out == NULL) {
    fprintf(stderr, "%s: no host memory\n", program);
    goto free_host;
  }
  make_inputs(gl, in);
  if (!context_open(program, &device)) goto free_host;
  if (!NVFP4(nvfp4_create(&handle))) goto release_context;
  if (!CU(cu.cuMemAlloc(&d_in, in_bytes)) || !CU(cu.cuMemAlloc(&d_out, out_bytes)) ||
      !CU(cu.cuMemcpyHtoD(d_in, in, in_bytes)) || !CU(cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)))
    goto free_device;

  /* The descriptions live in host memory and are read during the call only: they may go on return. */
  nvfp4_tensor a[G], b[G];
  nvfp4_output c[G];
  const uint8_t *base = (const uint8_t *)(uintptr_t)d_in;
  for (int g = 0; g < G; g++) {
    int64_t m = gl[g].m, n = gl[g].n, k = gl[g].k;
    a[g] = (nvfp4_tensor){.data = base + gl[g].a, .scales = base + gl[g].a_sf,
                          .rows = m, .k = k, .batch = 1,
                          .ld = k / 2, .sf_ld = k / 16,     /* bytes; batch strides unused with one batch */
                          .sf_layout = NVFP4_SF_LINEAR};
    b[g] = (nvfp4_tensor){.data = base + gl[g].b, .scales = base + gl[g].b_sf,
                          .rows = n, .k = k, .batch = 1,
                          .ld = k / 2,                      /* sf_ld is not used by BLOCKED scales */
                          .sf_layout = NVFP4_SF_BLOCKED_128x4};
    c[g] = (nvfp4_output){.data = (void *)(uintptr_t)(d_out + gl[g].c), .ld = n, .dtype = NVFP4_DTYPE_F32};
  }

  if (!NVFP4(nvfp4_grouped_gemm(handle, G, a, b, c, alpha, stream))) goto free_device;
  if (!CU(cu.cuStreamSynchronize(stream)) || !CU(cu.cuMemcpyDtoH(out, d_out, out_bytes))) goto free_device;
  ok = check(gl, in, out, alpha);

free_device:
  if (stream != NULL) CU(cu.cuStreamDestroy(stream));
  if (d_out != 0) CU(cu.cuMemFree(d_out));
  if (d_in != 0) CU(cu.cuMemFree(d_in));
  NVFP4(nvfp4_destroy(handle));
release_context:
  CU(cu.cuDevicePrimaryCtxRelease(device));
free_host:
  free(in);
  free(out);
  return ok ? 0 : 1;
}
