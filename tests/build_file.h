/* Where the test programs find what the build made: under NVFP4_TEST_BUILD (make check and make check-gpu
 * set it), else build/ under the working directory (tests/gpu/run-on-device.sh runs from the root). */
#ifndef NVFP4_TESTS_BUILD_FILE_H
#define NVFP4_TESTS_BUILD_FILE_H

#include <stdio.h>
#include <stdlib.h>

/* The path of `name` under the build directory, in a buffer that the next call reuses. */
static inline const char *test_build_file(const char *name) {
  static char path[4096];
  const char *build = getenv("NVFP4_TEST_BUILD");
  snprintf(path, sizeof path, "%s/%s", build != NULL && build[0] != '\0' ? build : "build", name);
  return path;
}

#endif
