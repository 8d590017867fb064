#include "graph_replay.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"

void assert_graph_replay_matches(graph_launch_fn launch, void *arg, size_t bytes, uint64_t seed) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  CUdeviceptr direct, replayed;
  CUstream stream;
  CUgraph graph;
  CUgraphExec exec;
  ck_assert_int_eq(cu->cuMemAlloc(&direct, bytes), CUDA_SUCCESS);
  ck_assert_int_eq(cu->cuMemAlloc(&replayed, bytes), CUDA_SUCCESS);
  ck_assert_int_eq(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  ck_assert_int_eq(launch(arg, direct, stream), NVFP4_STATUS_SUCCESS);
  ck_assert_int_eq(cu->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), CUDA_SUCCESS);
  ck_assert_int_eq(launch(arg, replayed, stream), NVFP4_STATUS_SUCCESS);
  ck_assert_int_eq(cu->cuStreamEndCapture(stream, &graph), CUDA_SUCCESS);
  ck_assert_int_eq(cu->cuGraphInstantiateWithFlags(&exec, graph, 0), CUDA_SUCCESS);
  uint8_t *want = malloc(bytes), *got = malloc(bytes);
  ck_assert(want != NULL && got != NULL);
  for (int replay = 0; replay < 3; replay++) {
    /* on the stream itself: a non-blocking stream does not wait for a memset on the legacy stream */
    ck_assert_int_eq(cu->cuMemsetD8Async(replayed, 0xFF, bytes, stream), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuGraphLaunch(exec, stream), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuStreamSynchronize(stream), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuMemcpyDtoH(want, direct, bytes), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuMemcpyDtoH(got, replayed, bytes), CUDA_SUCCESS);
    ck_assert_msg(memcmp(want, got, bytes) == 0, "replay %d differs from the direct launch (seed %llu, "
                  "NVFP4_TEST_SEED=%llu)", replay, (unsigned long long)seed, (unsigned long long)gpu_run_seed());
  }
  free(want);
  free(got);
  cu->cuGraphExecDestroy(exec);
  cu->cuGraphDestroy(graph);
  cu->cuStreamDestroy(stream);
  cu->cuMemFree(direct);
  cu->cuMemFree(replayed);
}
