/* The GPU suites: they share one handle, created by tests/gpu/main.c, whose context is current. */
#ifndef NVFP4_TESTS_GPU_SUITES_H
#define NVFP4_TESTS_GPU_SUITES_H

#include <check.h>

#include "../build_file.h"

#include "nvfp4.h"

extern nvfp4_handle *gpu_handle;

/* NVFP4_GPU_QUICK=1: the suites register only their small cases (for compute-sanitizer runs). */
int gpu_quick(void);

/* A test case tagged "gpu" with the given timeout in seconds. */
TCase *gpu_tcase(const char *name, double timeout);

Suite *gemv_gpu_suite(void);
Suite *grouped_gemm_gpu_suite(void);
Suite *probes_gpu_suite(void);

#endif
