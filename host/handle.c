/* nvfp4_create / nvfp4_destroy: bind a context, load every kernel up front, release in reverse order; the
 * handle's one option, nvfp4_set_weights_stable. */
#include "handle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "module.h"

nvfp4_status nvfp4i_context_enter(const nvfp4_handle *h, int *pushed) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  CUcontext current = NULL;
  *pushed = 0;
  CUresult r = cu->cuCtxGetCurrent(&current);
  if (r != CUDA_SUCCESS) return nvfp4i_cuda_fail(r, "cuCtxGetCurrent");
  if (current == h->ctx) return NVFP4_STATUS_SUCCESS;
  r = cu->cuCtxPushCurrent(h->ctx);
  if (r != CUDA_SUCCESS) return nvfp4i_cuda_fail(r, "cuCtxPushCurrent");
  *pushed = 1;
  return NVFP4_STATUS_SUCCESS;
}

void nvfp4i_context_leave(int pushed) {
  CUcontext popped;
  if (pushed) nvfp4i_cuda()->cuCtxPopCurrent(&popped);
}

/* Chooses the context: the thread's current one, or device 0's primary context (retained). */
static nvfp4_status bind_context(nvfp4_handle *h) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  NVFP4_CU_TRY(cu->cuCtxGetCurrent(&h->ctx), status, out);
  if (h->ctx != NULL) {
    NVFP4_CU_TRY(cu->cuCtxGetDevice(&h->device), status, out);
    return NVFP4_STATUS_SUCCESS;
  }
  int count = 0;
  NVFP4_CU_TRY(cu->cuDeviceGetCount(&count), status, out);
  if (count == 0) return nvfp4i_fail(NVFP4_STATUS_NO_DEVICE, "no CUDA device is visible");
  NVFP4_CU_TRY(cu->cuDeviceGet(&h->device, 0), status, out);
  NVFP4_CU_TRY(cu->cuDevicePrimaryCtxRetain(&h->ctx, h->device), status, out);
  h->retained_primary = 1;
out:
  return status;
}

static nvfp4_status read_device_attributes(nvfp4_handle *h) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  NVFP4_CU_TRY(cu->cuDeviceGetAttribute(&h->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, h->device),
               status, out);
  NVFP4_CU_TRY(cu->cuDeviceGetAttribute(&h->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, h->device),
               status, out);
  NVFP4_CU_TRY(cu->cuDeviceGetAttribute(&h->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, h->device),
               status, out);
  NVFP4_CU_TRY(cu->cuDeviceGetAttribute(&h->smem_per_sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                                        h->device), status, out);
  NVFP4_CU_TRY(cu->cuDeviceGetAttribute(&h->smem_per_block, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                        h->device), status, out);
out:
  return status;
}

/* The scratch pool (see handle.h); its memory stays reserved between calls (release threshold: never), so a
 * call's scratch is a stream-ordered suballocation, not a device allocation, once the pool has grown. Not
 * having one is not an error. */
static void create_scratch_pool(nvfp4_handle *h) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  int supported = 0;
  if (cu->cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, h->device) != CUDA_SUCCESS ||
      !supported)
    return;
  CUmemPoolProps props = {.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
                          .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = h->device}};
  CUmemoryPool pool = NULL;
  if (cu->cuMemPoolCreate(&pool, &props) != CUDA_SUCCESS) return;
  cuuint64_t keep = UINT64_MAX;
  if (cu->cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep) != CUDA_SUCCESS) {
    cu->cuMemPoolDestroy(pool);
    return;
  }
  h->scratch_pool = pool;
}

NVFP4_API nvfp4_status nvfp4_create(nvfp4_handle **out) {
  nvfp4i_clear_error();
  if (out == NULL) return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "out is NULL");
  *out = NULL;
  nvfp4_status status = nvfp4i_cuda_load();
  if (status != NVFP4_STATUS_SUCCESS) return status;
  nvfp4_handle *h = calloc(1, sizeof *h);
  if (h == NULL) return nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "no host memory for a handle");
  if (pthread_mutex_init(&h->plan_memo.lock, NULL) != 0) {
    free(h);
    return nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "pthread_mutex_init failed (the grouped GEMM plan's lock)");
  }
  int pushed = 0;
  status = bind_context(h);
  if (status != NVFP4_STATUS_SUCCESS) goto free_handle;
  status = nvfp4i_context_enter(h, &pushed);
  if (status != NVFP4_STATUS_SUCCESS) goto release_context;
  status = read_device_attributes(h);
  if (status != NVFP4_STATUS_SUCCESS) goto leave_context;
  status = nvfp4i_module_load(h);
  if (status != NVFP4_STATUS_SUCCESS) goto leave_context;
  create_scratch_pool(h);
  const char *fused = getenv("NVFP4_GROUPED_FUSED");
  h->grouped_fused = fused != NULL && !strcmp(fused, "1");
  const char *split = getenv("NVFP4_SPLIT_K");
  h->split_k = split != NULL ? atoi(split) : 0;
  if (h->split_k < 0) h->split_k = 0;
  const char *rows = getenv("NVFP4_TILE_ROWS");
  h->tile_rows = rows != NULL ? atoi(rows) : 0;
  if (h->tile_rows % GG_T_GRAIN != 0 || h->tile_rows < 0 || h->tile_rows > GG_T_MAX) h->tile_rows = 0;
  if (rows != NULL && !strcmp(rows, "mixed")) h->tile_rows = -1;
  const char *last_round = getenv("NVFP4_SPLIT_LAST_ROUND");
  h->split_last_round = last_round == NULL || strcmp(last_round, "0") != 0;
  const char *in_place = getenv("NVFP4_W4A16_IN_PLACE");
  h->w4a16_in_place = in_place != NULL && !strcmp(in_place, "1");
  atomic_init(&h->weights_stable, 0);
  nvfp4i_context_leave(pushed);
  *out = h;
  return NVFP4_STATUS_SUCCESS;

leave_context:
  nvfp4i_context_leave(pushed);
release_context:
  if (h->retained_primary) nvfp4i_cuda()->cuDevicePrimaryCtxRelease(h->device);
free_handle:
  pthread_mutex_destroy(&h->plan_memo.lock);
  free(h);
  return status;
}

NVFP4_API nvfp4_status nvfp4_set_weights_stable(nvfp4_handle *h, int enable) {
  nvfp4i_clear_error();
  if (h == NULL) return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "h is NULL");
  if (enable != 0 && enable != 1)
    return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "enable = %d: must be 0 or 1", enable);
  atomic_store_explicit(&h->weights_stable, enable, memory_order_relaxed);
  return NVFP4_STATUS_SUCCESS;
}

NVFP4_API nvfp4_status nvfp4_destroy(nvfp4_handle *h) {
  nvfp4i_clear_error();
  if (h == NULL) return NVFP4_STATUS_SUCCESS;
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  int pushed = 0;
  nvfp4_status status = nvfp4i_context_enter(h, &pushed);
  if (status == NVFP4_STATUS_SUCCESS) {
    CUresult r = cu->cuModuleUnload(h->module);
    if (r != CUDA_SUCCESS) status = nvfp4i_cuda_fail(r, "cuModuleUnload");
    /* scratch still in flight is released when its frees complete */
    if (h->scratch_pool != NULL) {
      r = cu->cuMemPoolDestroy(h->scratch_pool);
      if (r != CUDA_SUCCESS && status == NVFP4_STATUS_SUCCESS) status = nvfp4i_cuda_fail(r, "cuMemPoolDestroy");
    }
    nvfp4i_context_leave(pushed);
  }
  if (h->retained_primary) cu->cuDevicePrimaryCtxRelease(h->device);
  pthread_mutex_destroy(&h->plan_memo.lock);
  free(h);
  return status;
}
