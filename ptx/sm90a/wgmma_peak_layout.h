/* ptx/sm90a/wgmma_peak_layout.h - the tensor-core probe's layout, shared by wgmma_peak.ptx (through cpp) and
 * the bench (host/tools/bench.c, which checks its parameter struct against these offsets). Only #defines. */
#ifndef NVFP4_PTX_SM90A_WGMMA_PEAK_LAYOUT_H
#define NVFP4_PTX_SM90A_WGMMA_PEAK_LAYOUT_H

#define WGMMA_PEAK_ENTRY nvfp4_wgmma_peak_sm90a

/* Launch: block (WGMMA_PEAK_THREADS, 1, 1) = 2 warpgroups; grid (number of SMs, 1, 1); no dynamic shared
 * memory. Each trip of the loop is WGMMA_PEAK_MMAS_PER_TRIP x wgmma.m64n256k16 per warpgroup. */
#define WGMMA_PEAK_THREADS 256
#define WGMMA_PEAK_MMAS_PER_TRIP 8

/* The parameter block, one .param array of WGMMA_PEAK_PARAM_BYTES (byte offset: meaning). */
#define WGMMA_PEAK_P_OUT 0                         /* u64  f32[grid]: one accumulator value per CTA */
#define WGMMA_PEAK_P_ITERS 8                       /* u32  loop trips */
#define WGMMA_PEAK_PARAM_BYTES 12                  /* WGMMA_PEAK_P_ITERS + 4 */

#endif
