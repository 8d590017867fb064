/* Shared by the GPU suites: a call captured in a CUDA graph and replayed gives the bits of a direct call. */
#ifndef NVFP4_TESTS_GPU_GRAPH_REPLAY_H
#define NVFP4_TESTS_GPU_GRAPH_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_driver.h"

/* Launches the operation under test on `stream`, writing its output at `out`. */
typedef nvfp4_status (*graph_launch_fn)(void *arg, CUdeviceptr out, CUstream stream);

/* Runs launch once directly into one buffer and once captured into a graph writing another, then replays
 * the graph three times over a poisoned buffer; fails the current test unless every replay matches the
 * direct output byte for byte. `bytes` is the output size; `seed` made the data (named with a failure). */
void assert_graph_replay_matches(graph_launch_fn launch, void *arg, size_t bytes, uint64_t seed);

/* Fails the current test unless `out`, a host copy of the `bytes` the operation wrote into a buffer whose
 * every byte was 0xFF, holds exactly what the operation must leave there. */
typedef void (*graph_check_fn)(void *arg, const uint8_t *out, size_t bytes);

/* The same with both buffers poisoned 0xFF before their launches, and every replay also checked: for an
 * output that leaves bytes unwritten (gaps, padding), or that must be checked against a reference. */
void assert_graph_replay_checked(graph_launch_fn launch, graph_check_fn check, void *arg, size_t bytes,
                                 uint64_t seed);

#endif
