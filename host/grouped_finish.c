/* nvfp4i_grouped_finish: the finishing kernel's parameter block (grouped_finish_layout.h) and launches. */
#include "grouped_finish.h"

#include <stddef.h>

#include "launch.h"

typedef struct gf_desc {
  uint64_t gate, up, c, ldc;
  uint32_t m, n, ldp, slices, dtype, block_start;
} gf_desc;

typedef struct gf_params {
  uint32_t num_groups, total_blocks;
  float alpha1, alpha2;
  uint32_t mode, unused;
  gf_desc desc[GF_MAX_GROUPS];
} gf_params;

#define GF_ASSERT_AT(type, field, offset) _Static_assert(offsetof(type, field) == (offset), #offset)
GF_ASSERT_AT(gf_desc, gate, GF_D_GATE);
GF_ASSERT_AT(gf_desc, up, GF_D_UP);
GF_ASSERT_AT(gf_desc, c, GF_D_C);
GF_ASSERT_AT(gf_desc, ldc, GF_D_LDC);
GF_ASSERT_AT(gf_desc, m, GF_D_M);
GF_ASSERT_AT(gf_desc, n, GF_D_N);
GF_ASSERT_AT(gf_desc, ldp, GF_D_LDP);
GF_ASSERT_AT(gf_desc, slices, GF_D_SLICES);
GF_ASSERT_AT(gf_desc, dtype, GF_D_DTYPE);
GF_ASSERT_AT(gf_desc, block_start, GF_D_BLOCK_START);
_Static_assert(sizeof(gf_desc) == GF_DESC_BYTES, "GF_DESC_BYTES");
GF_ASSERT_AT(gf_params, num_groups, GF_P_NUM_GROUPS);
GF_ASSERT_AT(gf_params, total_blocks, GF_P_TOTAL_BLOCKS);
GF_ASSERT_AT(gf_params, alpha1, GF_P_ALPHA1);
GF_ASSERT_AT(gf_params, alpha2, GF_P_ALPHA2);
GF_ASSERT_AT(gf_params, mode, GF_P_MODE);
GF_ASSERT_AT(gf_params, desc, GF_P_DESCS);
_Static_assert(sizeof(gf_params) == GF_PARAM_BYTES, "GF_PARAM_BYTES");
_Static_assert(GF_COLS == 4, "the kernel reads a unit as one 16-byte vector");

uint32_t nvfp4i_finish_ldp(int64_t n) { return (uint32_t)((n + GF_COLS - 1) / GF_COLS * GF_COLS); }

nvfp4_status nvfp4i_grouped_finish(nvfp4_handle *h, int count, const nvfp4i_finish_group *groups, uint32_t mode,
                                   float alpha1, float alpha2, CUstream stream) {
  gf_params params = {.num_groups = (uint32_t)count, .alpha1 = alpha1, .alpha2 = alpha2, .mode = mode};
  for (int i = 0; i < count; i++) {
    const nvfp4i_finish_group *g = &groups[i];
    uint64_t units = (uint64_t)g->m * (g->ldp / GF_COLS);
    params.desc[i] = (gf_desc){
        .gate = g->gate,
        .up = g->up,
        .c = (uintptr_t)g->c->data,
        .ldc = (uint64_t)g->c->ld,
        .m = g->m,
        .n = g->n,
        .ldp = g->ldp,
        .slices = g->slices,
        .dtype = (uint32_t)g->c->dtype,
        .block_start = params.total_blocks,
    };
    params.total_blocks += (uint32_t)((units + GF_THREADS - 1) / GF_THREADS);
  }
  void *args[] = {&params};
  nvfp4i_launch config = {
      .grid = {params.total_blocks, 1, 1},
      .block = {GF_THREADS, 1, 1},
      .params = args,
      .early_start = 1, /* the entry waits for the GEMM before it reads the partials */
  };
  return nvfp4i_launch_kernel(h, NVFP4I_KERNEL_GROUPED_FINISH, &config, stream);
}
