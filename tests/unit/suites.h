/* The CPU suites (no GPU needed); tests/unit/main.c runs them all. */
#ifndef NVFP4_TESTS_UNIT_SUITES_H
#define NVFP4_TESTS_UNIT_SUITES_H

#include <check.h>

#include "../build_file.h"

Suite *format_suite(void);
Suite *reference_suite(void);
Suite *quantize_suite(void);
Suite *quantize_arith_suite(void);
Suite *quantize_call_suite(void);
Suite *scales_relayout_suite(void);
Suite *api_suite(void);
Suite *gemv_w4a16_suite(void);
Suite *w4a16_suite(void);
Suite *gemm_suite(void);
Suite *grouped_route_suite(void);
Suite *grouped_split_suite(void);
Suite *dequantize_suite(void);
Suite *grouped_dequantize_suite(void);
Suite *image_suite(void);
Suite *path_suite(void);
Suite *portable_gemm_suite(void);
Suite *bench_suite(void);
Suite *cli_suite(void);

/* The fake CUDA driver (tests/fake/libcuda.c) that api and cli tests load through NVFP4_LIBCUDA. */
#define UNIT_FAKE_LIBCUDA "tests/libcuda_fake.so"

#endif
