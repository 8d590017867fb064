/* Status codes and their strings, defined once; the thread-local message behind nvfp4_last_error(). */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

#define NVFP4_STATUS_MAP(X)                                  \
  X(NVFP4_STATUS_SUCCESS, "success")                         \
  X(NVFP4_STATUS_INVALID_VALUE, "invalid value")             \
  X(NVFP4_STATUS_NOT_SUPPORTED, "not supported")             \
  X(NVFP4_STATUS_NO_DRIVER, "CUDA driver library not found") \
  X(NVFP4_STATUS_NO_DEVICE, "no usable CUDA device")         \
  X(NVFP4_STATUS_CUDA_ERROR, "CUDA driver error")            \
  X(NVFP4_STATUS_OUT_OF_MEMORY, "out of memory")

static _Thread_local char last_error[512];

NVFP4_API const char *nvfp4_status_string(nvfp4_status s) {
  switch (s) {
#define NVFP4_STATUS_CASE(code, text) \
  case code:                          \
    return text;
    NVFP4_STATUS_MAP(NVFP4_STATUS_CASE)
#undef NVFP4_STATUS_CASE
  }
  return "unknown status";
}

NVFP4_API const char *nvfp4_last_error(void) { return last_error; }

NVFP4_API unsigned nvfp4_version(void) { return NVFP4_VERSION_NUMBER; }

nvfp4_status nvfp4i_fail(nvfp4_status status, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, args);
  va_end(args);
  return status;
}

void nvfp4i_clear_error(void) { last_error[0] = '\0'; }
