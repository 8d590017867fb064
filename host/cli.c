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
    "  info                           driver, device, and the kernels loaded for it\n"
    "  verify gemv [options]          one GEMV on random full-range data against the float64 reference\n"
    "  verify grouped-gemm [options]  the same for one grouped GEMM call\n"
    "  bench                          every GPU MODE benchmark shape of both operations (the main job)\n"
    "  bench gemv [options]           time GEMV against the copy bandwidth measured in the same run\n"
    "  bench grouped-gemm [options]   time grouped GEMM against measured copy and tensor-core ceilings\n"
    "Each command takes --help.\n";

static const char usage_verify_gemv[] =
    "usage: nvfp4 verify gemv [--m M] [--k K] [--l L] [--layout linear|blocked] [--dtype f16|bf16|f32]\n"
    "                         [--alpha A] [--seed S]\n"
    "  y = alpha * A x for L batches of an M x K NVFP4 matrix A and vector x (K a multiple of 32).\n"
    "  Prints the worst error/tolerance ratio against the SPEC section 4 bar and PASS or FAIL (exit 1).\n"
    "  Defaults: --m 4096 --k 7168 --l 1 --layout linear --dtype f16 --alpha 1 --seed 1\n";

static const char usage_verify_grouped[] =
    "usage: nvfp4 verify grouped-gemm [--m M1,M2,..] [--n N] [--k K] [--layout linear|blocked]\n"
    "                                 [--dtype f16|bf16|f32] [--alpha A] [--seed S]\n"
    "  One call, one group per entry of --m: C_g (M_g x N) = alpha * A_g (M_g x K) * B_g (N x K)^T.\n"
    "  Prints the worst error/tolerance ratio against the SPEC section 4 bar and PASS or FAIL (exit 1).\n"
    "  Defaults: --m 80,176 --n 4096 --k 7168 --layout linear --dtype f16 --alpha 1 --seed 1\n";

static const char usage_bench_grouped[] =
    "usage: nvfp4 bench grouped-gemm [--m M1,M2,.. --n N --k K | --gpumode] [--iters N] [--csv FILE]\n"
    "  Times one nvfp4_grouped_gemm call per run (events, L2 flushed, median of N runs, default 50) and\n"
    "  prints microseconds, TFLOP/s, the share of the f16 tensor-core rate and the floors from the copy\n"
    "  bandwidth and that rate, all measured in the same run. Default: the GPU MODE benchmark cases.\n";

static const char usage_bench[] =
    "usage: nvfp4 bench                  every GPU MODE benchmark shape of both operations\n"
    "       nvfp4 bench grouped-gemm ... (see nvfp4 bench grouped-gemm --help)\n"
    "       nvfp4 bench gemv [--m M --k K --l L | --gpumode | --sweep] [--iters N] [--csv FILE]\n"
    "  Times each launch with CUDA events after flushing L2; prints the median, min and max over N runs\n"
    "  (default 50), the bytes moved per second and their share of the device copy bandwidth measured in\n"
    "  the same run, and the time of a plain read of the same bytes (the read probe) timed the same way.\n"
    "  Without --m/--k/--l: the GPU MODE benchmark shapes (--gpumode). --sweep: M in\n"
    "  {1, 64, 512, 4096, 16384} x K in {256, 2048, 16384} x L in {1, 8}.\n";

/* Opens a handle and makes its context current, so this program can allocate memory in it. */
static int open_handle(nvfp4_handle **h) {
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

/* "80,176,128" -> up to max integers; returns the count, 0 on a malformed list. */
static int parse_list(const char *text, const char *name, int64_t *out, int max) {
  int count = 0;
  const char *p = text;
  while (*p != '\0' && count < max) {
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p || (*end != ',' && *end != '\0')) break;
    out[count++] = v;
    p = *end == ',' ? end + 1 : end;
  }
  if (count == 0 || *p != '\0') {
    fprintf(stderr, "nvfp4: %s: '%s' is not a list of at most %d integers\n", name, text, max);
    return 0;
  }
  return count;
}

static int parse_dtype(const char *text, nvfp4_dtype *out) {
  if (!strcmp(text, "f16")) *out = NVFP4_DTYPE_F16;
  else if (!strcmp(text, "bf16")) *out = NVFP4_DTYPE_BF16;
  else if (!strcmp(text, "f32")) *out = NVFP4_DTYPE_F32;
  else {
    fprintf(stderr, "nvfp4: --dtype must be f16, bf16 or f32\n");
    return 0;
  }
  return 1;
}

static int parse_layout(const char *text, nvfp4_sf_layout *out) {
  if (!strcmp(text, "linear")) *out = NVFP4_SF_LINEAR;
  else if (!strcmp(text, "blocked")) *out = NVFP4_SF_BLOCKED_128x4;
  else {
    fprintf(stderr, "nvfp4: --layout must be linear or blocked\n");
    return 0;
  }
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
    printf("kernel   %-28s %3d registers, %d bytes local (spills), %d bytes static shared, %d CTAs/SM\n",
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
  if (!parse_layout(layout, &c.a_layout) || !parse_dtype(dtype, &c.dtype)) return 2;
  c.x_layout = c.a_layout;
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

enum { CLI_MAX_GROUPS = 1024 };

static int cmd_verify_grouped(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    printf("%s", usage_verify_grouped);
    return 0;
  }
  const char *m = "80,176", *n = "4096", *k = "7168", *layout = "linear", *dtype = "f16", *alpha = "1", *seed = "1";
  option options[] = {{"--m", &m},         {"--n", &n},         {"--k", &k},       {"--layout", &layout},
                      {"--dtype", &dtype}, {"--alpha", &alpha}, {"--seed", &seed}};
  if (!parse_options(argc, argv, options, 7, usage_verify_grouped)) return 2;
  static int64_t ms[CLI_MAX_GROUPS];
  int64_t nn, kk, s;
  int groups = parse_list(m, "--m", ms, CLI_MAX_GROUPS);
  if (groups == 0 || !parse_int(n, "--n", &nn) || !parse_int(k, "--k", &kk) || !parse_int(seed, "--seed", &s))
    return 2;
  nvfp4i_grouped_case c = {.groups = groups, .m = ms, .n = &nn, .k = &kk, .m_count = groups, .n_count = 1,
                           .k_count = 1, .alpha = strtof(alpha, NULL), .seed = (uint64_t)s};
  if (!parse_layout(layout, &c.a_layout) || !parse_dtype(dtype, &c.dtype)) return 2;
  c.b_layout = c.a_layout;
  nvfp4_handle *h;
  if (!open_handle(&h)) return 1;
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_grouped_gemm(h, &c, &v);
  if (v.status != NVFP4_STATUS_SUCCESS)
    fprintf(stderr, "nvfp4: grouped-gemm: %s: %s\n", nvfp4_status_string(v.status), nvfp4_last_error());
  else
    printf("grouped-gemm groups=%d m=%s n=%lld k=%lld layout=%s dtype=%s alpha=%g seed=%lld: %lld outputs "
           "checked, %lld outside the bar, %lld stray writes, worst error/tolerance %.3g\n  worst: %s\n",
           groups, m, (long long)nn, (long long)kk, layout, dtype, c.alpha, (long long)s, (long long)v.checked,
           (long long)v.failures, (long long)v.clobbered, v.worst_ratio, v.detail);
  printf("%s\n", pass ? "PASS" : "FAIL");
  nvfp4_destroy(h);
  return pass ? 0 : 1;
}

/* With a path: opens it for writing and writes the header line (0 and a message if it cannot). */
static int open_csv(const char *path, const char *header, FILE **out) {
  *out = NULL;
  if (path == NULL) return 1;
  if ((*out = fopen(path, "w")) == NULL) {
    fprintf(stderr, "nvfp4: cannot write %s\n", path);
    return 0;
  }
  fprintf(*out, "%s\n", header);
  return 1;
}

typedef struct grouped_shape {
  int groups;
  int64_t m[8], n, k;
} grouped_shape;

static const grouped_shape gpumode_grouped_shapes[] = {
    {8, {80, 176, 128, 72, 64, 248, 96, 160}, 4096, 7168},
    {8, {40, 76, 168, 72, 164, 148, 196, 160}, 7168, 2048},
    {2, {192, 320}, 3072, 4096},
    {2, {128, 384}, 4096, 1536},
};

static int cmd_bench_grouped(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    printf("%s", usage_bench_grouped);
    return 0;
  }
  const char *m = NULL, *n = NULL, *k = NULL, *iters = "50", *csv = NULL;
  option options[] = {{"--m", &m},         {"--n", &n},     {"--k", &k},
                      {"--iters", &iters}, {"--csv", &csv}, {"--gpumode", NULL}};
  if (!parse_options(argc, argv, options, 6, usage_bench_grouped)) return 2;
  static int64_t ms[CLI_MAX_GROUPS];
  grouped_shape one = {0};
  int groups_one = 0;
  int64_t runs;
  if (!parse_int(iters, "--iters", &runs)) return 2;
  if (runs < 1) runs = 1;
  int custom = (m || n || k) && !has_flag(argc, argv, "--gpumode");
  if (custom) {
    if (!m || !n || !k) {
      fprintf(stderr, "nvfp4: bench grouped-gemm needs --m, --n and --k\n");
      return 2;
    }
    groups_one = parse_list(m, "--m", ms, CLI_MAX_GROUPS);
    if (groups_one == 0 || !parse_int(n, "--n", &one.n) || !parse_int(k, "--k", &one.k)) return 2;
  }
  nvfp4_handle *h;
  if (!open_handle(&h)) return 1;
  FILE *out = NULL;
  if (!open_csv(csv, "op,groups,m,n,k,median_us,min_us,max_us,runs,flops,bytes,tflops,peak_tflops,"
                     "fraction_of_peak,copy_tb_per_s,flop_floor_us,byte_floor_us,time_over_floor",
                &out)) {
    nvfp4_destroy(h);
    return 1;
  }
  double copy_tbps = 0.0, peak = 0.0;
  int rc = 0;
  nvfp4_status s = nvfp4i_bench_copy_bandwidth(20, &copy_tbps);
  if (s == NVFP4_STATUS_SUCCESS) s = nvfp4i_bench_wgmma_peak(h, 20, &peak);
  if (s != NVFP4_STATUS_SUCCESS) {
    fprintf(stderr, "nvfp4: ceilings: %s: %s\n", nvfp4_status_string(s), nvfp4_last_error());
    rc = 1;
    goto done;
  }
  printf("device copy bandwidth: %.3f TB/s (read + write, 1 GiB, median of 20)\n", copy_tbps);
  printf("f16 tensor-core rate:  %.1f TFLOP/s (wgmma.m64n256k16 on every SM, median of 20)\n", peak);
  printf("%-3s %-36s %5s %5s %9s %9s %8s %7s %9s %9s %6s\n", "G", "M", "N", "K", "median_us", "min_us", "TFLOP/s",
         "%peak", "flop_us", "byte_us", "x_floor");
  int count = custom ? 1 : (int)(sizeof gpumode_grouped_shapes / sizeof gpumode_grouped_shapes[0]);
  for (int i = 0; i < count; i++) {
    const grouped_shape *shape = custom ? &one : &gpumode_grouped_shapes[i];
    const int64_t *mlist = custom ? ms : shape->m;
    int groups = custom ? groups_one : shape->groups;
    nvfp4i_timing t;
    double flops, bytes;
    s = nvfp4i_bench_grouped_gemm(h, groups, mlist, shape->n, shape->k, (int)runs, &t, &flops, &bytes);
    char mtext[256] = "";
    for (int g = 0, len = 0; g < groups && len < (int)sizeof mtext - 24; g++)
      len += snprintf(mtext + len, sizeof mtext - (size_t)len, g ? ",%lld" : "%lld", (long long)mlist[g]);
    if (s != NVFP4_STATUS_SUCCESS) {
      fprintf(stderr, "nvfp4: grouped-gemm %s x %lld x %lld: %s: %s\n", mtext, (long long)shape->n,
              (long long)shape->k, nvfp4_status_string(s), nvfp4_last_error());
      rc = 1;
      continue;
    }
    double tflops = flops / (t.median_us * 1e-6) / 1e12;
    double flop_us = flops / (peak * 1e12) * 1e6, byte_us = bytes / (copy_tbps * 1e12) * 1e6;
    double floor_us = flop_us > byte_us ? flop_us : byte_us;
    printf("%-3d %-36s %5lld %5lld %9.2f %9.2f %8.1f %6.1f%% %9.2f %9.2f %6.2f\n", groups, mtext,
           (long long)shape->n, (long long)shape->k, t.median_us, t.min_us, tflops, 100.0 * tflops / peak, flop_us,
           byte_us, t.median_us / floor_us);
    if (out)
      fprintf(out, "grouped-gemm,%d,\"%s\",%lld,%lld,%.3f,%.3f,%.3f,%d,%.0f,%.0f,%.3f,%.3f,%.4f,%.4f,%.3f,%.3f,%.3f\n",
              groups, mtext, (long long)shape->n, (long long)shape->k, t.median_us, t.min_us, t.max_us, t.runs, flops,
              bytes, tflops, peak, tflops / peak, copy_tbps, flop_us, byte_us, t.median_us / floor_us);
  }
done:
  if (out) fclose(out);
  nvfp4_destroy(h);
  return rc;
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
  if (argc == 0) { /* the main job: every GPU MODE benchmark shape of both operations */
    nvfp4_handle *h;
    if (!open_handle(&h)) return 1; /* say once that there is no GPU, not once per operation */
    nvfp4_destroy(h);
    int gemv_rc = cmd_bench(1, (char *[]){"gemv", NULL});
    int grouped_rc = cmd_bench_grouped(0, argv);
    return gemv_rc ? gemv_rc : grouped_rc;
  }
  if (!strcmp(argv[0], "grouped-gemm")) return cmd_bench_grouped(argc - 1, argv + 1);
  if (!strcmp(argv[0], "gemv")) {
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
  if (!open_csv(csv, "op,m,k,l,median_us,min_us,max_us,runs,bytes,tb_per_s,copy_tb_per_s,fraction_of_copy,read_us,"
                     "fraction_of_read",
                &out)) {
    nvfp4_destroy(h);
    return 1;
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
  double floor_us = 0.0;
  if (nvfp4i_bench_launch_floor(20, &floor_us) == NVFP4_STATUS_SUCCESS)
    printf("launch floor:          %.2f us (a 16-byte memset timed the same way, median of 20)\n", floor_us);
  printf("read_us: a plain read of the same bytes (nvfp4_read_probe_sm90a), timed the same way; %%read: its time\n"
         "over the GEMV's, how close the GEMV comes to a kernel that only reads what it must\n");
  printf("%-6s %6s %6s %3s %10s %10s %10s %8s %8s %9s %7s\n", "op", "M", "K", "L", "median_us", "min_us", "max_us",
         "TB/s", "%copy", "read_us", "%read");
  double log_sum = 0.0, log_read_sum = 0.0;
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
    nvfp4i_timing read;
    s = nvfp4i_bench_read(h, bytes, (int)runs, &read);
    if (s != NVFP4_STATUS_SUCCESS) {
      fprintf(stderr, "nvfp4: read probe of %.0f bytes: %s: %s\n", bytes, nvfp4_status_string(s), nvfp4_last_error());
      rc = 1;
      continue;
    }
    double tbps = bytes / (t.median_us * 1e-6) / 1e12, of_read = read.median_us / t.median_us;
    log_sum += log(tbps / copy_tbps);
    log_read_sum += log(of_read);
    printf("%-6s %6lld %6lld %3lld %10.2f %10.2f %10.2f %8.3f %7.1f%% %9.2f %6.1f%%\n", "gemv", (long long)shapes[i].m,
           (long long)shapes[i].k, (long long)shapes[i].l, t.median_us, t.min_us, t.max_us, tbps,
           100.0 * tbps / copy_tbps, read.median_us, 100.0 * of_read);
    if (out)
      fprintf(out, "gemv,%lld,%lld,%lld,%.3f,%.3f,%.3f,%d,%.0f,%.4f,%.4f,%.4f,%.3f,%.4f\n", (long long)shapes[i].m,
              (long long)shapes[i].k, (long long)shapes[i].l, t.median_us, t.min_us, t.max_us, t.runs, bytes, tbps,
              copy_tbps, tbps / copy_tbps, read.median_us, of_read);
  }
  if (rc == 0 && shapes == gpumode_gemv_shapes) /* SPEC section 5's figure of merit, and the read probe's */
    printf("geometric mean: %.1f%% of copy bandwidth, %.1f%% of the read probe\n", 100.0 * exp(log_sum / count),
           100.0 * exp(log_read_sum / count));
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
    if (argc >= 3 && !strcmp(argv[2], "grouped-gemm")) return cmd_verify_grouped(argc - 3, argv + 3);
    if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
      printf("%s%s", usage_verify_gemv, usage_verify_grouped);
      return 0;
    }
    fprintf(stderr, "nvfp4: verify takes an operation: gemv or grouped-gemm\n");
    return 2;
  }
  fprintf(stderr, "nvfp4: unknown command %s\n%s", argv[1], usage_main);
  return 2;
}
