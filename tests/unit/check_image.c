/* The embedded kernel images: libnvfp4's two (sm_90a's and the portable one) each hold every entry of their
 * path's kernel table that the build's PTX declares, and no probe; the portable one holds cubins for sm_80,
 * sm_86, sm_89 and the sm_90 PTX for the driver's JIT (ptx/sm90/target.inc), the sm_90a one a cubin alone (no
 * JIT on sm_90); the tools' image holds the probes. */
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
  assert_fatbin(nvfp4i_portable_fatbin, nvfp4i_portable_fatbin_size);
  assert_fatbin(nvfp4i_probes_fatbin, nvfp4i_probes_fatbin_size);
}
END_TEST

/* The fatbin's images as "elf:<sm>" / "ptx:<sm>" words, in order. The container as fatbinary writes it: a
 * 16-byte header (u32 magic, u16 version, u16 header size, u64 size of what follows), then entries, each a
 * header (u16 kind: 1 PTX, 2 ELF; u16; u32 its size; u64 payload size; ...; u32 sm at byte 28) and its
 * payload. */
static void list_images(const unsigned char *image, char *out, size_t out_size) {
  uint16_t header_bytes;
  uint64_t body_bytes;
  memcpy(&header_bytes, image + 6, 2);
  memcpy(&body_bytes, image + 8, 8);
  out[0] = '\0';
  for (uint64_t at = header_bytes; at < header_bytes + body_bytes;) {
    uint16_t kind;
    uint32_t entry_header, sm;
    uint64_t payload;
    memcpy(&kind, image + at, 2);
    memcpy(&entry_header, image + at + 4, 4);
    memcpy(&payload, image + at + 8, 8);
    memcpy(&sm, image + at + 28, 4);
    size_t used = strlen(out);
    snprintf(out + used, out_size - used, "%s%s:%u", used ? " " : "", kind == 1 ? "ptx" : kind == 2 ? "elf" : "?",
             sm);
    at += entry_header + payload;
  }
}

START_TEST(the_portable_image_holds_cubins_for_ampere_and_ada_and_sm90_ptx_the_sm90a_one_a_cubin_alone) {
  char images[256];
  list_images(nvfp4i_portable_fatbin, images, sizeof images);
  ck_assert_str_eq(images, "elf:80 elf:86 elf:89 ptx:90");
  list_images(nvfp4i_fatbin, images, sizeof images);
  ck_assert_str_eq(images, "elf:90");
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

START_TEST(library_images_hold_every_kernel_their_ptx_declares_and_no_probe) {
  const struct {
    nvfp4i_path path;
    const unsigned char *image, *other;
    unsigned long long size, other_size;
  } images[] = {{NVFP4I_PATH_SM90A, nvfp4i_fatbin, nvfp4i_portable_fatbin, nvfp4i_fatbin_size,
                 nvfp4i_portable_fatbin_size},
                {NVFP4I_PATH_PORTABLE, nvfp4i_portable_fatbin, nvfp4i_fatbin, nvfp4i_portable_fatbin_size,
                 nvfp4i_fatbin_size}};
  for (size_t i = 0; i < sizeof images / sizeof images[0]; i++) {
    int held = 0;
    for (int id = 0; id < NVFP4I_KERNEL_COUNT; id++) {
      const char *name = nvfp4i_kernel_name(images[i].path, (nvfp4i_kernel_id)id);
      if (name == NULL) continue;
      int in_image = holds(images[i].image, images[i].size, name);
      ck_assert_msg(in_image == declared(name), "%s: %s the %s image, %s by the build's PTX", name,
                    in_image ? "in" : "not in", nvfp4i_path_name(images[i].path),
                    in_image ? "not declared" : "declared");
      ck_assert_msg(!holds(images[i].other, images[i].other_size, name), "%s is in the other path's image", name);
      held += in_image;
    }
    ck_assert_int_gt(held, 0);
    ck_assert(!holds(images[i].image, images[i].size, NVFP4I_READ_PROBE_ENTRY));
    ck_assert(!holds(images[i].image, images[i].size, NVFP4I_WGMMA_PEAK_ENTRY));
  }
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
  tcase_add_test(tc, the_portable_image_holds_cubins_for_ampere_and_ada_and_sm90_ptx_the_sm90a_one_a_cubin_alone);
  tcase_add_test(tc, library_images_hold_every_kernel_their_ptx_declares_and_no_probe);
  tcase_add_test(tc, probe_image_holds_both_probes);
  suite_add_tcase(s, tc);
  return s;
}
