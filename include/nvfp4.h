/*
 * nvfp4.h - NVFP4 (FP4 E2M1 values, one FP8 E4M3 scale per 16 elements along K) kernels for
 * NVIDIA GPUs: batched GEMV and grouped GEMM with f32 accumulation.
 *
 * All operands live in device memory; every call is asynchronous on the given stream, performs no
 * host-device synchronisation and no allocation, and can be captured in a CUDA graph. A handle is
 * immutable after nvfp4_create(), so one handle may be used from several host threads at once.
 *
 * On any error nothing is launched, no output byte is written, and nvfp4_last_error() holds a
 * message naming the offending field (thread-local, valid until the next call on this thread).
 *
 * Environment (read once, at nvfp4_create):
 *   NVFP4_FATBIN=path   load this .fatbin / .cubin / .ptx instead of the embedded kernels (tuning)
 *   NVFP4_LIBCUDA=path  open this driver library instead of libcuda.so.1 (read once per process)
 *
 * Call order: nvfp4_create() on a thread whose current CUDA context is the one to use (or with none,
 * to use device 0's primary context); then any number of operations; then nvfp4_destroy().
 */
#ifndef NVFP4_H
#define NVFP4_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NVFP4_VERSION_MAJOR 0
#define NVFP4_VERSION_MINOR 1
#define NVFP4_VERSION_PATCH 0
#define NVFP4_VERSION_NUMBER \
  (NVFP4_VERSION_MAJOR * 10000 + NVFP4_VERSION_MINOR * 100 + NVFP4_VERSION_PATCH)

#if defined(_WIN32)
#define NVFP4_API
#else
#define NVFP4_API __attribute__((visibility("default")))
#endif

/* The driver's stream type, so that this header needs no CUDA header. cudaStream_t converts to it. */
#ifndef __cuda_cuda_h__
typedef struct CUstream_st *CUstream;
#endif

typedef enum nvfp4_status {
  NVFP4_STATUS_SUCCESS = 0,
  NVFP4_STATUS_INVALID_VALUE = 1, /* NULL where a pointer is needed, negative/zero size, stride too small, bad enum */
  NVFP4_STATUS_NOT_SUPPORTED = 2, /* valid request this build or device cannot serve (see nvfp4_last_error) */
  NVFP4_STATUS_NO_DRIVER = 3,     /* libcuda could not be loaded */
  NVFP4_STATUS_NO_DEVICE = 4,     /* no usable GPU / no context */
  NVFP4_STATUS_CUDA_ERROR = 5,    /* a driver call failed; nvfp4_last_error() has the driver's name and string */
  NVFP4_STATUS_OUT_OF_MEMORY = 6,
} nvfp4_status;

/* Encoded as NVFP4_VERSION_NUMBER; compare with the macro to detect a header/library mismatch. */
NVFP4_API unsigned nvfp4_version(void);

/* Static string naming the status, never NULL (unknown values give "unknown status"). */
NVFP4_API const char *nvfp4_status_string(nvfp4_status s);

/* Thread-local detail of the last failure on this thread ("" when none). */
NVFP4_API const char *nvfp4_last_error(void);

typedef struct nvfp4_handle nvfp4_handle; /* opaque */

/* Binds to the calling thread's current CUDA context, or retains device 0's primary context if there is
 * none. Loads every kernel up front. *out is set to NULL on failure. */
NVFP4_API nvfp4_status nvfp4_create(nvfp4_handle **out);

/* Releases the handle's module (and the primary context it retained, if any). NULL is a no-op. The caller
 * makes sure no work launched through the handle is still running. */
NVFP4_API nvfp4_status nvfp4_destroy(nvfp4_handle *h);

typedef enum nvfp4_sf_layout {
  NVFP4_SF_LINEAR = 0,       /* scale of (row r, block j) at byte r*sf_ld + j */
  NVFP4_SF_BLOCKED_128x4 = 1 /* cuBLAS/tcgen05 128x4 tiles: rows padded to 128, blocks to 4 (see SPEC) */
} nvfp4_sf_layout;

typedef enum nvfp4_dtype { NVFP4_DTYPE_F16 = 0, NVFP4_DTYPE_BF16 = 1, NVFP4_DTYPE_F32 = 2 } nvfp4_dtype;

typedef struct nvfp4_tensor { /* an NVFP4 operand: rows x k logical elements per batch, K-major */
  const void *data;           /* device pointer to packed e2m1, even k in the low nibble */
  const void *scales;         /* device pointer to e4m3 block scales */
  int64_t rows, k, batch;     /* batch >= 1 */
  int64_t ld;                 /* bytes between consecutive rows of data, >= k/2 */
  int64_t batch_stride;       /* bytes between consecutive batches of data */
  int64_t sf_ld;              /* LINEAR: bytes between rows of scales, >= k/16; ignored for BLOCKED */
  int64_t sf_batch_stride;    /* bytes between consecutive batches of scales */
  nvfp4_sf_layout sf_layout;
} nvfp4_tensor;

typedef struct nvfp4_output { /* a dense output: rows x cols per batch */
  void *data;                 /* device pointer */
  int64_t ld;                 /* elements between consecutive rows */
  int64_t batch_stride;       /* elements between consecutive batches */
  nvfp4_dtype dtype;          /* F16 or BF16 (F32 allowed where noted) */
} nvfp4_output;

/* y (M x 1 per batch, ld = distance between consecutive m) = alpha * A x, for every batch.
 * a->batch == x->batch, x->rows == 1, a->k == x->k, K a multiple of 32. Output F16, BF16 or F32. */
NVFP4_API nvfp4_status nvfp4_gemv(nvfp4_handle *h, const nvfp4_tensor *a, const nvfp4_tensor *x,
                                  const nvfp4_output *y, float alpha, CUstream stream);

/* For g in [0, num_groups): c[g] (a[g].rows x b[g].rows) = alpha * a[g] * b[g]^T. The arrays live in host
 * memory; each group has batch 1. A group with a[g].rows == 0 or b[g].rows == 0 is valid and skipped. */
NVFP4_API nvfp4_status nvfp4_grouped_gemm(nvfp4_handle *h, int num_groups, const nvfp4_tensor *a,
                                          const nvfp4_tensor *b, const nvfp4_output *c, float alpha,
                                          CUstream stream);

#ifdef __cplusplus
}
#endif

#endif /* NVFP4_H */
