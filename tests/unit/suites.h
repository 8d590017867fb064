/* The CPU suites (no GPU needed); tests/unit/main.c runs them all. */
#ifndef NVFP4_TESTS_UNIT_SUITES_H
#define NVFP4_TESTS_UNIT_SUITES_H

#include <check.h>

Suite *format_suite(void);
Suite *reference_suite(void);
Suite *api_suite(void);
Suite *image_suite(void);
Suite *bench_suite(void);

#endif
