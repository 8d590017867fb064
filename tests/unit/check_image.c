/* The embedded kernel image: present, a fatbin, and holding every entry of the kernel table. */
#include <string.h>

#include "module.h"
#include "suites.h"

START_TEST(image_is_a_fatbin) {
  ck_assert_uint_gt(nvfp4i_fatbin_size, 64);
  uint32_t magic;
  memcpy(&magic, nvfp4i_fatbin, sizeof magic);
  ck_assert_msg(magic == 0xBA55ED50u, "fatbin magic 0x%08X", magic);
}
END_TEST

START_TEST(image_holds_every_kernel) {
  for (int id = 0; id < NVFP4I_KERNEL_COUNT; id++) {
    const char *name = nvfp4i_kernel_name((nvfp4i_kernel_id)id);
    ck_assert_msg(memmem(nvfp4i_fatbin, nvfp4i_fatbin_size, name, strlen(name)) != NULL, "%s not in the image",
                  name);
  }
}
END_TEST

Suite *image_suite(void) {
  Suite *s = suite_create("image");
  TCase *tc = tcase_create("embedded fatbin");
  tcase_add_test(tc, image_is_a_fatbin);
  tcase_add_test(tc, image_holds_every_kernel);
  suite_add_tcase(s, tc);
  return s;
}
