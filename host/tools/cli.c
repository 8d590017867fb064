/* The `nvfp4` command: info, verify and bench over the library (see `nvfp4 --help`). Exit status: 0 done
 * (verify: passed), 1 failed (no GPU included), 2 a usage error. */
#include <stdio.h>
#include <string.h>

#include "cli_bench.h"
#include "cli_common.h"
#include "handle.h"
#include "module.h"
#include "verify.h"

static const char usage_main[] =
    "usage: nvfp4 <command> [options]\n"
    "  info                           driver, device, and the kernels loaded for it\n"
    "  verify gemv [options]          one GEMV on random full-range data against the float64 reference\n"
    "                                 (--act f16|bf16: W4A16, dense x)\n"
    "  verify grouped-gemm [options]  the same for one grouped GEMM call (--act f16|bf16: W4A16)\n"
    "  verify gemm [options]          the same for one dense GEMM with batches, every output checked\n"
    "  verify dual-gemm [options]     the same for one dual GEMM with SiLU call (a gated MLP's two products)\n"
    "  verify dequantize [options]    one dequantize against the exact reference, bit for bit\n"
    "  verify quantize [options]      one quantize against the recipe's CPU implementation, bit for bit\n"
    "  bench [options]                every GPU MODE benchmark shape of GEMV, grouped and dual GEMM (the main job)\n"
    "  bench gemv [options]           time GEMV against the ceilings measured in the same run\n"
    "  bench grouped-gemm [options]   the same for grouped GEMM\n"
    "  bench dual-gemm [options]      the same for dual GEMM with SiLU\n"
    "  bench dequantize [options]     the same for dequantize (16384 x 16384 to f16 and bf16)\n"
    "  bench quantize [options]       the same for quantize (16384 x 16384 from bf16)\n"
    "  bench relayout [options]       the same for scale relayout (a 16384 x 16384 tensor's, both ways)\n"
    "  --version                      the command's and the library's version\n"
    "Each command takes --help. Exit status: 0 done, 1 failed (or no GPU), 2 a usage error.\n";

static const char usage_info[] =
    "usage: nvfp4 info\n"
    "  Prints the library's version, the driver and device, the kernel image, and each kernel with its\n"
    "  registers, spills, static shared memory and resident CTAs per SM.\n";

static const char usage_verify[] =
    "usage: nvfp4 verify gemv|grouped-gemm|gemm|dual-gemm|dequantize|quantize [options]\n"
    "  One call on random full-range data (every e2m1 code, scales 2^-6..2^4, garbage in padding) against\n"
    "  the float64 reference under the accuracy bar of docs/ACCURACY.md (dequantize and quantize: bit for\n"
    "  bit). See nvfp4 verify <operation> --help.\n";

static const char usage_verify_gemv[] =
    "usage: nvfp4 verify gemv [--m M] [--k K] [--l L] [--act nvfp4|f16|bf16] [--layout linear|blocked]\n"
    "                         [--dtype f16|bf16|f32] [--alpha A] [--seed S]\n"
    "  y = alpha * A x for L batches of an M x K NVFP4 matrix A and vector x (K a multiple of 32). --act: x,\n"
    "  NVFP4 (nvfp4_gemv) or dense f16 or bf16 (nvfp4_gemv_w4a16: random values with zeros and subnormals);\n"
    "  --layout is the NVFP4 operands' scale layout, --dtype the output type.\n"
    "  Prints the worst error/tolerance ratio against the accuracy bar (docs/ACCURACY.md) and PASS, or FAIL\n"
    "  with exit status 1. The same seed gives the same data.\n"
    "  Defaults: --m 4096 --k 7168 --l 1 --act nvfp4 --layout linear --dtype f16 --alpha 1 --seed 1\n";

static const char usage_verify_grouped[] =
    "usage: nvfp4 verify grouped-gemm [--m M1,M2,..] [--n N] [--k K] [--act nvfp4|f16|bf16]\n"
    "                                 [--layout linear|blocked] [--dtype f16|bf16|f32] [--alpha A] [--seed S]\n"
    "  One call, one group per entry of --m (0 makes an empty group): C_g (M_g x N) = alpha * A_g (M_g x K)\n"
    "  * B_g (N x K)^T. --act: the activations A_g, NVFP4 (nvfp4_grouped_gemm) or dense f16 or bf16\n"
    "  (nvfp4_grouped_gemm_w4a16: random values with zeros, subnormals and garbage in row padding); --layout\n"
    "  is the NVFP4 operands' scale layout, --dtype the output type. Prints the worst error/tolerance ratio\n"
    "  against the accuracy bar (docs/ACCURACY.md) and PASS, or FAIL with exit status 1. The same seed gives\n"
    "  the same data.\n"
    "  Defaults: --m 80,176 --n 4096 --k 7168 --act nvfp4 --layout linear --dtype f16 --alpha 1 --seed 1\n";

static const char usage_verify_gemm[] =
    "usage: nvfp4 verify gemm [--m M] [--n N] [--k K] [--l L] [--layout linear|blocked] [--dtype f16|bf16|f32]\n"
    "                         [--alpha A] [--seed S]\n"
    "  One nvfp4_gemm call: C_l (M x N) = alpha * A_l (M x K) * B_l (N x K)^T for L batches (K a multiple of\n"
    "  32); --layout is both operands' scale layout, --dtype the output type. Every output of every batch is\n"
    "  checked. Prints the worst error/tolerance ratio against the accuracy bar (docs/ACCURACY.md) and PASS,\n"
    "  or FAIL with exit status 1. The same seed gives the same data.\n"
    "  Defaults: --m 128 --n 7168 --k 2048 --l 1 --layout linear --dtype f16 --alpha 1 --seed 1\n";

static const char usage_verify_dual[] =
    "usage: nvfp4 verify dual-gemm [--m M1,M2,..] [--n N] [--k K] [--layout linear|blocked]\n"
    "                              [--dtype f16|bf16|f32] [--alpha A] [--alpha2 A2] [--seed S]\n"
    "  One nvfp4_grouped_dual_gemm_silu call, one group per entry of --m (0 makes an empty group):\n"
    "  C_g (M_g x N) = silu(alpha * A_g B1_g^T) * (alpha2 * A_g B2_g^T), A_g M_g x K, B1_g and B2_g N x K.\n"
    "  --layout is every operand's scale layout, --dtype the output type. Full-range data makes the products\n"
    "  large (thousands at K = 7168): at alpha 1 an output is about 0 where the gate is negative and, in f16,\n"
    "  mostly infinite where it is positive, each checked as the reference rounds it; a small --alpha (0.001)\n"
    "  puts the gate where SiLU curves. Prints the worst error/tolerance ratio against the accuracy bar\n"
    "  (docs/ACCURACY.md) and PASS, or FAIL with exit status 1. The same seed gives the same data.\n"
    "  Defaults: --m 256 --n 4096 --k 7168 --layout linear --dtype f16 --alpha 1 --alpha2 1 --seed 1\n";

static const char usage_verify_dequantize[] =
    "usage: nvfp4 verify dequantize [--m M] [--k K] [--l L] [--layout linear|blocked] [--dtype f16|bf16|f32]\n"
    "                               [--seed S]\n"
    "  out = the value of every element of L batches of an M x K NVFP4 operand (K a multiple of 32), NaN and\n"
    "  zero scales in some rows, in an output with padded rows and batches. Every element must match the\n"
    "  exact reference bit for bit (any NaN matching any NaN) and no byte around them may change. Prints the\n"
    "  first difference and PASS, or FAIL with exit status 1. The same seed gives the same data.\n"
    "  Defaults: --m 4096 --k 7168 --l 1 --layout linear --dtype f16 --seed 1\n";

static const char usage_verify_quantize[] =
    "usage: nvfp4 verify quantize [--m M] [--k K] [--l L] [--layout linear|blocked] [--dtype f16|bf16|f32]\n"
    "                             [--scale G] [--seed S]\n"
    "  NVFP4 of L batches of an M x K dense input of --dtype (K a multiple of 32) times the global scale G:\n"
    "  random blocks, a third adversarial (rounding boundaries, zeros, NaN and infinities, tiny scales), in\n"
    "  padded rows; output data and scales poisoned. Every byte of both buffers must match the recipe's CPU\n"
    "  implementation (SPEC section 2) and no other byte may change. Prints the first difference and PASS, or\n"
    "  FAIL with exit status 1. The same seed gives the same data.\n"
    "  Defaults: --m 4096 --k 7168 --l 1 --layout linear --dtype bf16 --scale 1 --seed 1\n";

static int print_info(void) {
  nvfp4_handle *h;
  if (!cli_open_handle(&h)) return 1;
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  int driver = 0;
  char name[256] = "";
  cu->cuDriverGetVersion(&driver);
  cu->cuDeviceGetName(name, sizeof name, h->device);
  printf("libnvfp4 %d.%d.%d\n", NVFP4_VERSION_MAJOR, NVFP4_VERSION_MINOR, NVFP4_VERSION_PATCH);
  printf("driver   CUDA %d.%d\n", driver / 1000, driver % 1000 / 10);
  printf("device   %s, sm_%d%d, %d SMs\n", name, h->cc_major, h->cc_minor, h->sm_count);
  printf("path     %s%s\n", nvfp4i_path_name(h->path),
         h->forced_portable ? " (NVFP4_FORCE_PORTABLE=1)"
         : h->path == NVFP4I_PATH_PORTABLE ? " (no sm_90a code runs on this GPU)" : "");
  printf("image    %s, %s, loaded in %.1f ms\n", h->image_source,
         h->jit ? "PTX JIT-compiled by the driver (cached by it after the first time)" : "cubin", h->module_load_ms);
  printf("launch   %s\n", h->kernels_wait ? "programmatic dependent launch (the kernels wait in griddepcontrol)"
                                          : "plain (code built for sm_80: no griddepcontrol)");
  for (int id = 0; id < NVFP4I_KERNEL_COUNT; id++) {
    const nvfp4i_kernel *k = &h->kernels[id];
    const char *name = nvfp4i_kernel_name(h->path, (nvfp4i_kernel_id)id);
    if (name == NULL && nvfp4i_kernel_is_width_entry((nvfp4i_kernel_id)id))
      printf("kernel   %-46s none on this path for the %s: its family's entry of mixed widths takes them\n", "-",
             nvfp4i_kernel_what((nvfp4i_kernel_id)id));
    else if (name == NULL && id == NVFP4I_KERNEL_GROUPED_GEMM) /* the one kernel whose calls have another way */
      printf("kernel   %-46s none on this path: NVFP4 activations are dequantized to f16 B tiles in scratch for the "
             "W4A16 entries (without a memory pool the call returns NOT_SUPPORTED)\n", "-");
    else if (name == NULL)
      printf("kernel   %-46s none on this path: the %s returns NOT_SUPPORTED\n", "-",
             nvfp4i_kernel_what((nvfp4i_kernel_id)id));
    else if (k->fn == NULL)
      printf("kernel   %-46s not in this image: its operation returns NOT_SUPPORTED\n", name);
    else
      printf("kernel   %-46s %3d registers, %d bytes local (spills), %d bytes static shared, %d CTAs/SM, "
             "compute_%d\n", name, k->registers, k->local_bytes, k->static_smem, k->blocks_per_sm, k->ptx_arch);
  }
  nvfp4_destroy(h);
  return 0;
}

static int take_nothing(int code, const char *value, void *ctx) {
  (void)code, (void)value, (void)ctx;
  return 0;
}

static int cmd_info(int argc, char **argv) {
  static const struct option options[] = {CLI_HELP_OPTION, {0}};
  int status = cli_parse(argc, argv, "nvfp4 info", usage_info, options, take_nothing, NULL);
  return status == CLI_GO_ON ? print_info() : status;
}

enum {
  OPT_M = 256, OPT_N, OPT_K, OPT_L, OPT_LAYOUT, OPT_DTYPE, OPT_ALPHA, OPT_ALPHA2, OPT_SEED, OPT_ACT, OPT_SCALE
};

#define SHAPE_MAX INT32_MAX /* the library's limit on rows and K */

/* Prints a verdict and PASS or FAIL, then destroys the handle the check ran on (only then: nvfp4_destroy
 * clears nvfp4_last_error()); returns the exit status. */
static int report_and_destroy(nvfp4_handle *h, const char *what, int pass, const nvfp4i_verdict *v) {
  if (v->status != NVFP4_STATUS_SUCCESS)
    fprintf(stderr, "nvfp4: %s: %s: %s\n", what, nvfp4_status_string(v->status), nvfp4_last_error());
  else
    printf("%s: %lld outputs checked, %lld outside the bar, %lld stray writes, worst error/tolerance %.3g\n"
           "  worst: %s\n",
           what, (long long)v->checked, (long long)v->failures, (long long)v->clobbered, v->worst_ratio, v->detail);
  printf("%s\n", pass ? "PASS" : "FAIL");
  nvfp4_destroy(h);
  return pass ? 0 : 1;
}

typedef struct verify_gemv_args {
  nvfp4i_gemv_case c;
  cli_act act;
} verify_gemv_args;

static int take_verify_gemv(int code, const char *value, void *ctx) {
  verify_gemv_args *a = ctx;
  nvfp4i_gemv_case *c = &a->c;
  switch (code) {
    case OPT_M: return cli_int(value, "--m", 1, SHAPE_MAX, &c->m);
    case OPT_K: return cli_int(value, "--k", 1, SHAPE_MAX, &c->k);
    case OPT_L: return cli_int(value, "--l", 1, SHAPE_MAX, &c->l);
    case OPT_LAYOUT: return cli_layout(value, "--layout", &c->a_layout);
    case OPT_DTYPE: return cli_dtype(value, &c->dtype);
    case OPT_ALPHA: return cli_float(value, "--alpha", &c->alpha);
    case OPT_SEED: return cli_u64(value, "--seed", &c->seed);
    case OPT_ACT: return cli_act_parse(value, &a->act);
  }
  return 0;
}

static int cmd_verify_gemv(int argc, char **argv) {
  static const struct option options[] = {
      {"m", required_argument, NULL, OPT_M},           {"k", required_argument, NULL, OPT_K},
      {"l", required_argument, NULL, OPT_L},           {"layout", required_argument, NULL, OPT_LAYOUT},
      {"dtype", required_argument, NULL, OPT_DTYPE},   {"alpha", required_argument, NULL, OPT_ALPHA},
      {"seed", required_argument, NULL, OPT_SEED},     {"act", required_argument, NULL, OPT_ACT},
      CLI_HELP_OPTION,                                 {0}};
  verify_gemv_args a = {.c = {.m = 4096, .k = 7168, .l = 1, .a_layout = NVFP4_SF_LINEAR, .dtype = NVFP4_DTYPE_F16,
                              .alpha = 1.0f, .seed = 1, .nan_row = -1},
                        .act = CLI_ACT_NVFP4};
  int status = cli_parse(argc, argv, "nvfp4 verify gemv", usage_verify_gemv, options, take_verify_gemv, &a);
  if (status != CLI_GO_ON) return status;
  nvfp4i_gemv_case *c = &a.c;
  c->x_layout = c->a_layout;
  c->x_dtype = cli_act_dtype(a.act);
  nvfp4_handle *h;
  if (!cli_open_handle(&h)) return 1;
  nvfp4i_verdict v;
  int pass = a.act == CLI_ACT_NVFP4 ? nvfp4i_verify_gemv(h, c, &v) : nvfp4i_verify_gemv_w4a16(h, c, &v);
  char what[192];
  snprintf(what, sizeof what, "gemv m=%lld k=%lld l=%lld act=%s layout=%s dtype=%s alpha=%g seed=%llu",
           (long long)c->m, (long long)c->k, (long long)c->l, cli_act_name(a.act), cli_layout_name(c->a_layout),
           cli_dtype_name(c->dtype), c->alpha, (unsigned long long)c->seed);
  return report_and_destroy(h, what, pass, &v);
}

enum { CLI_MAX_GROUPS = 1024 };

typedef struct verify_grouped_args {
  nvfp4i_grouped_case c;
  int64_t m[CLI_MAX_GROUPS], n, k;
  const char *m_text;
  cli_act act;
  nvfp4_dtype act_dtype; /* W4A16: every group's activations */
} verify_grouped_args;

static int take_verify_grouped(int code, const char *value, void *ctx) {
  verify_grouped_args *a = ctx;
  switch (code) {
    case OPT_M:
      a->m_text = value;
      return (a->c.groups = a->c.m_count = cli_int_list(value, "--m", 0, SHAPE_MAX, a->m, CLI_MAX_GROUPS)) > 0;
    case OPT_N: return cli_int(value, "--n", 1, SHAPE_MAX, &a->n);
    case OPT_K: return cli_int(value, "--k", 1, SHAPE_MAX, &a->k);
    case OPT_LAYOUT: return cli_layout(value, "--layout", &a->c.a_layout);
    case OPT_DTYPE: return cli_dtype(value, &a->c.dtype);
    case OPT_ALPHA: return cli_float(value, "--alpha", &a->c.alpha);
    case OPT_ALPHA2: return cli_float(value, "--alpha2", &a->c.alpha2);
    case OPT_SEED: return cli_u64(value, "--seed", &a->c.seed);
    case OPT_ACT: return cli_act_parse(value, &a->act);
  }
  return 0;
}

/* verify grouped-gemm and verify dual-gemm: the same groups, operands and report; the dual GEMM takes --alpha2
 * where the grouped GEMM takes --act. */
typedef struct grouped_command {
  const char *name, *usage;
  const struct option *options;
  const char *m_text; /* the default --m, as the user would write it */
  int64_t n, k;       /* the default --n and --k */
  int dual;           /* nvfp4_grouped_dual_gemm_silu, else nvfp4_grouped_gemm or, with --act, its W4A16 call */
} grouped_command;

static int verify_grouped_command(int argc, char **argv, const grouped_command *cmd) {
  verify_grouped_args a = {.n = cmd->n, .k = cmd->k, .act = CLI_ACT_NVFP4};
  a.c = (nvfp4i_grouped_case){.m = a.m, .n = &a.n, .k = &a.k, .n_count = 1, .k_count = 1,
                              .a_layout = NVFP4_SF_LINEAR, .dtype = NVFP4_DTYPE_F16, .alpha = 1.0f,
                              .alpha2 = 1.0f, .seed = 1};
  take_verify_grouped(OPT_M, cmd->m_text, &a);
  char command[64];
  snprintf(command, sizeof command, "nvfp4 verify %s", cmd->name);
  int status = cli_parse(argc, argv, command, cmd->usage, cmd->options, take_verify_grouped, &a);
  if (status != CLI_GO_ON) return status;
  a.c.b_layout = a.c.a_layout;
  a.act_dtype = cli_act_dtype(a.act);
  a.c.act_dtypes = &a.act_dtype;
  a.c.act_dtype_count = 1;
  nvfp4_handle *h;
  if (!cli_open_handle(&h)) return 1;
  nvfp4i_verdict v;
  int pass = cmd->dual                 ? nvfp4i_verify_dual_gemm(h, &a.c, &v)
             : a.act == CLI_ACT_NVFP4 ? nvfp4i_verify_grouped_gemm(h, &a.c, &v)
                                      : nvfp4i_verify_grouped_gemm_w4a16(h, &a.c, &v);
  char what[256], act[16] = "", alpha2[32] = "";
  if (cmd->dual)
    snprintf(alpha2, sizeof alpha2, " alpha2=%g", a.c.alpha2);
  else
    snprintf(act, sizeof act, " act=%s", cli_act_name(a.act));
  snprintf(what, sizeof what, "%s groups=%d m=%.64s n=%lld k=%lld%s layout=%s dtype=%s alpha=%g%s seed=%llu",
           cmd->name, a.c.groups, a.m_text, (long long)a.n, (long long)a.k, act, cli_layout_name(a.c.a_layout),
           cli_dtype_name(a.c.dtype), a.c.alpha, alpha2, (unsigned long long)a.c.seed);
  return report_and_destroy(h, what, pass, &v);
}

static int cmd_verify_grouped(int argc, char **argv) {
  static const struct option options[] = {
      {"m", required_argument, NULL, OPT_M},           {"n", required_argument, NULL, OPT_N},
      {"k", required_argument, NULL, OPT_K},           {"layout", required_argument, NULL, OPT_LAYOUT},
      {"dtype", required_argument, NULL, OPT_DTYPE},   {"alpha", required_argument, NULL, OPT_ALPHA},
      {"seed", required_argument, NULL, OPT_SEED},     {"act", required_argument, NULL, OPT_ACT},
      CLI_HELP_OPTION,                                 {0}};
  static const grouped_command cmd = {"grouped-gemm", usage_verify_grouped, options, "80,176", 4096, 7168, 0};
  return verify_grouped_command(argc, argv, &cmd);
}

static int cmd_verify_dual(int argc, char **argv) {
  static const struct option options[] = {
      {"m", required_argument, NULL, OPT_M},           {"n", required_argument, NULL, OPT_N},
      {"k", required_argument, NULL, OPT_K},           {"layout", required_argument, NULL, OPT_LAYOUT},
      {"dtype", required_argument, NULL, OPT_DTYPE},   {"alpha", required_argument, NULL, OPT_ALPHA},
      {"alpha2", required_argument, NULL, OPT_ALPHA2}, {"seed", required_argument, NULL, OPT_SEED},
      CLI_HELP_OPTION,                                 {0}};
  static const grouped_command cmd = {"dual-gemm", usage_verify_dual, options, "256", 4096, 7168, 1};
  return verify_grouped_command(argc, argv, &cmd);
}

static int take_verify_gemm(int code, const char *value, void *ctx) {
  nvfp4i_gemm_case *c = ctx;
  switch (code) {
    case OPT_M: return cli_int(value, "--m", 1, SHAPE_MAX, &c->m);
    case OPT_N: return cli_int(value, "--n", 1, SHAPE_MAX, &c->n);
    case OPT_K: return cli_int(value, "--k", 1, SHAPE_MAX, &c->k);
    case OPT_L: return cli_int(value, "--l", 1, SHAPE_MAX, &c->l);
    case OPT_LAYOUT: return cli_layout(value, "--layout", &c->a_layout);
    case OPT_DTYPE: return cli_dtype(value, &c->dtype);
    case OPT_ALPHA: return cli_float(value, "--alpha", &c->alpha);
    case OPT_SEED: return cli_u64(value, "--seed", &c->seed);
  }
  return 0;
}

static int cmd_verify_gemm(int argc, char **argv) {
  static const struct option options[] = {
      {"m", required_argument, NULL, OPT_M},           {"n", required_argument, NULL, OPT_N},
      {"k", required_argument, NULL, OPT_K},           {"l", required_argument, NULL, OPT_L},
      {"layout", required_argument, NULL, OPT_LAYOUT}, {"dtype", required_argument, NULL, OPT_DTYPE},
      {"alpha", required_argument, NULL, OPT_ALPHA},   {"seed", required_argument, NULL, OPT_SEED},
      CLI_HELP_OPTION,                                 {0}};
  nvfp4i_gemm_case c = {.m = 128, .n = 7168, .k = 2048, .l = 1, .a_layout = NVFP4_SF_LINEAR,
                        .dtype = NVFP4_DTYPE_F16, .alpha = 1.0f, .seed = 1};
  int status = cli_parse(argc, argv, "nvfp4 verify gemm", usage_verify_gemm, options, take_verify_gemm, &c);
  if (status != CLI_GO_ON) return status;
  c.b_layout = c.a_layout;
  nvfp4_handle *h;
  if (!cli_open_handle(&h)) return 1;
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_gemm(h, &c, &v);
  char what[192];
  snprintf(what, sizeof what, "gemm m=%lld n=%lld k=%lld l=%lld layout=%s dtype=%s alpha=%g seed=%llu",
           (long long)c.m, (long long)c.n, (long long)c.k, (long long)c.l, cli_layout_name(c.a_layout),
           cli_dtype_name(c.dtype), c.alpha, (unsigned long long)c.seed);
  return report_and_destroy(h, what, pass, &v);
}

static int take_verify_dequantize(int code, const char *value, void *ctx) {
  nvfp4i_dequantize_case *c = ctx;
  switch (code) {
    case OPT_M: return cli_int(value, "--m", 1, SHAPE_MAX, &c->rows);
    case OPT_K: return cli_int(value, "--k", 1, SHAPE_MAX, &c->k);
    case OPT_L: return cli_int(value, "--l", 1, SHAPE_MAX, &c->batch);
    case OPT_LAYOUT: return cli_layout(value, "--layout", &c->layout);
    case OPT_DTYPE: return cli_dtype(value, &c->dtype);
    case OPT_SEED: return cli_u64(value, "--seed", &c->seed);
  }
  return 0;
}

static int cmd_verify_dequantize(int argc, char **argv) {
  static const struct option options[] = {
      {"m", required_argument, NULL, OPT_M},         {"k", required_argument, NULL, OPT_K},
      {"l", required_argument, NULL, OPT_L},         {"layout", required_argument, NULL, OPT_LAYOUT},
      {"dtype", required_argument, NULL, OPT_DTYPE}, {"seed", required_argument, NULL, OPT_SEED},
      CLI_HELP_OPTION,                               {0}};
  /* padded output rows and batches, so that a write past a row or a batch shows */
  nvfp4i_dequantize_case c = {.rows = 4096, .k = 7168, .batch = 1, .layout = NVFP4_SF_LINEAR,
                              .dtype = NVFP4_DTYPE_F16, .seed = 1, .out_pad = 8, .out_batch_pad = 8,
                              .special_rows = 1};
  int status = cli_parse(argc, argv, "nvfp4 verify dequantize", usage_verify_dequantize, options,
                         take_verify_dequantize, &c);
  if (status != CLI_GO_ON) return status;
  nvfp4_handle *h;
  if (!cli_open_handle(&h)) return 1;
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_dequantize(h, &c, &v);
  char what[160];
  snprintf(what, sizeof what, "dequantize m=%lld k=%lld l=%lld layout=%s dtype=%s seed=%llu", (long long)c.rows,
           (long long)c.k, (long long)c.batch, cli_layout_name(c.layout), cli_dtype_name(c.dtype),
           (unsigned long long)c.seed);
  return report_and_destroy(h, what, pass, &v);
}

static int take_verify_quantize(int code, const char *value, void *ctx) {
  nvfp4i_quantize_case *c = ctx;
  switch (code) {
    case OPT_M: return cli_int(value, "--m", 1, SHAPE_MAX, &c->rows);
    case OPT_K: return cli_int(value, "--k", 1, SHAPE_MAX, &c->k);
    case OPT_L: return cli_int(value, "--l", 1, SHAPE_MAX, &c->batch);
    case OPT_LAYOUT: return cli_layout(value, "--layout", &c->layout);
    case OPT_DTYPE: return cli_dtype(value, &c->dtype);
    case OPT_SCALE: return cli_float(value, "--scale", &c->global_scale);
    case OPT_SEED: return cli_u64(value, "--seed", &c->seed);
  }
  return 0;
}

static int cmd_verify_quantize(int argc, char **argv) {
  static const struct option options[] = {
      {"m", required_argument, NULL, OPT_M},         {"k", required_argument, NULL, OPT_K},
      {"l", required_argument, NULL, OPT_L},         {"layout", required_argument, NULL, OPT_LAYOUT},
      {"dtype", required_argument, NULL, OPT_DTYPE}, {"scale", required_argument, NULL, OPT_SCALE},
      {"seed", required_argument, NULL, OPT_SEED},   CLI_HELP_OPTION,
      {0}};
  /* padded input and output rows, so that a read or write past a row shows */
  nvfp4i_quantize_case c = {.rows = 4096, .k = 7168, .batch = 1, .layout = NVFP4_SF_LINEAR,
                            .dtype = NVFP4_DTYPE_BF16, .global_scale = 1.0f, .seed = 1, .in_pad = 8,
                            .in_batch_pad = 8, .pad = 16};
  int status = cli_parse(argc, argv, "nvfp4 verify quantize", usage_verify_quantize, options,
                         take_verify_quantize, &c);
  if (status != CLI_GO_ON) return status;
  nvfp4_handle *h;
  if (!cli_open_handle(&h)) return 1;
  nvfp4i_verdict v;
  int pass = nvfp4i_verify_quantize(h, &c, &v);
  char what[160];
  snprintf(what, sizeof what, "quantize m=%lld k=%lld l=%lld layout=%s dtype=%s scale=%g seed=%llu",
           (long long)c.rows, (long long)c.k, (long long)c.batch, cli_layout_name(c.layout), cli_dtype_name(c.dtype),
           (double)c.global_scale, (unsigned long long)c.seed);
  return report_and_destroy(h, what, pass, &v);
}

static int cmd_verify(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "gemv")) return cmd_verify_gemv(argc - 1, argv + 1);
  if (argc >= 2 && !strcmp(argv[1], "grouped-gemm")) return cmd_verify_grouped(argc - 1, argv + 1);
  if (argc >= 2 && !strcmp(argv[1], "gemm")) return cmd_verify_gemm(argc - 1, argv + 1);
  if (argc >= 2 && !strcmp(argv[1], "dual-gemm")) return cmd_verify_dual(argc - 1, argv + 1);
  if (argc >= 2 && !strcmp(argv[1], "dequantize")) return cmd_verify_dequantize(argc - 1, argv + 1);
  if (argc >= 2 && !strcmp(argv[1], "quantize")) return cmd_verify_quantize(argc - 1, argv + 1);
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("%s", usage_verify);
    return 0;
  }
  fprintf(stderr, "nvfp4 verify: name an operation: gemv, grouped-gemm, gemm, dual-gemm, dequantize or quantize\n"
                  "Try 'nvfp4 verify --help'.\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "%s", usage_main);
    return 2;
  }
  const char *command = argv[1];
  if (!strcmp(command, "--help") || !strcmp(command, "-h")) {
    printf("%s", usage_main);
    return 0;
  }
  if (!strcmp(command, "--version")) {
    printf("nvfp4 %d.%d.%d (libnvfp4 %u.%u.%u)\n", NVFP4_VERSION_MAJOR, NVFP4_VERSION_MINOR, NVFP4_VERSION_PATCH,
           nvfp4_version() / 10000, nvfp4_version() / 100 % 100, nvfp4_version() % 100);
    return 0;
  }
  if (!strcmp(command, "info")) return cmd_info(argc - 1, argv + 1);
  if (!strcmp(command, "verify")) return cmd_verify(argc - 1, argv + 1);
  if (!strcmp(command, "bench")) return cli_bench(argc - 1, argv + 1);
  fprintf(stderr, "nvfp4: unknown command '%s'\nTry 'nvfp4 --help'.\n", command);
  return 2;
}
