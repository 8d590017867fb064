/* Status strings and the thread-local last-error message. */
#ifndef NVFP4_HOST_ERROR_H
#define NVFP4_HOST_ERROR_H

#include "nvfp4.h"

/* Records a printf-style message as this thread's last error and returns status (for `return fail(...)`). */
nvfp4_status nvfp4i_fail(nvfp4_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Empties this thread's last error; every public entry point calls it first. */
void nvfp4i_clear_error(void);

#endif
