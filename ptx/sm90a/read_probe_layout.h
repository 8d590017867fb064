/* ptx/sm90a/read_probe_layout.h - the read probe's layout, shared by read_probe.ptx (through cpp) and the
 * bench (host/tools/bench.c, which checks its parameter struct against these offsets). Only #defines. */
#ifndef NVFP4_PTX_SM90A_READ_PROBE_LAYOUT_H
#define NVFP4_PTX_SM90A_READ_PROBE_LAYOUT_H

#define READ_PROBE_ENTRY nvfp4_read_probe_sm90a

/* Launch: block (READ_PROBE_THREADS, 1, 1); grid (READ_PROBE_CTAS_PER_SM * number of SMs, 1, 1): 2048
 * threads per SM, each with four 16-byte loads in flight; no shared memory. */
#define READ_PROBE_THREADS 512
#define READ_PROBE_CTAS_PER_SM 4

/* The parameter block, one .param array of READ_PROBE_PARAM_BYTES (byte offset: meaning). */
#define READ_PROBE_P_SRC 0                         /* u64  the bytes to read; 16-byte aligned */
#define READ_PROBE_P_N16 8                         /* u64  how many 16-byte vectors to read */
#define READ_PROBE_P_OUT 16                        /* u64  u32[grid * threads]: written only where a thread's
                                                      xor of its data equals `never` */
#define READ_PROBE_P_NEVER 24                      /* u32  (keeps the loads observable without a store each) */
#define READ_PROBE_PARAM_BYTES 28                  /* READ_PROBE_P_NEVER + 4 */

#endif
