/* The fake CUDA driver (tests/fake/libcuda.c) as the API suites use it: a handle on it, made for each test
 * (in its own process), and what the driver kept of the launches. */
#ifndef NVFP4_TESTS_UNIT_FAKE_DRIVER_H
#define NVFP4_TESTS_UNIT_FAKE_DRIVER_H

#include <stdint.h>

#include <cuda.h>

#include "nvfp4.h"

extern nvfp4_handle *fake_handle;

/* A checked fixture: creates fake_handle on the fake driver; destroys it. */
void create_fake_handle(void);
void destroy_fake_handle(void);

/* Kernel launches so far in this test's process. */
long fake_launches(void);

/* Launch i of the process (0 the first; it must be one of the last few the driver keeps): its entry name,
 * its configuration, and for a GEMV, grouped GEMM, dequantize, quantize or relayout entry its parameter block,
 * else zeros. */
const unsigned char *fake_launch(long i, const char **entry, CUlaunchConfig *config);

/* The same for the last launch. */
const unsigned char *fake_last_launch(CUlaunchConfig *config);

/* A parameter block as its kernel reads it: a 32- or 64-bit word at a byte offset; for a grouped GEMM block
 * (grouped_gemm_layout.h's offsets), a field of group g's descriptor. */
uint32_t param_u32(const unsigned char *block, int offset);
uint64_t param_u64(const unsigned char *block, int offset);
uint32_t desc_u32(const unsigned char *block, int group, int field);
uint64_t desc_u64(const unsigned char *block, int group, int field);

/* Fails the current test unless `entry` is a W4A16 grouped GEMM entry of activation type `type` ("f16",
 * "bf16"): the one of mixed widths, or the one of width t (its name's "_t<t>_"), every descriptor of the
 * launch's parameter block p then holding GG_D_T = t. Returns t, or 0 for the entry of mixed widths. */
uint32_t assert_w4a16_entry(const char *entry, const char *type, const unsigned char *p);

/* Every sm_90a W4A16 entry of family `type` ("f16", "bf16": its entry of mixed widths; "f16_tiles",
 * "bf16_tiles": that and its entries of one width), comma-separated, for FAKE_CUDA_MISSING; and the entries of
 * one width of both B-tiles families (an image without them: the plan takes the mixed entry). */
const char *w4a16_entries(const char *type);
const char *w4a16_width_entries(void);

/* Fails the current test unless the launch set programmatic dependent launch (early = 1: exactly the one
 * attribute CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, allowed) or no attribute (early = 0). */
void assert_launched_early(const CUlaunchConfig *config, int early, const char *what);

/* A call the API must refuse: its status is `expected`, nvfp4_last_error() holds `message` (which names the
 * field), and nothing was launched. */
void assert_rejected(const char *what, nvfp4_status status, nvfp4_status expected, const char *message);

/* A call on an image without `entry`: NOT_SUPPORTED, a message naming the entry, nothing launched. */
void assert_refused_for_missing_entry(const char *entry, nvfp4_status status);

#endif
