/* The GPU suites: they share one handle, created by tests/gpu/main.c, whose context is current. */
#ifndef NVFP4_TESTS_GPU_SUITES_H
#define NVFP4_TESTS_GPU_SUITES_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "../build_file.h"

#include "kernels.h"
#include "nvfp4.h"
#include "verify.h"

extern nvfp4_handle *gpu_handle;

/* Whether gpu_handle's kernel path lacks kernel `id` (an operation with no portable kernel yet). If so it
 * prints "gpu_tests: NOT RUN (...): <not_run>" and counts it: a suite then leaves those tests out, so they
 * are neither passed nor failed, and the run ends saying how many were left out (the path suite checks that
 * such an operation answers NOT_SUPPORTED). */
int gpu_path_lacks(nvfp4i_kernel_id id, const char *not_run);

/* The same for NVFP4 activations in a grouped GEMM: they run on the fused kernel (sm_90a) or dequantized to
 * f16 in scratch from the handle's memory pool and multiplied by the W4A16 f16 kernel (every path; the only
 * way on the portable one). Lacking both, it prints and counts as gpu_path_lacks does. */
int gpu_path_lacks_nvfp4_grouped_gemm(const char *not_run);

/* The preprocessed PTX of one kernel family for gpu_handle's path (build/ptx/sm90a/<family>.ptx or
 * build/ptx/sm80/<family>.ptx), for the tests that load an image of one family through NVFP4_FATBIN. */
const char *gpu_family_ptx(const char *family);

/* NVFP4_GPU_QUICK=1: the suites register only their small cases (for compute-sanitizer runs). */
int gpu_quick(void);

/* The run's seed: NVFP4_TEST_SEED, or else the time; main prints it. Every randomised test draws its data
 * from gpu_seed(salt), a salt of its own, and prints that seed and the run's with a failure:
 * NVFP4_TEST_SEED=<run seed> runs every test on the same data again. */
uint64_t gpu_run_seed(void);
uint64_t gpu_seed(uint64_t salt);

/* The cases this run takes, of `count` cases `stride` bytes apart whose int `small` flag the first lies at:
 * all, or with NVFP4_GPU_QUICK=1 the small ones. Writes their indices to selected; returns how many. */
int gpu_select_cases(const int *first_small, size_t stride, int count, int *selected);

/* One check of a GEMV, a scale relayout or (both NULL) a grouped GEMM case against the reference, for
 * gpu_verify_in_threads. */
typedef struct gpu_verify_job {
  const nvfp4i_gemv_case *gemv;
  const nvfp4i_grouped_case *grouped;
  const nvfp4i_relayout_case *relayout;
  nvfp4i_verdict v;
  int pass;
} gpu_verify_job;

/* Runs the jobs on as many host threads at once, all on gpu_handle, each with its context current, and
 * returns when all have ended (failing the test if a thread cannot start). */
void gpu_verify_in_threads(int count, gpu_verify_job *jobs);

/* In a table of nvfp4i_grouped_case: GROUPS(count, (M...), (N...), (K...)), group g takes M[g % |M|],
 * N[g % |N|], K[g % |K|]. */
#define ARRAY(...) ((const int64_t[]){__VA_ARGS__})
#define LENGTH(...) (int)(sizeof ARRAY(__VA_ARGS__) / sizeof(int64_t))
#define GROUPS(count, ms, ns, ks)                                                                          \
  .groups = count, .m = ARRAY ms, .m_count = LENGTH ms, .n = ARRAY ns, .n_count = LENGTH ns, .k = ARRAY ks,     \
  .k_count = LENGTH ks

/* Fails the current test unless got's `bytes` are want's, naming `what`, how many differ and the first. */
void gpu_assert_bytes(const uint8_t *got, const uint8_t *want, size_t bytes, const char *what);

/* nvfp4_grouped_gemm's two ways (nvfp4_gemm's too): gpu_handle must take the dequantized-tokens one (an
 * H200 has memory pools; else the tests of that way would run the fused kernel), and
 * gpu_fused_grouped_handle() makes a handle with NVFP4_GROUPED_FUSED=1, the fused kernel's (the caller
 * destroys it). Both fail the current test where they cannot be had. */
void gpu_assert_handle_dequantizes_tokens(void);
nvfp4_handle *gpu_fused_grouped_handle(void);

/* A handle made with NVFP4_SPLIT_K=slices: every grouped GEMM whose tiles leave SMs idle splits K into that
 * many slices (partials in scratch, then the finishing kernel), so the split-K way runs on small shapes too.
 * It fails the current test where it cannot be had (no memory pool). The caller destroys it. */
nvfp4_handle *gpu_split_k_handle(int slices);

/* A handle made with NVFP4_TILE_ROWS=gpu_tile_rows_values[way]: way 0 "mixed" (the W4A16 entry of mixed
 * widths; a launch whose tiles all have t = 32 takes the B-tiles families' t = 32 entry), then each width with
 * entries of its own (64, 128, 256: the B-tiles families'), for every grouped GEMM the handle runs on sm_90a
 * (the portable path has one entry: it ignores the variable). The caller destroys it. */
enum { GPU_TILE_ROWS_WAYS = 4 };
extern const char *const gpu_tile_rows_values[GPU_TILE_ROWS_WAYS];
nvfp4_handle *gpu_tile_rows_handle(int way);
/* check(h, i, what) for every i < count that keep(i) accepts, on gpu_tile_rows_handle(way) (destroyed after);
 * `what` names the way ("NVFP4_TILE_ROWS=128"). */
void gpu_check_on_tile_rows_handle(int way, int count, int (*keep)(int i),
                                   void (*check)(nvfp4_handle *h, int i, const char *what));

/* A test case tagged "gpu" with the given timeout in seconds. */
TCase *gpu_tcase(const char *name, double timeout);

Suite *gemv_gpu_suite(void);
Suite *gemv_w4a16_gpu_suite(void);
Suite *grouped_gemm_gpu_suite(void);
Suite *gemm_gpu_suite(void);
Suite *dual_gemm_gpu_suite(void);
Suite *probes_gpu_suite(void);
Suite *contract_gpu_suite(void);
Suite *w4a16_gpu_suite(void);
Suite *dequantize_gpu_suite(void);
Suite *grouped_dequantize_gpu_suite(void);
Suite *quantize_gpu_suite(void);
Suite *scales_relayout_gpu_suite(void);
Suite *path_gpu_suite(void);

#endif
