/* The `nvfp4` command: info, verify and bench over the library (see `nvfp4 --help`). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "handle.h"
#include "module.h"
#include "verify.h"

static const char usage_main[] =
    "usage: nvfp4 <command> [options]\n"
    "  info                    driver, device, and the kernels loaded for it\n"
    "  verify gemv [options]   run one GEMV on random full-range data, compare with the float64 reference\n"
    "  bench [gemv] [options]  time GEMV (SPEC 5 method); no options: the GPU MODE benchmark shapes\n"
    "Each command takes --help.\n";

static const char usage_verify_gemv[] =
    "usage: nvfp4 verify gemv [--m M] [--k K] [--l L] [--layout linear|blocked] [--dtype f16|bf16|f32]\n"
    "                         [--alpha A] [--seed S]\n"
    "  y = alpha * A x for L batches of an M x K NVFP4 matrix A and vector x (K a multiple of 32).\n"
    "  Prints the worst error/tolerance ratio against the SPEC section 4 bar and PASS or FAIL (exit 1).\n"
    "  Defaults: --m 4096 --k 7168 --l 1 --layout linear --dtype f16 --alpha 1 --seed 1\n";

static const char usage_bench[] =
    "usage: nvfp4 bench [gemv] [--m M --k K --l L | --gpumode | --sweep] [--iters N] [--csv FILE]\n"
    "  Times each launch with CUDA events after flushing L2; prints the median, min and max over N runs\n"
    "  (default 50), the bytes moved per second and their share of the device copy bandwidth measured in\n"
    "  the same run. Without --m/--k/--l: the GPU MODE benchmark shapes (--gpumode). --sweep: M in\n"
    "  {1, 64, 512, 4096, 16384} x K in {256, 2048, 16384} x L in {1, 8}.\n";

/* Opens a handle and makes its context current, so this program can allocate memory in it. */
static int open_handle(nvfp4_handle **h) {
  nvfp4_status s = nvfp4_create(h);
  if (s != NVFP4_STATUS_SUCCESS) {
    fprintf(stderr, "nvfp4: %s: %s\n", nvfp4_status_string(s), nvfp4_last_error());
    return 0;
  }
  if (nvfp4i_cuda()->cuCtxSetCurrent((*h)->ctx) != CUDA_SUCCESS) {
    fprintf(stderr, "nvfp4: cannot make the handle's context current\n");
    nvfp4_destroy(*h);
    return 0;
  }
  return 1;
}

static int wants_help(int argc, char **argv) {
  for (int i = 0; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
  return 0;
}

/* Reads "--name value" pairs; returns 0 (after a message) on an unknown option or a missing value. */
typedef struct option {
  const char *name;
  const char **value;
} option;

static int parse_options(int argc, char **argv, option *options, int count, const char *usage) {
  for (int i = 0; i < argc; i++) {
    int matched = 0;
    for (int o = 0; o < count && !matched; o++) {
      if (strcmp(argv[i], options[o].name) != 0) continue;
      matched = 1;
      if (options[o].value == NULL) continue; /* a flag: caller tests it with has_flag */
      if (i + 1 >= argc) {
        fprintf(stderr, "nvfp4: %s needs a value\n%s", argv[i], usage);
        return 0;
      }
      *options[o].value = argv[++i];
    }
    if (!matched) {
      fprintf(stderr, "nvfp4: unknown option %s\n%s", argv[i], usage);
      return 0;
    }
  }
  return 1;
}

static int has_flag(int argc, char **argv, const char *flag) {
  for (int i = 0; i < argc; i++)
    if (!strcmp(argv[i], flag)) return 1;
  return 0;
}

static int parse_int(const char *text, const char *name, int64_t *out) {
  char *end;
  long long v = strtoll(text, &end, 10);
  if (*text == '\0' || *end != '\0') {
    fprintf(stderr, "nvfp4: %s: '%s' is not an integer\n", name, text);
    return 0;
  }
  *out = v;
  return 1;
}

static int cmd_info(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    printf("usage: nvfp4 info\n  Prints the driver and device, and each kernel with its registers and spills.\n");
    return 0;
  }
  nvfp4_handle *h;
  if (!open_handle(&h)) return 1;
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  int driver = 0;
  char name[256] = "";
  cu->cuDriverGetVersion(&driver);
  cu->cuDeviceGetName(name, sizeof name, h->device);
  printf("libnvfp4 %u.%u.%u\n", NVFP4_VERSION_MAJOR, NVFP4_VERSION_MINOR, NVFP4_VERSION_PATCH);
  printf("driver   CUDA %d.%d\n", driver / 1000, driver % 1000 / 10);
  printf("device   %s, sm_%d%d, %d SMs\n", name, h->cc_major, h->cc_minor, h->sm_count);
  printf("image    %s\n", h->image_source);
  for (int id = 0; id < NVFP4I_KERNEL_COUNT; id++) {
    const nvfp4i_kernel *k = &h->kernels[id];
    printf("kernel   %-24s %3d registers, %d bytes local (spills), %d bytes static shared, %d CTAs/SM\n",
           nvfp4i_kernel_name((nvfp4i_kernel_id)id), k->registers, k->local_bytes, k->static_smem,
           k->blocks_per_sm);
  }
  nvfp4_destroy(h);
  return 0;
}

static int cmd_verify_gemv(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    printf("%s", usage_verify_gemv);
    return 0;
  }
  const char *m = "4096", *k = "7168", *l = "1", *layout = "linear", *dtype = "f16", *alpha = "1", *seed = "1";
  option options[] = {{"--m", &m},         {"--k", &k},         {"--l", &l},       {"--layout", &layout},
                      {"--dtype", &dtype}, {"--alpha", &alpha}, {"--seed", &seed}};
  if (!parse_options(argc, argv, options, 7, usage_verify_gemv)) return 2;
  nvfp4i_gemv_case c = {.nan_row = -1};
  int64_t s;
  if (!parse_int(m, "--m", &c.m) || !parse_int(k, "--k", &c.k) || !parse_int(l, "--l", &c.l) ||
      !parse_int(seed, "--seed", &s))
    return 2;
  c.seed = (uint64_t)s;
  c.alpha = strtof(alpha, NULL);
  if (!strcmp(layout, "linear")) c.a_layout = NVFP4_SF_LINEAR;
  else if (!strcmp(layout, "blocked")) c.a_layout = NVFP4_SF_BLOCKED_128x4;
  else {
    fprintf(stderr, "nvfp4: --layout must be linear or blocked\n");
    return 2;
  }
  c.x_layout = c.a_layout;
  if (!strcmp(dtype, "f16")) c.dtype = NVFP4_DTYPE_F16;
  else if (!strcmp(dtype, "bf16")) c.dtype = NVFP4_DTYPE_BF16;
  else if (!strcmp(dtype, "f32")) c.dtype = NVFP4_DTYPE_F32;
  else {
    fprintf(stderr, "nvfp4: --dtype must be f16, bf16 or f32\n");
    return 2;
  }
  nvfp4_handle *h;
  if (!open_handle(&h)) return 1;
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_gemv(h, &c, &v);
  if (v.status != NVFP4_STATUS_SUCCESS) {
    fprintf(stderr, "nvfp4: gemv: %s: %s\n", nvfp4_status_string(v.status), nvfp4_last_error());
  } else {
    printf("gemv m=%lld k=%lld l=%lld layout=%s dtype=%s alpha=%g seed=%lld: %lld outputs, %lld outside the "
           "bar, %lld stray writes, worst error/tolerance %.3g\n  worst: %s\n",
           (long long)c.m, (long long)c.k, (long long)c.l, layout, dtype, c.alpha, (long long)s,
           (long long)v.checked, (long long)v.failures, (long long)v.clobbered, v.worst_ratio, v.detail);
  }
  printf("%s\n", pass ? "PASS" : "FAIL");
  nvfp4_destroy(h);
  return pass ? 0 : 1;
}

typedef struct gemv_shape {
  int64_t m, k, l;
} gemv_shape;

static const gemv_shape gpumode_gemv_shapes[] = {{7168, 16384, 1}, {4096, 7168, 8}, {7168, 2048, 4}};

enum { SWEEP_COUNT = 5 * 3 * 2 };

static void sweep_shapes(gemv_shape *shapes) {
  static const int64_t ms[] = {1, 64, 512, 4096, 16384}, ks[] = {256, 2048, 16384}, ls[] = {1, 8};
  int n = 0;
  for (int l = 0; l < 2; l++)
    for (int k = 0; k < 3; k++)
      for (int m = 0; m < 5; m++) shapes[n++] = (gemv_shape){ms[m], ks[k], ls[l]};
}

static int cmd_bench(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    printf("%s", usage_bench);
    return 0;
  }
  if (argc > 0 && !strcmp(argv[0], "gemv")) {
    argc--;
    argv++;
  }
  const char *m = NULL, *k = NULL, *l = "1", *iters = "50", *csv = NULL;
  option options[] = {{"--m", &m},         {"--k", &k},           {"--l", &l},          {"--iters", &iters},
                      {"--csv", &csv},     {"--gpumode", NULL},   {"--sweep", NULL}};
  if (!parse_options(argc, argv, options, 7, usage_bench)) return 2;
  gemv_shape one, sweep[SWEEP_COUNT];
  const gemv_shape *shapes = gpumode_gemv_shapes;
  int count = 3;
  int64_t runs;
  if (!parse_int(iters, "--iters", &runs)) return 2;
  if (runs < 1) runs = 1;
  if ((m || k) && !has_flag(argc, argv, "--gpumode")) {
    if (!m || !k) {
      fprintf(stderr, "nvfp4: bench needs both --m and --k\n");
      return 2;
    }
    if (!parse_int(m, "--m", &one.m) || !parse_int(k, "--k", &one.k) || !parse_int(l, "--l", &one.l)) return 2;
    shapes = &one;
    count = 1;
  } else if (has_flag(argc, argv, "--sweep")) {
    sweep_shapes(sweep);
    shapes = sweep;
    count = SWEEP_COUNT;
  }
  nvfp4_handle *h;
  if (!open_handle(&h)) return 1;
  FILE *out = NULL;
  if (csv) {
    out = fopen(csv, "w");
    if (!out) {
      fprintf(stderr, "nvfp4: cannot write %s\n", csv);
      nvfp4_destroy(h);
      return 1;
    }
    fprintf(out, "op,m,k,l,median_us,min_us,max_us,runs,bytes,tb_per_s,copy_tb_per_s,fraction_of_copy\n");
  }
  double copy_tbps = 0.0;
  nvfp4_status s = nvfp4i_bench_copy_bandwidth(20, &copy_tbps);
  int rc = 0;
  if (s != NVFP4_STATUS_SUCCESS) {
    fprintf(stderr, "nvfp4: copy bandwidth: %s: %s\n", nvfp4_status_string(s), nvfp4_last_error());
    rc = 1;
    goto done;
  }
  printf("device copy bandwidth: %.3f TB/s (read + write, 1 GiB, median of 20)\n", copy_tbps);
  printf("%-6s %6s %6s %3s %10s %10s %10s %8s %8s\n", "op", "M", "K", "L", "median_us", "min_us", "max_us", "TB/s",
         "%copy");
  double log_sum = 0.0;
  for (int i = 0; i < count; i++) {
    nvfp4i_timing t;
    double bytes;
    s = nvfp4i_bench_gemv(h, shapes[i].m, shapes[i].k, shapes[i].l, (int)runs, &t, &bytes);
    if (s != NVFP4_STATUS_SUCCESS) {
      fprintf(stderr, "nvfp4: gemv %lldx%lldx%lld: %s: %s\n", (long long)shapes[i].m, (long long)shapes[i].k,
              (long long)shapes[i].l, nvfp4_status_string(s), nvfp4_last_error());
      rc = 1;
      continue;
    }
    double tbps = bytes / (t.median_us * 1e-6) / 1e12;
    log_sum += log(tbps / copy_tbps);
    printf("%-6s %6lld %6lld %3lld %10.2f %10.2f %10.2f %8.3f %7.1f%%\n", "gemv", (long long)shapes[i].m,
           (long long)shapes[i].k, (long long)shapes[i].l, t.median_us, t.min_us, t.max_us, tbps,
           100.0 * tbps / copy_tbps);
    if (out)
      fprintf(out, "gemv,%lld,%lld,%lld,%.3f,%.3f,%.3f,%d,%.0f,%.4f,%.4f,%.4f\n", (long long)shapes[i].m,
              (long long)shapes[i].k, (long long)shapes[i].l, t.median_us, t.min_us, t.max_us, t.runs, bytes, tbps,
              copy_tbps, tbps / copy_tbps);
  }
  if (rc == 0 && count > 1) printf("geometric mean: %.1f%% of copy bandwidth\n", 100.0 * exp(log_sum / count));
done:
  if (out) fclose(out);
  nvfp4_destroy(h);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    printf("%s", usage_main);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "info")) return cmd_info(argc - 2, argv + 2);
  if (!strcmp(argv[1], "bench")) return cmd_bench(argc - 2, argv + 2);
  if (!strcmp(argv[1], "verify")) {
    if (argc >= 3 && !strcmp(argv[2], "gemv")) return cmd_verify_gemv(argc - 3, argv + 3);
    if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
      printf("%s", usage_verify_gemv);
      return 0;
    }
    fprintf(stderr, "nvfp4: verify takes an operation: gemv\n");
    return 2;
  }
  fprintf(stderr, "nvfp4: unknown command %s\n%s", argv[1], usage_main);
  return 2;
}
