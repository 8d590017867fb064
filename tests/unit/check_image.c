/* The embedded kernel images: libnvfp4's holds every entry of its kernel table that the build's PTX
 * declares, and no probe; the tools' image holds the probes. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "module.h"
#include "suites.h"

static int holds(const unsigned char *image, unsigned long long size, const char *name) {
  return memmem(image, size, name, strlen(name)) != NULL;
}

static void assert_fatbin(const unsigned char *image, unsigned long long size) {
  ck_assert_uint_gt(size, 64);
  uint32_t magic;
  memcpy(&magic, image, sizeof magic);
  ck_assert_msg(magic == 0xBA55ED50u, "fatbin magic 0x%08X", magic);
}

START_TEST(images_are_fatbins) {
  assert_fatbin(nvfp4i_fatbin, nvfp4i_fatbin_size);
  assert_fatbin(nvfp4i_probes_fatbin, nvfp4i_probes_fatbin_size);
}
END_TEST

/* Whether a PTX file the build assembled (the cpp output under build/ptx/<target>/) declares entry `name`. A
 * family may be absent from a tree (its kernel not written yet): the library builds without it, and its
 * operation returns NOT_SUPPORTED. */
static int declared(const char *name) {
  glob_t files;
  int found = 0;
  ck_assert_int_eq(glob(test_build_file("ptx/*/*.ptx"), 0, NULL, &files), 0);
  char entry[128];
  snprintf(entry, sizeof entry, ".entry %s(", name);
  for (size_t f = 0; f < files.gl_pathc && !found; f++) {
    FILE *in = fopen(files.gl_pathv[f], "r");
    ck_assert_ptr_nonnull(in);
    char line[4096];
    while (!found && fgets(line, sizeof line, in) != NULL) found = strstr(line, entry) != NULL;
    fclose(in);
  }
  globfree(&files);
  return found;
}

START_TEST(library_image_holds_every_kernel_its_ptx_declares_and_no_probe) {
  int held = 0;
  for (int id = 0; id < NVFP4I_KERNEL_COUNT; id++) {
    const char *name = nvfp4i_kernel_name((nvfp4i_kernel_id)id);
    int in_image = holds(nvfp4i_fatbin, nvfp4i_fatbin_size, name);
    ck_assert_msg(in_image == declared(name), "%s: %s the image, %s by the build's PTX", name,
                  in_image ? "in" : "not in", in_image ? "not declared" : "declared");
    held += in_image;
  }
  ck_assert_int_gt(held, 0);
  ck_assert(!holds(nvfp4i_fatbin, nvfp4i_fatbin_size, NVFP4I_READ_PROBE_ENTRY));
  ck_assert(!holds(nvfp4i_fatbin, nvfp4i_fatbin_size, NVFP4I_WGMMA_PEAK_ENTRY));
}
END_TEST

START_TEST(probe_image_holds_both_probes) {
  ck_assert(holds(nvfp4i_probes_fatbin, nvfp4i_probes_fatbin_size, NVFP4I_READ_PROBE_ENTRY));
  ck_assert(holds(nvfp4i_probes_fatbin, nvfp4i_probes_fatbin_size, NVFP4I_WGMMA_PEAK_ENTRY));
}
END_TEST

Suite *image_suite(void) {
  Suite *s = suite_create("image");
  TCase *tc = tcase_create("embedded fatbins");
  tcase_add_test(tc, images_are_fatbins);
  tcase_add_test(tc, library_image_holds_every_kernel_its_ptx_declares_and_no_probe);
  tcase_add_test(tc, probe_image_holds_both_probes);
  suite_add_tcase(s, tc);
  return s;
}
