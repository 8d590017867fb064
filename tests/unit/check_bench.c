/* The benchmark workloads: moe1's group sizes are the draw its seed gives; the dual GEMM's are GPU MODE's. */
#include "bench.h"
#include "suites.h"
#include "testdata.h"

START_TEST(moe1_is_the_draw_of_its_seed_with_three_empty_groups) {
  nvfp4i_rng rng = {NVFP4I_MOE_SEED};
  int empty = 0;
  for (int g = 0; g < NVFP4I_MOE_GROUPS; g++) {
    int64_t m = (int64_t)(nvfp4i_rng_next(&rng) % (NVFP4I_MOE_MAX_M + 1));
    ck_assert_msg(nvfp4i_moe_m[g] == m, "group %d: M %lld, the seed draws %lld", g, (long long)nvfp4i_moe_m[g],
                  (long long)m);
    empty += m == 0;
  }
  ck_assert_int_eq(empty, 3);
  const nvfp4i_grouped_workload *moe = &nvfp4i_grouped_workloads[nvfp4i_grouped_workload_count - 1];
  ck_assert_str_eq(moe->name, "moe1");
  ck_assert(moe->groups == NVFP4I_MOE_GROUPS && moe->m == nvfp4i_moe_m && moe->n == 4096 && moe->k == 7168);
}
END_TEST

START_TEST(dual_workloads_are_gpu_modes_four_shapes_of_one_group) {
  static const struct {
    const char *name;
    int64_t m, n, k;
  } expected[] = {{"dual1", 256, 4096, 7168}, {"dual2", 512, 4096, 7168}, {"dual3", 256, 3072, 4096},
                  {"dual4", 512, 3072, 7168}};
  ck_assert_int_eq(nvfp4i_dual_workload_count, 4);
  for (int i = 0; i < 4; i++) {
    const nvfp4i_grouped_workload *w = &nvfp4i_dual_workloads[i];
    ck_assert_str_eq(w->name, expected[i].name);
    ck_assert_msg(w->groups == 1 && w->m[0] == expected[i].m && w->n == expected[i].n && w->k == expected[i].k,
                  "%s: G %d, (M, N, K) = (%lld, %lld, %lld), expected G 1, (%lld, %lld, %lld)", w->name, w->groups,
                  (long long)w->m[0], (long long)w->n, (long long)w->k, (long long)expected[i].m,
                  (long long)expected[i].n, (long long)expected[i].k);
  }
}
END_TEST

Suite *bench_suite(void) {
  Suite *s = suite_create("bench");
  TCase *tc = tcase_create("workloads");
  tcase_add_test(tc, moe1_is_the_draw_of_its_seed_with_three_empty_groups);
  tcase_add_test(tc, dual_workloads_are_gpu_modes_four_shapes_of_one_group);
  suite_add_tcase(s, tc);
  return s;
}
