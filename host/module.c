#include "module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "error.h"

/* The kernel table as data: what it computes, and per path its entry name, launch block size and largest
 * dynamic shared memory. */
static const struct kernel_entry {
  const char *what;
  const char *name[NVFP4I_PATH_COUNT];
  int threads[NVFP4I_PATH_COUNT];
  int max_dynamic_smem[NVFP4I_PATH_COUNT];
} kernel_table[] = {
#define NVFP4_KERNEL_ENTRY(kid, what, sm90a, portable, threads, smem, pthreads, psmem)                       \
  [kid] = {what, {sm90a, portable}, {threads, pthreads}, {smem, psmem}},
    NVFP4_KERNEL_LIST(NVFP4_KERNEL_ENTRY)
#undef NVFP4_KERNEL_ENTRY
};

const char *nvfp4i_kernel_name(nvfp4i_path path, nvfp4i_kernel_id id) {
  return (unsigned)id < NVFP4I_KERNEL_COUNT && (unsigned)path < NVFP4I_PATH_COUNT ? kernel_table[id].name[path]
                                                                                  : NULL;
}

const char *nvfp4i_kernel_what(nvfp4i_kernel_id id) {
  return (unsigned)id < NVFP4I_KERNEL_COUNT ? kernel_table[id].what : "unknown kernel";
}

int nvfp4i_kernel_is_width_entry(nvfp4i_kernel_id id) {
  switch (id) {
    case NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16_TILES_T32:
    case NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16_TILES_T64:
    case NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16_TILES_T128:
    case NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16_TILES_T256:
    case NVFP4I_KERNEL_GROUPED_GEMM_W4A16_BF16_TILES_T32:
    case NVFP4I_KERNEL_GROUPED_GEMM_W4A16_BF16_TILES_T64:
    case NVFP4I_KERNEL_GROUPED_GEMM_W4A16_BF16_TILES_T128:
    case NVFP4I_KERNEL_GROUPED_GEMM_W4A16_BF16_TILES_T256: return 1;
    default: return 0;
  }
}

const char *nvfp4i_path_name(nvfp4i_path path) { return path == NVFP4I_PATH_SM90A ? "sm_90a" : "portable"; }

/* The bytes of an image that tell a cubin (ELF) and a fatbin from PTX text (needs_jit). */
enum { IMAGE_MAGIC_BYTES = 4 };

/* Reads a whole file plus a terminating NUL (cuModuleLoadData needs one for PTX text); one too short to hold
 * an image's magic bytes is refused. */
static nvfp4_status read_image_file(const char *path, char **out) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "NVFP4_FATBIN: cannot open %s", path);
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  char *buf = NULL;
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) { /* a folder opens too, and sizes as anything */
    status = nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "NVFP4_FATBIN: %s is not a file", path);
    goto close_file;
  }
  long size = (long)st.st_size;
  if (size < IMAGE_MAGIC_BYTES) { /* needs_jit reads that much of it */
    status = nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "NVFP4_FATBIN: %s holds %ld bytes, no kernel image", path, size);
    goto close_file;
  }
  buf = malloc((size_t)size + 1);
  if (buf == NULL) {
    status = nvfp4i_fail(NVFP4_STATUS_OUT_OF_MEMORY, "NVFP4_FATBIN: no memory for %ld bytes", size);
    goto close_file;
  }
  if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
    status = nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "NVFP4_FATBIN: cannot read %s", path);
    free(buf);
    buf = NULL;
    goto close_file;
  }
  buf[size] = '\0';
  *out = buf;
close_file:
  fclose(f);
  return status;
}

/* Resolves every kernel of the table that the handle's path has and its image holds; one it lacks keeps fn
 * NULL. A kernel's dynamic shared memory is the table's, within what the device lets a block opt into
 * (227 KB on sm_90, 163 KB on sm_80, 99 KB on sm_86 and sm_89): the operations check a launch against it. */
static nvfp4_status resolve_kernels(nvfp4_handle *h) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  int found = 0, built_for_sm90 = 1;
  for (int id = 0; id < NVFP4I_KERNEL_COUNT; id++) {
    nvfp4i_kernel *k = &h->kernels[id];
    const char *name = kernel_table[id].name[h->path];
    k->fn = NULL;
    if (name == NULL) continue;
    CUresult r = cu->cuModuleGetFunction(&k->fn, h->module, name);
    if (r == CUDA_ERROR_NOT_FOUND) {
      k->fn = NULL;
      continue;
    }
    if (r != CUDA_SUCCESS) return nvfp4i_cuda_fail(r, name);
    found++;
    cu->cuFuncGetAttribute(&k->registers, CU_FUNC_ATTRIBUTE_NUM_REGS, k->fn);
    cu->cuFuncGetAttribute(&k->local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k->fn);
    cu->cuFuncGetAttribute(&k->static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn);
    cu->cuFuncGetAttribute(&k->ptx_arch, CU_FUNC_ATTRIBUTE_PTX_VERSION, k->fn);
    if (k->ptx_arch < 90) built_for_sm90 = 0;
    k->threads = kernel_table[id].threads[h->path];
    int smem = kernel_table[id].max_dynamic_smem[h->path];
    if (smem > h->smem_per_block - k->static_smem) smem = h->smem_per_block - k->static_smem;
    if (smem < 0) smem = 0;
    k->max_dynamic_smem = smem;
    if (smem > 48 * 1024) {
      r = cu->cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
      if (r != CUDA_SUCCESS) return nvfp4i_cuda_fail(r, name);
    }
    r = cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&k->blocks_per_sm, k->fn, k->threads, 0);
    if (r != CUDA_SUCCESS) return nvfp4i_cuda_fail(r, name);
  }
  /* sm_90a's kernels wait whatever the driver says of them; the portable image's where built for sm_90 */
  h->kernels_wait = h->path == NVFP4I_PATH_SM90A || (found > 0 && built_for_sm90);
  if (found == 0)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "kernel image (%s, %s path) holds none of the library's kernels",
                       h->image_source, nvfp4i_path_name(h->path));
  return NVFP4_STATUS_SUCCESS;
}

/* The path: sm_90a's kernels on compute capability 9.0 (an sm_90a cubin runs there and nowhere else), unless
 * NVFP4_FORCE_PORTABLE=1; the portable ones on every other GPU. */
static void choose_path(nvfp4_handle *h) {
  const char *force = getenv("NVFP4_FORCE_PORTABLE");
  int hopper = h->cc_major == 9 && h->cc_minor == 0;
  h->forced_portable = hopper && force != NULL && !strcmp(force, "1");
  h->path = hopper && !h->forced_portable ? NVFP4I_PATH_SM90A : NVFP4I_PATH_PORTABLE;
}

/* Whether loading `image` makes the driver compile PTX: a PTX text (an NVFP4_FATBIN .ptx), or a portable
 * fatbin as this build makes it (cubins for compute capability 8.x only) on any other GPU. */
static int needs_jit(const nvfp4_handle *h, const void *image) {
  static const unsigned char elf[IMAGE_MAGIC_BYTES] = {0x7F, 'E', 'L', 'F'};
  static const unsigned char fatbin[IMAGE_MAGIC_BYTES] = {0x50, 0xED, 0x55, 0xBA};
  if (memcmp(image, elf, IMAGE_MAGIC_BYTES) != 0 && memcmp(image, fatbin, IMAGE_MAGIC_BYTES) != 0) return 1;
  return memcmp(image, fatbin, IMAGE_MAGIC_BYTES) == 0 && h->path == NVFP4I_PATH_PORTABLE && h->cc_major != 8;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

nvfp4_status nvfp4i_module_load(nvfp4_handle *h) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  const char *override = getenv("NVFP4_FATBIN");
  char *file_image = NULL;
  choose_path(h);
  const void *image = h->path == NVFP4I_PATH_SM90A ? (const void *)nvfp4i_fatbin : (const void *)nvfp4i_portable_fatbin;
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  if (override != NULL && override[0] != '\0') {
    status = read_image_file(override, &file_image);
    if (status != NVFP4_STATUS_SUCCESS) return status;
    image = file_image;
    snprintf(h->image_source, sizeof h->image_source, "%s", override);
  } else {
    snprintf(h->image_source, sizeof h->image_source, "embedded");
  }
  h->jit = needs_jit(h, image);
  double start = now_ms();
  CUresult r = cu->cuModuleLoadData(&h->module, image);
  h->module_load_ms = now_ms() - start;
  free(file_image);
  if (r == CUDA_ERROR_NO_BINARY_FOR_GPU)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED,
                       "kernel image (%s, %s path) has no code for this GPU (sm_%d%d)", h->image_source,
                       nvfp4i_path_name(h->path), h->cc_major, h->cc_minor);
  if (r != CUDA_SUCCESS) return nvfp4i_cuda_fail(r, "cuModuleLoadData");
  status = resolve_kernels(h);
  if (status != NVFP4_STATUS_SUCCESS) {
    cu->cuModuleUnload(h->module);
    h->module = NULL;
  }
  return status;
}
