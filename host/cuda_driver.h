/*
 * The CUDA driver API, opened at run time: the only place that touches libcuda's symbols, so the library
 * links and loads on a machine without a driver (and reports NVFP4_STATUS_NO_DRIVER there).
 *
 * Callers use nvfp4i_cuda()->cuXxx(...) after nvfp4i_cuda_load() returned SUCCESS. Each entry is resolved
 * through cuGetProcAddress at the ABI version named in the table, so a newer driver keeps the semantics
 * this library was written against.
 */
#ifndef NVFP4_HOST_CUDA_DRIVER_H
#define NVFP4_HOST_CUDA_DRIVER_H

#include <cuda.h>
#include <cudaTypedefs.h>

#include "nvfp4.h"

/* X(field name = driver symbol, PFN typedef, ABI version requested) */
#define NVFP4_CUDA_FUNCTIONS(X)                                        \
  X(cuInit, PFN_cuInit_v2000, 2000)                                    \
  X(cuDriverGetVersion, PFN_cuDriverGetVersion_v2020, 2020)            \
  X(cuGetErrorName, PFN_cuGetErrorName_v6000, 6000)                    \
  X(cuGetErrorString, PFN_cuGetErrorString_v6000, 6000)                \
  X(cuCtxGetCurrent, PFN_cuCtxGetCurrent_v4000, 4000)                  \
  X(cuCtxSetCurrent, PFN_cuCtxSetCurrent_v4000, 4000)                  \
  X(cuCtxGetDevice, PFN_cuCtxGetDevice_v2000, 2000)                    \
  X(cuCtxPushCurrent, PFN_cuCtxPushCurrent_v4000, 4000)                \
  X(cuCtxPopCurrent, PFN_cuCtxPopCurrent_v4000, 4000)                  \
  X(cuCtxSynchronize, PFN_cuCtxSynchronize_v2000, 2000)                \
  X(cuDeviceGet, PFN_cuDeviceGet_v2000, 2000)                          \
  X(cuDeviceGetCount, PFN_cuDeviceGetCount_v2000, 2000)                \
  X(cuDeviceGetAttribute, PFN_cuDeviceGetAttribute_v2000, 2000)        \
  X(cuDeviceGetName, PFN_cuDeviceGetName_v2000, 2000)                  \
  X(cuDevicePrimaryCtxRetain, PFN_cuDevicePrimaryCtxRetain_v7000, 7000) \
  X(cuDevicePrimaryCtxRelease, PFN_cuDevicePrimaryCtxRelease_v11000, 11000) \
  X(cuModuleLoadData, PFN_cuModuleLoadData_v2000, 2000)                \
  X(cuModuleUnload, PFN_cuModuleUnload_v2000, 2000)                    \
  X(cuModuleGetFunction, PFN_cuModuleGetFunction_v2000, 2000)          \
  X(cuFuncGetAttribute, PFN_cuFuncGetAttribute_v2020, 2020)            \
  X(cuFuncSetAttribute, PFN_cuFuncSetAttribute_v9000, 9000)            \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050, 6050) \
  X(cuLaunchKernelEx, PFN_cuLaunchKernelEx_v11060, 11060)              \
  X(cuTensorMapEncodeTiled, PFN_cuTensorMapEncodeTiled_v12000, 12000)  \
  X(cuMemAlloc, PFN_cuMemAlloc_v3020, 3020)                            \
  X(cuMemPoolCreate, PFN_cuMemPoolCreate_v11020, 11020)                \
  X(cuMemPoolDestroy, PFN_cuMemPoolDestroy_v11020, 11020)              \
  X(cuMemPoolSetAttribute, PFN_cuMemPoolSetAttribute_v11020, 11020)    \
  X(cuMemAllocFromPoolAsync, PFN_cuMemAllocFromPoolAsync_v11020, 11020) \
  X(cuMemFreeAsync, PFN_cuMemFreeAsync_v11020, 11020)                  \
  X(cuMemFree, PFN_cuMemFree_v3020, 3020)                              \
  X(cuMemGetInfo, PFN_cuMemGetInfo_v3020, 3020)                        \
  X(cuMemcpyHtoD, PFN_cuMemcpyHtoD_v3020, 3020)                        \
  X(cuMemcpyDtoH, PFN_cuMemcpyDtoH_v3020, 3020)                        \
  X(cuMemcpyDtoDAsync, PFN_cuMemcpyDtoDAsync_v3020, 3020)              \
  X(cuMemsetD8, PFN_cuMemsetD8_v3020, 3020)                            \
  X(cuMemsetD8Async, PFN_cuMemsetD8Async_v3020, 3020)                  \
  X(cuStreamCreate, PFN_cuStreamCreate_v2000, 2000)                    \
  X(cuStreamDestroy, PFN_cuStreamDestroy_v4000, 4000)                  \
  X(cuStreamSynchronize, PFN_cuStreamSynchronize_v2000, 2000)          \
  X(cuStreamBeginCapture, PFN_cuStreamBeginCapture_v10010, 10010)      \
  X(cuStreamEndCapture, PFN_cuStreamEndCapture_v10000, 10000)          \
  X(cuGraphInstantiateWithFlags, PFN_cuGraphInstantiateWithFlags_v11040, 11040) \
  X(cuGraphLaunch, PFN_cuGraphLaunch_v10000, 10000)                    \
  X(cuGraphExecDestroy, PFN_cuGraphExecDestroy_v10000, 10000)          \
  X(cuGraphDestroy, PFN_cuGraphDestroy_v10000, 10000)                  \
  X(cuEventCreate, PFN_cuEventCreate_v2000, 2000)                      \
  X(cuEventDestroy, PFN_cuEventDestroy_v4000, 4000)                    \
  X(cuEventRecord, PFN_cuEventRecord_v2000, 2000)                      \
  X(cuEventSynchronize, PFN_cuEventSynchronize_v2000, 2000)            \
  X(cuEventElapsedTime, PFN_cuEventElapsedTime_v2000, 2000)

typedef struct nvfp4i_cuda_table {
#define NVFP4_CUDA_FIELD(name, type, version) type name;
  NVFP4_CUDA_FUNCTIONS(NVFP4_CUDA_FIELD)
#undef NVFP4_CUDA_FIELD
} nvfp4i_cuda_table;

/* Opens the driver (once per process; later calls return the first outcome) and calls cuInit(0).
 * NO_DRIVER when the library or one of its symbols is missing, NO_DEVICE when cuInit fails. */
nvfp4_status nvfp4i_cuda_load(void);

/* The resolved table; only valid after nvfp4i_cuda_load() returned SUCCESS. */
const nvfp4i_cuda_table *nvfp4i_cuda(void);

/* Maps a failed driver call to NVFP4_STATUS_CUDA_ERROR (OUT_OF_MEMORY for CUDA_ERROR_OUT_OF_MEMORY) and
 * records "<what>: <CU_ERROR_NAME> (<driver's description>)" as the last error. */
nvfp4_status nvfp4i_cuda_fail(CUresult result, const char *what);

/* On a failed driver call: records the error into `status` and jumps to `label` (the cleanup it undoes). */
#define NVFP4_CU_TRY(call, status, label)                    \
  do {                                                       \
    CUresult cu_try_result_ = (call);                        \
    if (cu_try_result_ != CUDA_SUCCESS) {                    \
      (status) = nvfp4i_cuda_fail(cu_try_result_, #call);    \
      goto label;                                            \
    }                                                        \
  } while (0)

#endif
