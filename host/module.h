/* Kernel image -> CUmodule in the current context, and the handle's kernel table resolved from it. */
#ifndef NVFP4_HOST_MODULE_H
#define NVFP4_HOST_MODULE_H

#include "handle.h"

/* Chooses the handle's kernel path from its compute capability (h->cc_major, cc_minor) and
 * NVFP4_FORCE_PORTABLE, loads that path's embedded fatbin, or the file named by NVFP4_FATBIN (a .fatbin,
 * .cubin or .ptx holding that path's entries), into the current context, timing the load, and resolves the
 * path's kernels that the image holds into h (NOT_SUPPORTED when it holds none). On failure nothing stays
 * loaded. */
nvfp4_status nvfp4i_module_load(nvfp4_handle *h);

/* The embedded fatbins (gen/embed_fatbin.S): sm_90a's kernels, and the portable ones (cubins for sm_80,
 * sm_86, sm_89 and the sm_80 PTX). */
extern const unsigned char nvfp4i_fatbin[];
extern const unsigned long long nvfp4i_fatbin_size;
extern const unsigned char nvfp4i_portable_fatbin[];
extern const unsigned long long nvfp4i_portable_fatbin_size;

#endif
