/* The nvfp4 command as a user meets it, run as a child process: each command's own help, the version,
 * usage errors (exit 2), no driver (exit 1, saying so), and every command end to end over the fake driver
 * (tests/fake/libcuda.c: no GPU behind it, so nothing computes and verify must fail). */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvfp4.h"
#include "fake_driver.h"
#include "suites.h"

extern char **environ;

enum { MAX_ARGS = 24, OUTPUT_BYTES = 1 << 16 };

typedef struct run {
  int status;                 /* the exit status; -1 when it did not exit normally */
  char output[OUTPUT_BYTES];  /* stdout and stderr, interleaved */
} run;

/* Runs build/bin/nvfp4 with `args` (NULL-terminated) and NVFP4_LIBCUDA=libcuda (NULL: the real driver). */
static void run_nvfp4(const char *libcuda, const char *const *args, run *r) {
  char out_path[] = "/tmp/nvfp4-cli-XXXXXX";
  int fd = mkstemp(out_path);
  ck_assert_int_ge(fd, 0);
  if (libcuda != NULL) setenv("NVFP4_LIBCUDA", libcuda, 1);
  else unsetenv("NVFP4_LIBCUDA");
  char *argv[MAX_ARGS + 2] = {(char *)test_build_file("bin/nvfp4")}; /* libcuda may be the last such path */
  for (int i = 0; args[i] != NULL; i++) {
    ck_assert_int_lt(i, MAX_ARGS);
    argv[i + 1] = (char *)args[i];
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO);
  pid_t pid;
  ck_assert_int_eq(posix_spawn(&pid, argv[0], &actions, NULL, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  int wstatus;
  ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
  r->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  ssize_t n = pread(fd, r->output, sizeof r->output - 1, 0);
  r->output[n > 0 ? n : 0] = '\0';
  close(fd);
  unlink(out_path);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void assert_run(const run *r, int status, const char *text, const char *what) {
  ck_assert_msg(r->status == status, "%s: exit %d, expected %d; output:\n%s", what, r->status, status, r->output);
  ck_assert_msg(strstr(r->output, text) != NULL, "%s: output lacks '%s':\n%s", what, text, r->output);
}

/* A temporary file a command writes its --csv to: csv_create makes it (path: its name), csv_take reads it whole
 * into text (at most size - 1 bytes, NUL-terminated) and removes it. */
typedef struct csv_file {
  char path[32];
  int fd;
} csv_file;

static void csv_create(csv_file *f) {
  snprintf(f->path, sizeof f->path, "/tmp/nvfp4-bench-XXXXXX");
  f->fd = mkstemp(f->path);
  ck_assert_int_ge(f->fd, 0);
}

static void csv_take(csv_file *f, char *text, size_t size) {
  ssize_t n = pread(f->fd, text, size - 1, 0);
  text[n > 0 ? n : 0] = '\0';
  close(f->fd);
  unlink(f->path);
}

typedef struct cli_case {
  const char *const *args;
  const char *expected; /* must appear in the output */
} cli_case;

static const cli_case help_cases[] = {
    {ARGS("--help"), "usage: nvfp4 <command>"},
    {ARGS("info", "--help"), "usage: nvfp4 info"},
    {ARGS("verify", "--help"), "usage: nvfp4 verify gemv|grouped-gemm|gemm|dual-gemm|dequantize|quantize"},
    {ARGS("verify", "gemv", "--help"), "usage: nvfp4 verify gemv ["},
    {ARGS("verify", "grouped-gemm", "--help"), "usage: nvfp4 verify grouped-gemm ["},
    {ARGS("verify", "gemm", "--help"), "usage: nvfp4 verify gemm ["},
    {ARGS("verify", "dual-gemm", "--help"), "usage: nvfp4 verify dual-gemm ["},
    {ARGS("verify", "dequantize", "--help"), "usage: nvfp4 verify dequantize ["},
    {ARGS("verify", "quantize", "--help"), "usage: nvfp4 verify quantize ["},
    {ARGS("bench", "--help"), "usage: nvfp4 bench [--gpumode]"},
    {ARGS("bench", "gemv", "--help"), "usage: nvfp4 bench gemv ["},
    {ARGS("bench", "grouped-gemm", "--help"), "usage: nvfp4 bench grouped-gemm ["},
    {ARGS("bench", "gemm", "--help"), "usage: nvfp4 bench gemm ["},
    {ARGS("bench", "dual-gemm", "--help"), "usage: nvfp4 bench dual-gemm ["},
    {ARGS("bench", "dequantize", "--help"), "usage: nvfp4 bench dequantize ["},
    {ARGS("bench", "quantize", "--help"), "usage: nvfp4 bench quantize ["},
    {ARGS("bench", "relayout", "--help"), "usage: nvfp4 bench relayout ["},
};

START_TEST(each_command_prints_its_own_help) {
  run r;
  run_nvfp4(NULL, help_cases[_i].args, &r);
  assert_run(&r, 0, help_cases[_i].expected, help_cases[_i].args[0]);
  ck_assert_msg(strncmp(r.output, help_cases[_i].expected, strlen(help_cases[_i].expected)) == 0,
                "the help does not start with its own usage line:\n%s", r.output);
}
END_TEST

START_TEST(version_names_the_command_and_the_library) {
  run r;
  run_nvfp4(NULL, ARGS("--version"), &r);
  char expected[64];
  snprintf(expected, sizeof expected, "nvfp4 %d.%d.%d (libnvfp4 %d.%d.%d)\n", NVFP4_VERSION_MAJOR,
           NVFP4_VERSION_MINOR, NVFP4_VERSION_PATCH, NVFP4_VERSION_MAJOR, NVFP4_VERSION_MINOR, NVFP4_VERSION_PATCH);
  assert_run(&r, 0, expected, "--version");
}
END_TEST

static const cli_case usage_cases[] = {
    {ARGS("verify", "gemv", "--alpha", "abc"), "--alpha: 'abc' is not a finite number"},
    {ARGS("verify", "gemv", "--alpha", "1e39"), "--alpha: '1e39'"},
    {ARGS("verify", "gemv", "--alpha", "0.5x"), "--alpha: '0.5x'"},
    {ARGS("verify", "gemv", "--alpha", "nan"), "--alpha: 'nan'"},
    {ARGS("verify", "gemv", "--m", "12x"), "--m: '12x' is not an integer"},
    {ARGS("verify", "gemv", "--m", "99999999999999999999"), "--m: '99999999999999999999'"},
    {ARGS("verify", "gemv", "--m", "0"), "--m: '0' is not an integer in [1,"},
    {ARGS("verify", "gemv", "--m", " 5"), "--m: ' 5'"},
    {ARGS("verify", "gemv", "--seed", "-1"), "--seed: '-1'"},
    {ARGS("verify", "gemv", "--layout", "tiled"), "--layout: 'tiled' is not one of linear blocked"},
    {ARGS("verify", "gemv", "--dtype", "f8"), "--dtype: 'f8'"},
    {ARGS("verify", "gemv", "--bogus"), "unrecognized option '--bogus'"},
    {ARGS("verify", "gemv", "--m"), "requires an argument"},
    {ARGS("verify", "gemv", "stray"), "unexpected argument 'stray'"},
    {ARGS("verify", "grouped-gemm", "--m", "1,,2"), "--m: '1,,2' is not a list"},
    {ARGS("verify", "grouped-gemm", "--m", "80,176,"), "--m: '80,176,' is not a list"},
    {ARGS("verify", "grouped-gemm", "--act", "f32"), "--act: 'f32' is not one of nvfp4 f16 bf16"},
    {ARGS("verify", "gemv", "--act", "f32"), "--act: 'f32' is not one of nvfp4 f16 bf16"},
    {ARGS("verify", "gemm", "--m", "0"), "--m: '0' is not an integer in [1,"},
    {ARGS("verify", "gemm", "--n", "7x"), "--n: '7x' is not an integer"},
    {ARGS("verify", "gemm", "--k", "-32"), "--k: '-32'"},
    {ARGS("verify", "gemm", "--l", "0"), "--l: '0' is not an integer in [1,"},
    {ARGS("verify", "gemm", "--m", "1,2"), "--m: '1,2' is not an integer"},
    {ARGS("verify", "gemm", "--layout", "tiled"), "--layout: 'tiled' is not one of linear blocked"},
    {ARGS("verify", "gemm", "--dtype", "f8"), "--dtype: 'f8'"},
    {ARGS("verify", "gemm", "--alpha", "inf"), "--alpha: 'inf'"},
    {ARGS("verify", "gemm", "--act", "f16"), "unrecognized option '--act'"},
    {ARGS("verify", "gemm", "stray"), "unexpected argument 'stray'"},
    {ARGS("verify", "dual-gemm", "--alpha2", "nan"), "--alpha2: 'nan' is not a finite number"},
    {ARGS("verify", "dual-gemm", "--alpha2", "1e39"), "--alpha2: '1e39'"},
    {ARGS("verify", "dual-gemm", "--alpha", "x"), "--alpha: 'x'"},
    {ARGS("verify", "dual-gemm", "--m", "80,,176"), "--m: '80,,176' is not a list"},
    {ARGS("verify", "dual-gemm", "--n", "0"), "--n: '0' is not an integer in [1,"},
    {ARGS("verify", "dual-gemm", "--k", "7k"), "--k: '7k' is not an integer"},
    {ARGS("verify", "dual-gemm", "--layout", "tiled"), "--layout: 'tiled' is not one of linear blocked"},
    {ARGS("verify", "dual-gemm", "--dtype", "f8"), "--dtype: 'f8'"},
    {ARGS("verify", "dual-gemm", "--seed", "-1"), "--seed: '-1'"},
    {ARGS("verify", "dual-gemm", "--act", "f16"), "unrecognized option '--act'"},
    {ARGS("verify", "dual-gemm", "--scale", "2"), "unrecognized option '--scale'"},
    {ARGS("verify", "dual-gemm", "stray"), "unexpected argument 'stray'"},
    {ARGS("verify", "grouped-gemm", "--alpha2", "2"), "unrecognized option '--alpha2'"},
    {ARGS("verify"), "name an operation"},
    {ARGS("bench", "--m", "5"), "unrecognized option '--m'"},
    {ARGS("bench", "--iters", "0"), "--iters: '0'"},
    {ARGS("bench", "--sets", "2x"), "--sets: '2x'"},
    {ARGS("bench", "gemv", "--m", "64"), "a GEMV shape needs one --m and a --k"},
    {ARGS("bench", "gemv", "--m", "64", "--k", "256", "--gpumode"), "without --gpumode and --sweep"},
    {ARGS("bench", "grouped-gemm", "--m", "8", "--k", "256"), "needs --m, --n and --k"},
    {ARGS("bench", "grouped-gemm", "--sweep"), "unrecognized option '--sweep'"},
    {ARGS("bench", "grouped-gemm", "--act", "int8"), "--act: 'int8' is not one of nvfp4 f16 bf16"},
    {ARGS("bench", "--act", "f16"), "unrecognized option '--act'"},
    {ARGS("bench", "gemm", "--m", "128", "--k", "256"), "a dense GEMM shape needs one --m (>= 1), a --n and a --k"},
    {ARGS("bench", "gemm", "--m", "128,64", "--n", "64", "--k", "256"), "a dense GEMM shape needs one --m"},
    {ARGS("bench", "gemm", "--m", "0", "--n", "64", "--k", "256"), "a dense GEMM shape needs one --m (>= 1)"},
    {ARGS("bench", "gemm", "--l", "2"), "a dense GEMM shape needs one --m"},
    {ARGS("bench", "gemm", "--m", "8", "--n", "64", "--k", "256", "--gpumode"), "without --gpumode"},
    {ARGS("bench", "gemm", "--l", "0"), "--l: '0' is not an integer in [1,"},
    {ARGS("bench", "gemm", "--act", "f16"), "unrecognized option '--act'"},
    {ARGS("bench", "gemm", "--sweep"), "unrecognized option '--sweep'"},
    {ARGS("bench", "dual-gemm", "--m", "8", "--k", "256"), "a dual GEMM shape needs --m, --n and --k"},
    {ARGS("bench", "dual-gemm", "--n", "64", "--k", "256"), "a dual GEMM shape needs --m, --n and --k"},
    {ARGS("bench", "dual-gemm", "--m", "8", "--n", "64", "--k", "256", "--gpumode"), "without --gpumode"},
    {ARGS("bench", "dual-gemm", "--m", "8,,9"), "--m: '8,,9' is not a list"},
    {ARGS("bench", "dual-gemm", "--n", "0"), "--n: '0' is not an integer in [1,"},
    {ARGS("bench", "dual-gemm", "--iters", "0"), "--iters: '0'"},
    {ARGS("bench", "dual-gemm", "--act", "f16"), "unrecognized option '--act'"},
    {ARGS("bench", "dual-gemm", "--sweep"), "unrecognized option '--sweep'"},
    {ARGS("bench", "dual-gemm", "--alpha2", "1"), "unrecognized option '--alpha2'"},
    {ARGS("bench", "dual-gemm", "stray"), "unexpected argument 'stray'"},
    {ARGS("bench", "gemv", "--act", "int4"), "--act: 'int4' is not one of nvfp4 f16 bf16"},
    {ARGS("verify", "dequantize", "--l", "0"), "--l: '0' is not an integer in [1,"},
    {ARGS("verify", "dequantize", "--dtype", "f64"), "--dtype: 'f64'"},
    {ARGS("verify", "dequantize", "--alpha", "2"), "unrecognized option '--alpha'"},
    {ARGS("bench", "dequantize", "--m", "64"), "a dequantize shape needs one --m and a --k"},
    {ARGS("bench", "dequantize", "--k", "256"), "a dequantize shape needs one --m and a --k"},
    {ARGS("bench", "dequantize", "--m", "64,2", "--k", "256"), "a dequantize shape needs one --m and a --k"},
    {ARGS("bench", "dequantize", "--m", "64", "--k", "256", "--gpumode"), "without --gpumode"},
    {ARGS("bench", "dequantize", "--dtype", "int4"), "--dtype: 'int4'"},
    {ARGS("bench", "dequantize", "--n", "64"), "unrecognized option '--n'"},
    {ARGS("bench", "gemv", "--dtype", "f32"), "unrecognized option '--dtype'"},
    {ARGS("bench", "grouped-gemm", "--weights-stable"), "unrecognized option '--weights-stable'"},
    {ARGS("verify", "quantize", "--m", "0"), "--m: '0' is not an integer in [1,"},
    {ARGS("verify", "quantize", "--dtype", "f8"), "--dtype: 'f8'"},
    {ARGS("verify", "quantize", "--scale", "x"), "--scale: 'x'"},
    {ARGS("verify", "quantize", "--alpha", "2"), "unrecognized option '--alpha'"},
    {ARGS("verify", "frobnicate"), "name an operation: gemv, grouped-gemm, gemm, dual-gemm, dequantize or quantize"},
    {ARGS("bench", "quantize", "--m", "64"), "a quantize shape needs one --m (>= 1) and a --k"},
    {ARGS("bench", "quantize", "--k", "256"), "a quantize shape needs one --m (>= 1) and a --k"},
    {ARGS("bench", "quantize", "--m", "64,2", "--k", "256"), "a quantize shape needs one --m (>= 1) and a --k"},
    {ARGS("bench", "quantize", "--m", "0", "--k", "256"), "a quantize shape needs one --m (>= 1) and a --k"},
    {ARGS("bench", "quantize", "--dtype", "int4"), "--dtype: 'int4'"},
    {ARGS("bench", "quantize", "--n", "64"), "unrecognized option '--n'"},
    {ARGS("bench", "quantize", "--layout", "blocked"), "unrecognized option '--layout'"},
    {ARGS("bench", "relayout", "--m", "64"), "a relayout shape needs one --m (>= 1) and a --k"},
    {ARGS("bench", "relayout", "--k", "256"), "a relayout shape needs one --m (>= 1) and a --k"},
    {ARGS("bench", "relayout", "--m", "64,2", "--k", "256"), "a relayout shape needs one --m (>= 1) and a --k"},
    {ARGS("bench", "relayout", "--m", "0", "--k", "256"), "a relayout shape needs one --m (>= 1) and a --k"},
    {ARGS("bench", "relayout", "--m", "64", "--k", "256", "--gpumode"), "without --gpumode"},
    {ARGS("bench", "relayout", "--to", "tiled"), "--to: 'tiled' is not one of linear blocked"},
    {ARGS("bench", "relayout", "--dtype", "f16"), "unrecognized option '--dtype'"},
    {ARGS("bench", "relayout", "--layout", "blocked"), "unrecognized option '--layout'"},
    {ARGS("bench", "dequantize", "--to", "linear"), "unrecognized option '--to'"},
    {ARGS("frobnicate"), "unknown command 'frobnicate'"},
};

START_TEST(usage_errors_exit_2_saying_why) {
  run r;
  run_nvfp4(NULL, usage_cases[_i].args, &r);
  assert_run(&r, 2, usage_cases[_i].expected, usage_cases[_i].expected);
}
END_TEST

static const char *const *const kernel_commands[] = {
    ARGS("bench"), ARGS("bench", "--gpumode"), ARGS("info"), ARGS("verify", "gemv"),
    ARGS("verify", "gemv", "--act", "bf16"), ARGS("verify", "grouped-gemm"),
    ARGS("verify", "gemm"), ARGS("verify", "dual-gemm"), ARGS("bench", "dequantize"), ARGS("verify", "dequantize"),
    ARGS("bench", "quantize"), ARGS("verify", "quantize"), ARGS("bench", "relayout"), ARGS("bench", "dual-gemm"),
    ARGS("bench", "gemm"),
};

START_TEST(without_a_driver_commands_exit_1_saying_so) {
  run r;
  run_nvfp4("/nonexistent/libcuda.so.1", kernel_commands[_i], &r);
  assert_run(&r, 1, "CUDA driver library not found", kernel_commands[_i][0]);
  assert_run(&r, 1, "needs an NVIDIA GPU", kernel_commands[_i][0]);
}
END_TEST

START_TEST(bench_runs_every_workload_on_the_fake_driver) {
  csv_file csv;
  csv_create(&csv);
  run r;
  setenv("FAKE_MEMORY_POOLS", "1", 1); /* the dual GEMM's scratch */
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "--iters", "1", "--sets", "1", "--csv", csv.path), &r);
  /* the GEMV's and grouped GEMM's shapes with NVFP4 activations, then with f16 ones (W4A16); the dense GEMM's
   * and the dual GEMM's */
  static const char *const rows[] = {"gemv1  nvfp4", "gemv2  nvfp4", "gemv3  nvfp4", "gemv1  f16", "gemv2  f16",
                                     "gemv3  f16", "gg1    nvfp4", "gg2    nvfp4", "gg3    nvfp4", "gg4    nvfp4",
                                     "moe1   nvfp4", "gg1    f16", "gg2    f16", "gg3    f16", "gg4    f16",
                                     "moe1   f16", "gemm1  nvfp4", "gemm2  nvfp4", "gemm3  nvfp4", "dual1  nvfp4",
                                     "dual2  nvfp4", "dual3  nvfp4", "dual4  nvfp4"};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) assert_run(&r, 0, rows[i], "bench");
  char text[8192];
  csv_take(&csv, text, sizeof text);
  int lines = 0;
  for (const char *p = text; *p; p++) lines += *p == '\n';
  ck_assert_msg(lines == 1 + 23, "the CSV has %d lines, expected a header and 23 rows:\n%s", lines, text);
  ck_assert_msg(strstr(text, "\ngrouped-gemm,f16,moe1,64,") != NULL, "no W4A16 moe1 row in the CSV:\n%s", text);
  /* gemv1 with f16 x: A and its scales, 2 bytes an element of x, y: 7168 * 16384 * 9/16 + 2 * 16384 + 2 * 7168 */
  ck_assert_msg(strstr(text, "\ngemv,f16,gemv1,1,\"7168\",0,16384,1,") != NULL && strstr(text, ",66107392,") != NULL,
                "no W4A16 gemv1 row of 66107392 bytes in the CSV:\n%s", text);
  ck_assert_msg(strstr(r.output, "geometric mean, f16 x:") != NULL, "no W4A16 GEMV figure of merit:\n%s", r.output);
}
END_TEST

/* bench gemm: GPU MODE's three nvfp4_gemm shapes, or one's own with batches, counting every batch. */
START_TEST(bench_gemm_times_its_shapes_on_the_fake_driver) {
  csv_file csv;
  csv_create(&csv);
  run r;
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "gemm", "--iters", "1", "--sets", "1"), &r);
  static const char *const rows[] = {"gemm1  nvfp4 1   128                           7168 16384",
                                     "gemm2  nvfp4 1   128                           4096  7168",
                                     "gemm3  nvfp4 1   128                           7168  2048"};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) assert_run(&r, 0, rows[i], "bench gemm");
  assert_run(&r, 0, "f16 tensor-core rate:", "bench gemm");
  ck_assert_msg(strstr(r.output, "gg1") == NULL && strstr(r.output, "dual1") == NULL, "other rows:\n%s", r.output);
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "gemm", "--m", "7", "--n", "64", "--k", "256", "--l",
                                                     "3", "--iters", "2", "--sets", "2", "--csv", csv.path), &r);
  assert_run(&r, 0, "custom nvfp4 3   7                               64   256", "bench gemm --m --n --k --l");
  char text[4096];
  csv_take(&csv, text, sizeof text);
  /* 2 * 7 * 64 * 256 * 3 flops; per batch A (7 x 256 at 9/16 a byte an element), B (64 x 256 at 9/16) and f16
   * C: 3 * (7 * 256 * 9/16 + 64 * 256 * 9/16 + 2 * 7 * 64) */
  ck_assert_msg(strstr(text, "\ngemm,nvfp4,custom,1,\"7\",64,256,3,") != NULL && strstr(text, ",33360,688128,") != NULL,
                "no gemm row of 3 batches, 33360 bytes and 688128 flops in the CSV:\n%s", text);
}
END_TEST

/* bench dual-gemm: GPU MODE's four shapes, or one's own, counting both products and both weights; on a driver
 * without memory pools, the call's NOT_SUPPORTED. */
START_TEST(bench_dual_gemm_times_its_shapes_on_the_fake_driver) {
  csv_file csv;
  csv_create(&csv);
  run r;
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "dual-gemm", "--iters", "1", "--sets", "1", "--csv",
                                                     csv.path), &r);
  static const char *const rows[] = {"dual1  nvfp4 1   256                           4096  7168",
                                     "dual2  nvfp4 1   512                           4096  7168",
                                     "dual3  nvfp4 1   256                           3072  4096",
                                     "dual4  nvfp4 1   512                           3072  7168"};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) assert_run(&r, 0, rows[i], "bench dual-gemm");
  assert_run(&r, 0, "f16 tensor-core rate:", "bench dual-gemm");
  ck_assert_msg(strstr(r.output, "gg1") == NULL && strstr(r.output, "gemv1") == NULL, "other rows:\n%s", r.output);
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "dual-gemm", "--m", "0,7,33", "--n", "64", "--k",
                                                     "256", "--iters", "2", "--sets", "2", "--csv", csv.path), &r);
  assert_run(&r, 0, "custom nvfp4 3   0,7,33", "bench dual-gemm --m --n --k");
  char text[4096];
  csv_take(&csv, text, sizeof text);
  /* 4 * 40 * 64 * 256 flops; two non-empty groups, each A (9/16 a byte an element), B1 and B2 (64 x 256 at
   * 9/16) and f16 C: 40 * 256 * 9/16 + 2 * (2 * 64 * 256 * 9/16) + 2 * 40 * 64 */
  ck_assert_msg(strstr(text, "\ndual-gemm,nvfp4,custom,3,\"0,7,33\",64,256,1,") != NULL &&
                    strstr(text, ",47744,2621440,") != NULL,
                "no dual-gemm row of 47744 bytes and 2621440 flops in the CSV:\n%s", text);
  unsetenv("FAKE_MEMORY_POOLS");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "dual-gemm", "--m", "7", "--n", "64", "--k", "256",
                                                     "--iters", "1", "--sets", "1"), &r);
  assert_run(&r, 1, "dual-gemm 7 x 64 x 256, nvfp4 activations: not supported: the dual GEMM needs scratch from a "
                    "memory pool", "bench dual-gemm, no pool");
}
END_TEST

/* bench dequantize: the single-tensor target, then the grouped GEMM shapes' tokens through the library's grouped
 * dequantize, in --dtype; a shape of one's own alone. */
START_TEST(bench_dequantize_times_the_grouped_shapes_on_the_fake_driver) {
  run r;
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "dequantize", "--dtype", "bf16", "--iters", "1",
                                                     "--sets", "1"), &r);
  static const char *const rows[] = {"deq-bf16    16384  16384 bf16", "gdq-gg1      1024   7168 bf16",
                                     "gdq-gg2      1024   2048 bf16", "gdq-gg3       512   4096 bf16",
                                     "gdq-gg4       512   1536 bf16", "gdq-moe1      764   7168 bf16"};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) assert_run(&r, 0, rows[i], "bench dequantize");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "dequantize", "--m", "64", "--k", "256", "--iters",
                                                     "1", "--sets", "1"), &r);
  assert_run(&r, 0, "custom-f16", "bench dequantize --m --k");
  ck_assert_msg(strstr(r.output, "gdq-") == NULL, "grouped rows beside a shape of one's own:\n%s", r.output);
}
END_TEST

START_TEST(bench_takes_shapes_of_ones_own_on_the_fake_driver) {
  run r;
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "gemv", "--m", "64", "--k", "256", "--l", "3",
                                                     "--iters", "2", "--sets", "2"), &r);
  assert_run(&r, 0, "custom nvfp4     64    256   3", "bench gemv");
  ck_assert_msg(strstr(r.output, "custom f16") == NULL, "a W4A16 row besides the NVFP4 one:\n%s", r.output);
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "gemv", "--m", "64", "--k", "256", "--l", "3", "--act",
                                                     "bf16", "--iters", "2", "--sets", "2"), &r);
  assert_run(&r, 0, "custom bf16      64    256   3", "bench gemv --act bf16");
  ck_assert_msg(strstr(r.output, "weights stable: off") != NULL, "no 'weights stable: off' line:\n%s", r.output);
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "gemv", "--m", "64", "--k", "256", "--weights-stable",
                                                     "--iters", "2", "--sets", "2"), &r);
  assert_run(&r, 0, "weights stable: on", "bench gemv --weights-stable");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "grouped-gemm", "--m", "0,7,33", "--n", "64", "--k",
                                                     "256", "--iters", "2", "--sets", "2"), &r);
  assert_run(&r, 0, "custom nvfp4 3   0,7,33", "bench grouped-gemm");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "grouped-gemm", "--m", "0,7,33", "--n", "64", "--k",
                                                     "256", "--act", "bf16", "--iters", "2", "--sets", "2"), &r);
  assert_run(&r, 0, "custom bf16  3   0,7,33", "bench grouped-gemm --act bf16");
  ck_assert_msg(strstr(r.output, "nvfp4 3") == NULL, "an NVFP4 row besides the bf16 one:\n%s", r.output);
}
END_TEST

START_TEST(bench_dequantize_takes_a_shape_and_an_output_type_on_the_fake_driver) {
  csv_file csv;
  csv_create(&csv);
  run r;
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "dequantize", "--m", "300", "--k", "544", "--dtype",
                                                     "f32", "--iters", "2", "--sets", "2", "--csv", csv.path), &r);
  assert_run(&r, 0, "custom-f32    300    544 f32", "bench dequantize");
  char text[4096];
  csv_take(&csv, text, sizeof text);
  /* 300 x 544 elements: 81600 data bytes, 10200 of scales, 652800 of f32 output */
  ck_assert_msg(strstr(text, "\ndequantize,nvfp4,custom-f32,1,\"300\",0,544,1,") != NULL &&
                    strstr(text, ",744600,0,") != NULL,
                "no dequantize row of 744600 bytes in the CSV:\n%s", text);
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "dequantize", "--m", "64", "--k", "256", "--iters", "1",
                                                     "--sets", "1"), &r);
  assert_run(&r, 0, "custom-f16", "bench dequantize, f16 by default");
}
END_TEST

START_TEST(bench_quantize_takes_a_shape_and_an_input_type_on_the_fake_driver) {
  csv_file csv;
  csv_create(&csv);
  run r;
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "quantize", "--m", "300", "--k", "544", "--dtype",
                                                     "f32", "--iters", "2", "--sets", "2", "--csv", csv.path), &r);
  assert_run(&r, 0, "custom-f32    300    544 f32", "bench quantize");
  char text[4096];
  csv_take(&csv, text, sizeof text);
  /* 300 x 544 elements: 652800 bytes of f32 input, 81600 data bytes, 10200 of scales */
  ck_assert_msg(strstr(text, "\nquantize,f32,custom-f32,1,\"300\",0,544,1,") != NULL &&
                    strstr(text, ",744600,0,") != NULL,
                "no quantize row of 744600 bytes in the CSV:\n%s", text);
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "quantize", "--m", "64", "--k", "256", "--iters", "1",
                                                     "--sets", "1"), &r);
  assert_run(&r, 0, "custom-bf16", "bench quantize, bf16 by default");
}
END_TEST

START_TEST(bench_relayout_takes_a_shape_and_a_direction_on_the_fake_driver) {
  csv_file csv;
  csv_create(&csv);
  run r;
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "relayout", "--m", "300", "--k", "544", "--iters", "2",
                                                     "--sets", "2", "--csv", csv.path), &r);
  assert_run(&r, 0, "custom-lin2blk    300    544 linear  blocked", "bench relayout, into BLOCKED by default");
  char text[4096];
  csv_take(&csv, text, sizeof text);
  /* 300 x 34 scales read, 3 x 9 whole tiles of 512 bytes written */
  ck_assert_msg(strstr(text, "\nrelayout,nvfp4,custom-lin2blk,1,\"300\",0,544,1,") != NULL &&
                    strstr(text, ",24024,0,") != NULL,
                "no relayout row of 24024 bytes in the CSV:\n%s", text);
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "relayout", "--m", "300", "--k", "544", "--to",
                                                     "linear", "--iters", "1", "--sets", "1"), &r);
  assert_run(&r, 0, "custom-blk2lin    300    544 blocked linear", "bench relayout --to linear");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "relayout", "--iters", "1", "--sets", "1"), &r);
  assert_run(&r, 0, "rly-lin2blk     16384  16384 linear  blocked", "bench relayout");
  assert_run(&r, 0, "rly-blk2lin     16384  16384 blocked linear", "bench relayout");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "relayout", "--gpumode", "--to", "linear", "--iters",
                                                     "1", "--sets", "1"), &r);
  assert_run(&r, 0, "rly-blk2lin", "bench relayout --gpumode --to linear");
  ck_assert_msg(strstr(r.output, "rly-lin2blk") == NULL, "a row into BLOCKED besides:\n%s", r.output);
}
END_TEST

START_TEST(bench_gpumode_takes_one_kind_of_activations_on_the_fake_driver) {
  run r;
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA),
            ARGS("bench", "grouped-gemm", "--gpumode", "--act", "bf16", "--iters", "1", "--sets", "1"), &r);
  static const char *const rows[] = {"gg1    bf16", "gg2    bf16", "gg3    bf16", "gg4    bf16", "moe1   bf16"};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) assert_run(&r, 0, rows[i], "bench --act bf16");
  ck_assert_msg(strstr(r.output, "gg1    nvfp4") == NULL && strstr(r.output, "gg1    f16") == NULL,
                "rows of other activations:\n%s", r.output);
}
END_TEST

START_TEST(verify_fails_an_output_nothing_wrote) {
  run r;
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "gemv", "--m", "70", "--k", "256", "--l", "2"), &r);
  assert_run(&r, 1, "FAIL", "verify gemv");
  assert_run(&r, 1, "140 outside the bar", "verify gemv");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "gemv", "--m", "70", "--k", "256", "--l", "2",
                                                     "--act", "bf16"), &r);
  assert_run(&r, 1, "gemv m=70 k=256 l=2 act=bf16 layout=linear dtype=f16 alpha=1 seed=1: 140 outputs checked, 140 "
                    "outside the bar", "verify gemv --act bf16");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "grouped-gemm", "--m", "3,0,5", "--n", "40", "--k",
                                                     "64"), &r);
  assert_run(&r, 1, "never written", "verify grouped-gemm");
  assert_run(&r, 1, "FAIL", "verify grouped-gemm");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "grouped-gemm", "--m", "3,0,5", "--n", "40", "--k",
                                                     "64", "--act", "bf16"), &r);
  assert_run(&r, 1, "act=bf16", "verify grouped-gemm --act bf16");
  assert_run(&r, 1, "never written", "verify grouped-gemm --act bf16");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "gemm", "--m", "3", "--n", "40", "--k", "64", "--l",
                                                     "2", "--layout", "blocked", "--dtype", "bf16"), &r);
  assert_run(&r, 1, "gemm m=3 n=40 k=64 l=2 layout=blocked dtype=bf16 alpha=1 seed=1: 240 outputs checked",
             "verify gemm");
  assert_run(&r, 1, "never written", "verify gemm");
  assert_run(&r, 1, "FAIL", "verify gemm");
  /* a reference large enough to be split over the processors (2^27 multiply-adds): the ranges' verdicts add up
   * to one thread's, every output counted once as unwritten and once outside the bar */
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "gemm", "--m", "256", "--n", "520", "--k", "1024"),
            &r);
  assert_run(&r, 1, "133120 outputs checked, 266240 outside the bar", "verify gemm, reference on threads");
  assert_run(&r, 1, "worst: C[0, 0] never written", "verify gemm, reference on threads");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "dequantize", "--m", "70", "--k", "96", "--l", "2",
                                                     "--layout", "blocked", "--dtype", "bf16"), &r);
  assert_run(&r, 1, "dequantize m=70 k=96 l=2 layout=blocked dtype=bf16 seed=1: 13440 outputs checked, 13440 "
                    "outside the bar, 0 stray writes", "verify dequantize");
  assert_run(&r, 1, "FAIL", "verify dequantize");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "quantize", "--m", "70", "--k", "96", "--l", "2",
                                                     "--layout", "blocked", "--dtype", "f16", "--scale", "0.5"), &r);
  assert_run(&r, 1, "quantize m=70 k=96 l=2 layout=blocked dtype=f16 scale=0.5 seed=1:", "verify quantize");
  assert_run(&r, 1, "FAIL", "verify quantize");
}
END_TEST

/* verify dual-gemm makes its call where the driver has memory pools (the dual GEMM's scratch), and says why not
 * where it has none; every option reaches the description of the case. */
START_TEST(verify_dual_gemm_runs_where_the_driver_has_memory_pools) {
  run r;
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "dual-gemm", "--m", "3,0,5", "--n", "40", "--k", "64"),
            &r);
  assert_run(&r, 1, "not supported: the dual GEMM needs scratch from a memory pool", "verify dual-gemm, no pool");
  assert_run(&r, 1, "FAIL", "verify dual-gemm, no pool");
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "dual-gemm", "--m", "3,0,5", "--n", "40", "--k", "64",
                                                     "--layout", "blocked", "--dtype", "bf16", "--alpha", "0.5",
                                                     "--alpha2", "-2", "--seed", "7"), &r);
  assert_run(&r, 1, "dual-gemm groups=3 m=3,0,5 n=40 k=64 layout=blocked dtype=bf16 alpha=0.5 alpha2=-2 seed=7: 320 "
                    "outputs checked", "verify dual-gemm");
  assert_run(&r, 1, "never written", "verify dual-gemm");
  assert_run(&r, 1, "FAIL", "verify dual-gemm");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "dual-gemm"), &r);
  assert_run(&r, 1, "dual-gemm groups=1 m=256 n=4096 k=7168 layout=linear dtype=f16 alpha=1 alpha2=1 seed=1:",
             "verify dual-gemm, the defaults");
}
END_TEST

/* --act f16 and bf16 make the W4A16 calls, on their entries: without the W4A16 GEMV's, verify and bench gemv with
 * dense x say so; without the grouped GEMM's bf16 entry, bf16 activations say so. */
START_TEST(dense_x_runs_the_w4a16_gemv_entries) {
  run r;
  setenv("FAKE_CUDA_MISSING", "nvfp4_gemv_w4a16_sm90a", 1);
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "gemv", "--m", "70", "--k", "256", "--act", "f16"), &r);
  assert_run(&r, 1, "has no entry nvfp4_gemv_w4a16_sm90a", "verify gemv --act f16");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "gemv", "--m", "70", "--k", "256"), &r);
  assert_run(&r, 1, "70 outside the bar", "verify gemv, NVFP4 x"); /* the call ran */
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "gemv", "--m", "7", "--k", "256", "--act", "bf16",
                                                     "--iters", "1", "--sets", "1"), &r);
  assert_run(&r, 1, "bf16 x: not supported: kernel image (embedded) has no entry nvfp4_gemv_w4a16_sm90a",
             "bench gemv --act bf16");
}
END_TEST

START_TEST(dense_activations_run_the_w4a16_entry_of_their_type) {
  run r;
  setenv("FAKE_CUDA_MISSING", w4a16_entries("bf16"), 1);
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "grouped-gemm", "--m", "3,5", "--n", "40", "--k",
                                                     "64", "--act", "bf16"), &r);
  assert_run(&r, 1, "has no entry nvfp4_grouped_gemm_w4a16_bf16_sm90a", "verify grouped-gemm --act bf16");
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("verify", "grouped-gemm", "--m", "3,5", "--n", "40", "--k",
                                                     "64", "--act", "f16"), &r);
  assert_run(&r, 1, "never written", "verify grouped-gemm --act f16"); /* the call ran */
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("bench", "grouped-gemm", "--m", "7", "--n", "64", "--k", "256",
                                                     "--act", "bf16", "--iters", "1", "--sets", "1"), &r);
  assert_run(&r, 1, "bf16 activations: not supported: kernel image (embedded) has no entry "
                    "nvfp4_grouped_gemm_w4a16_bf16_sm90a", "bench grouped-gemm --act bf16");
}
END_TEST

START_TEST(info_lists_the_kernels_on_the_fake_driver) {
  run r;
  setenv("FAKE_CUDA_MISSING", "nvfp4_grouped_gemm_sm90a", 1);
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("info"), &r);
  assert_run(&r, 0, "device   fake device (no GPU), sm_90, 132 SMs", "info");
  assert_run(&r, 0, "kernel   nvfp4_gemv_sm90a                               128 registers", "info");
  assert_run(&r, 0, "kernel   nvfp4_grouped_gemm_sm90a                       not in this image", "info");
  assert_run(&r, 0, "kernel   nvfp4_grouped_gemm_w4a16_bf16_sm90a            128 registers", "info");
  assert_run(&r, 0, "kernel   nvfp4_gemv_w4a16_sm90a                         128 registers", "info");
  assert_run(&r, 0, "path     sm_90a\n", "info");
  assert_run(&r, 0, "image    embedded, cubin, loaded in", "info");
}
END_TEST

/* Forced onto the portable path: info says so, that the PTX was JIT-compiled, and which operations have no
 * kernel there. */
START_TEST(info_says_which_path_runs_and_whether_it_was_jit_compiled) {
  run r;
  setenv("NVFP4_FORCE_PORTABLE", "1", 1);
  run_nvfp4(test_build_file(UNIT_FAKE_LIBCUDA), ARGS("info"), &r);
  unsetenv("NVFP4_FORCE_PORTABLE");
  assert_run(&r, 0, "path     portable (NVFP4_FORCE_PORTABLE=1)", "info");
  assert_run(&r, 0, "image    embedded, PTX JIT-compiled by the driver", "info");
  assert_run(&r, 0, "kernel   nvfp4_gemv_sm80                                128 registers", "info");
  assert_run(&r, 0,
             "none on this path: NVFP4 activations are dequantized to f16 B tiles in scratch for the W4A16 entries "
             "(without a memory pool the call returns NOT_SUPPORTED)",
             "info");
  assert_run(&r, 0,
             "none on this path for the grouped GEMM (bf16 activations as B tiles, 64-row tiles): its family's entry "
             "of mixed widths takes them",
             "info");
}
END_TEST

Suite *cli_suite(void) {
  Suite *s = suite_create("cli");
  TCase *words = tcase_create("help, version, usage errors, no driver");
  tcase_add_loop_test(words, each_command_prints_its_own_help, 0, (int)(sizeof help_cases / sizeof help_cases[0]));
  tcase_add_test(words, version_names_the_command_and_the_library);
  tcase_add_loop_test(words, usage_errors_exit_2_saying_why, 0, (int)(sizeof usage_cases / sizeof usage_cases[0]));
  tcase_add_loop_test(words, without_a_driver_commands_exit_1_saying_so, 0,
                      (int)(sizeof kernel_commands / sizeof kernel_commands[0]));
  suite_add_tcase(s, words);
  TCase *fake = tcase_create("every command end to end on the fake driver");
  tcase_set_timeout(fake, 300); /* moe1's sets and the 256 MB flushes are host memory here */
  tcase_add_test(fake, bench_runs_every_workload_on_the_fake_driver);
  tcase_add_test(fake, bench_takes_shapes_of_ones_own_on_the_fake_driver);
  tcase_add_test(fake, bench_gemm_times_its_shapes_on_the_fake_driver);
  tcase_add_test(fake, bench_dual_gemm_times_its_shapes_on_the_fake_driver);
  tcase_add_test(fake, bench_dequantize_times_the_grouped_shapes_on_the_fake_driver);
  tcase_add_test(fake, bench_gpumode_takes_one_kind_of_activations_on_the_fake_driver);
  tcase_add_test(fake, bench_dequantize_takes_a_shape_and_an_output_type_on_the_fake_driver);
  tcase_add_test(fake, bench_quantize_takes_a_shape_and_an_input_type_on_the_fake_driver);
  tcase_add_test(fake, bench_relayout_takes_a_shape_and_a_direction_on_the_fake_driver);
  tcase_add_test(fake, verify_fails_an_output_nothing_wrote);
  tcase_add_test(fake, verify_dual_gemm_runs_where_the_driver_has_memory_pools);
  tcase_add_test(fake, dense_x_runs_the_w4a16_gemv_entries);
  tcase_add_test(fake, dense_activations_run_the_w4a16_entry_of_their_type);
  tcase_add_test(fake, info_lists_the_kernels_on_the_fake_driver);
  tcase_add_test(fake, info_says_which_path_runs_and_whether_it_was_jit_compiled);
  suite_add_tcase(s, fake);
  return s;
}
