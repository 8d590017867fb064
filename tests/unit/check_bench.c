/* The benchmark workloads: moe1's group sizes are the draw its seed gives. */
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

Suite *bench_suite(void) {
  Suite *s = suite_create("bench");
  TCase *tc = tcase_create("workloads");
  tcase_add_test(tc, moe1_is_the_draw_of_its_seed_with_three_empty_groups);
  suite_add_tcase(s, tc);
  return s;
}
