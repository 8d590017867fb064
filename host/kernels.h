/* The kernel table: the library's entry points, by the name the PTX declares, for each kernel path. A handle
 * runs one path (handle.h: sm_90a on compute capability 9.0, the portable one elsewhere or when forced), and
 * the path may lack a kernel (no portable kernel written yet, or an NVFP4_FATBIN of one kernel family): an
 * operation whose kernel is missing returns NOT_SUPPORTED, saying so, and launches nothing. */
#ifndef NVFP4_HOST_KERNELS_H
#define NVFP4_HOST_KERNELS_H

#include "sm90a/dequantize_layout.h"
#include "sm90a/gemv_layout.h"
#include "sm90a/grouped_finish_layout.h"
#include "sm90a/grouped_gemm_layout.h"
#include "sm90a/quantize_layout.h"
#include "sm90a/scales_relayout_layout.h"
#include "sm80/grouped_gemm_w4a16_layout.h"

#define NVFP4I_STRINGIFY2(x) #x
#define NVFP4I_STRINGIFY(x) NVFP4I_STRINGIFY2(x) /* a layout header's entry name as a C string */
#define NVFP4I_NAME(x) NVFP4I_STRINGIFY(x)
#define NVFP4I_NONE NULL /* the path has no such kernel yet */

/* The kernel paths, each an image of its own (host/module.c): sm_90a's, and the portable one (ptx/sm80:
 * cubins for sm_80, sm_86, sm_89 and the same sources' sm_90 PTX, ptx/sm90, which the driver JIT-compiles on
 * newer GPUs). */
typedef enum nvfp4i_path { NVFP4I_PATH_SM90A, NVFP4I_PATH_PORTABLE, NVFP4I_PATH_COUNT } nvfp4i_path;

/* The W4A16 grouped GEMM has four families of entries: f16 and bf16 activations read in place (weights in
 * natural K order), and f16_tiles and bf16_tiles, which read activations from B tiles (NVFP4 ones dequantized
 * there, dense ones copied) and decode the weights in their K order (dequantize_layout.h). Each has an entry
 * of mixed widths, which names the portable path's entry of the family too; on sm_90a the tiles families also
 * have one per token tile width of gw_entry_widths (GW_ENTRY_NAME of grouped_gemm_layout.h: one width per
 * function is what lets its decode overlap its wgmmas; ptx/sm90a/grouped_gemm_w4a16_widths.inc says which). */
#define NVFP4_W4A16_WIDTH(X, type, TYPE, what, t)                                                         \
  X(NVFP4I_KERNEL_GROUPED_GEMM_W4A16_##TYPE##_T##t, "grouped GEMM (" what ", " #t "-row tiles)",          \
    NVFP4I_NAME(GW_ENTRY_NAME(type, t)), NVFP4I_NONE, GG_THREADS, GG_SMEM_LIMIT, 0, 0)
/* A family's entry of mixed widths (the portable path's entry, threads and shared memory beside it, or
 * NVFP4I_NONE, 0, 0) */
#define NVFP4_W4A16_MIXED(X, type, TYPE, what, portable, pthreads, psmem)                                 \
  X(NVFP4I_KERNEL_GROUPED_GEMM_W4A16_##TYPE, "grouped GEMM (" what ")", NVFP4I_NAME(GW_MIXED_ENTRY_NAME(type)), \
    portable, GG_THREADS, GG_SMEM_LIMIT, pthreads, psmem)
/* A B-tiles family: its entry of mixed widths, then one per width of the plan's (gw_entry_widths); then the
 * entry for launches whose tiles all have t = 32 (the launch picks it, grouped_gemm.c's t32_entry) */
#define NVFP4_W4A16_TILES(X, type, TYPE, what, portable, portable_t32)                                    \
  NVFP4_W4A16_MIXED(X, type, TYPE, what, portable, PG_THREADS, PG_SMEM_LIMIT)                             \
  NVFP4_W4A16_WIDTH(X, type, TYPE, what, 64) NVFP4_W4A16_WIDTH(X, type, TYPE, what, 128)                 \
  NVFP4_W4A16_WIDTH(X, type, TYPE, what, 256)                                                             \
  X(NVFP4I_KERNEL_GROUPED_GEMM_W4A16_##TYPE##_T32, "grouped GEMM (" what ", 32-row tiles)",              \
    NVFP4I_NAME(GW_ENTRY_NAME(type, 32)), portable_t32, GG_THREADS, GG_SMEM_LIMIT, PG_THREADS, PG_SMEM_LIMIT)

/* X(id, what it computes, sm_90a entry, portable entry or NVFP4I_NONE, then per path (sm_90a, portable) the
 * threads per CTA it is launched with and the largest dynamic shared memory it takes). A kernel the portable
 * path assembles from the sm_90a source has the same shape on both; the portable grouped GEMM is a kernel of
 * its own (ptx/sm80/grouped_gemm_w4a16.ptx) with its own. */
#define NVFP4_KERNEL_LIST(X)                                                                              \
  X(NVFP4I_KERNEL_GEMV, "GEMV", NVFP4I_NAME(GEMV_ENTRY_PLAIN), NVFP4I_NAME(GEMV_SM80_ENTRY_PLAIN),        \
    GEMV_THREADS, GEMV_MAX_DYNAMIC_SMEM, GEMV_THREADS, GEMV_MAX_DYNAMIC_SMEM)                             \
  X(NVFP4I_KERNEL_GEMV_EQUAL_STEPS, "GEMV", NVFP4I_NAME(GEMV_ENTRY_EQUAL_STEPS),                          \
    NVFP4I_NAME(GEMV_SM80_ENTRY_EQUAL_STEPS), GEMV_THREADS, GEMV_MAX_DYNAMIC_SMEM, GEMV_THREADS,          \
    GEMV_MAX_DYNAMIC_SMEM)                                                                                \
  X(NVFP4I_KERNEL_GEMV_W4A16, "W4A16 GEMV", NVFP4I_NAME(GEMV_W4A16_ENTRY), NVFP4I_NAME(GEMV_W4A16_SM80_ENTRY), \
    GEMV_THREADS, GEMV_W4A16_MAX_DYNAMIC_SMEM, GEMV_THREADS, GEMV_W4A16_MAX_DYNAMIC_SMEM)                  \
  X(NVFP4I_KERNEL_GROUPED_GEMM, "fused grouped GEMM (NVFP4 activations read in place)",                  \
    "nvfp4_grouped_gemm_sm90a", NVFP4I_NONE, GG_THREADS, GG_SMEM_LIMIT, 0, 0)                             \
  NVFP4_W4A16_MIXED(X, f16, F16, "f16 activations", NVFP4I_NAME(PG_ENTRY_F16), PG_THREADS, PG_SMEM_LIMIT)    \
  NVFP4_W4A16_TILES(X, f16_tiles, F16_TILES, "f16 or NVFP4 activations as f16 B tiles",                  \
                    NVFP4I_NAME(PG_ENTRY_F16_TILES), NVFP4I_NAME(PG_ENTRY_F16_TILES_T32))                 \
  NVFP4_W4A16_MIXED(X, bf16, BF16, "bf16 activations", NVFP4I_NAME(PG_ENTRY_BF16), PG_THREADS, PG_SMEM_LIMIT) \
  NVFP4_W4A16_TILES(X, bf16_tiles, BF16_TILES, "bf16 activations as B tiles", NVFP4I_NAME(PG_ENTRY_BF16_TILES), \
                    NVFP4I_NAME(PG_ENTRY_BF16_TILES_T32))                                                 \
  X(NVFP4I_KERNEL_GROUPED_FINISH, "grouped GEMM finish (split-K, dual GEMM)", NVFP4I_NAME(GF_ENTRY),       \
    NVFP4I_NAME(GF_SM80_ENTRY), GF_THREADS, 0, GF_THREADS, 0)                                             \
  X(NVFP4I_KERNEL_DEQUANTIZE, "dequantize", NVFP4I_NAME(DEQ_ENTRY), NVFP4I_NAME(DEQ_SM80_ENTRY),          \
    DEQ_THREADS, DEQ_MAX_DYNAMIC_SMEM, DEQ_THREADS, DEQ_MAX_DYNAMIC_SMEM)                                 \
  X(NVFP4I_KERNEL_GROUPED_DEQUANTIZE, "grouped dequantize", NVFP4I_NAME(GDQ_ENTRY),                       \
    NVFP4I_NAME(GDQ_SM80_ENTRY), DEQ_THREADS, DEQ_MAX_DYNAMIC_SMEM, DEQ_THREADS, DEQ_MAX_DYNAMIC_SMEM)    \
  X(NVFP4I_KERNEL_QUANTIZE, "quantize", NVFP4I_NAME(QNT_ENTRY), NVFP4I_NAME(QNT_SM80_ENTRY), QNT_THREADS, \
    0, QNT_THREADS, 0)                                                                                    \
  X(NVFP4I_KERNEL_SCALES_RELAYOUT, "scale relayout", NVFP4I_NAME(RLY_ENTRY), NVFP4I_NAME(RLY_SM80_ENTRY), \
    RLY_THREADS, 0, RLY_THREADS, 0)

typedef enum nvfp4i_kernel_id {
#define NVFP4_KERNEL_ENUM(id, what, sm90a, portable, threads, smem, pthreads, psmem) id,
  NVFP4_KERNEL_LIST(NVFP4_KERNEL_ENUM)
#undef NVFP4_KERNEL_ENUM
  NVFP4I_KERNEL_COUNT
} nvfp4i_kernel_id;

/* The entry name of a kernel id on a path; NULL where the path has no such kernel. */
const char *nvfp4i_kernel_name(nvfp4i_path path, nvfp4i_kernel_id id);

/* What a kernel id computes ("GEMV", "grouped GEMM (f16 activations)"), for messages. */
const char *nvfp4i_kernel_what(nvfp4i_kernel_id id);

/* Whether a kernel id is a B-tile family's entry for one token tile width (sm_90a's 64, 128, 256, the
 * portable path's 32): where a path has none, the family's entry of mixed widths takes those tiles. */
int nvfp4i_kernel_is_width_entry(nvfp4i_kernel_id id);

/* "sm_90a" or "portable". */
const char *nvfp4i_path_name(nvfp4i_path path);

#endif
