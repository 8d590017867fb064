/* The embedded kernel images: libnvfp4's holds every entry of its kernel table and no probe; the tools'
 * image holds the probes. */
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

START_TEST(library_image_holds_every_kernel_and_no_probe) {
  for (int id = 0; id < NVFP4I_KERNEL_COUNT; id++) {
    const char *name = nvfp4i_kernel_name((nvfp4i_kernel_id)id);
    ck_assert_msg(holds(nvfp4i_fatbin, nvfp4i_fatbin_size, name), "%s not in the image", name);
  }
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
  tcase_add_test(tc, library_image_holds_every_kernel_and_no_probe);
  tcase_add_test(tc, probe_image_holds_both_probes);
  suite_add_tcase(s, tc);
  return s;
}
