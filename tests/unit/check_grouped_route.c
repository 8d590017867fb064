/* nvfp4_grouped_gemm's two ways, on the fake driver (tests/fake/libcuda.c): with memory pools (FAKE_MEMORY_POOLS)
 * every group's tokens are dequantized to f16 into scratch by one grouped dequantize, and the W4A16 f16 entry
 * reads them there (host/grouped_gemm.c, via_dequantized_tokens); the fused entry runs where the handle
 * opts out (NVFP4_GROUPED_FUSED=1) or the image lacks the grouped dequantize (the call's validation already
 * asks for the 16-byte aligned tokens the dequantize's loads need). Without pools (the fake's default) every other suite sees the fused entry. */
#include <stdlib.h>
#include <string.h>

#include "fake_driver.h"
#include "sm90a/dequantize_layout.h"
#include "sm90a/grouped_gemm_layout.h"
#include "suites.h"

#define FUSED_ENTRY "nvfp4_grouped_gemm_sm90a"
#define DEQUANTIZE_ENTRY "nvfp4_grouped_dequantize_sm90a"

enum { K = 256, G = 3 };

/* Fake device memory: the fake driver reads none of it, the library only looks at the addresses. */
static _Alignas(16) uint8_t activations[64], weights[16], scales[16];
static _Alignas(16) uint16_t out[16];

/* M = 80; M = 7 with N = 0 (no work: its tokens need not suit the dequantize's 16-byte loads, nor get
 * scratch); M = 5 with twice the K; token rows 16 bytes wider than K / 2 */
typedef struct route_args {
  nvfp4_tensor a[G], b[G];
  nvfp4_output c[G];
} route_args;

static route_args valid_args(void) {
  static const int64_t m[G] = {80, 7, 5}, k[G] = {K, K, 2 * K}, n[G] = {256, 0, 300};
  route_args r;
  for (int g = 0; g < G; g++) {
    r.a[g] = (nvfp4_tensor){activations, scales, m[g], k[g], 1, k[g] / 2 + 16, 0, k[g] / 16, 0, NVFP4_SF_LINEAR};
    r.b[g] = (nvfp4_tensor){weights, scales, n[g], k[g], 1, k[g] / 2, 0, k[g] / 16, 0, NVFP4_SF_BLOCKED_128x4};
    r.c[g] = (nvfp4_output){out, n[g], 0, NVFP4_DTYPE_BF16};
  }
  r.a[1].data = activations + 8;
  return r;
}

static nvfp4_status call(const route_args *r) {
  return nvfp4_grouped_gemm(fake_handle, G, r->a, r->b, r->c, 0.5f, NULL);
}

static void assert_one_fused_launch(const route_args *r) {
  ck_assert_msg(call(r) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 1);
  const char *entry;
  CUlaunchConfig config;
  fake_launch(0, &entry, &config);
  ck_assert_str_eq(entry, FUSED_ENTRY);
}

START_TEST(with_pools_the_tokens_are_dequantized_once_and_the_w4a16_entry_reads_them) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  create_fake_handle();
  route_args r = valid_args();
  ck_assert_msg(call(&r) == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2);

  /* the grouped dequantize: the two groups with work, to f16, packed one after the other in the B-tile layout
   * (column blocks of 64 elements: m rows x 128 bytes; K = 256 and 512 need no padding to 128) */
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(0, &entry, &config);
  ck_assert_str_eq(entry, DEQUANTIZE_ENTRY);
  assert_launched_early(&config, 1, "grouped dequantize"); /* early: it waits before it writes the scratch */
  ck_assert_uint_eq(param_u32(p, GDQ_P_NUM_GROUPS), 2);
  ck_assert_uint_eq(param_u32(p, GDQ_P_OUT_DTYPE), DEQ_DTYPE_F16);
  uint64_t tokens0 = param_u64(p, GDQ_P_DESCS + GDQ_D_OUT);
  uint64_t tokens2 = param_u64(p, GDQ_P_DESCS + GDQ_DESC_BYTES + GDQ_D_OUT);
  ck_assert_uint_ne(tokens0, 0);
  ck_assert_uint_eq(tokens2, tokens0 + 80 * K * 2);
  ck_assert_uint_eq(param_u64(p, GDQ_P_DESCS + GDQ_D_OUT_LD_BYTES), 80 * 128);
  ck_assert_uint_eq(param_u64(p, GDQ_P_DESCS + GDQ_DESC_BYTES + GDQ_D_OUT_LD_BYTES), 5 * 128);
  for (int i = 0; i < 2; i++) {
    ck_assert_uint_eq(param_u32(p, GDQ_P_DESCS + i * GDQ_DESC_BYTES + GDQ_D_B_TILES), 1);
    ck_assert_uint_eq(param_u32(p, GDQ_P_DESCS + i * GDQ_DESC_BYTES + GDQ_D_OUT_CHUNKS), (i + 1) * K / 32);
  }
  ck_assert_uint_eq(param_u64(p, GDQ_P_DESCS + GDQ_D_IN), (uintptr_t)activations);

  /* the W4A16 f16 entry over the same two groups, largest token tile first (M = 80, then M = 5), reading
   * the dequantized tokens as B tiles (GG_D_A_LD: a column block's bytes; no activation scales), alpha and
   * outputs untouched */
  p = fake_launch(1, &entry, &config);
  assert_w4a16_entry(entry, "f16_tiles", p);
  /* programmatic dependent launch: set up while the dequantize runs */
  assert_launched_early(&config, 1, "W4A16 grouped GEMM after the dequantize");
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 2);
  float alpha;
  memcpy(&alpha, p + GG_P_ALPHA, sizeof alpha);
  ck_assert(alpha == 0.5f);
  const uint64_t a[] = {tokens0, tokens2}, a_ld[] = {80 * 128, 5 * 128};
  const uint32_t m[] = {80, 5}, n[] = {256, 300}, kbytes[] = {K / 2, K};
  for (int i = 0; i < 2; i++) {
    ck_assert_uint_eq(desc_u64(p, i, GG_D_A), a[i]);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_A_LD), a_ld[i]);
    ck_assert_uint_eq(desc_u64(p, i, GG_D_A_SF), 0);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_A_QSTEP), 0);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_M), m[i]);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_N), n[i]);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_KBYTES), kbytes[i]);
    ck_assert_uint_eq(desc_u64(p, i, GG_D_B), (uintptr_t)weights);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_FLAGS),
                      (uint32_t)NVFP4_DTYPE_BF16 | GG_F_B_SF_BULK | GG_F_A_B_TILES | GG_F_C_VEC);
  }
  destroy_fake_handle();
}
END_TEST

START_TEST(nvfp4_grouped_fused_makes_the_handle_run_the_fused_entry) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  setenv("NVFP4_GROUPED_FUSED", "1", 1);
  create_fake_handle();
  route_args r = valid_args();
  assert_one_fused_launch(&r);
  destroy_fake_handle();
}
END_TEST

START_TEST(an_image_without_the_grouped_dequantize_takes_the_fused_entry) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  setenv("FAKE_CUDA_MISSING", DEQUANTIZE_ENTRY, 1);
  create_fake_handle();
  route_args r = valid_args();
  assert_one_fused_launch(&r);
  destroy_fake_handle();
}
END_TEST

/* ---- a pool that cannot grow (FAKE_POOL_EXHAUSTED): the call runs as on a device without pools, where it can,
 * planned and checked for that way (the plan with scratch would take the B-tile entry of one width and split
 * K, NVFP4_TILE_ROWS and NVFP4_SPLIT_K here; neither has a way without scratch), else fails saying so */

static void exhaust_the_pool(void) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  setenv("FAKE_POOL_EXHAUSTED", "1", 1);
  setenv("NVFP4_TILE_ROWS", "128", 1);
  setenv("NVFP4_SPLIT_K", "2", 1);
  create_fake_handle();
}

START_TEST(an_exhausted_pool_runs_nvfp4_activations_on_the_fused_entry_over_whole_k) {
  exhaust_the_pool();
  route_args r = valid_args();
  assert_one_fused_launch(&r);
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(0, &entry, &config);
  /* the two groups with work, largest first, whole K (one descriptor each), their own tokens and outputs */
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 2);
  const uint32_t m[] = {80, 5}, kbytes[] = {K / 2, K};
  for (int i = 0; i < 2; i++) {
    ck_assert_uint_eq(desc_u32(p, i, GG_D_M), m[i]);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_KBYTES), kbytes[i]);
    ck_assert_uint_eq(desc_u64(p, i, GG_D_A), (uintptr_t)activations);
    ck_assert_uint_eq(desc_u64(p, i, GG_D_C), (uintptr_t)out);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_FLAGS) & (GG_F_A_B_TILES | GG_F_DTYPE_MASK), NVFP4_DTYPE_BF16);
  }
  destroy_fake_handle();
}
END_TEST

START_TEST(an_exhausted_pool_runs_dense_activations_in_place_on_the_entries_of_mixed_widths) {
  exhaust_the_pool();
  static _Alignas(16) uint16_t dense[2][128 * K];
  nvfp4_dense a[2] = {{dense[0], 128, K, 1, K, 0, NVFP4_DTYPE_F16}, {dense[1], 64, K, 1, K, 0, NVFP4_DTYPE_BF16}};
  nvfp4_tensor b[2];
  nvfp4_output c[2];
  for (int g = 0; g < 2; g++) {
    b[g] = (nvfp4_tensor){weights, scales, 4096, K, 1, K / 2, 0, K / 16, 0, NVFP4_SF_LINEAR};
    c[g] = (nvfp4_output){out, 4096, 0, NVFP4_DTYPE_F16};
  }
  ck_assert_msg(nvfp4_grouped_gemm_w4a16(fake_handle, 2, a, b, c, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2); /* no copy into B tiles: an f16 launch, then a bf16 one */
  static const char *const types[] = {"f16", "bf16"};
  for (int g = 0; g < 2; g++) {
    const char *entry;
    CUlaunchConfig config;
    const unsigned char *p = fake_launch(g, &entry, &config);
    ck_assert_uint_eq(assert_w4a16_entry(entry, types[g], p), 0); /* the entry of mixed widths */
    ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 1);
    ck_assert_uint_eq(desc_u64(p, 0, GG_D_A), (uintptr_t)dense[g]);
    ck_assert_uint_eq(desc_u32(p, 0, GG_D_A_LD), K * 2);
    ck_assert_uint_eq(desc_u32(p, 0, GG_D_KBYTES), K / 2);
    ck_assert_uint_eq(desc_u64(p, 0, GG_D_C), (uintptr_t)out);
    ck_assert_uint_eq(desc_u32(p, 0, GG_D_FLAGS) & GG_F_A_B_TILES, 0);
  }
  /* the pool grown again: the next call takes the scratch way again (the plan of the call without is not kept
   * for it) */
  unsetenv("FAKE_POOL_EXHAUSTED");
  ck_assert_msg(nvfp4_grouped_gemm_w4a16(fake_handle, 2, a, b, c, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2 + 4); /* the copy into B tiles, the GEMMs, the finish of the K slices */
  const char *entry;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(3, &entry, &config);
  ck_assert_uint_eq(assert_w4a16_entry(entry, "f16_tiles", p), 128);
  destroy_fake_handle();
}
END_TEST

START_TEST(an_exhausted_pool_fails_the_dual_gemm_and_the_portable_nvfp4_call_launching_nothing) {
  exhaust_the_pool();
  route_args r = valid_args();
  nvfp4_status st = nvfp4_grouped_dual_gemm_silu(fake_handle, G, r.a, r.b, r.b, r.c, 1.0f, 1.0f, NULL);
  assert_rejected("dual GEMM, pool exhausted", st, NVFP4_STATUS_OUT_OF_MEMORY,
                  "cuMemAllocFromPoolAsync (the dual GEMM's scratch): CUDA_ERROR_OUT_OF_MEMORY");
  destroy_fake_handle();
  setenv("FAKE_CUDA_CC", "8.0", 1); /* the portable path: NVFP4 activations only through scratch */
  create_fake_handle();
  assert_rejected("portable NVFP4 grouped GEMM, pool exhausted", call(&r), NVFP4_STATUS_OUT_OF_MEMORY,
                  "cuMemAllocFromPoolAsync (the grouped GEMM's scratch): CUDA_ERROR_OUT_OF_MEMORY");
  destroy_fake_handle();
}
END_TEST

/* An image without the fused entry has no way for NVFP4 activations without scratch either. */
START_TEST(an_exhausted_pool_fails_nvfp4_activations_on_an_image_without_the_fused_entry) {
  setenv("FAKE_CUDA_MISSING", FUSED_ENTRY, 1);
  exhaust_the_pool();
  route_args r = valid_args();
  assert_rejected("NVFP4 grouped GEMM, pool exhausted, no fused entry", call(&r), NVFP4_STATUS_OUT_OF_MEMORY,
                  "cuMemAllocFromPoolAsync (the grouped GEMM's scratch): CUDA_ERROR_OUT_OF_MEMORY");
  destroy_fake_handle();
}
END_TEST

Suite *grouped_route_suite(void) {
  Suite *s = suite_create("grouped_route");
  TCase *route = tcase_create("nvfp4_grouped_gemm through dequantized tokens, or fused");
  tcase_add_test(route, with_pools_the_tokens_are_dequantized_once_and_the_w4a16_entry_reads_them);
  tcase_add_test(route, nvfp4_grouped_fused_makes_the_handle_run_the_fused_entry);
  tcase_add_test(route, an_image_without_the_grouped_dequantize_takes_the_fused_entry);
  suite_add_tcase(s, route);
  TCase *exhausted = tcase_create("without scratch where the memory pool cannot grow");
  tcase_add_test(exhausted, an_exhausted_pool_runs_nvfp4_activations_on_the_fused_entry_over_whole_k);
  tcase_add_test(exhausted, an_exhausted_pool_runs_dense_activations_in_place_on_the_entries_of_mixed_widths);
  tcase_add_test(exhausted, an_exhausted_pool_fails_the_dual_gemm_and_the_portable_nvfp4_call_launching_nothing);
  tcase_add_test(exhausted, an_exhausted_pool_fails_nvfp4_activations_on_an_image_without_the_fused_entry);
  suite_add_tcase(s, exhausted);
  return s;
}
