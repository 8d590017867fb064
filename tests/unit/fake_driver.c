#include "fake_driver.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm90a/grouped_gemm_layout.h"
#include "suites.h"

nvfp4_handle *fake_handle;
static long (*launch_count)(void);
static const unsigned char *(*kept_launch)(long i, const char **entry, CUlaunchConfig *config);

void create_fake_handle(void) {
  const char *path = test_build_file(UNIT_FAKE_LIBCUDA);
  setenv("NVFP4_LIBCUDA", path, 1); /* read at this process's first driver load: tests run forked */
  ck_assert_msg(nvfp4_create(&fake_handle) == NVFP4_STATUS_SUCCESS, "the fake driver %s: %s", path,
                nvfp4_last_error());
  void *lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  ck_assert_ptr_nonnull(lib);
  *(void **)&launch_count = dlsym(lib, "fake_cuda_launches");
  ck_assert_ptr_nonnull(launch_count);
  *(void **)&kept_launch = dlsym(lib, "fake_cuda_launch");
  ck_assert_ptr_nonnull(kept_launch);
}

void destroy_fake_handle(void) { nvfp4_destroy(fake_handle); }

long fake_launches(void) { return launch_count(); }

const unsigned char *fake_launch(long i, const char **entry, CUlaunchConfig *config) {
  const unsigned char *block = kept_launch(i, entry, config);
  ck_assert_msg(block != NULL, "launch %ld is not kept by the fake driver (%ld launched)", i, fake_launches());
  return block;
}

const unsigned char *fake_last_launch(CUlaunchConfig *config) {
  const char *entry;
  return fake_launch(fake_launches() - 1, &entry, config);
}

uint32_t param_u32(const unsigned char *block, int offset) {
  uint32_t v;
  memcpy(&v, block + offset, sizeof v);
  return v;
}

uint32_t desc_u32(const unsigned char *block, int group, int field) {
  return param_u32(block, GG_P_DESCS + group * GG_DESC_BYTES + field);
}

uint64_t param_u64(const unsigned char *block, int offset) {
  uint64_t v;
  memcpy(&v, block + offset, sizeof v);
  return v;
}

uint64_t desc_u64(const unsigned char *block, int group, int field) {
  return param_u64(block, GG_P_DESCS + group * GG_DESC_BYTES + field);
}

void assert_launched_early(const CUlaunchConfig *config, int early, const char *what) {
  ck_assert_msg(config->numAttrs == (early ? 1u : 0u), "%s: %u launch attributes, expected %d", what,
                config->numAttrs, early);
  if (!early) return;
  ck_assert_msg(config->attrs[0].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                "%s: launch attribute %d, not programmatic stream serialization", what, (int)config->attrs[0].id);
  ck_assert_msg(config->attrs[0].value.programmaticStreamSerializationAllowed == 1,
                "%s: programmatic stream serialization not allowed", what);
}

void assert_rejected(const char *what, nvfp4_status status, nvfp4_status expected, const char *message) {
  ck_assert_msg(status == expected, "%s: status %d (%s), expected %d", what, status, nvfp4_last_error(), expected);
  ck_assert_msg(strstr(nvfp4_last_error(), message) != NULL, "%s: message '%s' lacks '%s'", what,
                nvfp4_last_error(), message);
  ck_assert_msg(fake_launches() == 0, "%s: %ld kernels launched", what, fake_launches());
}

void assert_refused_for_missing_entry(const char *entry, nvfp4_status status) {
  char expected[160];
  snprintf(expected, sizeof expected, "has no entry %s", entry);
  ck_assert_int_eq(status, NVFP4_STATUS_NOT_SUPPORTED);
  ck_assert_msg(strstr(nvfp4_last_error(), expected) != NULL, "message: %s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 0);
}
