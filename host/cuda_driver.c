/* dlopen("libcuda.so.1") + cuGetProcAddress into one function table, under pthread_once. */
#include "cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"

static nvfp4i_cuda_table table;
static nvfp4_status load_status;
static char load_message[256];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load_driver(void) {
  const char *path = getenv("NVFP4_LIBCUDA");
  if (path == NULL || path[0] == '\0') path = "libcuda.so.1";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    load_status = NVFP4_STATUS_NO_DRIVER;
    const char *why = dlerror();
    snprintf(load_message, sizeof load_message, "cannot open the CUDA driver library %s: %s", path,
             why ? why : "not found");
    return;
  }
  PFN_cuGetProcAddress_v12000 get_proc = (PFN_cuGetProcAddress_v12000)dlsym(lib, "cuGetProcAddress_v2");
  if (get_proc == NULL) {
    load_status = NVFP4_STATUS_NO_DRIVER;
    snprintf(load_message, sizeof load_message,
             "%s has no cuGetProcAddress_v2: a driver for CUDA 12.0 or newer is needed", path);
    return;
  }
#define NVFP4_CUDA_RESOLVE(name, type, version)                                                    \
  {                                                                                                \
    void *fn = NULL;                                                                               \
    CUdriverProcAddressQueryResult found;                                                          \
    if (get_proc(#name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS ||      \
        found != CU_GET_PROC_ADDRESS_SUCCESS || fn == NULL) {                                      \
      load_status = NVFP4_STATUS_NO_DRIVER;                                                        \
      snprintf(load_message, sizeof load_message, "the CUDA driver %s lacks %s (ABI %d)", path,    \
               #name, version);                                                                    \
      return;                                                                                      \
    }                                                                                              \
    table.name = (type)fn;                                                                         \
  }
  NVFP4_CUDA_FUNCTIONS(NVFP4_CUDA_RESOLVE)
#undef NVFP4_CUDA_RESOLVE
  CUresult init = table.cuInit(0);
  if (init != CUDA_SUCCESS) {
    const char *name = NULL;
    table.cuGetErrorName(init, &name);
    load_status = NVFP4_STATUS_NO_DEVICE;
    snprintf(load_message, sizeof load_message, "cuInit failed: %s", name ? name : "unknown error");
    return;
  }
  load_status = NVFP4_STATUS_SUCCESS;
}

nvfp4_status nvfp4i_cuda_load(void) {
  pthread_once(&load_once, load_driver);
  if (load_status != NVFP4_STATUS_SUCCESS) return nvfp4i_fail(load_status, "%s", load_message);
  return NVFP4_STATUS_SUCCESS;
}

const nvfp4i_cuda_table *nvfp4i_cuda(void) { return &table; }

nvfp4_status nvfp4i_cuda_fail(CUresult result, const char *what) {
  const char *name = NULL, *text = NULL;
  table.cuGetErrorName(result, &name);
  table.cuGetErrorString(result, &text);
  return nvfp4i_fail(result == CUDA_ERROR_OUT_OF_MEMORY ? NVFP4_STATUS_OUT_OF_MEMORY : NVFP4_STATUS_CUDA_ERROR,
                     "%s: %s (%s)", what, name ? name : "unknown CUresult", text ? text : "no description");
}
