/* Kernel image -> CUmodule in the current context, and the handle's kernel table resolved from it. */
#ifndef NVFP4_HOST_MODULE_H
#define NVFP4_HOST_MODULE_H

#include "handle.h"

/* Loads the embedded fatbin, or the file named by NVFP4_FATBIN (a .fatbin, .cubin or .ptx), into the
 * current context and resolves the kernels of the table it holds into h (NOT_SUPPORTED when it holds
 * none). On failure nothing stays loaded. */
nvfp4_status nvfp4i_module_load(nvfp4_handle *h);

/* The embedded fatbin (gen/embed_fatbin.S). */
extern const unsigned char nvfp4i_fatbin[];
extern const unsigned long long nvfp4i_fatbin_size;

#endif
