/* nvfp4_grouped_gemm and nvfp4_grouped_gemm_w4a16: validate every group -> per-group descriptors in the
 * kernel's parameter block (up to GG_MAX_GROUPS non-empty groups per launch, largest token tile first) ->
 * nvfp4_grouped_gemm_sm90a (ptx/sm90a/grouped_gemm.ptx), or for dense activations the W4A16 entry of their
 * type (ptx/sm90a/grouped_gemm_w4a16.ptx); both share the launch, parameter block and descriptor of
 * ptx/sm90a/grouped_gemm_layout.h. Everything a launch needs travels in its parameters, so a call allocates
 * nothing, never synchronises, is capturable, and calls on one handle never share state. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dequantize.h"
#include "error.h"
#include "format.h"
#include "grouped_gemm.h"
#include "launch.h"
#include "sm90a/grouped_gemm_layout.h"
#include "validate.h"

/* One group as the kernel reads it (grouped_gemm_layout.h's GG_D_* offsets). */
typedef struct gg_desc {
  uint64_t a, b, a_sf, b_sf, c, ldc, a_step128, b_step128;
  uint32_t a_ld, b_ld, a_step32, a_step1, b_step32, b_step1, a_qstep, b_qstep;
  uint32_t m, n, kbytes, tile_start, t, flags;
} gg_desc;

/* The kernel's whole parameter block. */
typedef struct gg_params {
  uint32_t num_groups, total_tiles;
  float alpha;
  uint32_t ring;
  gg_desc desc[GG_MAX_GROUPS];
} gg_params;

#define GG_ASSERT_AT(type, field, offset) _Static_assert(offsetof(type, field) == (offset), #offset)
GG_ASSERT_AT(gg_desc, a, GG_D_A);
GG_ASSERT_AT(gg_desc, b, GG_D_B);
GG_ASSERT_AT(gg_desc, a_sf, GG_D_A_SF);
GG_ASSERT_AT(gg_desc, b_sf, GG_D_B_SF);
GG_ASSERT_AT(gg_desc, c, GG_D_C);
GG_ASSERT_AT(gg_desc, ldc, GG_D_LDC);
GG_ASSERT_AT(gg_desc, a_step128, GG_D_A_STEP128);
GG_ASSERT_AT(gg_desc, b_step128, GG_D_B_STEP128);
GG_ASSERT_AT(gg_desc, a_ld, GG_D_A_LD);
GG_ASSERT_AT(gg_desc, b_ld, GG_D_B_LD);
GG_ASSERT_AT(gg_desc, a_step32, GG_D_A_STEP32);
GG_ASSERT_AT(gg_desc, a_step1, GG_D_A_STEP1);
GG_ASSERT_AT(gg_desc, b_step32, GG_D_B_STEP32);
GG_ASSERT_AT(gg_desc, b_step1, GG_D_B_STEP1);
GG_ASSERT_AT(gg_desc, a_qstep, GG_D_A_QSTEP);
GG_ASSERT_AT(gg_desc, b_qstep, GG_D_B_QSTEP);
GG_ASSERT_AT(gg_desc, m, GG_D_M);
GG_ASSERT_AT(gg_desc, n, GG_D_N);
GG_ASSERT_AT(gg_desc, kbytes, GG_D_KBYTES);
GG_ASSERT_AT(gg_desc, tile_start, GG_D_TILE_START);
GG_ASSERT_AT(gg_desc, t, GG_D_T);
GG_ASSERT_AT(gg_desc, flags, GG_D_FLAGS);
_Static_assert(sizeof(gg_desc) == GG_DESC_BYTES, "GG_DESC_BYTES");
GG_ASSERT_AT(gg_params, num_groups, GG_P_NUM_GROUPS);
GG_ASSERT_AT(gg_params, total_tiles, GG_P_TOTAL_TILES);
GG_ASSERT_AT(gg_params, alpha, GG_P_ALPHA);
GG_ASSERT_AT(gg_params, ring, GG_P_RING);
GG_ASSERT_AT(gg_params, desc, GG_P_DESCS);
_Static_assert(sizeof(gg_params) == GG_PARAM_BYTES, "GG_PARAM_BYTES");
_Static_assert(GG_PARAM_BYTES == GG_P_DESCS + GG_MAX_GROUPS * GG_DESC_BYTES, "GG_PARAM_BYTES");
_Static_assert(GG_PARAM_BYTES <= 32764, "the kernel parameter limit of sm_70 and later");
_Static_assert(GG_FULL_ARRIVALS == 2 * GG_PRODUCERS && GG_EMPTY_ARRIVALS == GG_CONSUMERS + GG_PRODUCERS &&
                   GG_DFULL_ARRIVALS == GG_PRODUCERS && GG_DEMPTY_ARRIVALS == GG_CONSUMERS,
               "the barrier protocol of grouped_gemm.ptx");
_Static_assert(GG_PRODUCERS + GG_CONSUMERS == GG_THREADS, "one producer and two consumer warpgroups");
_Static_assert(128 * GG_PRODUCER_REGS + 256 * GG_CONSUMER_REGS <= GG_THREADS * GG_LAUNCH_REGS,
               "setmaxnreg can only move the registers the CTA was launched with");
_Static_assert(GW_FULL_ARRIVALS == 2 * GG_PRODUCERS && GW_EMPTY_ARRIVALS == GG_CONSUMERS,
               "the barrier protocol of grouped_gemm_w4a16.ptx");
_Static_assert(GG_BAR_EMPTY + 8 * GG_MAX_LOAD_STAGES <= GW_RING,
               "W4A16: a full and an empty barrier for every load slot the host may ask for");

/* One call: its groups and how a launch describes their activations. Every step below takes it, so the
 * validation flow, the launches' chunking and the descriptors are the same for every kind of activations. */
typedef struct gg_call {
  int num_groups;
  const nvfp4_tensor *a;     /* NVFP4 activations (nvfp4_grouped_gemm), or NULL */
  const nvfp4_dense *dense;  /* dense activations (nvfp4_grouped_gemm_w4a16), or NULL */
  const nvfp4_tensor *b;
  const nvfp4_output *c;
  float alpha;
  nvfp4_dtype act_dtype;     /* dense: the activation type of the launches being made (an entry per type) */
  /* a, dequantized: group g's tokens as f16 at a_f16 + a_f16_offset[g] (rows k elements apart), which the
   * W4A16 f16 entry reads; 0 when the launches read a itself (the fused NVFP4 entry) */
  uintptr_t a_f16;
  const uint64_t *a_f16_offset;
} gg_call;

static int64_t rows_a(const gg_call *call, int g) {
  return call->dense != NULL ? call->dense[g].rows : call->a[g].rows;
}

static int has_work(const gg_call *call, int g) { return rows_a(call, g) > 0 && call->b[g].rows > 0; }

/* Whether group g goes into the launches being made: it has work and, dense, the type their entry reads. */
static int takes(const gg_call *call, int g) {
  return has_work(call, g) && (call->dense == NULL || call->dense[g].dtype == call->act_dtype);
}

/* Whether the launches being made run a W4A16 entry (dense activations, given or dequantized). */
static int w4a16_launches(const gg_call *call) { return call->dense != NULL || call->a_f16 != 0; }

/* The entry the launches being made run. */
static nvfp4i_kernel_id call_kernel(const gg_call *call) {
  if (call->a_f16 != 0) return NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16;
  if (call->dense == NULL) return NVFP4I_KERNEL_GROUPED_GEMM;
  return call->act_dtype == NVFP4_DTYPE_F16 ? NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16
                                            : NVFP4I_KERNEL_GROUPED_GEMM_W4A16_BF16;
}

/* Token rows per tile: the fewest tiles of at most `cap` rows, split evenly, rounded up to GG_T_GRAIN. */
static uint32_t token_tile_rows(int64_t m, int64_t cap) {
  int64_t tiles = (m + cap - 1) / cap;
  int64_t rows = (m + tiles - 1) / tiles;
  return (uint32_t)((rows + GG_T_GRAIN - 1) / GG_T_GRAIN * GG_T_GRAIN);
}

static uint64_t group_tiles(const gg_call *call, int g, int64_t cap) {
  int64_t m = rows_a(call, g);
  uint64_t t = token_tile_rows(m, cap);
  return (uint64_t)((call->b[g].rows + GG_TILE_N - 1) / GG_TILE_N) * (((uint64_t)m + t - 1) / t);
}

/* The token tile cap of a launch. Wide tiles decode each weight stage for more tokens, so GG_T_MAX is the
 * fastest while the launch has a tile for every SM; with fewer tiles, halving the cap puts more SMs to work
 * (measured on the GPU MODE shapes: G=2 M=[128,384] N=4096 K=1536 takes 36.6 us at 256, 29.1 at 128, 40.6 at
 * 64; G=8 M=[80..248] N=4096 K=7168, 256 tiles, 252 us at 256 and 297 at 128). */
static int64_t token_tile_cap(const gg_call *call, int first, int end, int sm_count) {
  uint64_t tiles = 0;
  for (int g = first; g < end; g++)
    if (takes(call, g)) tiles += group_tiles(call, g, GG_T_MAX);
  return tiles >= (uint64_t)sm_count ? GG_T_MAX : GG_T_MAX / 2;
}

/* The 32-bit descriptor fields of an operand: its row pitch and scale steps (they matter only between rows). */
static nvfp4_status check_32bit_fields(const char *name, const nvfp4_tensor *t) {
  nvfp4i_sf_steps s = nvfp4i_sf_steps_of(t);
  if (t->rows > 1 && ((uint64_t)t->ld > UINT32_MAX || s.step32 > UINT32_MAX))
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "%s: ld (%lld) and 32 * sf_ld must be below 2^32 bytes", name,
                       (long long)t->ld);
  return NVFP4_STATUS_SUCCESS;
}

nvfp4_status nvfp4i_grouped_gemm_check_copies(const char *name, const nvfp4_tensor *t) {
  nvfp4_status status = nvfp4i_validate_vector_alignment(name, t);
  return status == NVFP4_STATUS_SUCCESS ? check_32bit_fields(name, t) : status;
}

/* Dense activations with work as the producers copy them: 16-byte pieces, a row pitch in 32 bits of bytes. */
static nvfp4_status check_dense_copies(int g, const nvfp4_dense *a) {
  char name[32];
  snprintf(name, sizeof name, "a[%d]", g);
  nvfp4_status status = nvfp4i_validate_dense_alignment(name, a);
  if (status == NVFP4_STATUS_SUCCESS && a->rows > 1 &&
      (uint64_t)a->ld * (uint64_t)nvfp4i_dtype_size(a->dtype) > UINT32_MAX)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "%s.ld = %lld: must be below 2^32 bytes", name,
                       (long long)a->ld);
  return status;
}

/* Validates group g; a group with work must also suit the 16-byte copies of its data. */
static nvfp4_status validate_group(const gg_call *call, int g) {
  const nvfp4_tensor *b = &call->b[g];
  char name[32];
  snprintf(name, sizeof name, "a[%d]", g);
  nvfp4_status status = call->dense != NULL ? nvfp4i_validate_dense(name, &call->dense[g], 0)
                                            : nvfp4i_validate_tensor(name, &call->a[g], 0);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  snprintf(name, sizeof name, "b[%d]", g);
  status = nvfp4i_validate_tensor(name, b, 0);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  int64_t a_k = call->dense != NULL ? call->dense[g].k : call->a[g].k;
  int64_t a_batch = call->dense != NULL ? call->dense[g].batch : call->a[g].batch;
  if (a_batch != 1 || b->batch != 1)
    return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "%s[%d].batch = %lld: every group has batch 1",
                       a_batch != 1 ? "a" : "b", g, (long long)(a_batch != 1 ? a_batch : b->batch));
  if (a_k != b->k)
    return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "b[%d].k = %lld: must equal a[%d].k = %lld", g,
                       (long long)b->k, g, (long long)a_k);
  snprintf(name, sizeof name, "c[%d]", g);
  status = nvfp4i_validate_output(name, &call->c[g], rows_a(call, g), b->rows, 1);
  if (status != NVFP4_STATUS_SUCCESS || !has_work(call, g)) return status;
  snprintf(name, sizeof name, "a[%d]", g);
  status = call->dense != NULL ? check_dense_copies(g, &call->dense[g])
                               : nvfp4i_grouped_gemm_check_copies(name, &call->a[g]);
  snprintf(name, sizeof name, "b[%d]", g);
  return status == NVFP4_STATUS_SUCCESS ? nvfp4i_grouped_gemm_check_copies(name, b) : status;
}

/* How the producers copy an operand's scales: BLOCKED ones with a 16-byte aligned base as whole row blocks
 * (bulk), the rest row by row, as aligned 4-byte words where base and (LINEAR) row pitch allow, else bytes. */
static uint32_t scale_copy_flags(const nvfp4_tensor *t, uint32_t bulk, uint32_t words) {
  uintptr_t base = (uintptr_t)t->scales;
  if (t->sf_layout == NVFP4_SF_BLOCKED_128x4 && base % 16 == 0) return bulk;
  return base % 4 == 0 && (t->sf_layout != NVFP4_SF_LINEAR || t->rows == 1 || t->sf_ld % 4 == 0) ? words : 0;
}

/* The activation fields of an NVFP4 operand: data, row pitch, the scales' steps and how they are copied. */
static void describe_nvfp4_activations(gg_desc *d, const nvfp4_tensor *a) {
  nvfp4i_sf_steps s = nvfp4i_sf_steps_of(a);
  int rows = a->rows > 1; /* a single row's pitch and row steps are never used: 0 keeps them in 32 bits */
  d->a = (uintptr_t)a->data;
  d->a_sf = (uintptr_t)a->scales;
  d->a_step128 = rows ? s.step128 : 0;
  d->a_ld = rows ? (uint32_t)a->ld : 0;
  d->a_step32 = rows ? (uint32_t)s.step32 : 0;
  d->a_step1 = rows ? (uint32_t)s.step1 : 0;
  d->a_qstep = s.quad_step;
  d->flags |= scale_copy_flags(a, GG_F_A_SF_BULK, GG_F_A_SF_WORDS);
}

/* The activation fields of dense activations: data and row pitch in bytes. They have no scales: the A_SF
 * fields and GG_F_A_* flags stay 0. */
static void describe_dense_activations(gg_desc *d, const nvfp4_dense *a) {
  d->a = (uintptr_t)a->data;
  d->a_ld = a->rows > 1 ? (uint32_t)(a->ld * nvfp4i_dtype_size(a->dtype)) : 0;
}

static gg_desc group_desc(const gg_call *call, int g, int64_t cap) {
  const nvfp4_tensor *b = &call->b[g];
  const nvfp4_output *c = &call->c[g];
  int64_t m = rows_a(call, g);
  nvfp4i_sf_steps bs = nvfp4i_sf_steps_of(b);
  /* as for the activations: a single row's pitch and row steps are never used */
  int a_rows = m > 1, b_rows = b->rows > 1;
  gg_desc d = {
      .b = (uintptr_t)b->data,
      .b_sf = (uintptr_t)b->scales,
      .c = (uintptr_t)c->data,
      .ldc = (uint64_t)(a_rows ? c->ld : 0),
      .b_step128 = b_rows ? bs.step128 : 0,
      .b_ld = b_rows ? (uint32_t)b->ld : 0,
      .b_step32 = b_rows ? (uint32_t)bs.step32 : 0,
      .b_step1 = b_rows ? (uint32_t)bs.step1 : 0,
      .b_qstep = bs.quad_step,
      .m = (uint32_t)m,
      .n = (uint32_t)b->rows,
      .kbytes = (uint32_t)(b->k / 2),
      .t = token_tile_rows(m, cap),
      .flags = (uint32_t)c->dtype | scale_copy_flags(b, GG_F_B_SF_BULK, GG_F_B_SF_WORDS),
  };
  if (call->a_f16 != 0) {
    const nvfp4_dense tokens = {(const void *)(call->a_f16 + call->a_f16_offset[g]), m, call->a[g].k, 1,
                                call->a[g].k, 0, NVFP4_DTYPE_F16};
    describe_dense_activations(&d, &tokens);
  } else if (call->dense != NULL) {
    describe_dense_activations(&d, &call->dense[g]);
  } else {
    describe_nvfp4_activations(&d, &call->a[g]);
  }
  return d;
}

/* The rings for token tiles of up to t_max rows: three decoded slots where they fit beside three load slots
 * (two otherwise), then as many load slots as the rest of shared memory holds. Returns GG_P_RING's word. */
static uint32_t ring_config(uint32_t t_max, unsigned *smem_bytes) {
  uint32_t dec_stages = GG_SMEM_BYTES(3, 3, t_max) <= GG_SMEM_LIMIT ? 3 : 2;
  uint32_t load_stages = (GG_SMEM_LIMIT - GG_SMEM_BYTES(0, dec_stages, t_max)) / GG_LOAD_SLOT_BYTES(t_max);
  if (load_stages > GG_MAX_LOAD_STAGES) load_stages = GG_MAX_LOAD_STAGES;
  *smem_bytes = GG_SMEM_BYTES(load_stages, dec_stages, t_max);
  return load_stages | dec_stages << 8 | t_max << 16;
}
_Static_assert(GG_SMEM_BYTES(2, 2, GG_T_MAX) <= GG_SMEM_LIMIT, "two slots of each ring fit at GG_T_MAX");

/* W4A16's ring for token tiles of up to t_max rows: as many load slots as shared memory holds (there is no
 * decoded ring: the producers copy the activations straight into wgmma's B tile in the slot). Returns
 * GG_P_RING's word. */
static uint32_t w4a16_ring_config(uint32_t t_max, unsigned *smem_bytes) {
  uint32_t load_stages = (GG_SMEM_LIMIT - GW_SMEM_BYTES(0, t_max)) / GW_SLOT_BYTES(t_max);
  if (load_stages > GG_MAX_LOAD_STAGES) load_stages = GG_MAX_LOAD_STAGES;
  *smem_bytes = GW_SMEM_BYTES(load_stages, t_max);
  return load_stages | t_max << 16;
}
_Static_assert((GG_SMEM_LIMIT - GW_SMEM_BYTES(0, GG_T_MAX)) / GW_SLOT_BYTES(GG_T_MAX) >= 2,
               "W4A16: two load slots fit at GG_T_MAX");

/* Launches groups [first, end) of the call (those it takes, at most GG_MAX_GROUPS), largest tile first. */
static nvfp4_status launch_groups(nvfp4_handle *h, const gg_call *call, int first, int end, CUstream stream) {
  gg_params params = {.alpha = call->alpha};
  uint32_t count = 0, t_max = 0;
  int64_t cap = token_tile_cap(call, first, end, h->sm_count);
  for (int g = first; g < end; g++) {
    if (!takes(call, g)) continue;
    /* insertion by descending t: the snake schedule then pairs the largest tiles with the smallest */
    gg_desc d = group_desc(call, g, cap);
    uint32_t at = count++;
    while (at > 0 && params.desc[at - 1].t < d.t) {
      params.desc[at] = params.desc[at - 1];
      at--;
    }
    params.desc[at] = d;
    if (d.t > t_max) t_max = d.t;
  }
  for (uint32_t i = 0; i < count; i++) {
    gg_desc *d = &params.desc[i];
    d->tile_start = params.total_tiles;
    params.total_tiles += (uint32_t)((d->n + GG_TILE_N - 1) / GG_TILE_N) * ((d->m + d->t - 1) / d->t);
  }
  params.num_groups = count;
  unsigned smem_bytes;
  params.ring = w4a16_launches(call) ? w4a16_ring_config(t_max, &smem_bytes) : ring_config(t_max, &smem_bytes);
  unsigned grid = params.total_tiles < (uint32_t)h->sm_count ? params.total_tiles : (unsigned)h->sm_count;
  void *args[] = {&params};
  nvfp4i_launch launch = {
      .grid = {grid, 1, 1},
      .block = {GG_THREADS, 1, 1},
      .dynamic_smem = smem_bytes,
      .params = args,
      /* after the grouped dequantize: set up while it runs (the entry waits for it before the tokens) */
      .early_start = call->a_f16 != 0,
  };
  return nvfp4i_launch_kernel(h, call_kernel(call), &launch, stream);
}

/* What the launches being made need before the first of them: every launch's tile count, at the smallest
 * cap, within GG_P_TOTAL_TILES' 32 bits, and their entry in the image if there is any work. */
static nvfp4_status check_launches(const nvfp4_handle *h, const gg_call *call) {
  uint64_t tiles = 0;
  int work = 0;
  for (int g = 0; g < call->num_groups; g++) {
    if (!takes(call, g)) continue;
    if (work++ % GG_MAX_GROUPS == 0) tiles = 0;
    tiles += group_tiles(call, g, GG_T_MAX / 2);
    if (tiles > UINT32_MAX)
      return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "group %d: more than 2^32 tiles in one launch", g);
  }
  return work > 0 ? nvfp4i_check_kernel(h, call_kernel(call)) : NVFP4_STATUS_SUCCESS;
}

/* Launches the groups the call takes, GG_MAX_GROUPS to a launch, on the stream in group order. */
static nvfp4_status launch_all(nvfp4_handle *h, const gg_call *call, CUstream stream) {
  for (int first = 0; first < call->num_groups;) {
    int end = first, work = 0;
    while (end < call->num_groups && work < GG_MAX_GROUPS) work += takes(call, end), end++;
    if (work > 0) {
      nvfp4_status status = launch_groups(h, call, first, end, stream);
      if (status != NVFP4_STATUS_SUCCESS) return status;
    }
    first = end;
  }
  return NVFP4_STATUS_SUCCESS;
}

/* The f16 bytes of group g's tokens in the scratch: a group without work has none. */
static uint64_t token_bytes(const gg_call *call, int g) {
  return has_work(call, g) ? (uint64_t)call->a[g].rows * (uint64_t)call->a[g].k * 2 : 0;
}

/* NVFP4 activations through the W4A16 kernel: every group's tokens dequantized to f16 once (exact: every
 * e2m1 x e4m3 value is an f16), into scratch from the handle's pool, then the W4A16 f16 entry multiplies
 * them by the weights. The fused entry decodes each token tile again for every 128 weight rows (32-56 times
 * a call on the GPU MODE shapes); this way is faster on every one of them (docs/PERFORMANCE.md). Scratch
 * is sum_g rows_g * k_g * 2 bytes, allocated and freed in stream order (capturable). *taken says whether
 * this way ran; it is 0 (and nothing launched) when the handle has no pool, the scratch cannot be had or
 * the entries are missing, and the caller runs the fused entry instead. Called after every check of the
 * call has passed. */
static nvfp4_status via_dequantized_tokens(nvfp4_handle *h, const gg_call *call, CUstream stream, int *taken) {
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  *taken = 0;
  if (h->scratch_pool == NULL || h->grouped_fused) return NVFP4_STATUS_SUCCESS;
  if (h->kernels[NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16].fn == NULL ||
      h->kernels[NVFP4I_KERNEL_GROUPED_DEQUANTIZE].fn == NULL)
    return NVFP4_STATUS_SUCCESS;
  uint64_t bytes = 0;
  for (int g = 0; g < call->num_groups; g++) bytes += token_bytes(call, g);
  if (bytes == 0) return NVFP4_STATUS_SUCCESS;
  /* the scratch calls take the thread's current context (the launches enter the handle's on their own) */
  int pushed;
  nvfp4_status status = nvfp4i_context_enter(h, &pushed);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  CUdeviceptr scratch;
  if (cu->cuMemAllocFromPoolAsync(&scratch, bytes, h->scratch_pool, stream) != CUDA_SUCCESS) {
    nvfp4i_context_leave(pushed);
    return NVFP4_STATUS_SUCCESS;
  }
  *taken = 1;
  /* The groups with work, one after another in the scratch, rows k elements apart. First every group's
   * dequantize, DEQUANTIZE_BATCH groups to a copy of their tensors (a group without work gets rows = 0: its
   * pointers may be NULL) and to a call; then the W4A16 launches, GG_MAX_GROUPS groups to a launch. */
  enum { DEQUANTIZE_BATCH = 64 };
  nvfp4_tensor tokens[DEQUANTIZE_BATCH];
  void *tokens_f16[DEQUANTIZE_BATCH];
  int64_t ld[DEQUANTIZE_BATCH];
  uint64_t next = 0;
  for (int first = 0; first < call->num_groups && status == NVFP4_STATUS_SUCCESS; first += DEQUANTIZE_BATCH) {
    int count = call->num_groups - first < DEQUANTIZE_BATCH ? call->num_groups - first : DEQUANTIZE_BATCH;
    for (int i = 0; i < count; i++) {
      tokens[i] = call->a[first + i];
      tokens_f16[i] = (void *)(uintptr_t)(scratch + next);
      ld[i] = tokens[i].k;
      if (!has_work(call, first + i)) tokens[i].rows = 0;
      next += token_bytes(call, first + i);
    }
    status = nvfp4i_grouped_dequantize(h, count, tokens, tokens_f16, ld, NVFP4_DTYPE_F16, stream);
  }
  uint64_t offset[GG_MAX_GROUPS];
  next = 0;
  for (int first = 0; first < call->num_groups && status == NVFP4_STATUS_SUCCESS; first += GG_MAX_GROUPS) {
    int count = call->num_groups - first < GG_MAX_GROUPS ? call->num_groups - first : GG_MAX_GROUPS;
    for (int i = 0; i < count; i++) {
      offset[i] = next;
      next += token_bytes(call, first + i);
    }
    const gg_call part = {.num_groups = count, .a = call->a + first, .b = call->b + first,
                          .c = call->c + first, .alpha = call->alpha, .a_f16 = (uintptr_t)scratch,
                          .a_f16_offset = offset};
    status = launch_all(h, &part, stream);
  }
  CUresult freed = cu->cuMemFreeAsync(scratch, stream);
  if (freed != CUDA_SUCCESS && status == NVFP4_STATUS_SUCCESS) status = nvfp4i_cuda_fail(freed, "cuMemFreeAsync");
  nvfp4i_context_leave(pushed);
  return status;
}

/* The whole call: the handle and arrays, every group, and every launch are checked before anything
 * launches. Dense activations make one series of launches per type, as each type has an entry of its own:
 * the f16 groups', then the bf16 groups'. */
static nvfp4_status grouped_call(nvfp4_handle *h, const gg_call *call, CUstream stream) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  int groups = call->num_groups;
  if (h == NULL) return nvfp4i_fail(bad, "h is NULL");
  if (groups < 0) return nvfp4i_fail(bad, "num_groups = %d: must be >= 0", groups);
  if (groups > 0 && call->a == NULL && call->dense == NULL) return nvfp4i_fail(bad, "a is NULL");
  if (groups > 0 && call->b == NULL) return nvfp4i_fail(bad, "b is NULL");
  if (groups > 0 && call->c == NULL) return nvfp4i_fail(bad, "c is NULL");
  for (int g = 0; g < groups; g++) {
    nvfp4_status status = validate_group(call, g);
    if (status != NVFP4_STATUS_SUCCESS) return status;
  }
  static const nvfp4_dtype act_types[] = {NVFP4_DTYPE_F16, NVFP4_DTYPE_BF16};
  int passes = call->dense != NULL ? 2 : 1;
  gg_call pass[2] = {*call, *call};
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  for (int p = 0; p < passes && status == NVFP4_STATUS_SUCCESS; p++) {
    pass[p].act_dtype = act_types[p];
    status = check_launches(h, &pass[p]);
  }
  if (status == NVFP4_STATUS_SUCCESS && call->a != NULL) {
    int taken;
    status = via_dequantized_tokens(h, call, stream, &taken);
    if (taken) return status;
  }
  for (int p = 0; p < passes && status == NVFP4_STATUS_SUCCESS; p++) status = launch_all(h, &pass[p], stream);
  return status;
}

nvfp4_status nvfp4i_grouped_gemm(nvfp4_handle *h, int num_groups, const nvfp4_tensor *a, const nvfp4_tensor *b,
                                 const nvfp4_output *c, float alpha, CUstream stream) {
  const gg_call call = {.num_groups = num_groups, .a = a, .b = b, .c = c, .alpha = alpha};
  return grouped_call(h, &call, stream);
}

NVFP4_API nvfp4_status nvfp4_grouped_gemm(nvfp4_handle *h, int num_groups, const nvfp4_tensor *a,
                                          const nvfp4_tensor *b, const nvfp4_output *c, float alpha,
                                          CUstream stream) {
  nvfp4i_clear_error();
  return nvfp4i_grouped_gemm(h, num_groups, a, b, c, alpha, stream);
}

NVFP4_API nvfp4_status nvfp4_grouped_gemm_w4a16(nvfp4_handle *h, int num_groups, const nvfp4_dense *a,
                                                const nvfp4_tensor *b, const nvfp4_output *c, float alpha,
                                                CUstream stream) {
  nvfp4i_clear_error();
  const gg_call call = {.num_groups = num_groups, .dense = a, .b = b, .c = c, .alpha = alpha};
  return grouped_call(h, &call, stream);
}
