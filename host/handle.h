/* The handle: one CUDA context, the loaded module and every kernel, fixed at nvfp4_create; one option. */
#ifndef NVFP4_HOST_HANDLE_H
#define NVFP4_HOST_HANDLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "cuda_driver.h"
#include "kernels.h"

typedef struct nvfp4i_kernel {
  CUfunction fn;      /* NULL: the image (or the path) has no such entry */
  int threads;        /* per CTA, as the handle's path launches it (the kernel table's) */
  int max_dynamic_smem; /* bytes it may be launched with: the table's, within what the device allows a block */
  int registers;      /* per thread, as loaded */
  int local_bytes;    /* per thread; non-zero means spills */
  int static_smem;    /* bytes */
  int blocks_per_sm;  /* resident CTAs per SM at the kernel's launch block size, registers permitting */
  int ptx_arch;       /* the virtual architecture its code was built for (80: sm_80 PTX, 90: sm_90 or sm_90a) */
} nvfp4i_kernel;

/* The last grouped GEMM plan (host/grouped_gemm.c's plan_call: the W4A16 entry, token tile, K slices) and the
 * shape of the call it was made for: a call of the same shape takes it instead of planning again (the plan is
 * most of a small call's host time, and a model calls the same shapes step after step). Calls on several
 * threads share a handle, so it has a lock of its own. */
#define NVFP4I_PLAN_MEMO_GROUPS 256 /* calls with more groups plan every time */
#define NVFP4I_PLAN_MEMO_KEYS 8
typedef struct nvfp4i_plan_memo {
  pthread_mutex_t lock;
  int valid;
  uint32_t key[NVFP4I_PLAN_MEMO_KEYS];        /* the call's scalars the plan reads (grouped_gemm.c) */
  int64_t shape[NVFP4I_PLAN_MEMO_GROUPS][3];   /* per group: M, N, K, all 0 for a group without work */
  int64_t cap;                                 /* the plan */
  uint32_t slices;
  int fixed_width;
  int tail_group;                              /* the last round's split (grouped_gemm.c's gg_call) */
  int64_t tail_n0;
  uint32_t tail_per;
} nvfp4i_plan_memo;

struct nvfp4_handle {
  CUcontext ctx;
  CUdevice device;
  int retained_primary; /* ctx is device 0's primary context, retained by nvfp4_create */
  int sm_count;
  int cc_major, cc_minor;
  int smem_per_sm;        /* shared memory of a multiprocessor, bytes */
  int smem_per_block;     /* the most a block may opt into, bytes */
  /* The kernels it runs: sm_90a's on compute capability 9.0, the portable ones on every other GPU and, with
   * NVFP4_FORCE_PORTABLE=1 at nvfp4_create, on 9.0 too (module.c) */
  nvfp4i_path path;
  int forced_portable;    /* NVFP4_FORCE_PORTABLE=1 chose the portable path on a GPU that has sm_90a's */
  int jit;                /* the driver compiled the image's PTX at load (no cubin of it fits this GPU) */
  /* The loaded kernels wait in griddepcontrol.wait for the grid before them (built for sm_90 or newer: sm_90a's,
   * and the portable ones where the driver JIT-compiled their sm_90 PTX), so their launches may let them start
   * early (programmatic dependent launch, launch.c); the sm_80 code of the portable image has no griddepcontrol */
  int kernels_wait;
  double module_load_ms;  /* cuModuleLoadData's time, JIT included (the driver caches JIT results on disk) */
  char image_source[256]; /* "embedded" or the NVFP4_FATBIN path */
  CUmodule module;
  nvfp4i_kernel kernels[NVFP4I_KERNEL_COUNT];
  /* Scratch memory in stream order (cuMemAllocFromPoolAsync / cuMemFreeAsync: capturable, safe on any stream
   * and thread), kept by the pool between calls. NULL where the device has no memory pools: the calls that
   * would use scratch take their path without it. */
  CUmemoryPool scratch_pool;
  /* NVFP4_GROUPED_FUSED=1 at nvfp4_create: nvfp4_grouped_gemm runs its fused kernel, no scratch */
  int grouped_fused;
  /* NVFP4_SPLIT_K=n at nvfp4_create (n >= 1): grouped GEMMs that may split K (see host/grouped_gemm.c) use n
   * slices instead of the model's choice; 0: the model decides. For measuring the model against the GPU. */
  int split_k;
  /* NVFP4_TILE_ROWS=t at nvfp4_create (a multiple of 32 up to 256): on sm_90a, grouped GEMMs use the W4A16
   * entry of t-row token tiles instead of the model's choice where the image has one (64, 128, 256, for B
   * tiles), else the entry of mixed widths; NVFP4_TILE_ROWS=mixed (-1 here): the entry of mixed widths; 0: the
   * model decides. For measuring the model and testing every entry. */
  int tile_rows;
  /* 0 where NVFP4_SPLIT_LAST_ROUND=0 at nvfp4_create: grouped GEMMs never split the last round of their tiles
   * along K (host/grouped_gemm.c, plan_last_round); 1: the model decides. For measuring the split. */
  int split_last_round;
  /* NVFP4_W4A16_IN_PLACE=1 at nvfp4_create: on sm_90a, nvfp4_grouped_gemm_w4a16 reads the activations where
   * they are (the f16 and bf16 entries) instead of copying them into B tiles in scratch first (the *_tiles
   * entries, the default with a scratch pool). For measuring both ways and testing the in-place entries. */
  int w4a16_in_place;
  /* nvfp4_set_weights_stable's option, 0 or 1: an option that changes after nvfp4_create, so atomic; a call
   * reads it once (nvfp4i_weights_stable) */
  atomic_int weights_stable;
  /* the other field that changes after nvfp4_create, under its lock */
  nvfp4i_plan_memo plan_memo;
};

/* The handle's weights-stable option as a call reads it: once, whatever another thread sets meanwhile. */
static inline int nvfp4i_weights_stable(const nvfp4_handle *h) {
  return atomic_load_explicit(&h->weights_stable, memory_order_relaxed);
}

/* Makes h->ctx current on this thread if it is not; *pushed says whether nvfp4i_context_leave must pop. */
nvfp4_status nvfp4i_context_enter(const nvfp4_handle *h, int *pushed);
void nvfp4i_context_leave(int pushed);

#endif
