/* The GPU suites: they share one handle, created by tests/gpu/main.c, whose context is current. */
#ifndef NVFP4_TESTS_GPU_SUITES_H
#define NVFP4_TESTS_GPU_SUITES_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "../build_file.h"

#include "nvfp4.h"

extern nvfp4_handle *gpu_handle;

/* NVFP4_GPU_QUICK=1: the suites register only their small cases (for compute-sanitizer runs). */
int gpu_quick(void);

/* The run's seed: NVFP4_TEST_SEED, or else the time; main prints it. Every randomised test draws its data
 * from gpu_seed(salt), a salt of its own, and prints that seed and the run's with a failure:
 * NVFP4_TEST_SEED=<run seed> runs every test on the same data again. */
uint64_t gpu_run_seed(void);
uint64_t gpu_seed(uint64_t salt);

/* Runs job(args + i * arg_size) for i < count on as many threads at once, each with gpu_handle's context
 * current, and returns when all have ended (failing the test if a thread cannot start). */
void gpu_run_in_threads(int count, void (*job)(void *arg), void *args, size_t arg_size);

/* A test case tagged "gpu" with the given timeout in seconds. */
TCase *gpu_tcase(const char *name, double timeout);

Suite *gemv_gpu_suite(void);
Suite *grouped_gemm_gpu_suite(void);
Suite *probes_gpu_suite(void);
Suite *contract_gpu_suite(void);

#endif
