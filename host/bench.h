/* SPEC §5 timing: CUDA events around each launch, L2 flushed before it, median of many (not in libnvfp4). */
#ifndef NVFP4_HOST_BENCH_H
#define NVFP4_HOST_BENCH_H

#include "nvfp4.h"

typedef struct nvfp4i_timing {
  double median_us, min_us, max_us;
  int runs;
} nvfp4i_timing;

/* Device-to-device copy of a large buffer; *tb_per_s counts bytes read plus bytes written. */
nvfp4_status nvfp4i_bench_copy_bandwidth(int runs, double *tb_per_s);

/* Times nvfp4_gemv on random full-range operands (F16 output, LINEAR scales). *bytes is the traffic
 * floor: A, its scales, x, its scales and y, each once. */
nvfp4_status nvfp4i_bench_gemv(nvfp4_handle *h, int64_t m, int64_t k, int64_t l, int runs, nvfp4i_timing *t,
                               double *bytes);

#endif
