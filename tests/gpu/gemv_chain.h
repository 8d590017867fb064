/* Shared by the GEMV suites: chains of dependent GEMVs (issue 13). Step i reads what step i - 1 wrote and
 * writes what step i + 1 reads; the calls go out back to back, so that under programmatic dependent launch a
 * kernel starts while the one before it still runs, and a wait missing or misplaced in a kernel reads a
 * value not yet written (the poison, NaN, or another step's). Such a chain must equal, bit for bit, the same
 * chain run with a stream synchronise after every call, whose every step is checked against the float64
 * reference of SPEC section 4.
 *
 * The data: A (m x m, one batch, full range) and the slots, m f16 values each: slot 0 the chain's first
 * input (random activations), slot i + 1 the output y of step i. Every step's alpha is 1 / the root mean
 * square of its exact A x in the synchronised chain, so the values stay near 1 through 100 steps. */
#ifndef NVFP4_TESTS_GPU_GEMV_CHAIN_H
#define NVFP4_TESTS_GPU_GEMV_CHAIN_H

#include <stdint.h>

#include "cuda_driver.h"
#include "testdata.h"

typedef struct gpu_chain {
  nvfp4_handle *h;      /* a handle of its own: its weights-stable option touches no other test */
  CUstream stream;      /* non-blocking */
  int64_t m;            /* rows of A = K = elements of a slot */
  int steps;
  uint64_t seed;
  nvfp4i_rng rng;       /* what the chain's own data is drawn from, after A and slot 0 */
  nvfp4i_operand a;
  double *a_values;     /* A decoded, m x m row-major */
  CUdeviceptr slots;    /* steps + 1 slots */
  CUdeviceptr gate;     /* what gpu_chain_begin keeps the stream busy with */
  size_t gate_bytes;
  uint16_t *want;       /* every slot of the synchronised chain (host) */
  uint16_t *got;        /* every slot of a chain under test (host) */
  float *alpha;         /* step i's alpha */
  double *z, *s;        /* the step's exact A x and sum |A_rk x_k| per row r, alpha 1 */
} gpu_chain;

/* A chain of `steps` steps on an m x m A (scale layout `layout`), data drawn from `seed`; slot 0 uploaded,
 * the others poisoned. Fails the current test where it cannot be made. */
void gpu_chain_create(gpu_chain *c, int64_t m, int steps, nvfp4_sf_layout layout, uint64_t seed);
void gpu_chain_destroy(gpu_chain *c);

/* Slot i's device address. */
CUdeviceptr gpu_chain_slot(const gpu_chain *c, int i);

/* The synchronised chain, before step i: x (m doubles, the exact values the step's kernel reads) -> z, s and
 * alpha[i]. */
void gpu_chain_reference(gpu_chain *c, int i, const double *x);

/* The synchronised chain, after step i: waits for the stream, downloads slot i + 1 into want and fails the
 * current test unless every element meets the bar against alpha[i] * z (f16). */
void gpu_chain_check_step(gpu_chain *c, int i, const char *what);

/* A chain under test: slots 1.. poisoned, then the stream kept busy for a while (a memset of some GB) so
 * that the calls enqueued next reach the GPU queued back to back, as from a graph, whatever the host's pace. */
void gpu_chain_begin(gpu_chain *c);

/* ... and its end: waits for the stream, and fails the current test unless every slot equals the
 * synchronised chain's, naming `what`. */
void gpu_chain_end(gpu_chain *c, const char *what);

/* The GEMV of step i of a weights chain: reads c->a.dev and x (fixed), writes slot i + 1 with alpha[i]. */
typedef nvfp4_status (*gpu_chain_gemv)(const gpu_chain *c, const void *x, int i);

/* The default mode's chain (issue 13): the weights written by the kernel just before each GEMV. Step i
 * quantizes dense weights W_(i % 2) (f16, m x m, random, global scale 1) into A's one buffer, then `gemv`
 * reads A and x (x_values: x as the kernel reads it) into slot i + 1. The chain run with a synchronise after
 * every call must meet the reference on steps 0 and 1 (A downloaded and decoded after the quantize), repeat
 * steps 0 and 1 bit for bit on every later step, and give the two weight sets different outputs; the chain
 * back to back under programmatic dependent launch, weights-stable option off, must equal it bit for bit.
 * A GEMV that loaded any of A before the quantize before it ended would read the other set's weights. */
void gpu_weights_chain(gpu_chain *c, gpu_chain_gemv gemv, const void *x, const double *x_values,
                       const char *what);

#endif
