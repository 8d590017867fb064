#include "cli_bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cli_common.h"

static const char usage_bench[] =
    "usage: nvfp4 bench [--gpumode] [--iters N] [--sets N] [--csv FILE]\n"
    "       nvfp4 bench gemv [options]          see nvfp4 bench gemv --help\n"
    "       nvfp4 bench grouped-gemm [options]  see nvfp4 bench grouped-gemm --help\n"
    "       nvfp4 bench gemm [options]          see nvfp4 bench gemm --help\n"
    "       nvfp4 bench dual-gemm [options]     see nvfp4 bench dual-gemm --help\n"
    "       nvfp4 bench dequantize [options]    see nvfp4 bench dequantize --help\n"
    "       nvfp4 bench quantize [options]      see nvfp4 bench quantize --help\n"
    "       nvfp4 bench relayout [options]      see nvfp4 bench relayout --help\n"
    "  Without an operation: the GPU MODE benchmark shapes of GEMV, grouped GEMM, dense GEMM and dual GEMM\n"
    "  (--gpumode, the default; the first two each also with f16 activations, W4A16), every option applying to\n"
    "  all four.\n"
    "  Timing (docs/TIMING.md): N distinct input sets; one repetition synchronises, writes 256 MB to flush\n"
    "  L2, and times one call per set back to back on one stream between two events; a call's time is the\n"
    "  elapsed time / N, and the median over the repetitions is reported, with the single-call latency (one\n"
    "  call alone between the events after a flush) beside it. Ceilings measured in the same run: the device\n"
    "  copy bandwidth, the method's launch floor, a plain read of the GEMV's bytes and the f16 tensor-core\n"
    "  rate.\n"
    "  --iters N   repetitions of every measurement (default 50)\n"
    "  --sets N    input sets (default 15; more where N sets would fit in L2, fewer where memory is short)\n"
    "  --csv FILE  also write every row to FILE, one header for every operation\n";

static const char usage_bench_gemv[] =
    "usage: nvfp4 bench gemv [--m M --k K [--l L] | --gpumode | --sweep] [--act nvfp4|f16|bf16] [--iters N]\n"
    "                        [--sets N] [--csv FILE] [--weights-stable]\n"
    "  Times nvfp4_gemv, or nvfp4_gemv_w4a16 with dense x (random full-range operands, LINEAR scales, f16\n"
    "  output) and prints the time per call (median, min, max) and alone, the bytes moved per second (A, x,\n"
    "  their scales and y, each once) and their share of the device copy bandwidth, and the time of a plain\n"
    "  read of the same bytes (the read probe) measured the same way: %read is how close the GEMV comes to a\n"
    "  kernel that only reads what it must.\n"
    "  --gpumode (the default): gemv1..3, (M, K, L) = (7168, 16384, 1), (4096, 7168, 8), (7168, 2048, 4); each\n"
    "            with NVFP4 x, then with f16 x (W4A16), unless --act names one kind\n"
    "  --sweep: M in {1, 64, 512, 4096, 16384} x K in {256, 2048, 16384} x L in {1, 8}, then common models'\n"
    "    decode shapes at L = 1 (rows `model`): M x K = 4096 x 4096, 14336 x 4096, 4096 x 14336, 128256 x 4096\n"
    "  --act: x, NVFP4 (nvfp4_gemv, the default for --sweep and a shape of your own) or dense f16 or bf16\n"
    "         (nvfp4_gemv_w4a16; bytes count x at 2 an element)\n"
    "  --iters N, --sets N, --csv FILE: as in nvfp4 bench --help\n"
    "  --weights-stable: the handle's weights-stable option on (nvfp4_set_weights_stable: each call loads A and\n"
    "         its scales before it waits for the call before it to end); off by default, as in the library\n";

static const char usage_bench_grouped[] =
    "usage: nvfp4 bench grouped-gemm [--m M1,M2,.. --n N --k K | --gpumode] [--act nvfp4|f16|bf16] [--iters N]\n"
    "                                [--sets N] [--csv FILE]\n"
    "  Times nvfp4_grouped_gemm (one group per entry of --m, each M_g x N x K, 0 for an empty group; random\n"
    "  full-range operands, LINEAR scales, f16 output) and prints the time per call and alone, TFLOP/s and\n"
    "  its share of the f16 tensor-core rate, the bytes moved per second (every non-empty group's operands\n"
    "  read once, C written once) and their share of the copy bandwidth, and the floors the two ceilings put\n"
    "  on the call, all measured in the same run.\n"
    "  --gpumode (the default): GPU MODE's four benchmark cases gg1..4, and moe1: G = 64, M_g in [0, 24]\n"
    "            drawn from a fixed seed (three groups empty), N = 4096, K = 7168; each with NVFP4\n"
    "            activations, then with f16 ones (W4A16), unless --act names one kind\n"
    "  --act: the activations, NVFP4 (nvfp4_grouped_gemm, the default for a shape of your own) or dense f16\n"
    "         or bf16 (nvfp4_grouped_gemm_w4a16; bytes count them at 2 an element)\n"
    "  --iters N, --sets N, --csv FILE: as in nvfp4 bench --help\n";

static const char usage_bench_gemm[] =
    "usage: nvfp4 bench gemm [--m M --n N --k K [--l L] | --gpumode] [--iters N] [--sets N] [--csv FILE]\n"
    "  Times nvfp4_gemm, the dense GEMM with batches (C_l = A_l B_l^T, A_l M x K, B_l N x K, L batches; random\n"
    "  full-range operands, LINEAR scales, f16 output) and prints what nvfp4 bench grouped-gemm prints: the\n"
    "  time per call and alone, TFLOP/s and its share of the f16 tensor-core rate, the bytes moved per second\n"
    "  (A, B and their scales read once, C written once, every batch) and their share of the copy bandwidth,\n"
    "  and the floors the two ceilings put on the call.\n"
    "  --gpumode (the default): GPU MODE's three benchmark cases gemm1..3, L = 1, (M, N, K) = (128, 7168, 16384),\n"
    "            (128, 4096, 7168), (128, 7168, 2048)\n"
    "  --iters N, --sets N, --csv FILE: as in nvfp4 bench --help\n";

static const char usage_bench_dual[] =
    "usage: nvfp4 bench dual-gemm [--m M1,M2,.. --n N --k K | --gpumode] [--iters N] [--sets N] [--csv FILE]\n"
    "  Times nvfp4_grouped_dual_gemm_silu (one group per entry of --m, each A_g M_g x K against B1_g and B2_g\n"
    "  N x K, 0 for an empty group; random full-range operands, LINEAR scales, f16 output, alpha1 = alpha2 = 1)\n"
    "  and prints what nvfp4 bench grouped-gemm prints: the time per call and alone, TFLOP/s (4 * M * N * K a\n"
    "  group: two products) and its share of the f16 tensor-core rate, the bytes moved per second (A, B1, B2\n"
    "  and their scales read once, C written once) and their share of the copy bandwidth, and the floors.\n"
    "  --gpumode (the default): GPU MODE's four benchmark cases dual1..4, G = 1, (M, N, K) = (256, 4096, 7168),\n"
    "            (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)\n"
    "  --iters N, --sets N, --csv FILE: as in nvfp4 bench --help\n";

static const char usage_bench_dequantize[] =
    "usage: nvfp4 bench dequantize [--m M --k K | --gpumode] [--dtype f16|bf16|f32] [--iters N] [--sets N]\n"
    "                              [--csv FILE]\n"
    "  Times nvfp4_dequantize (an M x K operand of random full-range codes and scales, LINEAR, to the --dtype\n"
    "  output, rows packed) and prints the time per call (median, min, max) and alone, and the bytes moved per\n"
    "  second (data and scales read once, the output written once) and their share of the device copy\n"
    "  bandwidth measured in the same run (the target: 80%).\n"
    "  --gpumode (the default): 16384 x 16384 to f16 (deq-f16) and to bf16 (deq-bf16), or to --dtype alone;\n"
    "            then the token operands of the grouped GEMM shapes (gdq-gg1 .. gdq-moe1, M the rows of all\n"
    "            groups) in one call of the library's grouped dequantize, to f16 or --dtype\n"
    "  --dtype: the output type (default f16 for a shape of your own); the CSV's shape column names it\n"
    "  --iters N, --sets N, --csv FILE: as in nvfp4 bench --help\n";

static const char usage_bench_quantize[] =
    "usage: nvfp4 bench quantize [--m M --k K] [--dtype f16|bf16|f32] [--iters N] [--sets N] [--csv FILE]\n"
    "  Times nvfp4_quantize (an M x K dense input of random values of --dtype, global scale 1, into LINEAR\n"
    "  scales, rows packed) and prints the time per call (median, min, max) and alone, and the bytes moved per\n"
    "  second (the input read once, the data and scales written once) and their share of the device copy\n"
    "  bandwidth measured in the same run.\n"
    "  Defaults: 16384 x 16384 bf16 (qnt-bf16); a shape of your own takes both --m and --k\n"
    "  --iters N, --sets N, --csv FILE: as in nvfp4 bench --help\n";

static const char usage_bench_relayout[] =
    "usage: nvfp4 bench relayout [--m M --k K | --gpumode] [--to linear|blocked] [--iters N] [--sets N]\n"
    "                            [--csv FILE]\n"
    "  Times nvfp4_scales_relayout (the scales of an M x K tensor, random e4m3 bytes, rows packed, from one\n"
    "  layout into the other) and prints the time per call (median, min, max) and alone, and the bytes moved\n"
    "  per second (the scales read once, the destination written once, BLOCKED as whole 128 x 4 tiles) and\n"
    "  their share of the device copy bandwidth measured in the same run.\n"
    "  --gpumode (the default): the scales of a 16384 x 16384 tensor, LINEAR -> BLOCKED (rly-lin2blk) and\n"
    "            BLOCKED -> LINEAR (rly-blk2lin), or into --to alone\n"
    "  --to: the destination's layout, the source's the other (default blocked for a shape of your own); the\n"
    "        CSV's shape column names the direction\n"
    "  --iters N, --sets N, --csv FILE: as in nvfp4 bench --help\n";

enum {
  OPT_M = 256, OPT_N, OPT_K, OPT_L, OPT_ITERS, OPT_SETS, OPT_CSV, OPT_GPUMODE, OPT_SWEEP, OPT_ACT, OPT_DTYPE, OPT_TO,
  OPT_WEIGHTS_STABLE
};
enum {
  BENCH_GEMV = 1, BENCH_GROUPED = 2, BENCH_DEQUANTIZE = 4, BENCH_QUANTIZE = 8, BENCH_RELAYOUT = 16, BENCH_DUAL = 32,
  BENCH_GEMM = 64,
  BENCH_GPUMODE = BENCH_GEMV | BENCH_GROUPED | BENCH_GEMM | BENCH_DUAL, /* `nvfp4 bench` without an operation */
  BENCH_TENSOR_CORE = BENCH_GROUPED | BENCH_GEMM | BENCH_DUAL, /* the operations rated against the wgmma peak */
  MAX_GROUPS = 1024
};

#define SHAPE_MAX INT32_MAX

typedef struct bench_args {
  int ops; /* BENCH_GPUMODE, or one operation */
  int gpumode, sweep;
  int64_t m[MAX_GROUPS];
  int m_count; /* 0: --m not given */
  int64_t n, k, l; /* 0: not given */
  int64_t iters, sets;
  const char *csv;
  cli_act act; /* the GEMV's x, the grouped GEMM's activations */
  int act_given;
  nvfp4_dtype dtype; /* dequantize's output, quantize's input */
  int dtype_given;
  nvfp4_sf_layout to; /* relayout's destination */
  int to_given;
  int weights_stable; /* the GEMVs: nvfp4_set_weights_stable(h, 1) */
} bench_args;

static int take_bench(int code, const char *value, void *ctx) {
  bench_args *a = ctx;
  switch (code) {
    case OPT_M: return (a->m_count = cli_int_list(value, "--m", 0, SHAPE_MAX, a->m, MAX_GROUPS)) > 0;
    case OPT_N: return cli_int(value, "--n", 1, SHAPE_MAX, &a->n);
    case OPT_K: return cli_int(value, "--k", 1, SHAPE_MAX, &a->k);
    case OPT_L: return cli_int(value, "--l", 1, SHAPE_MAX, &a->l);
    case OPT_ITERS: return cli_int(value, "--iters", 1, 1000000, &a->iters);
    case OPT_SETS: return cli_int(value, "--sets", 1, 1024, &a->sets);
    case OPT_CSV: a->csv = value; return 1;
    case OPT_GPUMODE: a->gpumode = 1; return 1;
    case OPT_SWEEP: a->sweep = 1; return 1;
    case OPT_ACT: a->act_given = 1; return cli_act_parse(value, &a->act);
    case OPT_DTYPE: a->dtype_given = 1; return cli_dtype(value, &a->dtype);
    case OPT_TO: a->to_given = 1; return cli_layout(value, "--to", &a->to);
    case OPT_WEIGHTS_STABLE: a->weights_stable = 1; return 1;
  }
  return 0;
}

#define COMMON_OPTIONS                                                                                    \
  {"gpumode", no_argument, NULL, OPT_GPUMODE}, {"iters", required_argument, NULL, OPT_ITERS},             \
      {"sets", required_argument, NULL, OPT_SETS}, {"csv", required_argument, NULL, OPT_CSV}, CLI_HELP_OPTION

/* Parses the arguments after `bench` (argv[0]) and the operation's word, if any; CLI_GO_ON or the status. */
static int parse_bench(int argc, char **argv, bench_args *a) {
  static const struct option gpumode_options[] = {COMMON_OPTIONS, {0}};
  static const struct option gemv_options[] = {COMMON_OPTIONS,
                                               {"m", required_argument, NULL, OPT_M},
                                               {"k", required_argument, NULL, OPT_K},
                                               {"l", required_argument, NULL, OPT_L},
                                               {"sweep", no_argument, NULL, OPT_SWEEP},
                                               {"act", required_argument, NULL, OPT_ACT},
                                               {"weights-stable", no_argument, NULL, OPT_WEIGHTS_STABLE},
                                               {0}};
  static const struct option grouped_options[] = {COMMON_OPTIONS,
                                                  {"m", required_argument, NULL, OPT_M},
                                                  {"n", required_argument, NULL, OPT_N},
                                                  {"k", required_argument, NULL, OPT_K},
                                                  {"act", required_argument, NULL, OPT_ACT},
                                                  {0}};
  static const struct option gemm_options[] = {COMMON_OPTIONS,
                                               {"m", required_argument, NULL, OPT_M},
                                               {"n", required_argument, NULL, OPT_N},
                                               {"k", required_argument, NULL, OPT_K},
                                               {"l", required_argument, NULL, OPT_L},
                                               {0}};
  static const struct option dual_options[] = {COMMON_OPTIONS,
                                               {"m", required_argument, NULL, OPT_M},
                                               {"n", required_argument, NULL, OPT_N},
                                               {"k", required_argument, NULL, OPT_K},
                                               {0}};
  static const struct option dequantize_options[] = {COMMON_OPTIONS,
                                                     {"m", required_argument, NULL, OPT_M},
                                                     {"k", required_argument, NULL, OPT_K},
                                                     {"dtype", required_argument, NULL, OPT_DTYPE},
                                                     {0}};
  static const struct option quantize_options[] = {COMMON_OPTIONS,
                                                   {"m", required_argument, NULL, OPT_M},
                                                   {"k", required_argument, NULL, OPT_K},
                                                   {"dtype", required_argument, NULL, OPT_DTYPE},
                                                   {0}};
  static const struct option relayout_options[] = {COMMON_OPTIONS,
                                                   {"m", required_argument, NULL, OPT_M},
                                                   {"k", required_argument, NULL, OPT_K},
                                                   {"to", required_argument, NULL, OPT_TO},
                                                   {0}};
  const char *command = "nvfp4 bench", *usage = usage_bench;
  const struct option *options = gpumode_options;
  a->ops = BENCH_GPUMODE;
  if (argc >= 2 && !strcmp(argv[1], "gemv")) {
    a->ops = BENCH_GEMV;
    command = "nvfp4 bench gemv", usage = usage_bench_gemv, options = gemv_options;
  } else if (argc >= 2 && !strcmp(argv[1], "grouped-gemm")) {
    a->ops = BENCH_GROUPED;
    command = "nvfp4 bench grouped-gemm", usage = usage_bench_grouped, options = grouped_options;
  } else if (argc >= 2 && !strcmp(argv[1], "gemm")) {
    a->ops = BENCH_GEMM;
    command = "nvfp4 bench gemm", usage = usage_bench_gemm, options = gemm_options;
  } else if (argc >= 2 && !strcmp(argv[1], "dual-gemm")) {
    a->ops = BENCH_DUAL;
    command = "nvfp4 bench dual-gemm", usage = usage_bench_dual, options = dual_options;
  } else if (argc >= 2 && !strcmp(argv[1], "dequantize")) {
    a->ops = BENCH_DEQUANTIZE;
    command = "nvfp4 bench dequantize", usage = usage_bench_dequantize, options = dequantize_options;
  } else if (argc >= 2 && !strcmp(argv[1], "quantize")) {
    a->ops = BENCH_QUANTIZE;
    command = "nvfp4 bench quantize", usage = usage_bench_quantize, options = quantize_options;
  } else if (argc >= 2 && !strcmp(argv[1], "relayout")) {
    a->ops = BENCH_RELAYOUT;
    command = "nvfp4 bench relayout", usage = usage_bench_relayout, options = relayout_options;
  }
  if (a->ops != BENCH_GPUMODE) argc--, argv++;
  int status = cli_parse(argc, argv, command, usage, options, take_bench, a);
  if (status != CLI_GO_ON) return status;
  int custom = a->m_count || a->n || a->k || a->l;
  const char *conflict = custom && (a->gpumode || a->sweep) ? "a shape of your own goes without --gpumode and --sweep"
                         : a->gpumode && a->sweep         ? "--gpumode and --sweep exclude each other"
                         : a->ops == BENCH_GEMV && custom && (a->m_count != 1 || !a->k)
                             ? "a GEMV shape needs one --m and a --k (--l defaults to 1)"
                         : a->ops == BENCH_GROUPED && custom && !(a->m_count && a->n && a->k)
                             ? "a grouped GEMM shape needs --m, --n and --k"
                         : a->ops == BENCH_GEMM && custom && (a->m_count != 1 || !a->m[0] || !a->n || !a->k)
                             ? "a dense GEMM shape needs one --m (>= 1), a --n and a --k (--l defaults to 1)"
                         : a->ops == BENCH_DUAL && custom && !(a->m_count && a->n && a->k)
                             ? "a dual GEMM shape needs --m, --n and --k"
                         : a->ops == BENCH_DEQUANTIZE && custom && (a->m_count != 1 || !a->k)
                             ? "a dequantize shape needs one --m and a --k"
                         : a->ops == BENCH_QUANTIZE && custom && (a->m_count != 1 || !a->m[0] || !a->k)
                             ? "a quantize shape needs one --m (>= 1) and a --k"
                         : a->ops == BENCH_RELAYOUT && custom && (a->m_count != 1 || !a->m[0] || !a->k)
                             ? "a relayout shape needs one --m (>= 1) and a --k"
                             : NULL;
  if (conflict != NULL) {
    fprintf(stderr, "%s: %s\nTry '%s --help'.\n", command, conflict, command);
    return 2;
  }
  return CLI_GO_ON;
}

/* One measured row, in the CSV schema every operation shares (NAN: not measured for this operation). */
typedef struct bench_row {
  const char *op, *act, *name; /* act: the activations (quantize: the input), nvfp4, f16, bf16 or f32 */
  int groups;
  char m_text[256];
  int64_t n, k, l;
  nvfp4i_timing t;
  double bytes, flops, read_us;
} bench_row;

static const char csv_header[] =
    "op,act,shape,groups,m,n,k,l,sets,runs,median_us,min_us,max_us,single_us,bytes,flops,tb_per_s,fraction_of_copy,"
    "tflops,fraction_of_peak,read_us,fraction_of_read,copy_tb_per_s,peak_tflops";

/* The ceilings measured once per run, and where rows go. */
typedef struct bench_run {
  nvfp4_handle *h;
  nvfp4i_probes probes;
  FILE *csv;
  nvfp4i_bench_method method;
  double copy_tbps, peak_tflops; /* peak: NAN unless a BENCH_TENSOR_CORE operation runs */
} bench_run;

static void csv_number(FILE *f, double v, const char *format) {
  fputc(',', f);
  if (!isnan(v)) fprintf(f, format, v);
}

static void csv_row(const bench_run *run, const bench_row *r) {
  if (run->csv == NULL) return;
  double tbps = r->bytes / (r->t.median_us * 1e-6) / 1e12, tflops = r->flops / (r->t.median_us * 1e-6) / 1e12;
  fprintf(run->csv, "%s,%s,%s,%d,\"%s\",%lld,%lld,%lld,%d,%d,%.3f,%.3f,%.3f,%.3f,%.0f,%.0f", r->op, r->act, r->name,
          r->groups, r->m_text, (long long)r->n, (long long)r->k, (long long)r->l, r->t.sets, r->t.runs,
          r->t.median_us, r->t.min_us, r->t.max_us, r->t.single_us, r->bytes, r->flops);
  csv_number(run->csv, tbps, "%.4f");
  csv_number(run->csv, tbps / run->copy_tbps, "%.4f");
  csv_number(run->csv, tflops, "%.3f");
  csv_number(run->csv, tflops / run->peak_tflops, "%.4f");
  csv_number(run->csv, r->read_us, "%.3f");
  csv_number(run->csv, r->read_us / r->t.median_us, "%.4f");
  csv_number(run->csv, run->copy_tbps, "%.4f");
  csv_number(run->csv, run->peak_tflops, "%.1f");
  fputc('\n', run->csv);
}

/* Common models' decode GEMVs at L = 1: an attention projection and the MLP's up and down projections of a
 * 4096-wide model (Llama 3 8B, Mistral 7B), and a 128256-token vocabulary's output layer. */
static const nvfp4i_gemv_workload model_shapes[] = {
    {"model", 4096, 4096, 1}, {"model", 14336, 4096, 1}, {"model", 4096, 14336, 1}, {"model", 128256, 4096, 1}};
enum { MODEL_COUNT = sizeof model_shapes / sizeof model_shapes[0], SWEEP_COUNT = 5 * 3 * 2 + MODEL_COUNT };

static void sweep_shapes(nvfp4i_gemv_workload *shapes) {
  static const int64_t ms[] = {1, 64, 512, 4096, 16384}, ks[] = {256, 2048, 16384}, ls[] = {1, 8};
  int n = 0;
  for (int l = 0; l < 2; l++)
    for (int k = 0; k < 3; k++)
      for (int m = 0; m < 5; m++) shapes[n++] = (nvfp4i_gemv_workload){"sweep", ms[m], ks[k], ls[l]};
  for (int i = 0; i < MODEL_COUNT; i++) shapes[n++] = model_shapes[i];
}

/* Times every GEMV shape the arguments name with every kind of x they name (a shape of one's own, --sweep and
 * --act: one kind; the GPU MODE shapes: NVFP4, then f16 W4A16); 0 when all were measured. */
static int bench_gemv_shapes(const bench_run *run, const bench_args *a) {
  nvfp4i_gemv_workload one = {"custom", a->m[0], a->k, a->l ? a->l : 1}, sweep[SWEEP_COUNT];
  const nvfp4i_gemv_workload *shapes = nvfp4i_gemv_workloads;
  int count = nvfp4i_gemv_workload_count;
  if (a->m_count) {
    shapes = &one;
    count = 1;
  } else if (a->sweep) {
    sweep_shapes(sweep);
    shapes = sweep;
    count = SWEEP_COUNT;
  }
  cli_act acts[2] = {a->act, CLI_ACT_F16};
  int act_count = shapes == nvfp4i_gemv_workloads && !a->act_given ? 2 : 1;
  printf("\nGEMV. act: x, nvfp4 or f16 / bf16 (W4A16); read_us: a plain read of the same bytes\n"
         "(nvfp4_read_probe_sm90a) timed the same way; %%read: its time over the GEMV's, how close the GEMV comes\n"
         "to a kernel that only reads what it must\n"
         "weights stable: %s\n",
         a->weights_stable ? "on (A and its scales loaded before each call waits for the one before it)"
                           : "off (each call waits for the one before it before any load; --weights-stable)");
  printf("%-6s %-5s %6s %6s %3s %4s %9s %9s %9s %9s %7s %7s %9s %7s\n", "shape", "act", "M", "K", "L", "sets",
         "median_us", "single_us", "min_us", "max_us", "TB/s", "%copy", "read_us", "%read");
  int rc = 0;
  for (int act = 0; act < act_count; act++) {
    double log_sum = 0.0, log_read_sum = 0.0;
    int measured = 0;
    for (int i = 0; i < count; i++) {
      const nvfp4i_gemv_workload *s = &shapes[i];
      bench_row r = {.op = "gemv", .act = cli_act_name(acts[act]), .name = s->name, .groups = 1, .k = s->k,
                     .l = s->l, .flops = 2.0 * (double)s->m * (double)s->k * (double)s->l};
      snprintf(r.m_text, sizeof r.m_text, "%lld", (long long)s->m);
      nvfp4i_timing read;
      nvfp4_status st = acts[act] == CLI_ACT_NVFP4
                            ? nvfp4i_bench_gemv(run->h, s->m, s->k, s->l, &run->method, &r.t, &r.bytes)
                            : nvfp4i_bench_gemv_w4a16(run->h, s->m, s->k, s->l, cli_act_dtype(acts[act]),
                                                      &run->method, &r.t, &r.bytes);
      if (st == NVFP4_STATUS_SUCCESS) st = nvfp4i_bench_read(&run->probes, r.bytes, run->method.runs, r.t.sets, &read);
      if (st != NVFP4_STATUS_SUCCESS) {
        fprintf(stderr, "nvfp4: gemv %lldx%lldx%lld, %s x: %s: %s\n", (long long)s->m, (long long)s->k,
                (long long)s->l, r.act, nvfp4_status_string(st), nvfp4_last_error());
        rc = 1;
        continue;
      }
      r.read_us = read.median_us;
      double tbps = r.bytes / (r.t.median_us * 1e-6) / 1e12, of_read = r.read_us / r.t.median_us;
      log_sum += log(tbps / run->copy_tbps);
      log_read_sum += log(of_read);
      measured++;
      printf("%-6s %-5s %6lld %6lld %3lld %4d %9.2f %9.2f %9.2f %9.2f %7.3f %6.1f%% %9.2f %6.1f%%\n", s->name, r.act,
             (long long)s->m, (long long)s->k, (long long)s->l, r.t.sets, r.t.median_us, r.t.single_us, r.t.min_us,
             r.t.max_us, tbps, 100.0 * tbps / run->copy_tbps, r.read_us, 100.0 * of_read);
      csv_row(run, &r);
    }
    /* the GEMV's figure of merit (docs/TIMING.md), and the probe's, per kind of x */
    if (measured == count && shapes == nvfp4i_gemv_workloads)
      printf("geometric mean, %s x: %.1f%% of copy bandwidth, %.1f%% of the read probe\n", cli_act_name(acts[act]),
             100.0 * exp(log_sum / count), 100.0 * exp(log_read_sum / count));
  }
  return rc;
}

/* A grouped workload's --m list ("80,176,..."), cut short where it would not fit. */
static void format_m_list(char *text, size_t size, const nvfp4i_grouped_workload *s) {
  text[0] = '\0';
  for (int g = 0, len = 0; g < s->groups && len < (int)size - 24; g++)
    len += snprintf(text + len, size - (size_t)len, g ? ",%lld" : "%lld", (long long)s->m[g]);
}

/* The grouped, dense and dual GEMMs' columns; `count`: the header of the groups' (or batches') column. */
static void print_gemm_columns(const char *count) {
  printf("%-6s %-5s %-3s %-28s %5s %5s %4s %9s %9s %8s %7s %7s %7s %9s %9s %7s\n", "shape", "act", count, "M", "N",
         "K", "sets", "median_us", "single_us", "TFLOP/s", "%peak", "TB/s", "%copy", "flop_us", "byte_us", "x_floor");
}

/* A measured GEMM row in those columns (`count`: its groups or batches), then its CSV line. */
static void print_gemm_row(const bench_run *run, const bench_row *r, int count) {
  double tflops = r->flops / (r->t.median_us * 1e-6) / 1e12, tbps = r->bytes / (r->t.median_us * 1e-6) / 1e12;
  double flop_us = r->flops / (run->peak_tflops * 1e12) * 1e6, byte_us = r->bytes / (run->copy_tbps * 1e12) * 1e6;
  printf("%-6s %-5s %-3d %-28.28s %5lld %5lld %4d %9.2f %9.2f %8.1f %6.1f%% %7.3f %6.1f%% %9.2f %9.2f %7.2f\n",
         r->name, r->act, count, r->m_text, (long long)r->n, (long long)r->k, r->t.sets, r->t.median_us,
         r->t.single_us, tflops, 100.0 * tflops / run->peak_tflops, tbps, 100.0 * tbps / run->copy_tbps, flop_us,
         byte_us, r->t.median_us / fmax(flop_us, byte_us));
  csv_row(run, r);
}

/* Times one shape, with the dual GEMM or else the grouped GEMM on activations `act`, and prints its row; 0
 * when it was measured. */
static int grouped_row(const bench_run *run, const nvfp4i_grouped_workload *s, int dual, cli_act act) {
  bench_row r = {.op = dual ? "dual-gemm" : "grouped-gemm", .act = cli_act_name(act), .name = s->name,
                 .groups = s->groups, .n = s->n, .k = s->k, .l = 1, .read_us = NAN};
  format_m_list(r.m_text, sizeof r.m_text, s);
  nvfp4_status st =
      dual ? nvfp4i_bench_dual_gemm(run->h, s->groups, s->m, s->n, s->k, &run->method, &r.t, &r.flops, &r.bytes)
      : act == CLI_ACT_NVFP4
          ? nvfp4i_bench_grouped_gemm(run->h, s->groups, s->m, s->n, s->k, &run->method, &r.t, &r.flops, &r.bytes)
          : nvfp4i_bench_grouped_gemm_w4a16(run->h, s->groups, s->m, s->n, s->k, cli_act_dtype(act), &run->method,
                                            &r.t, &r.flops, &r.bytes);
  if (st != NVFP4_STATUS_SUCCESS) {
    fprintf(stderr, "nvfp4: %s %s x %lld x %lld, %s activations: %s: %s\n", r.op, r.m_text, (long long)s->n,
            (long long)s->k, r.act, nvfp4_status_string(st), nvfp4_last_error());
    return 1;
  }
  print_gemm_row(run, &r, s->groups);
  return 0;
}

/* Times every grouped GEMM shape the arguments name with every kind of activations they name (a shape of
 * one's own and --act: one kind; the GPU MODE shapes: NVFP4, then f16 W4A16); 0 when all were measured. */
static int bench_grouped_shapes(const bench_run *run, const bench_args *a) {
  nvfp4i_grouped_workload one = {"custom", a->m_count, a->m, a->n, a->k};
  const nvfp4i_grouped_workload *shapes = a->m_count ? &one : nvfp4i_grouped_workloads;
  int count = a->m_count ? 1 : nvfp4i_grouped_workload_count;
  cli_act acts[2] = {a->act, CLI_ACT_F16};
  int act_count = a->m_count || a->act_given ? 1 : 2;
  printf("\nGrouped GEMM. act: the activations (nvfp4, or f16 / bf16: W4A16); flop_us, byte_us: the floors the\n"
         "tensor-core rate and the copy bandwidth put on the call; x_floor: the time over the larger of the two\n");
  print_gemm_columns("G");
  int rc = 0;
  for (int act = 0; act < act_count; act++)
    for (int i = 0; i < count; i++) rc |= grouped_row(run, &shapes[i], 0, acts[act]);
  return rc;
}

/* Times every dense GEMM shape the arguments name (a shape of one's own, or the GPU MODE shapes); 0 when all
 * were measured. */
static int bench_gemm_shapes(const bench_run *run, const bench_args *a) {
  nvfp4i_gemm_workload one = {"custom", a->m[0], a->n, a->k, a->l ? a->l : 1};
  const nvfp4i_gemm_workload *shapes = a->m_count ? &one : nvfp4i_gemm_workloads;
  int count = a->m_count ? 1 : nvfp4i_gemm_workload_count;
  printf("\nDense GEMM (nvfp4_gemm), C_l = A_l B_l^T for L batches: flops and bytes count every batch; flop_us,\n"
         "byte_us: the floors the tensor-core rate and the copy bandwidth put on the call; x_floor: the time over\n"
         "the larger of the two\n");
  print_gemm_columns("L");
  int rc = 0;
  for (int i = 0; i < count; i++) {
    const nvfp4i_gemm_workload *s = &shapes[i];
    bench_row r = {.op = "gemm", .act = "nvfp4", .name = s->name, .groups = 1, .n = s->n, .k = s->k, .l = s->l,
                   .read_us = NAN};
    snprintf(r.m_text, sizeof r.m_text, "%lld", (long long)s->m);
    nvfp4_status st = nvfp4i_bench_gemm(run->h, s->m, s->n, s->k, s->l, &run->method, &r.t, &r.flops, &r.bytes);
    if (st != NVFP4_STATUS_SUCCESS) {
      fprintf(stderr, "nvfp4: gemm %lld x %lld x %lld, %lld batches: %s: %s\n", (long long)s->m, (long long)s->n,
              (long long)s->k, (long long)s->l, nvfp4_status_string(st), nvfp4_last_error());
      rc = 1;
      continue;
    }
    print_gemm_row(run, &r, (int)s->l);
  }
  return rc;
}

/* Times every dual GEMM shape the arguments name (a shape of one's own, or the GPU MODE shapes); 0 when all
 * were measured. */
static int bench_dual_shapes(const bench_run *run, const bench_args *a) {
  nvfp4i_grouped_workload one = {"custom", a->m_count, a->m, a->n, a->k};
  const nvfp4i_grouped_workload *shapes = a->m_count ? &one : nvfp4i_dual_workloads;
  int count = a->m_count ? 1 : nvfp4i_dual_workload_count;
  printf("\nDual GEMM with SiLU, c = silu(a b1^T) * (a b2^T): flops count both products, bytes a, b1, b2 and\n"
         "their scales read once and c written once; flop_us, byte_us: the floors the tensor-core rate and the\n"
         "copy bandwidth put on the call; x_floor: the time over the larger of the two\n");
  print_gemm_columns("G");
  int rc = 0;
  for (int i = 0; i < count; i++) rc |= grouped_row(run, &shapes[i], 1, CLI_ACT_NVFP4);
  return rc;
}

/* Times the library's grouped dequantize (one launch for every group) on the token operands of the grouped
 * GEMM workloads: gdq-gg1 .. gdq-moe1, M the sum of their groups' rows, to --dtype (f16 by default, the type
 * the W4A16 kernel takes them in); 0 when all were measured. */
static int bench_grouped_dequantize_shapes(const bench_run *run, const bench_args *a) {
  nvfp4_dtype dtype = a->dtype_given ? a->dtype : NVFP4_DTYPE_F16;
  int rc = 0;
  for (int i = 0; i < nvfp4i_grouped_workload_count; i++) {
    const nvfp4i_grouped_workload *s = &nvfp4i_grouped_workloads[i];
    char name[32]; /* gdq-<workload> */
    snprintf(name, sizeof name, "gdq-%s", s->name);
    int64_t rows = 0;
    for (int g = 0; g < s->groups; g++) rows += s->m[g];
    bench_row r = {.op = "grouped-dequantize", .act = "nvfp4", .name = name, .groups = s->groups, .k = s->k,
                   .l = 1, .flops = 0.0, .read_us = NAN};
    format_m_list(r.m_text, sizeof r.m_text, s);
    nvfp4_status st = nvfp4i_bench_grouped_dequantize(run->h, s->groups, s->m, s->k, dtype, &run->method, &r.t,
                                                      &r.bytes);
    if (st != NVFP4_STATUS_SUCCESS) {
      fprintf(stderr, "nvfp4: grouped dequantize %s to %s: %s: %s\n", name, cli_dtype_name(dtype),
              nvfp4_status_string(st), nvfp4_last_error());
      rc = 1;
      continue;
    }
    double tbps = r.bytes / (r.t.median_us * 1e-6) / 1e12;
    printf("%-10s %6lld %6lld %-5s %4d %9.2f %9.2f %9.2f %9.2f %7.3f %6.1f%%\n", name, (long long)rows,
           (long long)s->k, cli_dtype_name(dtype), r.t.sets, r.t.median_us, r.t.single_us, r.t.min_us, r.t.max_us,
           tbps, 100.0 * tbps / run->copy_tbps);
    csv_row(run, &r);
  }
  return rc;
}

/* Times every dequantize shape the arguments name (a shape of one's own: to --dtype, f16 by default; the
 * targets: each of their types, or --dtype's alone); 0 when all were measured. */
static int bench_dequantize_shapes(const bench_run *run, const bench_args *a) {
  nvfp4i_dequantize_workload one = {"custom", a->m[0], a->k, a->dtype_given ? a->dtype : NVFP4_DTYPE_F16};
  char custom_name[32]; /* custom-<dtype> */
  snprintf(custom_name, sizeof custom_name, "custom-%s", cli_dtype_name(one.dtype));
  one.name = custom_name;
  const nvfp4i_dequantize_workload *shapes = a->m_count ? &one : nvfp4i_dequantize_workloads;
  int count = a->m_count ? 1 : nvfp4i_dequantize_workload_count;
  printf("\nDequantize. bytes: the data and scales read once, the output written once\n");
  printf("%-10s %6s %6s %-5s %4s %9s %9s %9s %9s %7s %7s\n", "shape", "M", "K", "dtype", "sets", "median_us",
         "single_us", "min_us", "max_us", "TB/s", "%copy");
  int rc = 0;
  for (int i = 0; i < count; i++) {
    const nvfp4i_dequantize_workload *s = &shapes[i];
    if (a->dtype_given && s->dtype != a->dtype) continue;
    bench_row r = {.op = "dequantize", .act = "nvfp4", .name = s->name, .groups = 1, .k = s->k, .l = 1, .flops = 0.0,
                   .read_us = NAN};
    snprintf(r.m_text, sizeof r.m_text, "%lld", (long long)s->m);
    nvfp4_status st = nvfp4i_bench_dequantize(run->h, s->m, s->k, s->dtype, &run->method, &r.t, &r.bytes);
    if (st != NVFP4_STATUS_SUCCESS) {
      fprintf(stderr, "nvfp4: dequantize %lldx%lld to %s: %s: %s\n", (long long)s->m, (long long)s->k,
              cli_dtype_name(s->dtype), nvfp4_status_string(st), nvfp4_last_error());
      rc = 1;
      continue;
    }
    double tbps = r.bytes / (r.t.median_us * 1e-6) / 1e12;
    printf("%-10s %6lld %6lld %-5s %4d %9.2f %9.2f %9.2f %9.2f %7.3f %6.1f%%\n", s->name, (long long)s->m,
           (long long)s->k, cli_dtype_name(s->dtype), r.t.sets, r.t.median_us, r.t.single_us, r.t.min_us, r.t.max_us,
           tbps, 100.0 * tbps / run->copy_tbps);
    csv_row(run, &r);
  }
  return a->m_count ? rc : rc | bench_grouped_dequantize_shapes(run, a);
}

/* Times the quantize shape the arguments name: 16384 x 16384, or --m x --k; from --dtype, bf16 by default.
 * 0 when it was measured. */
static int bench_quantize_shape(const bench_run *run, const bench_args *a) {
  int64_t m = a->m_count ? a->m[0] : 16384, k = a->m_count ? a->k : 16384;
  nvfp4_dtype dtype = a->dtype_given ? a->dtype : NVFP4_DTYPE_BF16;
  char name[32]; /* qnt-<dtype> or custom-<dtype> */
  snprintf(name, sizeof name, "%s-%s", a->m_count ? "custom" : "qnt", cli_dtype_name(dtype));
  printf("\nQuantize. bytes: the input read once, the data and scales written once\n");
  printf("%-10s %6s %6s %-5s %4s %9s %9s %9s %9s %7s %7s\n", "shape", "M", "K", "dtype", "sets", "median_us",
         "single_us", "min_us", "max_us", "TB/s", "%copy");
  bench_row r = {.op = "quantize", .act = cli_dtype_name(dtype), .name = name, .groups = 1, .k = k, .l = 1,
                 .flops = 0.0, .read_us = NAN};
  snprintf(r.m_text, sizeof r.m_text, "%lld", (long long)m);
  nvfp4_status st = nvfp4i_bench_quantize(run->h, m, k, dtype, &run->method, &r.t, &r.bytes);
  if (st != NVFP4_STATUS_SUCCESS) {
    fprintf(stderr, "nvfp4: quantize %lldx%lld from %s: %s: %s\n", (long long)m, (long long)k, cli_dtype_name(dtype),
            nvfp4_status_string(st), nvfp4_last_error());
    return 1;
  }
  double tbps = r.bytes / (r.t.median_us * 1e-6) / 1e12;
  printf("%-10s %6lld %6lld %-5s %4d %9.2f %9.2f %9.2f %9.2f %7.3f %6.1f%%\n", name, (long long)m, (long long)k,
         cli_dtype_name(dtype), r.t.sets, r.t.median_us, r.t.single_us, r.t.min_us, r.t.max_us, tbps,
         100.0 * tbps / run->copy_tbps);
  csv_row(run, &r);
  return 0;
}

/* Times every relayout the arguments name (a shape of one's own: into --to, BLOCKED by default; the
 * workloads: both directions, or into --to alone); 0 when all were measured. */
static int bench_relayout_shapes(const bench_run *run, const bench_args *a) {
  nvfp4_sf_layout custom_to = a->to_given ? a->to : NVFP4_SF_BLOCKED_128x4;
  const nvfp4i_relayout_workload one = {custom_to == NVFP4_SF_LINEAR ? "custom-blk2lin" : "custom-lin2blk", a->m[0],
                                        a->k, custom_to};
  const nvfp4i_relayout_workload *shapes = a->m_count ? &one : nvfp4i_relayout_workloads;
  int count = a->m_count ? 1 : nvfp4i_relayout_workload_count;
  printf("\nScale relayout. bytes: the scales read once, the destination written once (BLOCKED: whole tiles)\n");
  printf("%-14s %6s %6s %-7s %-7s %4s %9s %9s %9s %9s %7s %7s\n", "shape", "M", "K", "from", "to", "sets",
         "median_us", "single_us", "min_us", "max_us", "TB/s", "%copy");
  int rc = 0;
  for (int i = 0; i < count; i++) {
    const nvfp4i_relayout_workload *s = &shapes[i];
    if (a->to_given && s->to != a->to) continue;
    nvfp4_sf_layout from = s->to == NVFP4_SF_LINEAR ? NVFP4_SF_BLOCKED_128x4 : NVFP4_SF_LINEAR;
    bench_row r = {.op = "relayout", .act = "nvfp4", .name = s->name, .groups = 1, .k = s->k, .l = 1, .flops = 0.0,
                   .read_us = NAN};
    snprintf(r.m_text, sizeof r.m_text, "%lld", (long long)s->m);
    nvfp4_status st = nvfp4i_bench_scales_relayout(run->h, s->m, s->k, s->to, &run->method, &r.t, &r.bytes);
    if (st != NVFP4_STATUS_SUCCESS) {
      fprintf(stderr, "nvfp4: relayout %lldx%lld %s to %s: %s: %s\n", (long long)s->m, (long long)s->k,
              cli_layout_name(from), cli_layout_name(s->to), nvfp4_status_string(st), nvfp4_last_error());
      rc = 1;
      continue;
    }
    double tbps = r.bytes / (r.t.median_us * 1e-6) / 1e12;
    printf("%-14s %6lld %6lld %-7s %-7s %4d %9.2f %9.2f %9.2f %9.2f %7.3f %6.1f%%\n", s->name, (long long)s->m,
           (long long)s->k, cli_layout_name(from), cli_layout_name(s->to), r.t.sets, r.t.median_us, r.t.single_us,
           r.t.min_us, r.t.max_us, tbps, 100.0 * tbps / run->copy_tbps);
    csv_row(run, &r);
  }
  return rc;
}

/* The ceilings every row is divided by, measured once in this run. */
static int measure_ceilings(bench_run *run, int ops) {
  nvfp4i_timing floor;
  nvfp4_status s = nvfp4i_bench_copy_bandwidth(&run->method, &run->copy_tbps);
  if (s == NVFP4_STATUS_SUCCESS) s = nvfp4i_bench_launch_floor(&run->method, &floor);
  if (s == NVFP4_STATUS_SUCCESS && (ops & BENCH_TENSOR_CORE))
    s = nvfp4i_bench_wgmma_peak(&run->probes, run->method.runs, &run->peak_tflops);
  if (s != NVFP4_STATUS_SUCCESS) {
    fprintf(stderr, "nvfp4: ceilings: %s: %s\n", nvfp4_status_string(s), nvfp4_last_error());
    return 0;
  }
  printf("timing: median of %d repetitions; per call = a repetition's time over its sets, back to back after an\n"
         "L2 flush; single = one call alone after a flush (docs/TIMING.md)\n", run->method.runs);
  printf("device copy bandwidth: %.3f TB/s (read + write, 1 GiB)\n", run->copy_tbps);
  printf("launch floor:          %.2f us per call, %.2f us single (a 16-byte memset timed the same way, %d sets)\n",
         floor.median_us, floor.single_us, floor.sets);
  if (ops & BENCH_TENSOR_CORE)
    printf("f16 tensor-core rate:  %.1f TFLOP/s (wgmma.m64n256k16 on every SM)\n", run->peak_tflops);
  return 1;
}

int cli_bench(int argc, char **argv) {
  bench_args a = {.iters = 50, .sets = 15};
  int status = parse_bench(argc, argv, &a);
  if (status != CLI_GO_ON) return status;
  bench_run run = {.method = {(int)a.iters, (int)a.sets}, .peak_tflops = NAN};
  if (!cli_open_handle(&run.h)) return 1;
  int rc = 1;
  nvfp4_status s = nvfp4_set_weights_stable(run.h, a.weights_stable);
  if (s != NVFP4_STATUS_SUCCESS) {
    fprintf(stderr, "nvfp4: nvfp4_set_weights_stable: %s: %s\n", nvfp4_status_string(s), nvfp4_last_error());
    goto destroy;
  }
  s = nvfp4i_probes_load(run.h, &run.probes);
  if (s != NVFP4_STATUS_SUCCESS) {
    fprintf(stderr, "nvfp4: the measuring kernels: %s: %s\n", nvfp4_status_string(s), nvfp4_last_error());
    goto destroy;
  }
  if (a.csv != NULL && (run.csv = fopen(a.csv, "w")) == NULL) {
    fprintf(stderr, "nvfp4: cannot write %s\n", a.csv);
    goto unload;
  }
  if (run.csv) fprintf(run.csv, "%s\n", csv_header);
  if (!measure_ceilings(&run, a.ops)) goto close;
  rc = 0;
  if (a.ops & BENCH_GEMV) rc |= bench_gemv_shapes(&run, &a);
  if (a.ops & BENCH_GROUPED) rc |= bench_grouped_shapes(&run, &a);
  if (a.ops & BENCH_GEMM) rc |= bench_gemm_shapes(&run, &a);
  if (a.ops & BENCH_DUAL) rc |= bench_dual_shapes(&run, &a);
  if (a.ops & BENCH_DEQUANTIZE) rc |= bench_dequantize_shapes(&run, &a);
  if (a.ops & BENCH_QUANTIZE) rc |= bench_quantize_shape(&run, &a);
  if (a.ops & BENCH_RELAYOUT) rc |= bench_relayout_shapes(&run, &a);
close:
  if (run.csv) fclose(run.csv);
unload:
  nvfp4i_probes_unload(&run.probes);
destroy:
  nvfp4_destroy(run.h);
  return rc;
}
