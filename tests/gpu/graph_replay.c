#include "graph_replay.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"

enum { POISON = 0xFF };

/* Both entries: check NULL leaves the direct buffer as allocated, so that a launch that writes nothing
 * differs from the poisoned replays. */
static void replay_and_compare(graph_launch_fn launch, graph_check_fn check, void *arg, size_t bytes, uint64_t seed) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  CUdeviceptr direct, replayed;
  CUstream stream;
  CUgraph graph;
  CUgraphExec exec;
  ck_assert_int_eq(cu->cuMemAlloc(&direct, bytes), CUDA_SUCCESS);
  ck_assert_int_eq(cu->cuMemAlloc(&replayed, bytes), CUDA_SUCCESS);
  ck_assert_int_eq(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  /* poisoned on the stream itself: a non-blocking stream does not wait for the legacy stream's memsets */
  if (check != NULL) ck_assert_int_eq(cu->cuMemsetD8Async(direct, POISON, bytes, stream), CUDA_SUCCESS);
  ck_assert_int_eq(launch(arg, direct, stream), NVFP4_STATUS_SUCCESS);
  ck_assert_int_eq(cu->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), CUDA_SUCCESS);
  ck_assert_int_eq(launch(arg, replayed, stream), NVFP4_STATUS_SUCCESS);
  ck_assert_int_eq(cu->cuStreamEndCapture(stream, &graph), CUDA_SUCCESS);
  ck_assert_int_eq(cu->cuGraphInstantiateWithFlags(&exec, graph, 0), CUDA_SUCCESS);
  uint8_t *want = malloc(bytes), *got = malloc(bytes);
  ck_assert(want != NULL && got != NULL);
  for (int replay = 0; replay < 3; replay++) {
    ck_assert_int_eq(cu->cuMemsetD8Async(replayed, POISON, bytes, stream), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuGraphLaunch(exec, stream), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuStreamSynchronize(stream), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuMemcpyDtoH(want, direct, bytes), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuMemcpyDtoH(got, replayed, bytes), CUDA_SUCCESS);
    ck_assert_msg(memcmp(want, got, bytes) == 0, "replay %d differs from the direct launch (seed %llu, "
                  "NVFP4_TEST_SEED=%llu)", replay, (unsigned long long)seed, (unsigned long long)gpu_run_seed());
    if (check != NULL) check(arg, got, bytes);
  }
  free(want);
  free(got);
  cu->cuGraphExecDestroy(exec);
  cu->cuGraphDestroy(graph);
  cu->cuStreamDestroy(stream);
  cu->cuMemFree(direct);
  cu->cuMemFree(replayed);
}

void assert_graph_replay_matches(graph_launch_fn launch, void *arg, size_t bytes, uint64_t seed) {
  replay_and_compare(launch, NULL, arg, bytes, seed);
}

void assert_graph_replay_checked(graph_launch_fn launch, graph_check_fn check, void *arg, size_t bytes,
                                 uint64_t seed) {
  replay_and_compare(launch, check, arg, bytes, seed);
}
