/* SPEC §5 timing: CUDA events around each launch, L2 flushed before it, median of many (not in libnvfp4). */
#ifndef NVFP4_HOST_BENCH_H
#define NVFP4_HOST_BENCH_H

#include "cuda_driver.h"
#include "nvfp4.h"

typedef struct nvfp4i_timing {
  double median_us, min_us, max_us;
  int runs;
} nvfp4i_timing;

/* Device-to-device copy of a large buffer; *tb_per_s counts bytes read plus bytes written. */
nvfp4_status nvfp4i_bench_copy_bandwidth(int runs, double *tb_per_s);

/* The time the method itself reports for the smallest launch: a 16-byte memset between the events, after
 * the same L2 flush. Nothing launched this way can show less. */
nvfp4_status nvfp4i_bench_launch_floor(int runs, double *us);

/* Times nvfp4_gemv on random full-range operands (F16 output, LINEAR scales). *bytes is the traffic
 * floor: A, its scales, x, its scales and y, each once. */
nvfp4_status nvfp4i_bench_gemv(nvfp4_handle *h, int64_t m, int64_t k, int64_t l, int runs, nvfp4i_timing *t,
                               double *bytes);

/* Threads in the read probe's grid (it is launched on every SM). */
uint32_t nvfp4i_read_probe_threads(const nvfp4_handle *h);

/* One launch of nvfp4_read_probe_sm90a over `vectors` 16-byte vectors at src: thread i xors the words of
 * vectors i, i + T, i + 2T, ... (T = nvfp4i_read_probe_threads) and writes the xor to out[i] only where it
 * equals `never`. */
nvfp4_status nvfp4i_read_probe(nvfp4_handle *h, CUdeviceptr src, uint64_t vectors, CUdeviceptr out, uint32_t never,
                               CUstream stream);

/* Times nvfp4_read_probe_sm90a reading `bytes` once (a plain streaming read, nothing else), timed the same way:
 * what a kernel that only reads that much shows with this method (its streaming in the kernel bounds a GEMV's;
 * its launch and completion take as long as the GEMV's: docs/PERFORMANCE.md, "The bound this method puts on
 * any kernel"). */
nvfp4_status nvfp4i_bench_read(nvfp4_handle *h, double bytes, int runs, nvfp4i_timing *t);

/* The dense f16 tensor-core rate, measured: back-to-back wgmma.m64n256k16 on every SM
 * (nvfp4_wgmma_peak_sm90a). */
nvfp4_status nvfp4i_bench_wgmma_peak(nvfp4_handle *h, int runs, double *tflops);

/* Times one nvfp4_grouped_gemm over `groups` problems (A_g: m[g] x k, B_g: n x k, LINEAR scales, F16
 * output). *flops = 2 * sum m[g]*n*k; *bytes = the traffic floor: A, B and their scales read once, C written. */
nvfp4_status nvfp4i_bench_grouped_gemm(nvfp4_handle *h, int groups, const int64_t *m, int64_t n, int64_t k,
                                       int runs, nvfp4i_timing *t, double *flops, double *bytes);

#endif
