#include "module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* The kernel table as data: entry name, launch block size, largest dynamic shared memory. */
static const struct kernel_entry {
  const char *name;
  int threads;
  int max_dynamic_smem;
} kernel_table[] = {
#define NVFP4_KERNEL_ENTRY(kid, name, threads, smem) [kid] = {name, threads, smem},
    NVFP4_KERNEL_LIST(NVFP4_KERNEL_ENTRY)
#undef NVFP4_KERNEL_ENTRY
};

const char *nvfp4i_kernel_name(nvfp4i_kernel_id id) {
  return (unsigned)id < NVFP4I_KERNEL_COUNT ? kernel_table[id].name : "unknown kernel";
}

/* Reads a whole file plus a terminating NUL (cuModuleLoadData needs one for PTX text). */
static nvfp4_status read_image_file(const char *path, char **out) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "NVFP4_FATBIN: cannot open %s", path);
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  char *buf = NULL;
  long size;
  if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    status = nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "NVFP4_FATBIN: cannot size %s", path);
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

/* Resolves every kernel of the table the image holds; one it lacks keeps fn NULL. */
static nvfp4_status resolve_kernels(nvfp4_handle *h) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  int found = 0;
  for (int id = 0; id < NVFP4I_KERNEL_COUNT; id++) {
    nvfp4i_kernel *k = &h->kernels[id];
    const char *name = kernel_table[id].name;
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
    int smem = kernel_table[id].max_dynamic_smem;
    if (smem > 48 * 1024) {
      r = cu->cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
      if (r != CUDA_SUCCESS) return nvfp4i_cuda_fail(r, name);
    }
    r = cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&k->blocks_per_sm, k->fn, kernel_table[id].threads, 0);
    if (r != CUDA_SUCCESS) return nvfp4i_cuda_fail(r, name);
  }
  if (found == 0)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "kernel image (%s) holds none of the library's kernels",
                       h->image_source);
  return NVFP4_STATUS_SUCCESS;
}

nvfp4_status nvfp4i_module_load(nvfp4_handle *h) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  const char *override = getenv("NVFP4_FATBIN");
  char *file_image = NULL;
  const void *image = nvfp4i_fatbin;
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  if (override != NULL && override[0] != '\0') {
    status = read_image_file(override, &file_image);
    if (status != NVFP4_STATUS_SUCCESS) return status;
    image = file_image;
    snprintf(h->image_source, sizeof h->image_source, "%s", override);
  } else {
    snprintf(h->image_source, sizeof h->image_source, "embedded");
  }
  CUresult r = cu->cuModuleLoadData(&h->module, image);
  free(file_image);
  if (r == CUDA_ERROR_NO_BINARY_FOR_GPU)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED,
                       "kernel image (%s) has no code for this GPU (sm_%d%d); this build ships sm_90a",
                       h->image_source, h->cc_major, h->cc_minor);
  if (r != CUDA_SUCCESS) return nvfp4i_cuda_fail(r, "cuModuleLoadData");
  status = resolve_kernels(h);
  if (status != NVFP4_STATUS_SUCCESS) {
    cu->cuModuleUnload(h->module);
    h->module = NULL;
  }
  return status;
}
