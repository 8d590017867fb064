/* Benchmarks by the GPU MODE method of docs/TIMING.md, the ceilings they are divided by, and the benchmark
 * workloads (not part of libnvfp4). */
#ifndef NVFP4_TOOLS_BENCH_H
#define NVFP4_TOOLS_BENCH_H

#include "cuda_driver.h"
#include "kernels.h"
#include "nvfp4.h"
#include "sm90a/read_probe_layout.h"
#include "sm90a/wgmma_peak_layout.h"

/* How a benchmark is run: `runs` repetitions, each timing one call per input set back to back; `sets`
 * distinct input sets, raised where fewer would fit in L2 (and lowered where device memory is short). */
typedef struct nvfp4i_bench_method {
  int runs, sets;
} nvfp4i_bench_method;

typedef struct nvfp4i_timing {
  double median_us, min_us, max_us; /* per call: a repetition's elapsed time / sets, over the repetitions */
  double single_us;                 /* median of one call alone between the events, after its own flush */
  int runs, sets;                   /* repetitions; input sets each repetition went through */
} nvfp4i_timing;

/* Device-to-device copy of 1 GiB; *tb_per_s counts bytes read plus bytes written. */
nvfp4_status nvfp4i_bench_copy_bandwidth(const nvfp4i_bench_method *method, double *tb_per_s);

/* The smallest launch timed by the method: a 16-byte memset per set. Nothing launched this way shows less. */
nvfp4_status nvfp4i_bench_launch_floor(const nvfp4i_bench_method *method, nvfp4i_timing *t);

/* nvfp4_gemv on random full-range operands (LINEAR scales, F16 output). *bytes is one call's traffic
 * floor: A, its scales, x, its scales and y, each once. */
nvfp4_status nvfp4i_bench_gemv(nvfp4_handle *h, int64_t m, int64_t k, int64_t l, const nvfp4i_bench_method *method,
                               nvfp4i_timing *t, double *bytes);

/* nvfp4_gemv_w4a16 on the same A with x of x_dtype (F16 or BF16; random, see nvfp4i_random_activation), 16-byte
 * aligned. *bytes counts x at 2 bytes an element (and no x scales). */
nvfp4_status nvfp4i_bench_gemv_w4a16(nvfp4_handle *h, int64_t m, int64_t k, int64_t l, nvfp4_dtype x_dtype,
                                     const nvfp4i_bench_method *method, nvfp4i_timing *t, double *bytes);

/* nvfp4_gemm with l batches of A (m x k) and B (n x k), LINEAR scales, F16 output. *flops = 2 * m*n*k*l;
 * *bytes = the traffic floor: A, B and their scales read once, C written once, every batch. */
nvfp4_status nvfp4i_bench_gemm(nvfp4_handle *h, int64_t m, int64_t n, int64_t k, int64_t l,
                               const nvfp4i_bench_method *method, nvfp4i_timing *t, double *flops, double *bytes);

/* nvfp4_grouped_gemm over `groups` problems (A_g: m[g] x k, B_g: n x k; LINEAR scales, F16 output; an empty
 * group is skipped). *flops = 2 * sum m[g]*n*k; *bytes = the traffic floor: every non-empty group's A, B
 * and their scales read once, C written once. */
nvfp4_status nvfp4i_bench_grouped_gemm(nvfp4_handle *h, int groups, const int64_t *m, int64_t n, int64_t k,
                                       const nvfp4i_bench_method *method, nvfp4i_timing *t, double *flops,
                                       double *bytes);

/* nvfp4_grouped_gemm_w4a16 on the same shapes, activations of act_dtype (F16 or BF16; random, see
 * nvfp4i_random_activation) in place of A. *bytes counts them at 2 bytes an element. */
nvfp4_status nvfp4i_bench_grouped_gemm_w4a16(nvfp4_handle *h, int groups, const int64_t *m, int64_t n, int64_t k,
                                             nvfp4_dtype act_dtype, const nvfp4i_bench_method *method,
                                             nvfp4i_timing *t, double *flops, double *bytes);

/* nvfp4_grouped_dual_gemm_silu on the same shapes with a second B per group (B1_g, B2_g: n x k each, LINEAR;
 * alpha1 = alpha2 = 1, F16 output). *flops = 4 * sum m[g]*n*k (two products); *bytes = every non-empty
 * group's A, B1, B2 and their scales read once, C written once. */
nvfp4_status nvfp4i_bench_dual_gemm(nvfp4_handle *h, int groups, const int64_t *m, int64_t n, int64_t k,
                                    const nvfp4i_bench_method *method, nvfp4i_timing *t, double *flops,
                                    double *bytes);

/* nvfp4_dequantize of an m x k operand (random full-range codes and scales, LINEAR) to `dtype`. *bytes is one
 * call's traffic floor: the data and scales read once, the output written once. */
nvfp4_status nvfp4i_bench_dequantize(nvfp4_handle *h, int64_t m, int64_t k, nvfp4_dtype dtype,
                                     const nvfp4i_bench_method *method, nvfp4i_timing *t, double *bytes);

/* The library's grouped dequantize (nvfp4i_grouped_dequantize, the grouped GEMM's way to dense activations):
 * `groups` operands of m[g] x k (random full-range codes and scales, LINEAR; m[g] = 0 an empty group) to
 * `dtype` in one call. *bytes is its traffic floor: every group's data and scales read once, its output
 * written once. */
nvfp4_status nvfp4i_bench_grouped_dequantize(nvfp4_handle *h, int groups, const int64_t *m, int64_t k,
                                             nvfp4_dtype dtype, const nvfp4i_bench_method *method,
                                             nvfp4i_timing *t, double *bytes);

/* nvfp4_quantize (global scale 1) of an m x k dense input of `dtype` (random activations, see
 * nvfp4i_random_activation; f32: pairs of bf16 ones read as one f32) into a LINEAR operand. *bytes is one
 * call's traffic floor: the input read once, the data and scales written once. */
nvfp4_status nvfp4i_bench_quantize(nvfp4_handle *h, int64_t m, int64_t k, nvfp4_dtype dtype,
                                   const nvfp4i_bench_method *method, nvfp4i_timing *t, double *bytes);

/* nvfp4_scales_relayout of the scales of an m x k tensor (random e4m3 bytes, one batch, LINEAR sf_ld k/16,
 * BLOCKED padding random too) into to_layout from the other layout. *bytes is one call's traffic floor: the
 * m x k/16 scales read once, the destination written once (BLOCKED: whole 128 x 4 tiles, padding included). */
nvfp4_status nvfp4i_bench_scales_relayout(nvfp4_handle *h, int64_t m, int64_t k, nvfp4_sf_layout to_layout,
                                          const nvfp4i_bench_method *method, nvfp4i_timing *t, double *bytes);

/* The measuring kernels (ptx/sm90a/read_probe.ptx, wgmma_peak.ptx), loaded from an image of their own into
 * a handle's context: libnvfp4's image never holds them. */
#define NVFP4I_READ_PROBE_ENTRY NVFP4I_STRINGIFY(READ_PROBE_ENTRY)
#define NVFP4I_WGMMA_PEAK_ENTRY NVFP4I_STRINGIFY(WGMMA_PEAK_ENTRY)

typedef struct nvfp4i_probes {
  const nvfp4_handle *h;
  CUmodule module;
  CUfunction read, wgmma_peak;
} nvfp4i_probes;

/* The probes' embedded image (gen/embed_fatbin.S). */
extern const unsigned char nvfp4i_probes_fatbin[];
extern const unsigned long long nvfp4i_probes_fatbin_size;

/* Loads the probes' image into h's context; nvfp4i_probes_unload unloads it (a zeroed p is fine). */
nvfp4_status nvfp4i_probes_load(const nvfp4_handle *h, nvfp4i_probes *p);
void nvfp4i_probes_unload(nvfp4i_probes *p);

/* Threads in the read probe's grid (it is launched on every SM). */
uint32_t nvfp4i_read_probe_threads(const nvfp4i_probes *p);

/* One launch of the read probe over `vectors` 16-byte vectors at src: thread i xors the words of vectors
 * i, i + T, i + 2T, ... (T = nvfp4i_read_probe_threads) and writes the xor to out[i] only where it equals
 * `never`. */
nvfp4_status nvfp4i_read_probe(const nvfp4i_probes *p, CUdeviceptr src, uint64_t vectors, CUdeviceptr out,
                               uint32_t never, CUstream stream);

/* The read probe reading `bytes` once per set, timed like the operation it stands beside, with exactly that
 * operation's `sets`: what a kernel that only reads that much shows by this method (docs/PERFORMANCE.md, "The
 * bound this method puts on any kernel"). */
nvfp4_status nvfp4i_bench_read(const nvfp4i_probes *p, double bytes, int runs, int sets, nvfp4i_timing *t);

/* The dense f16 tensor-core rate, measured: back-to-back wgmma.m64n256k16 on every SM. */
nvfp4_status nvfp4i_bench_wgmma_peak(const nvfp4i_probes *p, int runs, double *tflops);

/* The benchmark workloads: GPU MODE's GEMV, grouped GEMM, dense GEMM and dual GEMM benchmark shapes, the MoE
 * decode shape, the dequantize targets (issue 14: 16384 x 16384 f16; SPEC: bf16) and the scale relayouts of a
 * 16384 x 16384 tensor, LINEAR -> BLOCKED and BLOCKED -> LINEAR. */
typedef struct nvfp4i_gemv_workload {
  const char *name;
  int64_t m, k, l;
} nvfp4i_gemv_workload;

typedef struct nvfp4i_gemm_workload {
  const char *name;
  int64_t m, n, k, l;
} nvfp4i_gemm_workload;

typedef struct nvfp4i_grouped_workload {
  const char *name;
  int groups;
  const int64_t *m; /* groups entries */
  int64_t n, k;
} nvfp4i_grouped_workload;

typedef struct nvfp4i_dequantize_workload {
  const char *name;
  int64_t m, k;
  nvfp4_dtype dtype;
} nvfp4i_dequantize_workload;

typedef struct nvfp4i_relayout_workload {
  const char *name;
  int64_t m, k;
  nvfp4_sf_layout to; /* the source is in the other layout */
} nvfp4i_relayout_workload;

extern const nvfp4i_gemv_workload nvfp4i_gemv_workloads[];
extern const int nvfp4i_gemv_workload_count;
extern const nvfp4i_grouped_workload nvfp4i_grouped_workloads[];
extern const int nvfp4i_grouped_workload_count;
extern const nvfp4i_gemm_workload nvfp4i_gemm_workloads[];
extern const int nvfp4i_gemm_workload_count;
extern const nvfp4i_grouped_workload nvfp4i_dual_workloads[]; /* G = 1 each */
extern const int nvfp4i_dual_workload_count;
extern const nvfp4i_dequantize_workload nvfp4i_dequantize_workloads[];
extern const int nvfp4i_dequantize_workload_count;
extern const nvfp4i_relayout_workload nvfp4i_relayout_workloads[];
extern const int nvfp4i_relayout_workload_count;

/* moe1's group sizes: G = 64, M_g = nvfp4i_rng_next() % 25 from the state NVFP4I_MOE_SEED, the first seed
 * from 0x6D6F6531 ("moe1") whose draw leaves exactly three groups empty. */
enum { NVFP4I_MOE_GROUPS = 64, NVFP4I_MOE_MAX_M = 24 };
#define NVFP4I_MOE_SEED 0x6D6F6532ull
extern const int64_t nvfp4i_moe_m[NVFP4I_MOE_GROUPS];

#endif
