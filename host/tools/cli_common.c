#include "cli_common.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handle.h"

/* strtoll and friends skip leading spaces and take a '+': a strict number starts with a digit or '-'. */
static int starts_like_a_number(const char *text) { return (*text >= '0' && *text <= '9') || *text == '-'; }

/* The integer at text, ending at a character in `ends`; sets *end past it. 0 on no number or overflow. */
static int read_int(const char *text, const char *ends, int64_t *out, const char **end) {
  char *stop;
  errno = 0;
  long long v = starts_like_a_number(text) ? strtoll(text, &stop, 10) : 0;
  if (!starts_like_a_number(text) || stop == text || errno != 0 || strchr(ends, *stop) == NULL) return 0;
  *out = v;
  *end = stop;
  return 1;
}

int cli_int(const char *text, const char *option, int64_t min, int64_t max, int64_t *out) {
  const char *end;
  int64_t v;
  if (!read_int(text, "", &v, &end) || v < min || v > max) {
    fprintf(stderr, "nvfp4: %s: '%s' is not an integer in [%" PRId64 ", %" PRId64 "]\n", option, text, min, max);
    return 0;
  }
  *out = v;
  return 1;
}

int cli_int_list(const char *text, const char *option, int64_t min, int64_t max, int64_t *out, int capacity) {
  const char *p = text;
  int count = 0;
  for (;;) {
    int64_t v;
    const char *end;
    if (count == capacity || !read_int(p, ",", &v, &end) || v < min || v > max) {
      fprintf(stderr, "nvfp4: %s: '%s' is not a list of 1 to %d integers in [%" PRId64 ", %" PRId64 "]\n", option,
              text, capacity, min, max);
      return 0;
    }
    out[count++] = v;
    if (*end == '\0') return count;
    p = end + 1;
  }
}

int cli_u64(const char *text, const char *option, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = *text >= '0' && *text <= '9' ? strtoull(text, &end, 10) : 0;
  if (!(*text >= '0' && *text <= '9') || errno != 0 || *end != '\0') {
    fprintf(stderr, "nvfp4: %s: '%s' is not an integer in [0, 2^64)\n", option, text);
    return 0;
  }
  *out = v;
  return 1;
}

int cli_float(const char *text, const char *option, float *out) {
  char *end;
  errno = 0;
  double v = starts_like_a_number(text) || *text == '.' ? strtod(text, &end) : NAN;
  if (isnan(v) || end == text || *end != '\0' || errno != 0 || fabs(v) > FLT_MAX) {
    fprintf(stderr, "nvfp4: %s: '%s' is not a finite number a float holds\n", option, text);
    return 0;
  }
  *out = (float)v;
  return 1;
}

static const char *const layout_names[] = {[NVFP4_SF_LINEAR] = "linear", [NVFP4_SF_BLOCKED_128x4] = "blocked"};
static const char *const dtype_names[] = {[NVFP4_DTYPE_F16] = "f16", [NVFP4_DTYPE_BF16] = "bf16",
                                          [NVFP4_DTYPE_F32] = "f32"};

/* The index of text in names, or -1 after a message. */
static int lookup(const char *text, const char *option, const char *const *names, int count) {
  for (int i = 0; i < count; i++)
    if (!strcmp(text, names[i])) return i;
  fprintf(stderr, "nvfp4: %s: '%s' is not one of", option, text);
  for (int i = 0; i < count; i++) fprintf(stderr, " %s", names[i]);
  fprintf(stderr, "\n");
  return -1;
}

int cli_layout(const char *text, const char *option, nvfp4_sf_layout *out) {
  int i = lookup(text, option, layout_names, 2);
  if (i >= 0) *out = (nvfp4_sf_layout)i;
  return i >= 0;
}

int cli_dtype(const char *text, nvfp4_dtype *out) {
  int i = lookup(text, "--dtype", dtype_names, 3);
  if (i >= 0) *out = (nvfp4_dtype)i;
  return i >= 0;
}

const char *cli_layout_name(nvfp4_sf_layout layout) { return layout_names[layout]; }
const char *cli_dtype_name(nvfp4_dtype dtype) { return dtype_names[dtype]; }

static const char *const act_names[] = {[CLI_ACT_NVFP4] = "nvfp4", [CLI_ACT_F16] = "f16", [CLI_ACT_BF16] = "bf16"};

int cli_act_parse(const char *text, cli_act *out) {
  int i = lookup(text, "--act", act_names, 3);
  if (i >= 0) *out = (cli_act)i;
  return i >= 0;
}

const char *cli_act_name(cli_act act) { return act_names[act]; }
nvfp4_dtype cli_act_dtype(cli_act act) { return act == CLI_ACT_BF16 ? NVFP4_DTYPE_BF16 : NVFP4_DTYPE_F16; }

int cli_parse(int argc, char **argv, const char *command, const char *usage, const struct option *options,
              cli_take_fn take, void *ctx) {
  char *word = argv[0];
  argv[0] = (char *)command; /* getopt_long's own messages name argv[0] */
  optind = 0;                /* a fresh scan (glibc) */
  int code, status = CLI_GO_ON;
  while (status == CLI_GO_ON && (code = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
    if (code == 'h') {
      printf("%s", usage);
      status = 0;
    } else if (code == '?' || code == ':' || !take(code, optarg, ctx)) {
      status = 2;
    }
  }
  if (status == CLI_GO_ON && optind < argc) {
    fprintf(stderr, "%s: unexpected argument '%s'\n", command, argv[optind]);
    status = 2;
  }
  if (status == 2) fprintf(stderr, "Try '%s --help'.\n", command);
  argv[0] = word;
  return status;
}

int cli_open_handle(nvfp4_handle **h) {
  nvfp4_status s = nvfp4_create(h);
  if (s != NVFP4_STATUS_SUCCESS) {
    fprintf(stderr, "nvfp4: %s: %s\n", nvfp4_status_string(s), nvfp4_last_error());
    if (s == NVFP4_STATUS_NO_DRIVER || s == NVFP4_STATUS_NO_DEVICE)
      fprintf(stderr, "nvfp4: this command runs kernels: it needs an NVIDIA GPU (sm_90a) and its driver\n");
    return 0;
  }
  if (nvfp4i_cuda()->cuCtxSetCurrent((*h)->ctx) != CUDA_SUCCESS) {
    fprintf(stderr, "nvfp4: cannot make the handle's context current\n");
    nvfp4_destroy(*h);
    return 0;
  }
  return 1;
}
