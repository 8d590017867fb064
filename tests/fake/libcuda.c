/*
 * A stand-in for libcuda.so.1 with no GPU behind it, so that tests run the library and the nvfp4 command
 * end to end on a machine without one (NVFP4_LIBCUDA=build/tests/libcuda_fake.so). One device (sm_90
 * unless FAKE_CUDA_CC says otherwise, 132 SMs, 60 MB of L2); device memory is host memory, copies and memsets are memcpy and memset, a launch
 * does nothing but count, an event records the host clock. Results are garbage: what it tests is that
 * every path runs, frees what it takes and exits as documented, and (fake_cuda_launches) whether a call
 * launched anything, and (fake_cuda_launch) the entry, the shape, the launch attributes and, for the GEMV's
 * and the grouped GEMM's entries, the grouped finish and the dequantize (single and grouped), quantize and
 * scale relayout entries, the parameter block of each of the last launches.
 *
 * FAKE_CUDA_MISSING=name,name: kernel images lack these entries (cuModuleGetFunction: not found).
 * FAKE_CUDA_CC=major.minor: the device's compute capability (default 9.0), with that GPU's shared memory
 * per multiprocessor and per block: what the library chooses its kernel path and launch shapes by.
 * FAKE_PTX_VERSION=n: every kernel's virtual architecture (CU_FUNC_ATTRIBUTE_PTX_VERSION; default 0).
 * FAKE_POOL_EXHAUSTED: every allocation from a memory pool fails with CUDA_ERROR_OUT_OF_MEMORY (with
 * FAKE_MEMORY_POOLS: a device whose pool cannot grow).
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "sm90a/dequantize_layout.h"
#include "sm90a/gemv_layout.h"
#include "sm90a/grouped_finish_layout.h"
#include "sm90a/grouped_gemm_layout.h"
#include "sm90a/quantize_layout.h"
#include "sm90a/scales_relayout_layout.h"

#define NVFP4_FAKE_STRINGIFY2(x) #x
#define NVFP4_FAKE_STRINGIFY(x) NVFP4_FAKE_STRINGIFY2(x)
#define FAKE_CONTEXT ((CUcontext)(uintptr_t)0x1000)
#define FAKE_MODULE ((CUmodule)(uintptr_t)0x2000)
#define FAKE_STREAM ((CUstream)(uintptr_t)0x3000)
#define FAKE_FREE_BYTES (16ull << 30)
#define HUGE_PAGE ((size_t)2 << 20)

static _Thread_local CUcontext current, pushed[8]; /* pushed: the contexts cuCtxPushCurrent replaced */
static _Thread_local int depth;
static long launches;
/* The last FAKE_KEPT launches, launch i in kept[i % FAKE_KEPT]: enough for a call's launches to be read back. */
enum { FAKE_KEPT = 4 };
enum { FAKE_KEPT_ATTRS = 4 };
static struct {
  const char *entry;
  CUlaunchConfig config; /* its attrs point to attrs below */
  CUlaunchAttribute attrs[FAKE_KEPT_ATTRS];
  unsigned char params[GG_PARAM_BYTES]; /* the parameter block of a kept entry (the largest: grouped GEMM's) */
} kept[FAKE_KEPT];
_Static_assert(GEMV_PARAM_BYTES <= GG_PARAM_BYTES, "kept[].params holds the GEMV parameter block");
_Static_assert(DEQ_PARAM_BYTES <= GG_PARAM_BYTES, "kept[].params holds the dequantize parameter block");
_Static_assert(GDQ_PARAM_BYTES <= GG_PARAM_BYTES, "kept[].params holds the grouped dequantize parameter block");
_Static_assert(QNT_PARAM_BYTES <= GG_PARAM_BYTES, "kept[].params holds the quantize parameter block");
_Static_assert(RLY_PARAM_BYTES <= GG_PARAM_BYTES, "kept[].params holds the scale relayout parameter block");
_Static_assert(GF_PARAM_BYTES <= GG_PARAM_BYTES, "kept[].params holds the grouped finish parameter block");

/* The size of the parameter block kept for an entry (its one .param), 0 for an entry whose block is not kept. */
static size_t kept_param_bytes(const char *entry) {
  if (strncmp(entry, "nvfp4_gemv_", strlen("nvfp4_gemv_")) == 0) return GEMV_PARAM_BYTES;
  if (strncmp(entry, "nvfp4_grouped_gemm_", strlen("nvfp4_grouped_gemm_")) == 0) return GG_PARAM_BYTES;
  /* each on both kernel paths: the sm_90a entry and the portable one take the same block */
  if (!strcmp(entry, NVFP4_FAKE_STRINGIFY(DEQ_ENTRY)) || !strcmp(entry, NVFP4_FAKE_STRINGIFY(DEQ_SM80_ENTRY)))
    return DEQ_PARAM_BYTES;
  if (!strcmp(entry, NVFP4_FAKE_STRINGIFY(GDQ_ENTRY)) || !strcmp(entry, NVFP4_FAKE_STRINGIFY(GDQ_SM80_ENTRY)))
    return GDQ_PARAM_BYTES;
  if (!strcmp(entry, NVFP4_FAKE_STRINGIFY(QNT_ENTRY)) || !strcmp(entry, NVFP4_FAKE_STRINGIFY(QNT_SM80_ENTRY)))
    return QNT_PARAM_BYTES;
  if (!strcmp(entry, NVFP4_FAKE_STRINGIFY(RLY_ENTRY)) || !strcmp(entry, NVFP4_FAKE_STRINGIFY(RLY_SM80_ENTRY)))
    return RLY_PARAM_BYTES;
  if (!strcmp(entry, NVFP4_FAKE_STRINGIFY(GF_ENTRY)) || !strcmp(entry, NVFP4_FAKE_STRINGIFY(GF_SM80_ENTRY)))
    return GF_PARAM_BYTES;
  return 0;
}

static CUresult fake_cuInit(unsigned int flags) { return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }

static CUresult fake_cuDriverGetVersion(int *version) {
  *version = 12080;
  return CUDA_SUCCESS;
}

static CUresult fake_cuGetErrorName(CUresult error, const char **name) {
  *name = error == CUDA_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}

static CUresult fake_cuGetErrorString(CUresult error, const char **text) {
  *text = error == CUDA_ERROR_OUT_OF_MEMORY ? "out of memory" : "an error of the fake driver";
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxGetCurrent(CUcontext *ctx) {
  *ctx = current;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxSetCurrent(CUcontext ctx) {
  current = ctx;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxGetDevice(CUdevice *device) {
  *device = 0;
  return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

static CUresult fake_cuCtxPushCurrent(CUcontext ctx) {
  if (depth == (int)(sizeof pushed / sizeof pushed[0])) return CUDA_ERROR_INVALID_VALUE;
  pushed[depth++] = current;
  current = ctx;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxPopCurrent(CUcontext *ctx) {
  if (depth == 0) return CUDA_ERROR_INVALID_CONTEXT;
  *ctx = current;
  current = pushed[--depth];
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxSynchronize(void) { return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT; }

static CUresult fake_cuDeviceGet(CUdevice *device, int ordinal) {
  *device = 0;
  return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static CUresult fake_cuDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}

/* FAKE_CUDA_CC's compute capability as major * 10 + minor (90 without it) */
static int fake_cc(void) {
  const char *cc = getenv("FAKE_CUDA_CC");
  int major, minor;
  return cc != NULL && sscanf(cc, "%d.%d", &major, &minor) == 2 ? major * 10 + minor : 90;
}

/* shared memory per multiprocessor in KB, as the CUDA programming guide's table gives it; a block may opt
 * into 1 KB less */
static int fake_smem_per_sm_kb(void) {
  switch (fake_cc()) {
    case 80: return 164;
    case 90: case 100: return 228;
    default: return 100; /* 8.6, 8.9, 12.0 */
  }
}

static CUresult fake_cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice device) {
  (void)device;
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = fake_cc() / 10; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = fake_cc() % 10; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *value = fake_smem_per_sm_kb() * 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = (fake_smem_per_sm_kb() - 1) * 1024; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = 60 << 20; break;
    /* off unless a test asks: the grouped GEMM's NVFP4 calls then take the fused kernel */
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: *value = getenv("FAKE_MEMORY_POOLS") != NULL; break;
    default: *value = 0;
  }
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetName(char *name, int length, CUdevice device) {
  (void)device;
  snprintf(name, (size_t)length, "fake device (no GPU)");
  return CUDA_SUCCESS;
}

static CUresult fake_cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice device) {
  (void)device;
  *ctx = FAKE_CONTEXT;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDevicePrimaryCtxRelease(CUdevice device) {
  (void)device;
  return CUDA_SUCCESS;
}

static CUresult fake_cuModuleLoadData(CUmodule *module, const void *image) {
  *module = FAKE_MODULE;
  return image ? CUDA_SUCCESS : CUDA_ERROR_INVALID_IMAGE;
}

static CUresult fake_cuModuleUnload(CUmodule module) {
  return module == FAKE_MODULE ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static int missing(const char *name) {
  const char *list = getenv("FAKE_CUDA_MISSING");
  size_t length = strlen(name);
  for (const char *p = list ? strstr(list, name) : NULL; p != NULL; p = strstr(p + 1, name))
    if ((p == list || p[-1] == ',') && (p[length] == '\0' || p[length] == ',')) return 1;
  return 0;
}

static CUresult fake_cuModuleGetFunction(CUfunction *fn, CUmodule module, const char *name) {
  (void)module;
  if (missing(name)) return CUDA_ERROR_NOT_FOUND;
  *fn = (CUfunction)(uintptr_t)name; /* any non-NULL handle */
  return CUDA_SUCCESS;
}

/* 128 registers; the virtual architecture FAKE_PTX_VERSION says (unset: 0, as a driver may say of old code) */
static CUresult fake_cuFuncGetAttribute(int *value, CUfunction_attribute attribute, CUfunction fn) {
  (void)fn;
  const char *ptx = getenv("FAKE_PTX_VERSION");
  *value = attribute == CU_FUNC_ATTRIBUTE_NUM_REGS     ? 128
           : attribute == CU_FUNC_ATTRIBUTE_PTX_VERSION ? (ptx != NULL ? atoi(ptx) : 0)
                                                        : 0;
  return CUDA_SUCCESS;
}

static CUresult fake_cuFuncSetAttribute(CUfunction fn, CUfunction_attribute attribute, int value) {
  (void)fn, (void)attribute, (void)value;
  return CUDA_SUCCESS;
}

/* every kernel's resident CTAs an SM by its registers: 2, or FAKE_BLOCKS_PER_SM */
static CUresult fake_cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction fn, int threads,
                                                                 size_t smem) {
  (void)fn, (void)threads, (void)smem;
  const char *env = getenv("FAKE_BLOCKS_PER_SM");
  *blocks = env != NULL ? atoi(env) : 2;
  return CUDA_SUCCESS;
}

static CUresult fake_cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction fn, void **params, void **extra) {
  (void)extra;
  if (config == NULL || fn == NULL || params == NULL || config->gridDimX == 0 || config->blockDimX == 0 ||
      config->numAttrs > FAKE_KEPT_ATTRS || (config->numAttrs > 0 && config->attrs == NULL))
    return CUDA_ERROR_INVALID_VALUE;
  /* a kernel handle is its entry name (fake_cuModuleGetFunction); the GEMV's entries (NVFP4 and W4A16)
   * share one parameter, the block of gemv_layout.h, the grouped GEMM's entries (NVFP4 and W4A16) one, the
   * block of grouped_gemm_layout.h, and the dequantize (single and grouped), quantize and relayout entries
   * have one each, the block of their layout header */
  const char *entry = (const char *)fn;
  size_t at = (size_t)(launches++ % FAKE_KEPT), bytes = kept_param_bytes(entry);
  kept[at].entry = entry;
  kept[at].config = *config;
  memset(kept[at].attrs, 0, sizeof kept[at].attrs);
  if (config->numAttrs > 0) memcpy(kept[at].attrs, config->attrs, config->numAttrs * sizeof config->attrs[0]);
  kept[at].config.attrs = kept[at].attrs;
  memset(kept[at].params, 0, GG_PARAM_BYTES);
  memcpy(kept[at].params, params[0], bytes);
  return CUDA_SUCCESS;
}

static CUresult fake_cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank,
                                            void *address, const cuuint64_t *dims, const cuuint64_t *strides,
                                            const cuuint32_t *box, const cuuint32_t *element_strides,
                                            CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                            CUtensorMapL2promotion promotion, CUtensorMapFloatOOBfill fill) {
  (void)type, (void)rank, (void)dims, (void)strides, (void)box, (void)element_strides, (void)interleave;
  (void)swizzle, (void)promotion, (void)fill;
  memset(map, 0, sizeof *map);
  return (uintptr_t)address % 16 == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Large allocations ask for huge pages: the benchmarks' gigabytes would otherwise spend seconds faulting in. */
static CUresult fake_cuMemAlloc(CUdeviceptr *p, size_t bytes) {
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : 256, size = (bytes + align - 1) / align * align;
  void *memory = aligned_alloc(align, size);
  if (memory != NULL && align == HUGE_PAGE) madvise(memory, size, MADV_HUGEPAGE);
  *p = (CUdeviceptr)(uintptr_t)memory;
  return memory ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult fake_cuMemFree(CUdeviceptr p) {
  free((void *)(uintptr_t)p);
  return CUDA_SUCCESS;
}

/* A memory pool: its allocations are host memory like cuMemAlloc's; a pool handle is a counter. */
static CUresult fake_cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props) {
  static long pools;
  if (props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED || props->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return CUDA_ERROR_INVALID_VALUE;
  *pool = (CUmemoryPool)(uintptr_t)++pools;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemPoolDestroy(CUmemoryPool pool) { return pool ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }

static CUresult fake_cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attribute, void *value) {
  (void)attribute;
  return pool && value ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult fake_cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t bytes, CUmemoryPool pool, CUstream stream) {
  (void)stream;
  if (!pool) return CUDA_ERROR_INVALID_VALUE;
  return getenv("FAKE_POOL_EXHAUSTED") ? CUDA_ERROR_OUT_OF_MEMORY : fake_cuMemAlloc(p, bytes);
}

static CUresult fake_cuMemFreeAsync(CUdeviceptr p, CUstream stream) {
  (void)stream;
  return fake_cuMemFree(p);
}

static CUresult fake_cuMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
  *free_bytes = *total_bytes = FAKE_FREE_BYTES;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  (void)stream;
  memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t bytes) {
  memset((void *)(uintptr_t)dst, value, bytes);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t bytes, CUstream stream) {
  (void)stream;
  return fake_cuMemsetD8(dst, value, bytes);
}

static CUresult fake_cuStreamCreate(CUstream *stream, unsigned int flags) {
  (void)flags;
  *stream = FAKE_STREAM;
  return CUDA_SUCCESS;
}

static CUresult fake_cuStream(CUstream stream) {
  (void)stream;
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode mode) {
  (void)stream, (void)mode;
  return CUDA_ERROR_NOT_SUPPORTED;
}

static CUresult fake_cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  (void)stream, (void)graph;
  return CUDA_ERROR_NOT_SUPPORTED;
}

static CUresult fake_cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph, unsigned long long flags) {
  (void)exec, (void)graph, (void)flags;
  return CUDA_ERROR_NOT_SUPPORTED;
}

static CUresult fake_cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  (void)exec, (void)stream;
  return CUDA_ERROR_NOT_SUPPORTED;
}

static CUresult fake_cuGraphExecDestroy(CUgraphExec exec) {
  (void)exec;
  return CUDA_ERROR_NOT_SUPPORTED;
}

static CUresult fake_cuGraphDestroy(CUgraph graph) {
  (void)graph;
  return CUDA_ERROR_NOT_SUPPORTED;
}

/* An event is a host time in milliseconds. */
static CUresult fake_cuEventCreate(CUevent *event, unsigned int flags) {
  (void)flags;
  *event = calloc(1, sizeof(double));
  return *event ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult fake_cuEventDestroy(CUevent event) {
  free(event);
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventRecord(CUevent event, CUstream stream) {
  (void)stream;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  *(double *)(void *)event = (double)now.tv_sec * 1e3 + (double)now.tv_nsec * 1e-6;
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventSynchronize(CUevent event) {
  (void)event;
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventElapsedTime(float *ms, CUevent start, CUevent stop) {
  *ms = (float)(*(double *)(void *)stop - *(double *)(void *)start) + 1e-3f; /* never 0 */
  return CUDA_SUCCESS;
}

static const struct {
  const char *name;
  void *fn;
} functions[] = {
#define FAKE(name) {#name, (void *)fake_##name}
    FAKE(cuInit), FAKE(cuDriverGetVersion), FAKE(cuGetErrorName), FAKE(cuGetErrorString), FAKE(cuCtxGetCurrent),
    FAKE(cuCtxSetCurrent), FAKE(cuCtxGetDevice), FAKE(cuCtxPushCurrent), FAKE(cuCtxPopCurrent),
    FAKE(cuCtxSynchronize), FAKE(cuDeviceGet), FAKE(cuDeviceGetCount), FAKE(cuDeviceGetAttribute),
    FAKE(cuDeviceGetName), FAKE(cuDevicePrimaryCtxRetain), FAKE(cuDevicePrimaryCtxRelease),
    FAKE(cuModuleLoadData), FAKE(cuModuleUnload), FAKE(cuModuleGetFunction), FAKE(cuFuncGetAttribute),
    FAKE(cuFuncSetAttribute), FAKE(cuOccupancyMaxActiveBlocksPerMultiprocessor), FAKE(cuLaunchKernelEx),
    FAKE(cuTensorMapEncodeTiled), FAKE(cuMemAlloc), FAKE(cuMemPoolCreate), FAKE(cuMemPoolDestroy),
    FAKE(cuMemPoolSetAttribute), FAKE(cuMemAllocFromPoolAsync), FAKE(cuMemFreeAsync), FAKE(cuMemFree), FAKE(cuMemGetInfo), FAKE(cuMemcpyHtoD),
    FAKE(cuMemcpyDtoH), FAKE(cuMemcpyDtoDAsync), FAKE(cuMemsetD8), FAKE(cuMemsetD8Async), FAKE(cuStreamCreate),
    {"cuStreamDestroy", (void *)fake_cuStream}, {"cuStreamSynchronize", (void *)fake_cuStream},
    FAKE(cuStreamBeginCapture), FAKE(cuStreamEndCapture), FAKE(cuGraphInstantiateWithFlags), FAKE(cuGraphLaunch),
    FAKE(cuGraphExecDestroy), FAKE(cuGraphDestroy), FAKE(cuEventCreate), FAKE(cuEventDestroy),
    FAKE(cuEventRecord), FAKE(cuEventSynchronize), FAKE(cuEventElapsedTime),
#undef FAKE
};

/* Kernel launches so far in this process (for a test: dlopen this library with RTLD_NOLOAD, dlsym this). */
__attribute__((visibility("default"))) long fake_cuda_launches(void) { return launches; }

/* Launch i of this process (0 the first), if it is one of the last FAKE_KEPT: its entry name and
 * configuration (its attrs a copy the driver keeps with it), and its parameter block for a kept entry (its block, zeros after; kept_param_bytes), else
 * zeros. NULL for any other i. */
__attribute__((visibility("default"))) const unsigned char *fake_cuda_launch(long i, const char **entry,
                                                                             CUlaunchConfig *config) {
  if (i < 0 || i >= launches || i < launches - FAKE_KEPT) return NULL;
  *entry = kept[i % FAKE_KEPT].entry;
  *config = kept[i % FAKE_KEPT].config;
  return kept[i % FAKE_KEPT].params;
}

__attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(const char *symbol, void **fn, int version,
                                                                    cuuint64_t flags,
                                                                    CUdriverProcAddressQueryResult *found) {
  (void)version, (void)flags;
  for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
    if (!strcmp(symbol, functions[i].name)) {
      *fn = functions[i].fn;
      *found = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  *fn = NULL;
  *found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
