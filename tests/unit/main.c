/* Runs every CPU suite. Check's own environment variables apply (CK_RUN_SUITE, CK_RUN_CASE, CK_VERBOSITY); the
 * suites run forked (Check's default), since some load the fake driver and one fails to load any. */
#include <stdlib.h>

#include "suites.h"

int main(void) {
  SRunner *runner = srunner_create(format_suite());
  srunner_add_suite(runner, reference_suite());
  srunner_add_suite(runner, quantize_suite());
  srunner_add_suite(runner, quantize_arith_suite());
  srunner_add_suite(runner, quantize_call_suite());
  srunner_add_suite(runner, scales_relayout_suite());
  srunner_add_suite(runner, api_suite());
  srunner_add_suite(runner, gemv_w4a16_suite());
  srunner_add_suite(runner, w4a16_suite());
  srunner_add_suite(runner, gemm_suite());
  srunner_add_suite(runner, grouped_route_suite());
  srunner_add_suite(runner, grouped_split_suite());
  srunner_add_suite(runner, dequantize_suite());
  srunner_add_suite(runner, grouped_dequantize_suite());
  srunner_add_suite(runner, image_suite());
  srunner_add_suite(runner, path_suite());
  srunner_add_suite(runner, portable_gemm_suite());
  srunner_add_suite(runner, bench_suite());
  srunner_add_suite(runner, cli_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
