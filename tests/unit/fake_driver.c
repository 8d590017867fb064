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

uint32_t assert_w4a16_entry(const char *entry, const char *type, const unsigned char *p) {
  char mixed[96], prefix[96];
  snprintf(mixed, sizeof mixed, "nvfp4_grouped_gemm_w4a16_%s_sm90a", type);
  snprintf(prefix, sizeof prefix, "nvfp4_grouped_gemm_w4a16_%s_t", type);
  if (strcmp(entry, mixed) == 0) return 0;
  ck_assert_msg(strncmp(entry, prefix, strlen(prefix)) == 0, "entry %s: not a W4A16 %s entry", entry, type);
  unsigned t = 0;
  char tail[16];
  ck_assert_msg(sscanf(entry + strlen(prefix), "%u%15s", &t, tail) == 2 && strcmp(tail, "_sm90a") == 0 &&
                    t % GG_T_GRAIN == 0 && t >= GG_T_GRAIN && t <= GG_T_MAX,
                "entry %s: no width", entry);
  for (uint32_t g = 0; g < param_u32(p, GG_P_NUM_GROUPS); g++)
    ck_assert_msg(desc_u32(p, (int)g, GG_D_T) == t, "entry %s, descriptor %u: t = %u", entry, g,
                  desc_u32(p, (int)g, GG_D_T));
  return t;
}

const char *w4a16_width_entries(void) {
  static char list[512];
  int n = 0;
  for (int t = 32; t <= 256; t *= 2)
    n += snprintf(list + n, sizeof list - (size_t)n, "%snvfp4_grouped_gemm_w4a16_f16_tiles_t%d_sm90a,"
                  "nvfp4_grouped_gemm_w4a16_bf16_tiles_t%d_sm90a", n > 0 ? "," : "", t, t);
  return list;
}

const char *w4a16_entries(const char *type) {
  static char list[4][512];
  static const char *const types[4] = {"f16", "bf16", "f16_tiles", "bf16_tiles"};
  int i = 0;
  while (i < 3 && strcmp(type, types[i]) != 0) i++;
  char *at = list[i];
  int n = snprintf(at, sizeof list[0], "nvfp4_grouped_gemm_w4a16_%s_sm90a", type);
  for (int t = 32; i >= 2 && t <= 256; t *= 2)
    n += snprintf(at + n, sizeof list[0] - (size_t)n, ",nvfp4_grouped_gemm_w4a16_%s_t%d_sm90a", type, t);
  return at;
}
