/* `nvfp4 bench`: the GPU MODE benchmark shapes of the GEMV, grouped GEMM and dual GEMM, each operation's own
 * workloads, or a shape of your own, timed against ceilings measured in the same run (not part of libnvfp4). */
#ifndef NVFP4_TOOLS_CLI_BENCH_H
#define NVFP4_TOOLS_CLI_BENCH_H

/* argv[0] is "bench"; returns the exit status (2 for a usage error). */
int cli_bench(int argc, char **argv);

#endif
