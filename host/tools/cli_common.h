/* What the nvfp4 command's subcommands share (not part of libnvfp4): strict number parsing, one getopt_long
 * loop per subcommand, and opening a handle. Every parser takes an option's whole text or prints why not and
 * returns 0, and the caller exits 2. */
#ifndef NVFP4_TOOLS_CLI_COMMON_H
#define NVFP4_TOOLS_CLI_COMMON_H

#include <getopt.h>
#include <stdint.h>

#include "nvfp4.h"

/* A base-10 integer in [min, max]: no sign other than a leading '-', no spaces, no trailing text. */
int cli_int(const char *text, const char *option, int64_t min, int64_t max, int64_t *out);

/* A comma-separated list of 1..capacity such integers; returns how many (0 after a message). */
int cli_int_list(const char *text, const char *option, int64_t min, int64_t max, int64_t *out, int capacity);

/* An unsigned 64-bit integer. */
int cli_u64(const char *text, const char *option, uint64_t *out);

/* A finite number that a float holds. */
int cli_float(const char *text, const char *option, float *out);

/* linear | blocked (for `option`: --layout, relayout's --to), and f16 | bf16 | f32; the names back. */
int cli_layout(const char *text, const char *option, nvfp4_sf_layout *out);
int cli_dtype(const char *text, nvfp4_dtype *out);
const char *cli_layout_name(nvfp4_sf_layout layout);
const char *cli_dtype_name(nvfp4_dtype dtype);

/* --act: the GEMV's x or the grouped GEMM's activations, NVFP4 (nvfp4_gemv, nvfp4_grouped_gemm) or dense f16 /
 * bf16 (nvfp4_gemv_w4a16, nvfp4_grouped_gemm_w4a16). nvfp4 | f16 | bf16, and the name back; the dense ones'
 * nvfp4_dtype. */
typedef enum cli_act { CLI_ACT_NVFP4, CLI_ACT_F16, CLI_ACT_BF16 } cli_act;
int cli_act_parse(const char *text, cli_act *out);
const char *cli_act_name(cli_act act);
nvfp4_dtype cli_act_dtype(cli_act act);

/* What cli_parse returns when the command should go on (else the exit status). */
enum { CLI_GO_ON = -1 };

/* One option of a subcommand, as take() receives it: its getopt code and its value (NULL for a flag). */
typedef int (*cli_take_fn)(int code, const char *value, void *ctx);

/* Parses a subcommand's arguments (argv[0] is the subcommand's own word) with getopt_long: --help prints
 * `usage` and returns 0; every other option goes to take(), which returns 0 after a message; an unknown
 * option, a missing value or a positional argument is a usage error. `command` ("nvfp4 bench gemv") names
 * the command in messages. Returns CLI_GO_ON, 0 or 2. */
int cli_parse(int argc, char **argv, const char *command, const char *usage, const struct option *options,
              cli_take_fn take, void *ctx);

/* The getopt code of --help in every subcommand's table. */
#define CLI_HELP_OPTION {"help", no_argument, NULL, 'h'}

/* Creates a handle and makes its context current, so that the command can allocate memory in it. Prints
 * why not (saying that a GPU is needed when there is none) and returns 0. */
int cli_open_handle(nvfp4_handle **h);

#endif
