/* The CPU suites (no GPU needed); tests/unit/main.c runs them all. */
#ifndef NVFP4_TESTS_UNIT_SUITES_H
#define NVFP4_TESTS_UNIT_SUITES_H

#include <check.h>

Suite *format_suite(void);
Suite *reference_suite(void);
Suite *api_suite(void);
Suite *image_suite(void);
Suite *bench_suite(void);
Suite *cli_suite(void);

/* A file under the build directory (NVFP4_TEST_BUILD, which make check sets; else "build"), in a buffer that
 * the next call reuses. */
const char *unit_build_file(const char *name);

/* The fake CUDA driver (tests/fake/libcuda.c) that api and cli tests load through NVFP4_LIBCUDA. */
#define UNIT_FAKE_LIBCUDA "tests/libcuda_fake.so"

#endif
