/* Split-K and the dual GEMM's launches, on the fake driver with memory pools (FAKE_MEMORY_POOLS): K dealt
 * into slices of whole 128-element stages, each slice a descriptor of its own whose operands start at the
 * slice's K (data, scales and dequantized tokens advanced) and whose f32 partials go to scratch; then the
 * finishing kernel sums them in slice order into c (host/grouped_gemm.c, host/grouped_finish.c). The dual
 * GEMM with K split, or with b1 and b2 addressed differently, writes both products' partials and finishes in
 * the SiLU mode; with whole K it pairs them in its tiles and gates in the GEMM. Without pools the dual GEMM is
 * not supported and nothing launches. */
#include <stdlib.h>
#include <string.h>

#include "fake_driver.h"
#include "sm90a/dequantize_layout.h"
#include "sm90a/grouped_finish_layout.h"
#include "sm90a/grouped_gemm_layout.h"
#include "suites.h"

#define DEQUANTIZE_ENTRY "nvfp4_grouped_dequantize_sm90a"
#define FINISH_ENTRY "nvfp4_grouped_finish_sm90a"

/* One group of M = 128 tokens against N = 256 weight rows: 2 tiles for 132 SMs, so K = 16384 (128 stages)
 * is split. Fake device memory: the fake driver reads none of it. */
enum { M = 128, N = 256, K = 16384, STAGES = K / 128 };
static _Alignas(16) uint8_t tokens[64], weights[16], weights2[16], scales[16], scales2[16];
static uint16_t out[16];

static nvfp4_tensor activations(void) {
  return (nvfp4_tensor){tokens, scales, M, K, 1, K / 2, 0, K / 16, 0, NVFP4_SF_LINEAR};
}
static nvfp4_tensor weights_of(void *data, void *sf, nvfp4_sf_layout layout) {
  return (nvfp4_tensor){data, sf, N, K, 1, K / 2, 0, K / 16, 0, layout};
}
static const nvfp4_output c = {out, N + 3, 0, NVFP4_DTYPE_BF16};

static float param_f32(const unsigned char *p, int offset) {
  float v;
  memcpy(&v, p + offset, sizeof v);
  return v;
}

/* The GEMM launch's descriptors: `slices` per product, each `per` stages (the last the rest), product p
 * reading weights[p] (LINEAR scales advance 8 bytes a stage, BLOCKED 1024), the tokens (f16 B tiles: two
 * column blocks of M x 128 bytes a stage) and writing f32 partials of M x N at partials + (p * slices + s) * M * N * 4. */
static void assert_slices(const unsigned char *p, int products, uint32_t slices, uint32_t per,
                          const nvfp4_tensor *b, uint64_t tokens_f16, uint64_t partials) {
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), products * slices);
  ck_assert(param_f32(p, GG_P_ALPHA) == 1.0f); /* alpha waits for the finish */
  for (int pr = 0; pr < products; pr++)
    for (uint32_t s = 0; s < slices; s++) {
      int i = pr * (int)slices + (int)s;
      uint32_t stages = s + 1 < slices ? per : STAGES - per * (slices - 1);
      uint64_t sf_step = b[pr].sf_layout == NVFP4_SF_LINEAR ? 8 : 1024;
      ck_assert_uint_eq(desc_u32(p, i, GG_D_KBYTES), stages * 64);
      ck_assert_uint_eq(desc_u64(p, i, GG_D_B), (uintptr_t)b[pr].data + (uint64_t)s * per * 64);
      ck_assert_uint_eq(desc_u64(p, i, GG_D_B_SF), (uintptr_t)b[pr].scales + (uint64_t)s * per * sf_step);
      ck_assert_uint_eq(desc_u64(p, i, GG_D_A), tokens_f16 + (uint64_t)s * per * 2 * M * 128);
      ck_assert_uint_eq(desc_u32(p, i, GG_D_A_LD), M * 128);
      ck_assert(desc_u32(p, i, GG_D_FLAGS) & GG_F_A_B_TILES);
      /* LINEAR scales 8-byte aligned (base, row pitch, every slice's start): a row's stage is one 8-byte copy */
      ck_assert_uint_eq(desc_u32(p, i, GG_D_FLAGS) & GG_F_B_SF_PAIRS,
                        b[pr].sf_layout == NVFP4_SF_LINEAR ? GG_F_B_SF_PAIRS : 0);
      ck_assert_uint_eq(desc_u64(p, i, GG_D_C), partials + (uint64_t)i * M * N * 4);
      ck_assert_uint_eq(desc_u64(p, i, GG_D_LDC), N);
      ck_assert_uint_eq(desc_u32(p, i, GG_D_FLAGS) & GG_F_DTYPE_MASK, NVFP4_DTYPE_F32);
      ck_assert(desc_u32(p, i, GG_D_FLAGS) & GG_F_C_VEC); /* partials: 16-byte aligned rows of N floats */
      ck_assert_uint_eq(desc_u32(p, i, GG_D_M), M);
      ck_assert_uint_eq(desc_u32(p, i, GG_D_N), N);
    }
}

/* The finish launch: one group, `slices` partials of the gate (and of the up product M * N * 4 * slices
 * further), into c with the call's alphas. */
static void assert_finish(const unsigned char *p, const CUlaunchConfig *config, uint32_t mode, uint32_t slices,
                          uint64_t partials, float alpha1, float alpha2) {
  ck_assert_uint_eq(config->numAttrs, 1); /* starts early: it waits for the GEMM in griddepcontrol.wait */
  ck_assert_uint_eq(config->blockDimX, GF_THREADS);
  ck_assert_uint_eq(config->gridDimX, (M * N / GF_COLS + GF_THREADS - 1) / GF_THREADS);
  ck_assert_uint_eq(param_u32(p, GF_P_NUM_GROUPS), 1);
  ck_assert_uint_eq(param_u32(p, GF_P_TOTAL_BLOCKS), config->gridDimX);
  ck_assert_uint_eq(param_u32(p, GF_P_MODE), mode);
  ck_assert(param_f32(p, GF_P_ALPHA1) == alpha1 && param_f32(p, GF_P_ALPHA2) == alpha2);
  const unsigned char *d = p + GF_P_DESCS;
  ck_assert_uint_eq(param_u64(d, GF_D_GATE), partials);
  if (mode == GF_MODE_SILU_MUL) ck_assert_uint_eq(param_u64(d, GF_D_UP), partials + (uint64_t)slices * M * N * 4);
  ck_assert_uint_eq(param_u64(d, GF_D_C), (uintptr_t)out);
  ck_assert_uint_eq(param_u64(d, GF_D_LDC), N + 3);
  ck_assert_uint_eq(param_u32(d, GF_D_M), M);
  ck_assert_uint_eq(param_u32(d, GF_D_N), N);
  ck_assert_uint_eq(param_u32(d, GF_D_LDP), N);
  ck_assert_uint_eq(param_u32(d, GF_D_SLICES), slices);
  ck_assert_uint_eq(param_u32(d, GF_D_DTYPE), NVFP4_DTYPE_BF16);
  ck_assert_uint_eq(param_u32(d, GF_D_BLOCK_START), 0);
}

/* Launch i must be a W4A16 entry of `type` (the plan's width, or mixed); returns its parameter block. */
static const unsigned char *w4a16_launch_of(long i, const char *type, CUlaunchConfig *config) {
  const char *entry;
  const unsigned char *p = fake_launch(i, &entry, config);
  assert_w4a16_entry(entry, type, p);
  return p;
}

/* Launch i must be `want`; returns its parameter block. */
static const unsigned char *launch_of(long i, const char *want, CUlaunchConfig *config) {
  const char *entry;
  const unsigned char *p = fake_launch(i, &entry, config);
  ck_assert_str_eq(entry, want);
  return p;
}

/* A forced slice count (NVFP4_SPLIT_K) or the plan's (0), for a grouped GEMM or a dual GEMM. */
static void assert_split_call(const char *forced, int dual, uint32_t slices, uint32_t per) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  if (forced != NULL) setenv("NVFP4_SPLIT_K", forced, 1);
  create_fake_handle();
  nvfp4_tensor a = activations();
  nvfp4_tensor b[2] = {weights_of(weights, scales, NVFP4_SF_LINEAR),
                       weights_of(weights2, scales2, NVFP4_SF_BLOCKED_128x4)};
  nvfp4_status status = dual ? nvfp4_grouped_dual_gemm_silu(fake_handle, 1, &a, &b[0], &b[1], &c, 0.5f, -3.0f, NULL)
                             : nvfp4_grouped_gemm(fake_handle, 1, &a, &b[0], &c, 0.5f, NULL);
  ck_assert_msg(status == NVFP4_STATUS_SUCCESS, "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 3);
  CUlaunchConfig config;
  const unsigned char *p = launch_of(0, DEQUANTIZE_ENTRY, &config);
  uint64_t tokens_f16 = param_u64(p, GDQ_P_DESCS + GDQ_D_OUT);
  p = w4a16_launch_of(1, "f16_tiles", &config);
  uint64_t partials = tokens_f16 + (uint64_t)M * K * 2; /* the partials follow the tokens in the scratch */
  assert_slices(p, dual ? 2 : 1, slices, per, b, tokens_f16, partials);
  p = launch_of(2, FINISH_ENTRY, &config);
  assert_finish(p, &config, dual ? GF_MODE_SILU_MUL : GF_MODE_SUM, slices, partials, 0.5f, dual ? -3.0f : 0.0f);
  destroy_fake_handle();
}

/* 2 tiles and 128 stages: the plan takes its most slices, 8 of 16 stages */
START_TEST(few_tiles_and_a_long_k_split_into_slices) { assert_split_call(NULL, 0, 8, 16); }
END_TEST

/* NVFP4_SPLIT_K=3: 43, 43 and 42 stages */
START_TEST(nvfp4_split_k_fixes_the_slices) { assert_split_call("3", 0, 3, 43); }
END_TEST

START_TEST(the_dual_gemm_writes_both_products_and_finishes_with_silu) { assert_split_call("3", 1, 3, 43); }
END_TEST

/* NVFP4_SPLIT_K=1: whole K, the GEMM writes c itself; the dual GEMM still finishes from one slice each */
START_TEST(one_slice_writes_c_directly) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  setenv("NVFP4_SPLIT_K", "1", 1);
  create_fake_handle();
  nvfp4_tensor a = activations(), b = weights_of(weights, scales, NVFP4_SF_LINEAR);
  ck_assert_msg(nvfp4_grouped_gemm(fake_handle, 1, &a, &b, &c, 0.5f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2);
  CUlaunchConfig config;
  const unsigned char *p = w4a16_launch_of(1, "f16_tiles", &config);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 1);
  ck_assert(param_f32(p, GG_P_ALPHA) == 0.5f);
  ck_assert_uint_eq(desc_u64(p, 0, GG_D_C), (uintptr_t)out);
  ck_assert_uint_eq(desc_u32(p, 0, GG_D_KBYTES), K / 2);
  ck_assert_uint_eq(desc_u32(p, 0, GG_D_FLAGS) & GG_F_DTYPE_MASK, NVFP4_DTYPE_BF16);
  destroy_fake_handle();
}
END_TEST

/* W4A16 activations with scratch: copied into B tiles (the grouped dequantize's dense mode), then split too:
 * slice s reads the tiles from column block s * per * 2 (M rows x 128 bytes each) */
START_TEST(dense_activations_go_into_b_tiles_and_start_at_their_slice) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  setenv("NVFP4_SPLIT_K", "2", 1);
  create_fake_handle();
  nvfp4_dense a = {tokens, M, K, 1, K + 8, 0, NVFP4_DTYPE_BF16};
  nvfp4_tensor b = weights_of(weights, scales, NVFP4_SF_LINEAR);
  ck_assert_msg(nvfp4_grouped_gemm_w4a16(fake_handle, 1, &a, &b, &c, 0.5f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 3);
  CUlaunchConfig config;
  const unsigned char *p = launch_of(0, DEQUANTIZE_ENTRY, &config);
  ck_assert_uint_eq(param_u32(p, GDQ_P_NUM_GROUPS), 1);
  ck_assert_uint_eq(param_u64(p, GDQ_P_DESCS + GDQ_D_IN), (uintptr_t)tokens);
  ck_assert_uint_eq(param_u64(p, GDQ_P_DESCS + GDQ_D_IN_LD), (K + 8) * 2);
  ck_assert_uint_eq(param_u32(p, GDQ_P_DESCS + GDQ_D_B_TILES), 1);
  ck_assert_uint_eq(param_u32(p, GDQ_P_DESCS + GDQ_D_IN_DENSE), 1);
  uint64_t tiles = param_u64(p, GDQ_P_DESCS + GDQ_D_OUT);
  p = w4a16_launch_of(1, "bf16_tiles", &config);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 2);
  for (int s = 0; s < 2; s++) {
    ck_assert_uint_eq(desc_u64(p, s, GG_D_A), tiles + (uint64_t)s * 64 * 2 * M * 128);
    ck_assert_uint_eq(desc_u32(p, s, GG_D_A_LD), M * 128);
    ck_assert_uint_eq(desc_u32(p, s, GG_D_KBYTES), 64 * 64);
    ck_assert(desc_u32(p, s, GG_D_FLAGS) & GG_F_A_B_TILES);
  }
  launch_of(2, FINISH_ENTRY, &config);
  destroy_fake_handle();
}
END_TEST

/* 300 groups, 299 with work: the finish takes GF_MAX_GROUPS of them to a launch, then the other 43, each
 * launch's partials following the previous one's (b2 rows 16 bytes longer than b1's: no paired tiles) */
START_TEST(the_finish_takes_gf_max_groups_to_a_launch) {
  enum { GROUPS = 300, SMALL_M = 4, SMALL_N = 8, SMALL_K = 64 };
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  create_fake_handle();
  static nvfp4_tensor a[GROUPS], b1[GROUPS], b2[GROUPS];
  static nvfp4_output cs[GROUPS];
  for (int g = 0; g < GROUPS; g++) {
    a[g] = (nvfp4_tensor){tokens, scales, g == 7 ? 0 : SMALL_M, SMALL_K, 1, SMALL_K / 2, 0, SMALL_K / 16, 0,
                          NVFP4_SF_LINEAR};
    b1[g] = (nvfp4_tensor){weights, scales, SMALL_N, SMALL_K, 1, SMALL_K / 2, 0, SMALL_K / 16, 0, NVFP4_SF_LINEAR};
    b2[g] = b1[g];
    b2[g].data = weights2;
    b2[g].ld += 16;
    cs[g] = (nvfp4_output){out, SMALL_N, 0, NVFP4_DTYPE_F16};
  }
  ck_assert_msg(nvfp4_grouped_dual_gemm_silu(fake_handle, GROUPS, a, b1, b2, cs, 1.0f, 1.0f, NULL) ==
                    NVFP4_STATUS_SUCCESS,
                "%s", nvfp4_last_error());
  long n = fake_launches();
  CUlaunchConfig config;
  const unsigned char *first = launch_of(n - 2, FINISH_ENTRY, &config);
  ck_assert_uint_eq(param_u32(first, GF_P_NUM_GROUPS), GF_MAX_GROUPS);
  uint64_t slice_bytes = SMALL_M * SMALL_N * 4, group_bytes = 2 * slice_bytes; /* two products, one slice */
  uint64_t base = param_u64(first, GF_P_DESCS + GF_D_GATE);
  const unsigned char *last = launch_of(n - 1, FINISH_ENTRY, &config);
  ck_assert_uint_eq(param_u32(last, GF_P_NUM_GROUPS), GROUPS - 1 - GF_MAX_GROUPS);
  ck_assert_uint_eq(param_u64(last, GF_P_DESCS + GF_D_GATE), base + GF_MAX_GROUPS * group_bytes);
  ck_assert_uint_eq(param_u64(last, GF_P_DESCS + GF_D_UP), base + GF_MAX_GROUPS * group_bytes + slice_bytes);
  ck_assert_uint_eq(param_u32(last, GF_P_DESCS + GF_D_BLOCK_START), 0);
  destroy_fake_handle();
}
END_TEST

/* Whole K, b1 and b2 addressed alike: the dual GEMM runs paired tiles (GG_F_PAIRED), one descriptor for both
 * products, 64 columns a tile, gated in the GEMM's epilogue into c; no partials, no finishing launch. Their
 * scales go as words even where they are BLOCKED (whose row blocks interleave a pair's halves). */
START_TEST(whole_k_pairs_the_dual_gemms_products_in_one_launch) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  setenv("NVFP4_SPLIT_K", "1", 1);
  create_fake_handle();
  nvfp4_tensor a = activations(), b1 = weights_of(weights, scales, NVFP4_SF_BLOCKED_128x4),
               b2 = weights_of(weights2, scales2, NVFP4_SF_BLOCKED_128x4);
  ck_assert_msg(nvfp4_grouped_dual_gemm_silu(fake_handle, 1, &a, &b1, &b2, &c, 0.5f, -3.0f, NULL) ==
                    NVFP4_STATUS_SUCCESS,
                "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2);
  CUlaunchConfig config;
  launch_of(0, DEQUANTIZE_ENTRY, &config);
  const unsigned char *p = w4a16_launch_of(1, "f16_tiles", &config);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 1);
  ck_assert(param_f32(p, GG_P_ALPHA) == 0.5f);
  ck_assert(param_f32(p + GG_P_DESCS, GG_D_ALPHA2) == -3.0f);
  uint32_t t = desc_u32(p, 0, GG_D_T);
  ck_assert_uint_eq(param_u32(p, GG_P_TOTAL_TILES), N / GG_PAIR_N * ((M + t - 1) / t));
  ck_assert_uint_eq(desc_u64(p, 0, GG_D_B), (uintptr_t)weights);
  ck_assert_uint_eq(desc_u64(p, 0, GG_D_B_SF), (uintptr_t)scales);
  ck_assert_uint_eq(desc_u64(p, 0, GG_D_B2), (uintptr_t)weights2);
  ck_assert_uint_eq(desc_u64(p, 0, GG_D_B2_SF), (uintptr_t)scales2);
  ck_assert_uint_eq(desc_u64(p, 0, GG_D_C), (uintptr_t)out);
  ck_assert_uint_eq(desc_u32(p, 0, GG_D_KBYTES), K / 2);
  uint32_t flags = desc_u32(p, 0, GG_D_FLAGS);
  ck_assert(flags & GG_F_PAIRED && flags & GG_F_A_B_TILES && flags & GG_F_B_SF_WORDS && !(flags & GG_F_B_SF_BULK));
  ck_assert_uint_eq(flags & GG_F_DTYPE_MASK, NVFP4_DTYPE_BF16);
  destroy_fake_handle();
}
END_TEST

/* LINEAR scales only 4-byte aligned go as words, not as 8-byte pairs */
START_TEST(linear_scales_4_bytes_off_go_as_words) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  setenv("NVFP4_SPLIT_K", "1", 1);
  create_fake_handle();
  nvfp4_tensor a = activations(), b = weights_of(weights, scales + 4, NVFP4_SF_LINEAR);
  ck_assert_msg(nvfp4_grouped_gemm(fake_handle, 1, &a, &b, &c, 0.5f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  CUlaunchConfig config;
  const unsigned char *p = w4a16_launch_of(fake_launches() - 1, "f16_tiles", &config);
  uint32_t flags = desc_u32(p, 0, GG_D_FLAGS);
  ck_assert(flags & GG_F_B_SF_WORDS && !(flags & GG_F_B_SF_PAIRS) && !(flags & GG_F_B_SF_BULK));
  destroy_fake_handle();
}
END_TEST

/* The epilogue's 4-element stores (GG_F_C_VEC) where C's base and row pitch allow them: not with c's row pitch of
 * N + 3 elements, nor with a base 2 bytes off 8; with N, and with any pitch for one row. */
START_TEST(outputs_go_4_elements_a_store_where_c_allows) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  setenv("NVFP4_SPLIT_K", "1", 1);
  create_fake_handle();
  static _Alignas(16) uint16_t out16[16];
  const struct {
    nvfp4_output c;
    int64_t m;
    uint32_t flag;
  } cases[] = {
      {{out16, N + 3, 0, NVFP4_DTYPE_BF16}, M, 0},
      {{out16 + 1, N, 0, NVFP4_DTYPE_F16}, M, 0},
      {{out16, N, 0, NVFP4_DTYPE_F16}, M, GG_F_C_VEC},
      {{out16 + 4, N + 3, 0, NVFP4_DTYPE_BF16}, 1, GG_F_C_VEC},
      {{out16 + 4, N, 0, NVFP4_DTYPE_F32}, M, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nvfp4_tensor a = activations(), b = weights_of(weights, scales, NVFP4_SF_LINEAR);
    a.rows = cases[i].m;
    ck_assert_msg(nvfp4_grouped_gemm(fake_handle, 1, &a, &b, &cases[i].c, 0.5f, NULL) == NVFP4_STATUS_SUCCESS,
                  "%s", nvfp4_last_error());
    CUlaunchConfig config;
    const unsigned char *p = w4a16_launch_of(fake_launches() - 1, "f16_tiles", &config);
    ck_assert_uint_eq(desc_u32(p, 0, GG_D_FLAGS) & GG_F_C_VEC, cases[i].flag);
  }
  destroy_fake_handle();
}
END_TEST

/* An image without the finishing kernel: a dual GEMM whose products pair runs without it (whole K, one
 * launch after the tokens' dequantize); one whose b2 is addressed unlike b1 needs it, and says so, launching
 * nothing. */
START_TEST(the_dual_gemm_needs_the_finishing_kernel_only_where_it_does_not_pair) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  setenv("FAKE_CUDA_MISSING", FINISH_ENTRY, 1);
  create_fake_handle();
  nvfp4_tensor a = activations(), b1 = weights_of(weights, scales, NVFP4_SF_LINEAR),
               b2 = weights_of(weights2, scales2, NVFP4_SF_LINEAR);
  b2.ld = K / 2 + 16; /* b2's rows 16 bytes longer: no pairs */
  nvfp4_status s = nvfp4_grouped_dual_gemm_silu(fake_handle, 1, &a, &b1, &b2, &c, 0.5f, -3.0f, NULL);
  assert_rejected("unlike b2", s, NVFP4_STATUS_NOT_SUPPORTED, FINISH_ENTRY);
  b2.ld = K / 2;
  ck_assert_msg(nvfp4_grouped_dual_gemm_silu(fake_handle, 1, &a, &b1, &b2, &c, 0.5f, -3.0f, NULL) ==
                    NVFP4_STATUS_SUCCESS,
                "%s", nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2);
  CUlaunchConfig config;
  const unsigned char *p = w4a16_launch_of(1, "f16_tiles", &config);
  ck_assert(desc_u32(p, 0, GG_D_FLAGS) & GG_F_PAIRED);
  destroy_fake_handle();
}
END_TEST

START_TEST(the_dual_gemm_needs_a_memory_pool) {
  create_fake_handle(); /* the fake's default: no pools */
  nvfp4_tensor a = activations(), b = weights_of(weights, scales, NVFP4_SF_LINEAR);
  nvfp4_status s = nvfp4_grouped_dual_gemm_silu(fake_handle, 1, &a, &b, &b, &c, 1.0f, 1.0f, NULL);
  assert_rejected("no pool", s, NVFP4_STATUS_NOT_SUPPORTED, "memory pool");
  destroy_fake_handle();
}
END_TEST

START_TEST(the_dual_gemm_checks_its_second_weights) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  create_fake_handle();
  nvfp4_tensor a = activations(), b = weights_of(weights, scales, NVFP4_SF_LINEAR), b2 = b;
  nvfp4_status s = nvfp4_grouped_dual_gemm_silu(fake_handle, 1, &a, &b, NULL, &c, 1.0f, 1.0f, NULL);
  assert_rejected("b2 NULL", s, NVFP4_STATUS_INVALID_VALUE, "b2 is NULL");
  b2.rows = N - 1;
  s = nvfp4_grouped_dual_gemm_silu(fake_handle, 1, &a, &b, &b2, &c, 1.0f, 1.0f, NULL);
  assert_rejected("b2 rows", s, NVFP4_STATUS_INVALID_VALUE, "b2[0].rows = 255: must equal b1[0].rows = 256");
  b2 = b;
  b2.k = K / 2;
  b2.ld = K / 4;
  b2.sf_ld = K / 32;
  s = nvfp4_grouped_dual_gemm_silu(fake_handle, 1, &a, &b, &b2, &c, 1.0f, 1.0f, NULL);
  assert_rejected("b2 k", s, NVFP4_STATUS_INVALID_VALUE, "b2[0].k = 8192: must equal a[0].k");
  s = nvfp4_grouped_dual_gemm_silu(fake_handle, 1, &a, NULL, &b, &c, 1.0f, 1.0f, NULL);
  assert_rejected("b1 NULL", s, NVFP4_STATUS_INVALID_VALUE, "b1 is NULL");
  destroy_fake_handle();
}
END_TEST

/* What decides a GEMM launch's plan: its entry and each descriptor's tile width and K bytes (the slices). */
typedef struct plan_sig {
  const char *entry;
  uint32_t descs, t[8], kbytes[8];
} plan_sig;

static plan_sig gemm_plan_sig(long i) {
  plan_sig sig;
  CUlaunchConfig config;
  const unsigned char *p = fake_launch(i, &sig.entry, &config);
  sig.descs = param_u32(p, GG_P_NUM_GROUPS);
  ck_assert_uint_le(sig.descs, 8);
  for (uint32_t d = 0; d < sig.descs; d++) {
    sig.t[d] = desc_u32(p, (int)d, GG_D_T);
    sig.kbytes[d] = desc_u32(p, (int)d, GG_D_KBYTES);
  }
  return sig;
}

/* Shape 0: one group of 2 tiles (K split); shape 1: 132 tiles (N = 132 * 128: not split). Returns the GEMM
 * launch's plan (the launch after the dequantize's). */
static plan_sig call_shape(int shape) {
  nvfp4_tensor a = activations(), b = weights_of(weights, scales, NVFP4_SF_LINEAR);
  nvfp4_output out_c = c;
  if (shape == 1) b.rows = 132 * 128, out_c.ld = b.rows;
  long first = fake_launches();
  ck_assert_msg(nvfp4_grouped_gemm(fake_handle, 1, &a, &b, &out_c, 0.5f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  return gemm_plan_sig(first + 1);
}

/* The handle keeps its last plan for calls of the same shape: calls alternating between two shapes whose plans
 * differ launch, every time, what a fresh handle launches for that shape. */
START_TEST(the_plan_memo_gives_each_shape_its_own_plan) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  plan_sig fresh[2];
  for (int shape = 0; shape < 2; shape++) {
    create_fake_handle();
    fresh[shape] = call_shape(shape);
    destroy_fake_handle();
  }
  ck_assert_uint_gt(fresh[0].descs, 1); /* split */
  ck_assert_uint_eq(fresh[1].descs, 1);
  create_fake_handle();
  for (int call = 0; call < 6; call++) {
    int shape = call / 2 % 2; /* 0, 0, 1, 1, 0, 0: each shape once planned, once from the memo */
    plan_sig got = call_shape(shape);
    ck_assert_str_eq(got.entry, fresh[shape].entry);
    ck_assert_uint_eq(got.descs, fresh[shape].descs);
    for (uint32_t d = 0; d < got.descs; d++) {
      ck_assert_uint_eq(got.t[d], fresh[shape].t[d]);
      ck_assert_uint_eq(got.kbytes[d], fresh[shape].kbytes[d]);
    }
  }
  destroy_fake_handle();
}
END_TEST

/* The last round's split (host/grouped_gemm.c, plan_last_round): three groups of t = 32 tiles, 48 column tiles
 * each (N = 6100), 144 tiles for 132 SMs. Whole K, one round and 12 tiles more; so the last group's last
 * columns, from n0 on, go in K slices as parts of their own after the others, writing f32 partials (alpha
 * applied: the launch's other parts write c with it) that the finishing launch sums into c's columns from n0
 * on. NVFP4_SPLIT_LAST_ROUND=0: every group whole, no finish. The GPU suites run this shape. */
enum { TAIL_N = 6100, TAIL_K = 1536, TAIL_LD = TAIL_N + 3 };
static const int64_t tail_m[3] = {5, 24, 13};

static void assert_last_round_call(int split) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  if (!split) setenv("NVFP4_SPLIT_LAST_ROUND", "0", 1);
  create_fake_handle();
  nvfp4_tensor a[3], b[3];
  nvfp4_output cs[3];
  for (int g = 0; g < 3; g++) {
    a[g] = (nvfp4_tensor){tokens, scales, tail_m[g], TAIL_K, 1, TAIL_K / 2, 0, TAIL_K / 16, 0, NVFP4_SF_LINEAR};
    b[g] = (nvfp4_tensor){weights, scales2, TAIL_N, TAIL_K, 1, TAIL_K / 2, 0, TAIL_K / 16, 0,
                          NVFP4_SF_BLOCKED_128x4};
    cs[g] = (nvfp4_output){out, TAIL_LD, 0, NVFP4_DTYPE_BF16};
  }
  ck_assert_msg(nvfp4_grouped_gemm(fake_handle, 3, a, b, cs, -1.5f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), split ? 3 : 2);
  CUlaunchConfig config;
  const unsigned char *p = w4a16_launch_of(1, "f16_tiles", &config);
  ck_assert(param_f32(p, GG_P_ALPHA) == -1.5f);
  uint32_t descs = param_u32(p, GG_P_NUM_GROUPS);
  for (int g = 0; g < 2; g++) ck_assert_uint_eq(desc_u32(p, g, GG_D_N), TAIL_N);
  uint32_t n0 = desc_u32(p, 2, GG_D_N);
  if (!split) {
    ck_assert_uint_eq(descs, 3);
    ck_assert_uint_eq(n0, TAIL_N);
    destroy_fake_handle();
    return;
  }
  ck_assert(n0 > 0 && n0 < TAIL_N && n0 % GG_TILE_N == 0);
  ck_assert_uint_eq(desc_u64(p, 2, GG_D_C), (uintptr_t)out); /* the split group's first columns: c itself */
  ck_assert_uint_eq(desc_u32(p, 2, GG_D_KBYTES), TAIL_K / 2);
  uint32_t slices = descs - 3, ldp = (TAIL_N - n0 + 3) / 4 * 4;
  ck_assert_uint_ge(slices, 2);
  uint64_t partials = desc_u64(p, 3, GG_D_C), sf_rows = (uint64_t)n0 / 128 * (TAIL_K / 64) * 512;
  uint32_t k_bytes = 0;
  for (uint32_t s = 0; s < slices; s++) {
    int i = 3 + (int)s;
    ck_assert_uint_eq(desc_u32(p, i, GG_D_M), 13);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_N), TAIL_N - n0);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_T), 32);
    /* rows from n0 on (BLOCKED scales: n0 / 128 row blocks further), the slice's K from k_bytes on */
    ck_assert_uint_eq(desc_u64(p, i, GG_D_B), (uintptr_t)weights + (uint64_t)n0 * (TAIL_K / 2) + k_bytes);
    ck_assert_uint_eq(desc_u64(p, i, GG_D_B_SF), (uintptr_t)scales2 + sf_rows + k_bytes / 32 * 512);
    ck_assert_uint_eq(desc_u64(p, i, GG_D_C), partials + (uint64_t)s * 13 * ldp * 4);
    ck_assert_uint_eq(desc_u64(p, i, GG_D_LDC), ldp);
    ck_assert_uint_eq(desc_u32(p, i, GG_D_FLAGS) & GG_F_DTYPE_MASK, NVFP4_DTYPE_F32);
    k_bytes += desc_u32(p, i, GG_D_KBYTES);
  }
  ck_assert_uint_eq(k_bytes, TAIL_K / 2);
  ck_assert_uint_eq(param_u32(p, GG_P_TOTAL_TILES), 2 * 48 + n0 / 128 + slices * ((TAIL_N - n0 + 127) / 128));
  p = launch_of(2, FINISH_ENTRY, &config);
  ck_assert_uint_eq(param_u32(p, GF_P_NUM_GROUPS), 1);
  ck_assert_uint_eq(param_u32(p, GF_P_MODE), GF_MODE_SUM);
  ck_assert(param_f32(p, GF_P_ALPHA1) == 1.0f);
  const unsigned char *d = p + GF_P_DESCS;
  ck_assert_uint_eq(param_u64(d, GF_D_GATE), partials);
  ck_assert_uint_eq(param_u64(d, GF_D_C), (uintptr_t)out + (uint64_t)n0 * 2); /* bf16 columns */
  ck_assert_uint_eq(param_u64(d, GF_D_LDC), TAIL_LD);
  ck_assert_uint_eq(param_u32(d, GF_D_M), 13);
  ck_assert_uint_eq(param_u32(d, GF_D_N), TAIL_N - n0);
  ck_assert_uint_eq(param_u32(d, GF_D_LDP), ldp);
  ck_assert_uint_eq(param_u32(d, GF_D_SLICES), slices);
  ck_assert_uint_eq(param_u32(d, GF_D_DTYPE), NVFP4_DTYPE_BF16);
  destroy_fake_handle();
}

START_TEST(the_last_rounds_tiles_split_along_k) { assert_last_round_call(1); }
END_TEST

START_TEST(nvfp4_split_last_round_0_keeps_every_tile_whole) { assert_last_round_call(0); }
END_TEST

/* The GPU suites' one-group case: 133 column tiles (N = 17000, t = 32), one round and one tile more; the last
 * tile (104 columns) goes in K slices, finished into c's columns from 16896 on. */
START_TEST(one_group_splits_the_tile_past_one_round) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  create_fake_handle();
  enum { WIDE_N = 17000, WIDE_K = 4096 };
  nvfp4_tensor a = {tokens, scales, 20, WIDE_K, 1, WIDE_K / 2, 0, WIDE_K / 16, 0, NVFP4_SF_LINEAR};
  nvfp4_tensor b = {weights, scales2, WIDE_N, WIDE_K, 1, WIDE_K / 2, 0, WIDE_K / 16, 0, NVFP4_SF_LINEAR};
  const nvfp4_output wide = {out, WIDE_N, 0, NVFP4_DTYPE_F32};
  ck_assert_msg(nvfp4_grouped_gemm(fake_handle, 1, &a, &b, &wide, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 3);
  CUlaunchConfig config;
  const unsigned char *p = w4a16_launch_of(1, "f16_tiles", &config);
  uint32_t descs = param_u32(p, GG_P_NUM_GROUPS);
  ck_assert_uint_ge(descs, 3);
  ck_assert_uint_eq(desc_u32(p, 0, GG_D_N), 132 * 128);
  for (uint32_t i = 1; i < descs; i++) {
    ck_assert_uint_eq(desc_u32(p, (int)i, GG_D_N), WIDE_N - 132 * 128);
    ck_assert_uint_eq(desc_u64(p, (int)i, GG_D_B_SF), (uintptr_t)scales2 + 132 * 128 * (WIDE_K / 16) +
                                                          (uint64_t)(i - 1) * desc_u32(p, 1, GG_D_KBYTES) / 8);
  }
  p = launch_of(2, FINISH_ENTRY, &config);
  ck_assert_uint_eq(param_u32(p + GF_P_DESCS, GF_D_SLICES), descs - 1);
  ck_assert_uint_eq(param_u64(p + GF_P_DESCS, GF_D_C), (uintptr_t)out + 132 * 128 * 4); /* f32 columns */
  destroy_fake_handle();
}
END_TEST

/* 264 tiles (N = 264 * 128, t = 32): two whole rounds, nothing to split */
START_TEST(whole_rounds_are_not_split) {
  setenv("FAKE_MEMORY_POOLS", "1", 1);
  create_fake_handle();
  nvfp4_tensor a = activations(), b = weights_of(weights, scales, NVFP4_SF_LINEAR);
  a.rows = 20;
  b.rows = 264 * 128;
  const nvfp4_output wide = {out, 264 * 128, 0, NVFP4_DTYPE_F16};
  ck_assert_msg(nvfp4_grouped_gemm(fake_handle, 1, &a, &b, &wide, 1.0f, NULL) == NVFP4_STATUS_SUCCESS, "%s",
                nvfp4_last_error());
  ck_assert_int_eq(fake_launches(), 2);
  CUlaunchConfig config;
  const unsigned char *p = w4a16_launch_of(1, "f16_tiles", &config);
  ck_assert_uint_eq(param_u32(p, GG_P_NUM_GROUPS), 1);
  ck_assert_uint_eq(param_u32(p, GG_P_TOTAL_TILES), 264);
  destroy_fake_handle();
}
END_TEST

Suite *grouped_split_suite(void) {
  Suite *s = suite_create("grouped_split");
  TCase *tc = tcase_create("split-K and the dual GEMM");
  tcase_add_test(tc, few_tiles_and_a_long_k_split_into_slices);
  tcase_add_test(tc, nvfp4_split_k_fixes_the_slices);
  tcase_add_test(tc, the_dual_gemm_writes_both_products_and_finishes_with_silu);
  tcase_add_test(tc, one_slice_writes_c_directly);
  tcase_add_test(tc, dense_activations_go_into_b_tiles_and_start_at_their_slice);
  tcase_add_test(tc, the_finish_takes_gf_max_groups_to_a_launch);
  tcase_add_test(tc, whole_k_pairs_the_dual_gemms_products_in_one_launch);
  tcase_add_test(tc, linear_scales_4_bytes_off_go_as_words);
  tcase_add_test(tc, outputs_go_4_elements_a_store_where_c_allows);
  tcase_add_test(tc, the_dual_gemm_needs_the_finishing_kernel_only_where_it_does_not_pair);
  tcase_add_test(tc, the_dual_gemm_needs_a_memory_pool);
  tcase_add_test(tc, the_dual_gemm_checks_its_second_weights);
  tcase_add_test(tc, the_plan_memo_gives_each_shape_its_own_plan);
  tcase_add_test(tc, the_last_rounds_tiles_split_along_k);
  tcase_add_test(tc, nvfp4_split_last_round_0_keeps_every_tile_whole);
  tcase_add_test(tc, one_group_splits_the_tile_past_one_round);
  tcase_add_test(tc, whole_rounds_are_not_split);
  suite_add_tcase(s, tc);
  return s;
}
