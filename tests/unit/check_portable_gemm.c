/* The grouped GEMMs on the portable kernel path, on the fake driver (tests/fake/libcuda.c): the portable
 * W4A16 entries (ptx/sm80/grouped_gemm_w4a16.ptx) launched with their own shape (PG_THREADS, PG_SMEM_BYTES,
 * a grid of resident CTAs) and the sm_90a kernels' parameter block with token tiles of at most PG_T_MAX rows;
 * NVFP4 activations through the grouped dequantize into B tiles (the path has no fused kernel), dense ones
 * copied into B tiles where there is scratch and read in place where not; the dual GEMM finished by the
 * portable finishing entry (no paired tiles); nothing launched early (the fake driver's kernels say they were
 * not built for sm_90). */
#include <stdlib.h>
#include <string.h>

#include "fake_driver.h"
#include "sm80/grouped_gemm_w4a16_layout.h"
#include "sm90a/dequantize_layout.h"
#include "sm90a/grouped_finish_layout.h"
#include "sm90a/grouped_gemm_layout.h"
#include "suites.h"

#define STR2(x) #x
#define STR(x) STR2(x)

enum { K = 256, G = 3, N = 300, SMS = 132 };

/* Fake device memory: the fake driver reads none of it, the library only looks at the addresses. */
static _Alignas(16) uint8_t activations[64], weights[16], scales[16];
static uint16_t out[16];
static const int64_t group_m[G] = {80, 7, 200};

static void nvfp4_args(nvfp4_tensor *a, nvfp4_tensor *b, nvfp4_output *c) {
  for (int g = 0; g < G; g++) {
    a[g] = (nvfp4_tensor){activations, scales, group_m[g], K, 1, K / 2, 0, K / 16, 0, NVFP4_SF_LINEAR};
    b[g] = (nvfp4_tensor){weights, scales, N, K, 1, K / 2, 0, K / 16, 0, NVFP4_SF_LINEAR};
    c[g] = (nvfp4_output){out, N, 0, NVFP4_DTYPE_F16};
  }
}

/* A fake H200 handle forced onto the portable path, with memory pools (scratch), and the G groups' operands. */
static void forced_portable_with_pools(nvfp4_tensor *a, nvfp4_tensor *b, nvfp4_output *c) {
  setenv("NVFP4_FORCE_PORTABLE", "1", 1);
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  create_fake_handle();
  nvfp4_args(a, b, c);
}

/* Tiles of the groups at token tile t(m) (the host's even split of m into tiles of at most PG_T_MAX rows,
 * rounded up to GG_T_GRAIN): 80 -> two of 64, 7 -> one of 32, 200 -> four of 64; N = 300: 3 column tiles. */
static const uint32_t group_t[G] = {64, 32, 64};
enum { TOTAL_TILES = 3 * (2 + 1 + 4) };

/* Launch i is a portable W4A16 entry with the portable shape and a parameter block of the G groups, largest
 * token tile first (the stable order keeps 80 before 200 among t = 64), tiles numbered in that order. */
static void assert_portable_w4a16_launch(long i, const char *entry_name, unsigned expected_grid,
                                         unsigned expected_smem) {
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(i, &entry, &config);
  ck_assert_str_eq(entry, entry_name);
  ck_assert_uint_eq(config.blockDimX, PG_THREADS);
  ck_assert_uint_eq(config.blockDimY, 1);
  ck_assert_uint_eq(config.sharedMemBytes, expected_smem);
  ck_assert_uint_eq(config.gridDimX, expected_grid);
  assert_launched_early(&config, 0, "portable W4A16 grouped GEMM");
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), G);
  ck_assert_uint_eq(param_u32(p, GG_P_TOTAL_TILES), TOTAL_TILES);
  ck_assert_uint_eq(param_u32(p, GG_P_RING), PG_STAGES | 64u << 16);
  static const int order[G] = {0, 2, 1};
  uint32_t start = 0;
  for (int d = 0; d < G; d++) {
    int g = order[d];
    ck_assert_uint_eq(desc_u32(p, d, GG_D_M), (uint32_t)group_m[g]);
    ck_assert_uint_eq(desc_u32(p, d, GG_D_T), group_t[g]);
    ck_assert_uint_le(desc_u32(p, d, GG_D_T), PG_T_MAX);
    ck_assert_uint_eq(desc_u32(p, d, GG_D_N), N);
    ck_assert_uint_eq(desc_u32(p, d, GG_D_KBYTES), K / 2);
    ck_assert_uint_eq(desc_u32(p, d, GG_D_TILE_START), start);
    ck_assert_uint_eq(desc_u64(p, d, GG_D_B), (uintptr_t)weights);
    ck_assert_uint_eq(desc_u32(p, d, GG_D_B_QSTEP), 4);
    start += 3 * ((uint32_t)group_m[g] + group_t[g] - 1) / group_t[g];
  }
}

START_TEST(an_nvfp4_grouped_gemm_dequantizes_the_tokens_then_runs_the_portable_w4a16_entry) {
  nvfp4_tensor a[G], b[G];
  nvfp4_output c[G];
  forced_portable_with_pools(a, b, c);
  ck_assert_msg(nvfp4_grouped_gemm(fake_handle, G, a, b, c, 0.5f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2);
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(0, &entry, &config);
  ck_assert_str_eq(entry, STR(GDQ_SM80_ENTRY));
  ck_assert_uint_eq(param_u32(p, GDQ_P_OUT_DTYPE), DEQ_DTYPE_F16);
  ck_assert_uint_eq(param_u32(p, GDQ_P_DESCS + GDQ_D_B_TILES), 1);
  uint64_t tokens = param_u64(p, GDQ_P_DESCS + GDQ_D_OUT);
  /* on sm_90 (228 KB an SM) two CTAs of 75 KB stay resident: a grid of the 21 tiles, one an SM, each CTA
   * asking for a whole SM's shared memory (227 KB a block) so that no SM takes two */
  assert_portable_w4a16_launch(1, STR(PG_ENTRY_F16_TILES), TOTAL_TILES, PG_SMEM_LIMIT);
  p = fake_launch(1, &entry, &config);
  ck_assert_uint_eq(desc_u64(p, 0, GG_D_A), tokens);
  ck_assert_uint_eq(desc_u32(p, 0, GG_D_A_LD), (uint32_t)group_m[0] * GDQ_B_TILE_ROW_BYTES); /* a column block */
  float alpha;
  memcpy(&alpha, p + GG_P_ALPHA, sizeof alpha);
  ck_assert(alpha == 0.5f);
  destroy_fake_handle();
}
END_TEST

/* nvfp4_grouped_gemm_w4a16 on the G groups with bf16 activations, on the fake handle; it must succeed. */
static void call_bf16_w4a16(void) {
  static _Alignas(16) uint16_t tokens[8];
  nvfp4_dense a[G];
  nvfp4_tensor unused[G], b[G];
  nvfp4_output c[G];
  nvfp4_args(unused, b, c);
  for (int g = 0; g < G; g++) a[g] = (nvfp4_dense){tokens, group_m[g], K, 1, K, 0, NVFP4_DTYPE_BF16};
  ck_assert_msg(nvfp4_grouped_gemm_w4a16(fake_handle, G, a, b, c, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
}

/* Dense activations without scratch (no memory pools) are read in place: on an sm_86 (100 KB an SM, one 75 KB
 * CTA resident) the bf16 entry of rows runs with a grid of the tiles, at most one CTA per SM. */
START_TEST(a_w4a16_grouped_gemm_runs_the_portable_entry_of_its_activation_type) {
  setenv("FAKE_CUDA_CC", "8.6", 1);
  create_fake_handle();
  call_bf16_w4a16();
  ck_assert_int_eq(fake_launches(), 1);
  assert_portable_w4a16_launch(0, STR(PG_ENTRY_BF16), TOTAL_TILES, PG_SMEM_BYTES);
  destroy_fake_handle();
}
END_TEST

/* Dense activations with scratch: copied into B tiles by the grouped dequantize's dense way, then the bf16
 * B-tile entry. */
START_TEST(a_w4a16_grouped_gemm_with_scratch_reads_b_tiles) {
  setenv("FAKE_CUDA_CC", "8.6", 1);
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  create_fake_handle();
  call_bf16_w4a16();
  ck_assert_int_eq(fake_launches(), 2);
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(0, &entry, &config);
  ck_assert_str_eq(entry, STR(GDQ_SM80_ENTRY));
  ck_assert_uint_eq(param_u32(p, GDQ_P_DESCS + GDQ_D_IN_DENSE), 1);
  ck_assert_uint_eq(param_u32(p, GDQ_P_DESCS + GDQ_D_B_TILES), 1);
  assert_portable_w4a16_launch(1, STR(PG_ENTRY_BF16_TILES), TOTAL_TILES, PG_SMEM_BYTES);
  destroy_fake_handle();
}
END_TEST

/* More tiles than resident CTAs: the grid stops at SMs x CTAs per SM (sm_80: 164 KB an SM, two CTAs). */
START_TEST(the_portable_grid_is_the_resident_ctas) {
  setenv("FAKE_CUDA_CC", "8.0", 1);
  create_fake_handle();
  static _Alignas(16) uint16_t tokens[8];
  nvfp4_dense a = {tokens, 4096, K, 1, K, 0, NVFP4_DTYPE_F16};
  nvfp4_tensor b = {weights, scales, 4096, K, 1, K / 2, 0, K / 16, 0, NVFP4_SF_LINEAR};
  nvfp4_output c = {out, 4096, 0, NVFP4_DTYPE_F32};
  ck_assert_msg(nvfp4_grouped_gemm_w4a16(fake_handle, 1, &a, &b, &c, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  CUlaunchConfig config;
  const unsigned char *p = fake_last_launch(&config);
  ck_assert_uint_eq(param_u32(p, GG_P_TOTAL_TILES), 32 * 64);
  ck_assert_uint_eq(config.gridDimX, 2 * SMS);
  ck_assert_uint_eq(desc_u32(p, 0, GG_D_T), PG_T_MAX);
  destroy_fake_handle();
}
END_TEST

/* The plan counts every resident CTA: gg3 (G = 2, M = 192, 320, N = 3072, K = 4096: 192 tiles of 64 x 128)
 * fills 132 SMs x 3 CTAs only in two K slices, finished by the portable finishing entry; at one CTA an SM its
 * tiles already outnumber the CTAs, and nothing splits. */
static long gg3_launches(const char *blocks_per_sm, uint32_t *gemm_tiles, uint32_t *grid) {
  setenv("NVFP4_FORCE_PORTABLE", "1", 1);
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  setenv("FAKE_BLOCKS_PER_SM", blocks_per_sm, 1);
  create_fake_handle();
  enum { GG3_N = 3072, GG3_K = 4096 };
  static const int64_t m[2] = {192, 320};
  nvfp4_tensor a[2], b[2];
  nvfp4_output c[2];
  for (int g = 0; g < 2; g++) {
    a[g] = (nvfp4_tensor){activations, scales, m[g], GG3_K, 1, GG3_K / 2, 0, GG3_K / 16, 0, NVFP4_SF_LINEAR};
    b[g] = (nvfp4_tensor){weights, scales, GG3_N, GG3_K, 1, GG3_K / 2, 0, GG3_K / 16, 0, NVFP4_SF_LINEAR};
    c[g] = (nvfp4_output){out, GG3_N, 0, NVFP4_DTYPE_F16};
  }
  ck_assert_msg(nvfp4_grouped_gemm(fake_handle, 2, a, b, c, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  long launches = fake_launches();
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(1, &entry, &config);
  ck_assert_str_eq(entry, STR(PG_ENTRY_F16_TILES));
  *gemm_tiles = param_u32(p, GG_P_TOTAL_TILES);
  *grid = config.gridDimX;
  if (launches == 3) {
    fake_launch(2, &entry, &config);
    ck_assert_str_eq(entry, STR(GF_SM80_ENTRY));
  }
  destroy_fake_handle();
  return launches;
}

START_TEST(a_grid_of_fewer_tiles_than_resident_ctas_splits_k) {
  uint32_t tiles, grid;
  ck_assert_int_eq(gg3_launches("3", &tiles, &grid), 3);
  ck_assert_uint_eq(tiles, 2 * 192);
  ck_assert_uint_eq(grid, 2 * 192);
}
END_TEST

START_TEST(tiles_that_outnumber_the_resident_ctas_do_not_split) {
  uint32_t tiles, grid;
  ck_assert_int_eq(gg3_launches("1", &tiles, &grid), 2);
  ck_assert_uint_eq(tiles, 192);
  ck_assert_uint_eq(grid, SMS);
}
END_TEST

/* A launch whose tiles all have t = 32 (every group's M at most 32, as a MoE decode's) takes the B-tile
 * family's t = 32 entry; the launches above, of t = 64 and 32 mixed, take the family's own. */
START_TEST(tiles_all_of_32_rows_take_the_t32_entry) {
  nvfp4_tensor a[G], b[G];
  nvfp4_output c[G];
  forced_portable_with_pools(a, b, c);
  static const int64_t small_m[G] = {7, 32, 20};
  for (int g = 0; g < G; g++) a[g].rows = small_m[g];
  ck_assert_msg(nvfp4_grouped_gemm(fake_handle, G, a, b, c, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2);
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(1, &entry, &config);
  ck_assert_str_eq(entry, STR(PG_ENTRY_F16_TILES_T32));
  ck_assert_uint_eq(config.blockDimX, PG_THREADS);
  for (int d = 0; d < G; d++) ck_assert_uint_eq(desc_u32(p, d, GG_D_T), 32);
  destroy_fake_handle();
}
END_TEST

/* The dual GEMM: the dequantize, both products into f32 partials, then the portable finishing entry, every
 * launch plain. */
START_TEST(the_dual_gemm_is_finished_by_the_portable_finishing_entry) {
  nvfp4_tensor a[G], b[G];
  nvfp4_output c[G];
  forced_portable_with_pools(a, b, c);
  ck_assert_msg(nvfp4_grouped_dual_gemm_silu(fake_handle, G, a, b, b, c, 1.0f, 2.0f, NULL) == NVFP4_STATUS_SUCCESS,
                "%s", nvfp4_last_error());
  long launches = fake_launches();
  ck_assert_int_ge(launches, 3);
  const char *entry;
  CUlaunchConfig config;
  fake_launch(0, &entry, &config);
  ck_assert_str_eq(entry, STR(GDQ_SM80_ENTRY));
  for (long i = 1; i < launches - 1; i++) {
    const unsigned char *p = fake_launch(i, &entry, &config);
    ck_assert_str_eq(entry, STR(PG_ENTRY_F16_TILES));
    ck_assert_uint_eq(desc_u32(p, 0, GG_D_FLAGS) & GG_F_PAIRED, 0);
    ck_assert_uint_eq(config.blockDimX, PG_THREADS);
    ck_assert_uint_eq(config.sharedMemBytes, PG_SMEM_LIMIT); /* one CTA an SM: the grid is small */
    ck_assert_uint_eq(desc_u32(p, 0, GG_D_FLAGS) & GG_F_DTYPE_MASK, NVFP4_DTYPE_F32);
    ck_assert_uint_le(desc_u32(p, 0, GG_D_T), PG_T_MAX);
  }
  const unsigned char *p = fake_launch(launches - 1, &entry, &config);
  ck_assert_str_eq(entry, STR(GF_SM80_ENTRY));
  ck_assert_uint_eq(config.blockDimX, GF_THREADS);
  assert_launched_early(&config, 0, "portable finishing kernel");
  ck_assert_uint_eq(param_u32(p, GF_P_MODE), GF_MODE_SILU_MUL);
  ck_assert_uint_eq(param_u32(p, GF_P_NUM_GROUPS), G);
  destroy_fake_handle();
}
END_TEST

Suite *portable_gemm_suite(void) {
  Suite *s = suite_create("portable_gemm");
  TCase *tc = tcase_create("grouped GEMMs on the portable path");
  tcase_add_test(tc, an_nvfp4_grouped_gemm_dequantizes_the_tokens_then_runs_the_portable_w4a16_entry);
  tcase_add_test(tc, a_w4a16_grouped_gemm_runs_the_portable_entry_of_its_activation_type);
  tcase_add_test(tc, a_w4a16_grouped_gemm_with_scratch_reads_b_tiles);
  tcase_add_test(tc, the_portable_grid_is_the_resident_ctas);
  tcase_add_test(tc, a_grid_of_fewer_tiles_than_resident_ctas_splits_k);
  tcase_add_test(tc, tiles_that_outnumber_the_resident_ctas_do_not_split);
  tcase_add_test(tc, tiles_all_of_32_rows_take_the_t32_entry);
  tcase_add_test(tc, the_dual_gemm_is_finished_by_the_portable_finishing_entry);
  suite_add_tcase(s, tc);
  return s;
}
