/*
 * examples/moe_w4a16.c - a mixture-of-experts layer served W4A16, the way NVFP4 checkpoints are served on
 * Hopper: NVFP4 expert weights, bf16 token activations, one libnvfp4 call for every expert.
 *
 * E experts, each with its own weight matrix B_e (N x K NVFP4, K-major), scales in cuBLAS's 128x4 tiles
 * (NVFP4_SF_BLOCKED_128x4) for the even experts and row-major (NVFP4_SF_LINEAR) for the odd ones. The router
 * has sorted the batch by expert: all tokens lie in one device buffer of rows of K bf16 (ld = K), expert e
 * owning a contiguous slice of M_e rows; one expert got no tokens (M_e = 0: valid, skipped). One
 * nvfp4_grouped_gemm_w4a16 call computes C_e (M_e x N) = alpha * A_e * B_e^T for every expert, in bf16, into
 * one output buffer whose slices follow the same order.
 *
 * No weight is dequantized in memory, yet the result is the one bf16-dequantized weights would give: every
 * weight (e2m1 * e4m3) is exact in bf16 and every product of a bf16 token value and a weight is exact in f32,
 * so the kernel loses accuracy only in the f32 accumulation and the final rounding to bf16. Every output is
 * checked against a float64 computation on the host.
 *
 * Alignment: the kernels copy activations 16 bytes at a time, so each A_e.data must be 16-byte aligned and
 * A_e.ld a multiple of 8 bf16 elements (NVFP4_STATUS_NOT_SUPPORTED otherwise). With ld = K (a multiple of
 * 32) every row of the sorted batch starts on a 16-byte boundary, so each expert's slice is passed as it lies.
 *
 *   cc -std=c11 moe_w4a16.c -o moe_w4a16 $(pkg-config --cflags --libs nvfp4) -I$CUDA_HOME/include -ldl -lm
 *
 * Exit status: 0 when every output passed, 1 when anything failed (no GPU included), with the reason on
 * stderr. Every call's status is checked and everything made is freed on every path.
 */
#include <stdlib.h>

#include "common.h"

enum {
  E = 6,    /* experts */
  N = 384,  /* each expert's output features: rows of B_e */
  K = 1024, /* hidden size: a multiple of 32 */
};
/* M_e, the tokens the router sent to each expert: expert 1 got none. */
static const int64_t tokens_per_expert[E] = {40, 0, 128, 3, 96, 17};

/* Where expert e's operands lie: its first row in the sorted token (and output) buffer, and byte offsets
 * of its weights and their scales in the weight buffer. */
typedef struct expert_layout {
  int64_t m, first_token;
  nvfp4_sf_layout sf_layout;
  size_t b, b_sf;
} expert_layout;

/* Reserves `bytes` at the next 16-byte boundary (what weight data needs) after *end; returns the offset. */
static size_t place(size_t *end, size_t bytes) {
  size_t at = (*end + 15) / 16 * 16;
  *end = at + bytes;
  return at;
}

/* Lays the experts out; *tokens is the batch's token count, *weight_bytes the weight buffer's size. */
static void lay_out(expert_layout *el, int64_t *tokens, size_t *weight_bytes) {
  *tokens = 0;
  *weight_bytes = 0;
  for (int e = 0; e < E; e++) {
    nvfp4_sf_layout sf_layout = e % 2 == 0 ? NVFP4_SF_BLOCKED_128x4 : NVFP4_SF_LINEAR;
    el[e] = (expert_layout){.m = tokens_per_expert[e], .first_token = *tokens, .sf_layout = sf_layout};
    *tokens += el[e].m;
    el[e].b = place(weight_bytes, (size_t)N * K / 2);
    el[e].b_sf = place(weight_bytes, sf_layout == NVFP4_SF_LINEAR ? (size_t)N * K / 16 : (size_t)blocked_bytes(N, K));
  }
}

/* Byte offset of the scale of (row, block) of expert e's weights from its b_sf. */
static int64_t scale_offset(const expert_layout *el, int64_t row, int64_t block) {
  return el->sf_layout == NVFP4_SF_LINEAR ? row * (K / 16) + block : blocked_offset(K, row, block);
}

/* Random codes and a random scale for every (row, block) of every expert (BLOCKED padding stays 0; it may
 * hold anything), and bf16 token values in [-4, 4). */
static void make_inputs(const expert_layout *el, int64_t tokens, uint8_t *weights, uint16_t *activations) {
  uint64_t state = 0x8BB84B93962EACC9ull;
  for (int e = 0; e < E; e++) {
    random_codes(weights + el[e].b, (size_t)N * K / 2, &state);
    for (int64_t row = 0; row < N; row++)
      for (int64_t block = 0; block < K / 16; block++)
        weights[el[e].b_sf + (size_t)scale_offset(&el[e], row, block)] = random_scale(&state);
  }
  for (int64_t i = 0; i < tokens * K; i++)
    activations[i] = bf16_from_float((float)ldexp((double)(random_next(&state) >> 40), -21) - 4.0f);
}

/* Expert e's weights decoded to float64, N rows of K (what a bf16 dequantization would hold, exactly). */
static void dequantize(const expert_layout *el, const uint8_t *weights, double *b) {
  for (int64_t row = 0; row < N; row++)
    for (int64_t k = 0; k < K; k++)
      b[row * K + k] = nvfp4_value(weights + el->b + row * K / 2,
                                   weights[el->b_sf + (size_t)scale_offset(el, row, k / 16)], k);
}

/* Checks every C_e[i][j] against float64; prints the worst element of the call. b is room for one
 * expert's dequantized weights. */
static int check(const expert_layout *el, const uint8_t *weights, const uint16_t *activations, const uint16_t *out,
                 float alpha, double *b) {
  double worst = 0.0;
  int worst_e = 0;
  int64_t worst_i = 0, worst_j = 0;
  for (int e = 0; e < E; e++) {
    dequantize(&el[e], weights, b);
    for (int64_t i = 0; i < el[e].m; i++) {
      const uint16_t *a = activations + (el[e].first_token + i) * K;
      const uint16_t *c = out + (el[e].first_token + i) * N;
      for (int64_t j = 0; j < N; j++) {
        double sum = 0.0, magnitude = 0.0;
        for (int64_t k = 0; k < K; k++) {
          double p = bf16_value(a[k]) * b[j * K + k];
          sum += p;
          magnitude += fabs(p);
        }
        double ratio = error_ratio(bf16_value(c[j]), alpha * sum, fabs(alpha) * magnitude, ldexp(1.0, -8));
        if (!(ratio <= worst)) {
          worst = ratio;
          worst_e = e;
          worst_i = i;
          worst_j = j;
        }
      }
    }
  }
  printf("moe w4a16, %d experts, %lld tokens, N %d, K %d: worst error/tolerance %.3g at C_%d[%lld][%lld] "
         "(passes at <= 1)\n", E, (long long)(el[E - 1].first_token + el[E - 1].m), N, K, worst, worst_e,
         (long long)worst_i, (long long)worst_j);
  return worst <= 1.0;
}

int main(void) {
  const char *program = "moe_w4a16";
  const float alpha = 0.5f;
  int ok = 0;
  if (nvfp4_version() != NVFP4_VERSION_NUMBER)
    fprintf(stderr, "%s: note: built with nvfp4.h %u, running libnvfp4 %u\n", program, NVFP4_VERSION_NUMBER,
            nvfp4_version());
  expert_layout el[E];
  int64_t tokens;
  size_t weight_bytes;
  lay_out(el, &tokens, &weight_bytes);
  size_t activation_bytes = sizeof(uint16_t) * (size_t)(tokens * K);
  size_t out_bytes = sizeof(uint16_t) * (size_t)(tokens * N);
  uint8_t *weights = calloc(weight_bytes, 1);
  uint16_t *activations = malloc(activation_bytes), *out = malloc(out_bytes);
  double *dequantized = malloc(sizeof(double) * N * K);
  CUdevice device;
  CUdeviceptr d_weights = 0, d_activations = 0, d_out = 0;
  CUstream stream = NULL;
  nvfp4_handle *handle = NULL;
  if (weights == NULL || activations == NULL || out == NULL || dequantized == NULL) {
    fprintf(stderr, "%s: no host memory\n", program);
    goto free_host;
  }
  make_inputs(el, tokens, weights, activations);
  if (!context_open(program, &device)) goto free_host;
  if (!NVFP4(nvfp4_create(&handle))) goto release_context;
  /* cuMemAlloc's pointers are 256-byte aligned: the token buffer's start meets the 16-byte rule */
  if (!CU(cu.cuMemAlloc(&d_weights, weight_bytes)) || !CU(cu.cuMemAlloc(&d_activations, activation_bytes)) ||
      !CU(cu.cuMemAlloc(&d_out, out_bytes)) || !CU(cu.cuMemcpyHtoD(d_weights, weights, weight_bytes)) ||
      !CU(cu.cuMemcpyHtoD(d_activations, activations, activation_bytes)) ||
      !CU(cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)))
    goto free_device;

  /* The descriptions live in host memory and are read during the call only: they may go on return. */
  nvfp4_dense a[E];
  nvfp4_tensor b[E];
  nvfp4_output c[E];
  const uint16_t *tokens_base = (const uint16_t *)(uintptr_t)d_activations;
  const uint8_t *weights_base = (const uint8_t *)(uintptr_t)d_weights;
  uint16_t *out_base = (uint16_t *)(uintptr_t)d_out;
  for (int e = 0; e < E; e++) {
    a[e] = (nvfp4_dense){.data = tokens_base + el[e].first_token * K,    /* the expert's slice; empty is fine */
                         .rows = el[e].m, .k = K, .batch = 1,
                         .ld = K,                                         /* elements: a multiple of 8 */
                         .dtype = NVFP4_DTYPE_BF16};
    b[e] = (nvfp4_tensor){.data = weights_base + el[e].b, .scales = weights_base + el[e].b_sf,
                          .rows = N, .k = K, .batch = 1,
                          .ld = K / 2,                                    /* bytes */
                          .sf_ld = K / 16,                                /* bytes; not used by BLOCKED scales */
                          .sf_layout = el[e].sf_layout};
    c[e] = (nvfp4_output){.data = out_base + el[e].first_token * N, .ld = N, .dtype = NVFP4_DTYPE_BF16};
  }

  if (!NVFP4(nvfp4_grouped_gemm_w4a16(handle, E, a, b, c, alpha, stream))) goto free_device;
  if (!CU(cu.cuStreamSynchronize(stream)) || !CU(cu.cuMemcpyDtoH(out, d_out, out_bytes))) goto free_device;
  ok = check(el, weights, activations, out, alpha, dequantized);

free_device:
  if (stream != NULL) CU(cu.cuStreamDestroy(stream));
  if (d_out != 0) CU(cu.cuMemFree(d_out));
  if (d_activations != 0) CU(cu.cuMemFree(d_activations));
  if (d_weights != 0) CU(cu.cuMemFree(d_weights));
  NVFP4(nvfp4_destroy(handle));
release_context:
  CU(cu.cuDevicePrimaryCtxRelease(device));
free_host:
  free(weights);
  free(activations);
  free(out);
  free(dequantized);
  return ok ? 0 : 1;
}
