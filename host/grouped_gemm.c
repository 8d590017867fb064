/* nvfp4_grouped_gemm and nvfp4_grouped_gemm_w4a16: validate every group -> per-group descriptors in the
 * kernel's parameter block (up to GG_MAX_GROUPS non-empty groups per launch, largest token tile first) ->
 * nvfp4_grouped_gemm_sm90a (ptx/sm90a/grouped_gemm.ptx), or for dense activations the W4A16 entry of their
 * type (ptx/sm90a/grouped_gemm_w4a16.ptx); both share the launch, parameter block and descriptor of
 * ptx/sm90a/grouped_gemm_layout.h. The portable path's W4A16 entries (ptx/sm80/grouped_gemm_w4a16.ptx) take
 * the same parameter block with token tiles of at most PG_T_MAX rows and a launch shape of their own
 * (launch_params); it has no fused NVFP4 entry, so NVFP4 activations always go through scratch there.
 * Everything a launch needs travels in its parameters, so a call allocates nothing, never synchronises, is
 * capturable, and calls on one handle never share state. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dequantize.h"
#include "error.h"
#include "format.h"
#include "grouped_finish.h"
#include "grouped_gemm.h"
#include "launch.h"
#include "sm80/grouped_gemm_w4a16_layout.h"
#include "sm90a/dequantize_layout.h"
#include "sm90a/grouped_gemm_layout.h"
#include "validate.h"

/* One group as the kernel reads it (grouped_gemm_layout.h's GG_D_* offsets). */
typedef struct gg_desc {
  uint64_t a, b;
  union {
    uint64_t a_sf;
    uint64_t b2; /* paired dual tiles (GG_F_PAIRED; their entries read no activation scales) */
  };
  uint64_t b_sf, c, ldc;
  union {
    uint64_t a_step128;
    uint64_t b2_sf; /* paired */
  };
  uint64_t b_step128;
  uint32_t a_ld, b_ld;
  union {
    uint32_t a_step32;
    float alpha2; /* paired */
  };
  uint32_t a_step1, b_step32, b_step1, a_qstep, b_qstep;
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
GG_ASSERT_AT(gg_desc, b2, GG_D_B2);
GG_ASSERT_AT(gg_desc, b2_sf, GG_D_B2_SF);
GG_ASSERT_AT(gg_desc, alpha2, GG_D_ALPHA2);
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
_Static_assert(PG_T_MAX % GG_T_GRAIN == 0 && PG_T_MAX <= GG_T_MAX, "portable token tiles are a multiple of the grain");
_Static_assert(PG_SMEM_BYTES <= 99 * 1024, "the portable kernel's slots fit every GPU from sm_80 on (sm_86: 99 KB)");
_Static_assert(PG_SLOT_BYTES == PG_S_WSF + GG_SF_BLOCK_BYTES && PG_S_W == PG_S_A + 256 * PG_T_MAX &&
                   PG_S_WSF == PG_S_W + GG_TILE_N * GG_K_STEP_BYTES,
               "the portable slot: tokens, weights, one row block of scales");

/* One call: its groups, what its launches write, and how. Every step below takes it, so the validation, the
 * launches' chunking and the descriptors are the same for every kind of activations and for both GEMMs. */
typedef struct gg_call {
  int num_groups;
  const nvfp4_tensor *a;     /* NVFP4 activations (nvfp4_grouped_gemm, the dual GEMM), or NULL */
  const nvfp4_dense *dense;  /* dense activations (nvfp4_grouped_gemm_w4a16), or NULL */
  const nvfp4_tensor *b;     /* the weights; the dual GEMM's gate projection b1 */
  const nvfp4_tensor *b2;    /* the dual GEMM's up projection, or NULL */
  const nvfp4_output *c;
  float alpha, alpha2;       /* alpha2: the dual GEMM's up product */
  int dual;                  /* nvfp4_grouped_dual_gemm_silu: c = silu(alpha * a b^T) * (alpha2 * a b2^T) */
  nvfp4_dtype act_dtype;     /* dense: the activation type of the launches being made (an entry per type) */
  /* The plan (plan_call), fixed before the first launch: */
  int64_t cap_max;           /* the largest token tile the path's kernels take (GG_T_MAX, portable PG_T_MAX) */
  int64_t cap;               /* the token tile cap; with fixed_width, every tile's rows */
  int fixed_width;           /* every tile `cap` rows, on the entry of that width (sm_90a), else rows per group */
  uint32_t widths;           /* bit w - 1: the image has the W4A16 entries of width 32w for the call (sm_90a) */
  int mixed;                 /* ... and those of mixed widths */
  uint32_t slices;           /* K slices per group (split-K); 1: every tile walks all of K */
  int pairable;              /* the dual GEMM may run paired tiles (pairs_fit; sm_90a): it does where slices is 1 */
  /* The last round's split (plan_last_round): group tail_group's columns from tail_n0 on run as parts of
   * their own, after every other part, in K slices of tail_per stages whose f32 partials the finishing
   * launch adds up into c; tail_per 0: no split. Whole-K tiles alone can end a launch in a round of a few
   * tiles while the other SMs idle (moe1: 1856 tiles, 14 rounds of 132 and 8 more). */
  int tail_group;
  int64_t tail_n0;
  uint32_t tail_per;
  /* Scratch, from the handle's pool; 0 where the call runs without. a_f16: the tokens the W4A16 entries
   * read, group after group: a dequantized as f16, in the B-tile layout (b_tiles; sm_90a's producers then
   * copy a token tile's half stage by one bulk copy, the portable kernel's by 16-byte units) or rows k
   * elements apart (without the B-tile entries); or with b_tiles the dense activations copied into B tiles,
   * each in its type (whose entries decode the weights in the tiles' K order, so this is their only way
   * in). partials: the
   * launches write every product's K slices as f32 there (group after group, then product, then slice: m rows
   * of nvfp4i_finish_ldp(n) floats each) and the finishing kernel writes c from them. */
  int f16_tokens;            /* the launches read a dequantized to f16 at a_f16 (the W4A16 f16 entry) */
  int b_tiles;               /* the launches read B tiles at a_f16 (dequantize_layout.h): f16_tokens or dense */
  uintptr_t a_f16, partials;
  uintptr_t tail_partials;   /* the last round's split's partials (after `partials`'), laid out as a group's */
} gg_call;

static int64_t rows_a(const gg_call *call, int g) {
  return call->dense != NULL ? call->dense[g].rows : call->a[g].rows;
}

static int64_t k_of(const gg_call *call, int g) { return call->b[g].k; }

static int has_work(const gg_call *call, int g) { return rows_a(call, g) > 0 && call->b[g].rows > 0; }

/* Whether group g goes into the launches being made: it has work and, dense, the type their entry reads. */
static int takes(const gg_call *call, int g) {
  return has_work(call, g) && (call->dense == NULL || call->dense[g].dtype == call->act_dtype);
}

/* Products per group: the dual GEMM's two share the activations. */
static int products(const gg_call *call) { return call->dual ? 2 : 1; }

/* The dual GEMM's paired tiles (GG_F_PAIRED, grouped_gemm_layout.h): both products of GG_PAIR_N columns in one
 * tile, gated in its epilogue, so the call writes c itself, with neither partials nor the finishing launch.
 * The B-tile entries (sm_90a) have them, for whole K only (a K slice's sums must be added up before the gating)
 * and groups whose b and b2 share row pitch and scale steps (pairs_fit). */
static int paired(const gg_call *call) { return call->pairable && call->slices == 1; }

/* Descriptors per group and K slice: one per product, or one for both where paired. */
static int parts_per_slice(const gg_call *call) { return paired(call) ? 1 : products(call); }

/* Whether the call ends with the finishing launch, its launches writing f32 partials: K slices to add up, or
 * the dual GEMM's products to gate outside paired tiles. */
static int needs_finish(const gg_call *call) { return call->slices > 1 || (call->dual && !paired(call)); }

/* Whether the launches being made run a W4A16 entry (dense activations, given or dequantized). */
static int w4a16_launches(const gg_call *call) { return call->dense != NULL || call->f16_tokens; }

/* The W4A16 entry families: per activation type, rows of activations, or B tiles in scratch (sm_90a), whose
 * entries decode the weights in the tiles' permuted K order. */
typedef enum gw_family {
  GW_FAMILY_F16,
  GW_FAMILY_BF16,
  GW_FAMILY_F16_TILES,
  GW_FAMILY_BF16_TILES,
  GW_FAMILY_COUNT
} gw_family;

/* The family that reads activations of `type` (f16 for dequantized tokens), in B tiles where `b_tiles`. */
static gw_family w4a16_family(nvfp4_dtype type, int b_tiles) {
  if (type == NVFP4_DTYPE_F16) return b_tiles ? GW_FAMILY_F16_TILES : GW_FAMILY_F16;
  return b_tiles ? GW_FAMILY_BF16_TILES : GW_FAMILY_BF16;
}

/* The token tile widths with entries of their own: the B-tiles families' (grouped_gemm_w4a16_widths.inc); the
 * families reading activations in place have their entries of mixed widths alone. */
enum { GW_ENTRY_WIDTHS = 3 };
static const int64_t gw_entry_widths[GW_ENTRY_WIDTHS] = {64, 128, 256};

/* The W4A16 entry of a family: the one of tiles `width` rows wide where `fixed_width` (sm_90a;
 * NVFP4I_KERNEL_COUNT where the family has none of that width), else the entry of mixed widths (the portable
 * path's only one). */
static nvfp4i_kernel_id w4a16_entry(gw_family family, int fixed_width, int64_t width) {
  static const nvfp4i_kernel_id mixed[GW_FAMILY_COUNT] = {
      NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16, NVFP4I_KERNEL_GROUPED_GEMM_W4A16_BF16,
      NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16_TILES, NVFP4I_KERNEL_GROUPED_GEMM_W4A16_BF16_TILES};
  static const nvfp4i_kernel_id fixed[GW_FAMILY_COUNT][GW_ENTRY_WIDTHS] = {
      {NVFP4I_KERNEL_COUNT, NVFP4I_KERNEL_COUNT, NVFP4I_KERNEL_COUNT},
      {NVFP4I_KERNEL_COUNT, NVFP4I_KERNEL_COUNT, NVFP4I_KERNEL_COUNT},
      {NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16_TILES_T64, NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16_TILES_T128,
       NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16_TILES_T256},
      {NVFP4I_KERNEL_GROUPED_GEMM_W4A16_BF16_TILES_T64, NVFP4I_KERNEL_GROUPED_GEMM_W4A16_BF16_TILES_T128,
       NVFP4I_KERNEL_GROUPED_GEMM_W4A16_BF16_TILES_T256}};
  if (!fixed_width) return mixed[family];
  for (int i = 0; i < GW_ENTRY_WIDTHS; i++)
    if (gw_entry_widths[i] == width) return fixed[family][i];
  return NVFP4I_KERNEL_COUNT;
}

/* The W4A16 entry for the call's tiles, as planned, of the family reading activations of `type`. */
static nvfp4i_kernel_id w4a16_kernel(const gg_call *call, nvfp4_dtype type) {
  return w4a16_entry(w4a16_family(type, call->b_tiles), call->fixed_width, call->cap);
}

/* Which W4A16 entries the call can run on (call->widths, call->mixed): those the image has for every family
 * its launches take; none for the fused NVFP4 kernel's calls, whose tiles are per group. */
static void find_entries(const nvfp4_handle *h, gg_call *call) {
  int families[GW_FAMILY_COUNT] = {0};
  if (call->f16_tokens) families[w4a16_family(NVFP4_DTYPE_F16, call->b_tiles)] = 1;
  for (int g = 0; call->dense != NULL && g < call->num_groups; g++)
    if (has_work(call, g)) families[w4a16_family(call->dense[g].dtype, call->b_tiles)] = 1;
  int any = 0;
  for (int f = 0; f < GW_FAMILY_COUNT; f++) any |= families[f];
  call->widths = 0;
  for (int i = 0; any && h->path == NVFP4I_PATH_SM90A && i < GW_ENTRY_WIDTHS; i++)
    call->widths |= 1u << (gw_entry_widths[i] / GG_T_GRAIN - 1);
  call->mixed = 1;
  for (int f = 0; f < GW_FAMILY_COUNT; f++) {
    if (!families[f]) continue;
    call->mixed &= h->kernels[w4a16_entry((gw_family)f, 0, 0)].fn != NULL;
    for (int i = 0; i < GW_ENTRY_WIDTHS; i++) {
      nvfp4i_kernel_id id = w4a16_entry((gw_family)f, 1, gw_entry_widths[i]);
      if (id == NVFP4I_KERNEL_COUNT || h->kernels[id].fn == NULL)
        call->widths &= ~(1u << (gw_entry_widths[i] / GG_T_GRAIN - 1));
    }
  }
}

/* The entry the launches being made run. */
static nvfp4i_kernel_id call_kernel(const gg_call *call) {
  if (call->f16_tokens) return w4a16_kernel(call, NVFP4_DTYPE_F16);
  if (call->dense == NULL) return NVFP4I_KERNEL_GROUPED_GEMM;
  return w4a16_kernel(call, call->act_dtype);
}

/* Token rows per tile: the fewest tiles of at most `cap` rows, split evenly, rounded up to GG_T_GRAIN. */
static uint32_t token_tile_rows(int64_t m, int64_t cap) {
  int64_t tiles = (m + cap - 1) / cap;
  int64_t rows = (m + tiles - 1) / tiles;
  return (uint32_t)((rows + GG_T_GRAIN - 1) / GG_T_GRAIN * GG_T_GRAIN);
}

/* Token rows per tile of a group of m rows at cap `cap`: the call's width, or the group's own. */
static uint32_t tile_rows(const gg_call *call, int64_t m, int64_t cap) {
  return call->fixed_width ? (uint32_t)cap : token_tile_rows(m, cap);
}

/* Whether the call's launches end with the last round's split. */
static int has_tail(const gg_call *call) { return call->tail_per != 0; }

/* The columns group g's own parts cover: all of them, or those before the last round's split. */
static int64_t main_cols(const gg_call *call, int g) {
  return has_tail(call) && g == call->tail_group ? call->tail_n0 : call->b[g].rows;
}

/* Tiles of group g's `cols` columns from a multiple of GG_TILE_N (GG_PAIR_N, paired) on, at cap `cap`. */
static uint64_t tiles_of(const gg_call *call, int g, int64_t cols, int64_t cap) {
  int64_t m = rows_a(call, g), across = paired(call) ? GG_PAIR_N : GG_TILE_N;
  uint64_t t = tile_rows(call, m, cap);
  return (uint64_t)((cols + across - 1) / across) * (((uint64_t)m + t - 1) / t);
}

/* Tiles of one part (a descriptor: one product, or a pair) of group g, whole K. */
static uint64_t group_tiles(const gg_call *call, int g, int64_t cap) {
  return tiles_of(call, g, main_cols(call, g), cap);
}

/* ---- K slices (split-K). A slice is a run of whole K stages (GG_K_STEP elements); group g's K stages are
 * dealt into at most call->slices slices of equal length, the last one shorter. */
static uint32_t k_stages(int64_t k) { return (uint32_t)((k + GG_K_STEP - 1) / GG_K_STEP); }

/* Stages a slice walks where K's stages are dealt into at most `slices` slices of equal length. */
static uint32_t stages_per_slice(int64_t k, uint32_t slices) {
  uint32_t stages = k_stages(k);
  if (slices > stages) slices = stages;
  return (stages + slices - 1) / slices;
}

/* Slices of `per` stages (the last one shorter) across K. */
static uint32_t slice_count(int64_t k, uint32_t per) { return (k_stages(k) + per - 1) / per; }

static uint32_t slice_stages(const gg_call *call, int g) { return stages_per_slice(k_of(call, g), call->slices); }

static uint32_t group_slices(const gg_call *call, int g) { return slice_count(k_of(call, g), slice_stages(call, g)); }

/* Bytes of group g's partials in the scratch. */
static uint64_t partial_bytes(const gg_call *call, int g) {
  if (!has_work(call, g)) return 0;
  return (uint64_t)products(call) * group_slices(call, g) * (uint64_t)rows_a(call, g) *
         nvfp4i_finish_ldp(call->b[g].rows) * sizeof(float);
}

/* The last round's split: its columns, K slices, tiles (one slice's) and partials' bytes. */
static int64_t tail_cols(const gg_call *call) { return call->b[call->tail_group].rows - call->tail_n0; }
static uint32_t tail_slices(const gg_call *call) { return slice_count(k_of(call, call->tail_group), call->tail_per); }
static uint64_t tail_tiles(const gg_call *call) {
  return tiles_of(call, call->tail_group, tail_cols(call), call->cap);
}
static uint64_t tail_partial_bytes(const gg_call *call) {
  if (!has_tail(call)) return 0;
  return (uint64_t)tail_slices(call) * (uint64_t)rows_a(call, call->tail_group) *
         nvfp4i_finish_ldp(tail_cols(call)) * sizeof(float);
}

/* Whether the launches read their tokens from the scratch: dequantized, or copied into B tiles. */
static int tokens_in_scratch(const gg_call *call) { return call->f16_tokens || call->b_tiles; }

/* The bytes of group g's tokens in the scratch (16-bit elements): a group without work has none. */
static uint64_t token_bytes(const gg_call *call, int g) {
  if (!has_work(call, g)) return 0;
  return call->b_tiles ? nvfp4i_b_tile_bytes(rows_a(call, g), k_of(call, g))
                       : (uint64_t)rows_a(call, g) * (uint64_t)k_of(call, g) * 2;
}

/* ---- The plan: the token tile width (sm_90a; the portable path's cap) and the K slices. A wide tile decodes
 * each weight stage for more tokens, a narrow one wastes fewer rows past a group's M and makes more tiles for
 * the SMs; K slices put more SMs to work where tiles are few, at the cost of their partials' traffic and the
 * finishing launch. plan_call picks the pair the cost model below finishes soonest, simulating the kernel's
 * snake schedule. */

/* Cycles a CTA spends on one K stage of a 128 x t tile, by entry. The entries of one width overlap each
 * warpgroup's weight decode with its own wgmmas; the entry of mixed widths drains its wgmmas before each
 * decode (grouped_gemm_w4a16.ptx), so its stage grows faster with t but starts lower. Fitted to the H200
 * (docs/PERFORMANCE.md: peers.py's gg1 at every fixed width; the mixed entry's per-role timelines, 1447 cycles
 * a stage at t = 32, 2190 at 96-128, 3400 at up to 256, less the bulk copies' 5-9%; the entries of one width
 * refitted once the producers' per-stage work shrank, to t = 128 against 256 on dual1, dual3 and dual4). What
 * a tile costs beyond its stages (its epilogue, the ring's refill); the finishing launch (its start, and the
 * partials' bytes, written by the GEMM and read back by the whole GPU: from L2 while they fit, not dual4's 50
 * MB at four slices), fitted to the split-K sweep and dual4. */
#define FIXED_STAGE_CYCLES(t) (150.0 + 10.2 * (t))
#define MIXED_STAGE_CYCLES(t) (1000.0 + 8.5 * (t))
/* The entries of one width cost at least this a stage, whatever t: the weight decode's floor (t = 64 measured on
 * gemm1 and gemm3, docs/PERFORMANCE.md; the line above is fitted at t = 128 and 256) */
#define FIXED_DECODE_FLOOR 1050.0
#define TILE_CYCLES 5000.0
#define FINISH_CYCLES 5000.0
#define PARTIAL_CYCLES_PER_BYTE 0.0008
#define MAX_SLICES 8
#define MAX_SIMULATED_SMS 1024 /* more SMs than this: no slices */
#define SIMULATED_ROUNDS 8     /* more tiles than this many per CTA: the schedule's balance is taken as even */

static double stage_cycles(const gg_call *call, uint32_t t) {
  if (!call->fixed_width) return MIXED_STAGE_CYCLES(t);
  return FIXED_STAGE_CYCLES(t) > FIXED_DECODE_FLOOR ? FIXED_STAGE_CYCLES(t) : FIXED_DECODE_FLOOR;
}

/* The snake schedule's loads, built by runs of equal-cost units: the units of a round go to CTAs 0, 1, ...,
 * grid - 1 (even rounds) or the reverse (odd ones). A run adds its cost to one or two ranges of CTAs and to
 * every CTA once per whole round it covers, so a plan costs O(runs + grid), not O(tiles): it runs on every
 * call, and a call's host time adds to its own where calls queue faster than the GPU takes them. */
typedef struct snake_loads {
  uint64_t grid, at, round; /* the next unit's place: CTA `at` of round `round` (at counted in deal order) */
  double every;             /* cost every CTA carries from whole rounds */
  double diff[MAX_SIMULATED_SMS + 1]; /* the rest, as differences: CTA i carries sum(diff[0..i]) */
} snake_loads;

static void snake_add(snake_loads *s, uint64_t n, double cost) {
  while (n > 0) {
    if (s->at == 0 && n >= s->grid) { /* whole rounds */
      uint64_t rounds = n / s->grid;
      s->every += (double)rounds * cost;
      s->round += rounds;
      n -= rounds * s->grid;
      continue;
    }
    uint64_t take = n < s->grid - s->at ? n : s->grid - s->at;
    uint64_t lo = s->round % 2 ? s->grid - s->at - take : s->at;
    s->diff[lo] += cost;
    s->diff[lo + take] -= cost;
    n -= take;
    s->at += take;
    if (s->at == s->grid) s->at = 0, s->round++;
  }
}

/* The cost of one unit of the last round's split: a K slice of one of its tiles. */
static double tail_cost(const gg_call *call) {
  int g = call->tail_group;
  return call->tail_per * stage_cycles(call, tile_rows(call, rows_a(call, g), call->cap)) + TILE_CYCLES;
}

/* Cycles until the call's last CTA finishes, at the call's cap, slices and last round's split, on sm_count
 * persistent CTAs: tiles in the launch's order (largest t first, then the call's group order, the split's
 * units last) dealt in snake order; with many tiles a CTA, their mean plus the longest tile, unless `exact`
 * (the last round's split, whose gain is the last round's balance). */
static double makespan(const gg_call *call, int sm_count, int exact) {
  uint64_t units = has_tail(call) ? tail_tiles(call) * tail_slices(call) : 0;
  double total = has_tail(call) ? (double)units * tail_cost(call) : 0, longest = has_tail(call) ? tail_cost(call) : 0;
  for (int g = 0; g < call->num_groups; g++) {
    if (!has_work(call, g)) continue;
    uint64_t n = group_tiles(call, g, call->cap) * parts_per_slice(call) * group_slices(call, g);
    double cost =
        slice_stages(call, g) * stage_cycles(call, tile_rows(call, rows_a(call, g), call->cap)) + TILE_CYCLES;
    units += n;
    total += (double)n * cost;
    longest = cost > longest ? cost : longest;
  }
  uint64_t grid = units < (uint64_t)sm_count ? units : (uint64_t)sm_count;
  if (grid == 0) return 0;
  if ((units > SIMULATED_ROUNDS * grid && !exact) || grid > MAX_SIMULATED_SMS) return total / (double)grid + longest;
  snake_loads s;
  s.grid = grid;
  s.at = s.round = 0;
  s.every = 0;
  memset(s.diff, 0, (grid + 1) * sizeof s.diff[0]);
  for (uint32_t t = GG_T_MAX; t >= GG_T_GRAIN; t -= GG_T_GRAIN)
    for (int g = 0; g < call->num_groups; g++)
      if (has_work(call, g) && tile_rows(call, rows_a(call, g), call->cap) == t)
        snake_add(&s, group_tiles(call, g, call->cap) * parts_per_slice(call) * group_slices(call, g),
                  slice_stages(call, g) * stage_cycles(call, t) + TILE_CYCLES);
  if (has_tail(call)) snake_add(&s, tail_tiles(call) * tail_slices(call), tail_cost(call));
  double worst = 0, load = 0;
  for (uint64_t i = 0; i < grid; i++) {
    load += s.diff[i];
    worst = load > worst ? load : worst;
  }
  return s.every + worst;
}

/* The finishing launch's cycles: the main parts' partials where needs_finish, the last round's split's. */
static double finish_cycles(const gg_call *call) {
  uint64_t bytes = tail_partial_bytes(call);
  for (int g = 0; needs_finish(call) && g < call->num_groups; g++) bytes += partial_bytes(call, g);
  return FINISH_CYCLES + PARTIAL_CYCLES_PER_BYTE * (double)bytes;
}

/* Descriptors the call's launches hold in all (every product and slice of every group with work). */
static uint64_t call_parts(const gg_call *call) {
  uint64_t parts = 0;
  for (int g = 0; g < call->num_groups; g++)
    if (has_work(call, g)) parts += (uint64_t)parts_per_slice(call) * group_slices(call, g);
  return parts;
}

/* The plan's best so far, and one try: the call's tiles and slices as they stand, at `cycles`. */
typedef struct gg_plan {
  double cycles; /* < 0: none yet */
  int64_t cap;
  uint32_t slices;
  int fixed_width;
} gg_plan;

/* Tries every slice count the call's cap allows (1; up to MAX_SLICES where `may_split` and its tiles leave
 * SMs idle, as many as keep every part in one launch; `forced` where a split may happen), keeping the best. */
static void try_slices(gg_call *call, gg_plan *best, int sm_count, int may_split, int forced) {
  uint64_t tiles = 0;
  for (int g = 0; g < call->num_groups; g++)
    if (has_work(call, g)) tiles += group_tiles(call, g, call->cap) * parts_per_slice(call);
  int split = may_split && tiles < (uint64_t)sm_count && sm_count <= MAX_SIMULATED_SMS;
  uint32_t first = 1, last = split ? MAX_SLICES : 1;
  if (split && forced > 0) first = last = (uint32_t)forced;
  for (uint32_t slices = first; slices <= last; slices++) {
    call->slices = slices;
    if (slices > 1 && call_parts(call) > GG_MAX_GROUPS) continue;
    double cycles = makespan(call, sm_count, 0) + (needs_finish(call) ? finish_cycles(call) : 0);
    if (best->cycles < 0 || cycles < best->cycles)
      *best = (gg_plan){cycles, call->cap, slices, call->fixed_width};
  }
}

/* Sets call->cap, call->slices and call->fixed_width: the plan the cost model finishes soonest. Tried: the
 * entry of mixed widths at caps cap_max and, on sm_90a, cap_max / 2 (the portable kernel computes a 64-row
 * token tile whatever t is: a smaller cap only idles its warps); on sm_90a every width of an entry of one
 * width (`forced_width`, NVFP4_TILE_ROWS: that one alone; -1: the entry of mixed widths alone). `forced`
 * (NVFP4_SPLIT_K, 0: none) fixes the number of slices where a split may happen. */
/* The widest group's rows rounded up to GG_T_GRAIN. A fixed width beyond it computes only padding past each
 * group's rows in every tile, where the entry of mixed widths gives each group its own t; so the plan leaves
 * such widths out while that entry is there (moe1: 3-24 tokens a group, where the stage costs fitted at
 * t >= 64 would otherwise send it to t = 64, 444 against 389 us). */
static int64_t widest_rows(const gg_call *call) {
  int64_t widest = 0;
  for (int g = 0; g < call->num_groups; g++)
    if (has_work(call, g) && rows_a(call, g) > widest) widest = rows_a(call, g);
  return (widest + GG_T_GRAIN - 1) / GG_T_GRAIN * GG_T_GRAIN;
}

/* The most K slices the last round's split deals its columns into. */
#define MAX_TAIL_SLICES 16

/* Sets the last round's split (call->tail_*) where the cost model, simulating the snake schedule exactly,
 * finishes the planned call sooner with it, finishing launch included. Only where the plan left the call one
 * product in whole-K tiles and those take more than one round of the sm_count CTAs. The split takes the
 * columns of the group whose tiles are dealt last (the last group of the smallest t): as many column tiles
 * as the last round's tiles fill, and one fewer or more, each way in 2 to MAX_TAIL_SLICES K slices, all its
 * parts in the launch beside the others'. */
static void plan_last_round(gg_call *call, int sm_count) {
  call->tail_per = 0;
  if (call->dual || call->slices != 1 || needs_finish(call) || sm_count > MAX_SIMULATED_SMS) return;
  int g = -1;
  uint32_t t_min = UINT32_MAX;
  uint64_t tiles = 0, parts = 0;
  for (int i = 0; i < call->num_groups; i++) {
    if (!has_work(call, i)) continue;
    uint32_t t = tile_rows(call, rows_a(call, i), call->cap);
    if (t <= t_min) t_min = t, g = i;
    tiles += group_tiles(call, i, call->cap);
    parts++;
  }
  if (g < 0 || tiles <= (uint64_t)sm_count || tiles % (uint64_t)sm_count == 0) return;
  int64_t m = rows_a(call, g), k = k_of(call, g);
  uint64_t across_m = (uint64_t)(m + t_min - 1) / t_min;
  int64_t col_tiles = (call->b[g].rows + GG_TILE_N - 1) / GG_TILE_N;
  int64_t fill = (int64_t)((tiles % (uint64_t)sm_count + across_m - 1) / across_m);
  double best = makespan(call, sm_count, 1);
  int64_t best_n0 = 0;
  uint32_t best_per = 0;
  call->tail_group = g;
  for (int64_t cols = fill - 1; cols <= fill + 1; cols++) {
    if (cols < 1 || cols >= col_tiles) continue;
    call->tail_n0 = (col_tiles - cols) * GG_TILE_N;
    for (uint32_t slices = 2, last_per = 0; slices <= MAX_TAIL_SLICES; slices++) {
      uint32_t per = stages_per_slice(k, slices);
      if (per == last_per || parts + slice_count(k, per) > GG_MAX_GROUPS) continue;
      last_per = call->tail_per = per;
      double cycles = makespan(call, sm_count, 1) + finish_cycles(call);
      if (cycles < best) best = cycles, best_n0 = call->tail_n0, best_per = per;
    }
  }
  call->tail_n0 = best_n0;
  call->tail_per = best_per;
}

static void plan_call(gg_call *call, int sm_count, int may_split, int forced, int forced_width, int last_round) {
  gg_plan best = {-1, call->cap_max, 1, 0};
  call->tail_per = 0;
  int64_t widest = forced_width > 0 || !call->mixed ? GG_T_MAX : widest_rows(call);
  call->fixed_width = 0;
  int64_t mixed_min = call->cap_max == GG_T_MAX ? GG_T_MAX / 2 : call->cap_max;
  /* the entry of mixed widths also when no entry is there at all: the launch check then names it */
  int mixed = (call->mixed || call->widths == 0) && !(forced_width > 0 && call->widths != 0);
  uint32_t widths = forced_width < 0 && call->mixed ? 0 : call->widths;
  for (call->cap = call->cap_max; mixed && call->cap >= mixed_min; call->cap /= 2)
    try_slices(call, &best, sm_count, may_split, forced);
  call->fixed_width = 1;
  for (call->cap = GG_T_GRAIN; call->cap <= GG_T_MAX; call->cap += GG_T_GRAIN)
    if ((widths >> (call->cap / GG_T_GRAIN - 1) & 1) && (forced_width <= 0 || call->cap == forced_width) &&
        call->cap <= widest)
      try_slices(call, &best, sm_count, may_split, forced);
  call->cap = best.cap;
  call->slices = best.slices;
  call->fixed_width = best.fixed_width;
  if (last_round) plan_last_round(call, sm_count);
}

/* The plan memo's key of a call: the scalars plan_call reads beyond the handle's constants (sm_count, split_k,
 * tile_rows), and per group the shape it reads (grouped_gemm.c's has_work, rows, N, K). */
static void plan_key(const gg_call *call, int may_split, uint32_t key[NVFP4I_PLAN_MEMO_KEYS]) {
  const uint32_t k[NVFP4I_PLAN_MEMO_KEYS] = {(uint32_t)call->num_groups, (uint32_t)products(call),
                                             (uint32_t)call->cap_max,    call->widths,
                                             (uint32_t)call->mixed,      (uint32_t)may_split,
                                             call->dense != NULL,        (uint32_t)call->pairable};
  memcpy(key, k, sizeof k);
}

static void group_shape(const gg_call *call, int g, int64_t shape[3]) {
  int work = has_work(call, g);
  shape[0] = work ? rows_a(call, g) : 0;
  shape[1] = work ? call->b[g].rows : 0;
  shape[2] = work ? k_of(call, g) : 0;
}

/* The portable W4A16 entry `id`'s CTAs that stay resident on an SM: as many as its registers let (the module's
 * occupancy), at most as many as shared memory holds. */
static unsigned portable_ctas_per_sm(const nvfp4_handle *h, nvfp4i_kernel_id id) {
  unsigned per_sm = h->kernels[id].blocks_per_sm > 1 ? (unsigned)h->kernels[id].blocks_per_sm : 1;
  unsigned fit = (unsigned)h->smem_per_sm / (PG_SMEM_BYTES + 1024); /* 1 KB: the driver's own per CTA */
  return fit < per_sm ? (fit > 0 ? fit : 1) : per_sm;
}

/* The persistent CTAs the plan deals a call's tiles to: one an SM on sm_90a; on the portable path the resident
 * CTAs of its entries (one launch shape for all four: the f16 B-tile entry's stands for them), each taken as a
 * processor of its own, so that a split fills the SMs' every slot (gg3: 192 tiles, 396 CTAs on the H200). */
static int plan_ctas(const nvfp4_handle *h) {
  if (h->path == NVFP4I_PATH_SM90A) return h->sm_count;
  return h->sm_count * (int)portable_ctas_per_sm(h, NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16_TILES);
}

/* plan_call, or the plan of the handle's last call where this one has its shape (then the same plan: plan_call
 * is a function of the key alone). Calls of more than NVFP4I_PLAN_MEMO_GROUPS groups always plan. */
static void plan_call_memo(nvfp4_handle *h, gg_call *call, int may_split) {
  nvfp4i_plan_memo *m = &h->plan_memo;
  uint32_t key[NVFP4I_PLAN_MEMO_KEYS];
  plan_key(call, may_split, key);
  int memo = call->num_groups <= NVFP4I_PLAN_MEMO_GROUPS;
  if (memo) {
    pthread_mutex_lock(&m->lock);
    int hit = m->valid && memcmp(m->key, key, sizeof key) == 0;
    for (int g = 0; hit && g < call->num_groups; g++) {
      int64_t shape[3];
      group_shape(call, g, shape);
      hit = memcmp(m->shape[g], shape, sizeof shape) == 0;
    }
    if (hit) {
      call->cap = m->cap;
      call->slices = m->slices;
      call->fixed_width = m->fixed_width;
      call->tail_group = m->tail_group;
      call->tail_n0 = m->tail_n0;
      call->tail_per = m->tail_per;
    }
    pthread_mutex_unlock(&m->lock);
    if (hit) return;
  }
  /* the last round's split on sm_90a, whose cost model it is (the portable path's CTAs share SMs) */
  int last_round = may_split && h->path == NVFP4I_PATH_SM90A && h->split_last_round;
  plan_call(call, plan_ctas(h), may_split, h->split_k, h->tile_rows, last_round);
  if (!memo) return;
  pthread_mutex_lock(&m->lock);
  memcpy(m->key, key, sizeof key);
  for (int g = 0; g < call->num_groups; g++) group_shape(call, g, m->shape[g]);
  m->cap = call->cap;
  m->slices = call->slices;
  m->fixed_width = call->fixed_width;
  m->tail_group = call->tail_group;
  m->tail_n0 = call->tail_n0;
  m->tail_per = call->tail_per;
  m->valid = 1;
  pthread_mutex_unlock(&m->lock);
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
static nvfp4_status check_dense_copies(const char *name, const nvfp4_dense *a) {
  nvfp4_status status = nvfp4i_validate_dense_alignment(name, a);
  if (status == NVFP4_STATUS_SUCCESS && a->rows > 1 &&
      (uint64_t)a->ld * (uint64_t)nvfp4i_dtype_size(a->dtype) > UINT32_MAX)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "%s.ld = %lld: must be below 2^32 bytes", name,
                       (long long)a->ld);
  return status;
}

/* The weights operand of product `product` of group g, and how messages name it. */
static const nvfp4_tensor *weights(const gg_call *call, int g, int product) {
  return product == 0 ? &call->b[g] : &call->b2[g];
}
static const char *weights_name(const gg_call *call, int product) {
  return !call->dual ? "b" : product == 0 ? "b1" : "b2";
}

/* An operand's name in messages: "a[3]" where `indexed`, else "a" (no formatting: see validate_group). */
static const char *operand_name(char *buffer, size_t size, const char *base, int g, int indexed) {
  if (!indexed) return base;
  snprintf(buffer, size, "%s[%d]", base, g);
  return buffer;
}

/* check_group(call, g, indexed): validates group g, its operands named as operand_name says; a group with
 * work must also suit the 16-byte copies of its data. */
static nvfp4_status check_group(const gg_call *call, int g, int indexed) {
  char buffer[32];
  const char *name = operand_name(buffer, sizeof buffer, "a", g, indexed);
  nvfp4_status status = call->dense != NULL ? nvfp4i_validate_dense(name, &call->dense[g], 0)
                                            : nvfp4i_validate_tensor(name, &call->a[g], 0);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  int64_t a_k = call->dense != NULL ? call->dense[g].k : call->a[g].k;
  int64_t a_batch = call->dense != NULL ? call->dense[g].batch : call->a[g].batch;
  if (a_batch != 1)
    return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "a[%d].batch = %lld: every group has batch 1", g,
                       (long long)a_batch);
  for (int p = 0; p < products(call); p++) {
    const nvfp4_tensor *b = weights(call, g, p);
    name = operand_name(buffer, sizeof buffer, weights_name(call, p), g, indexed);
    status = nvfp4i_validate_tensor(name, b, 0);
    if (status != NVFP4_STATUS_SUCCESS) return status;
    if (b->batch != 1)
      return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "%s.batch = %lld: every group has batch 1", name,
                         (long long)b->batch);
    if (b->k != a_k)
      return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "%s.k = %lld: must equal a[%d].k = %lld", name,
                         (long long)b->k, g, (long long)a_k);
    if (p > 0 && b->rows != call->b[g].rows)
      return nvfp4i_fail(NVFP4_STATUS_INVALID_VALUE, "%s.rows = %lld: must equal %s[%d].rows = %lld", name,
                         (long long)b->rows, weights_name(call, 0), g, (long long)call->b[g].rows);
  }
  name = operand_name(buffer, sizeof buffer, "c", g, indexed);
  status = nvfp4i_validate_output(name, &call->c[g], rows_a(call, g), call->b[g].rows, 1);
  if (status != NVFP4_STATUS_SUCCESS || !has_work(call, g)) return status;
  name = operand_name(buffer, sizeof buffer, "a", g, indexed);
  status = call->dense != NULL ? check_dense_copies(name, &call->dense[g])
                               : nvfp4i_grouped_gemm_check_copies(name, &call->a[g]);
  for (int p = 0; p < products(call) && status == NVFP4_STATUS_SUCCESS; p++) {
    name = operand_name(buffer, sizeof buffer, weights_name(call, p), g, indexed);
    status = nvfp4i_grouped_gemm_check_copies(name, weights(call, g, p));
  }
  return status;
}

/* Validates group g. The checks run with plain names first, formatting nothing (a call checks every group
 * on the host before it launches: 256 groups' names cost more than the rest of the call); a group that fails
 * is checked again with its index in the names, for the message. */
static nvfp4_status validate_group(const gg_call *call, int g) {
  nvfp4_status status = check_group(call, g, 0);
  return status == NVFP4_STATUS_SUCCESS ? status : check_group(call, g, 1);
}

/* How the producers copy an operand's scales: BLOCKED ones with a 16-byte aligned base as whole row blocks
 * (bulk), the rest row by row, as aligned 4-byte words where base and (LINEAR) row pitch allow, else bytes. */
static uint32_t scale_copy_flags(const nvfp4_tensor *t, uint32_t bulk, uint32_t words) {
  uintptr_t base = (uintptr_t)t->scales;
  if (t->sf_layout == NVFP4_SF_BLOCKED_128x4 && base % 16 == 0) return bulk;
  return base % 4 == 0 && (t->sf_layout != NVFP4_SF_LINEAR || t->rows == 1 || t->sf_ld % 4 == 0) ? words : 0;
}

/* Whether the W4A16 kernel may copy a row's two scale words of a stage as one 8-byte pair: LINEAR scales with
 * base and row pitch 8-byte aligned (a row's stage starts at a multiple of 8 bytes: K slices start at
 * multiples of GG_K_STEP). The other kernels ignore the flag. */
static uint32_t scale_pairs_flag(const nvfp4_tensor *t) {
  uintptr_t base = (uintptr_t)t->scales;
  return t->sf_layout == NVFP4_SF_LINEAR && base % 8 == 0 && (t->rows == 1 || t->sf_ld % 8 == 0)
             ? GG_F_B_SF_PAIRS
             : 0;
}

/* GG_F_C_VEC where an output of elements of esize bytes, rows ld elements apart, takes 4 adjacent elements as
 * one aligned store from any multiple of 4 columns on: the base a multiple of 4 elements' bytes, and ld of 4
 * elements (or a single row). */
static uint32_t c_vector_flag(uintptr_t base, int64_t ld, int64_t rows, int64_t esize) {
  return base % (uintptr_t)(4 * esize) == 0 && (rows == 1 || ld % 4 == 0) ? GG_F_C_VEC : 0;
}

/* Whether every group with work may run paired tiles: b2 addressed as b is (row pitch, scale steps), which
 * the kernel reads b2 by. Their scales go row by row, as words where both operands' allow (the second
 * argument of scale_copy_flags: a BLOCKED row block holds both halves of a pair, interleaved). */
static int pairs_fit(const gg_call *call) {
  for (int g = 0; g < call->num_groups; g++) {
    if (!has_work(call, g)) continue;
    const nvfp4_tensor *b = &call->b[g], *b2 = &call->b2[g];
    nvfp4i_sf_steps s = nvfp4i_sf_steps_of(b), s2 = nvfp4i_sf_steps_of(b2);
    if (b->ld != b2->ld || s.step128 != s2.step128 || s.step32 != s2.step32 || s.step1 != s2.step1 ||
        s.quad_step != s2.quad_step)
      return 0;
  }
  return 1;
}

/* An NVFP4 operand from element k0 of K on (k0 a multiple of GG_K_STEP): data and scales advanced, every
 * step (K itself included, which BLOCKED row steps derive from) unchanged. */
static nvfp4_tensor from_k(const nvfp4_tensor *t, int64_t k0) {
  nvfp4_tensor part = *t;
  part.data = (const void *)((uintptr_t)t->data + (uintptr_t)(k0 / 2));
  part.scales = (const void *)((uintptr_t)t->scales + (uintptr_t)(k0 / 64) * nvfp4i_sf_steps_of(t).quad_step);
  return part;
}

/* An NVFP4 operand from row r0 on (r0 a multiple of 128): data and scales advanced, every step unchanged. */
static nvfp4_tensor from_row(const nvfp4_tensor *t, int64_t r0) {
  nvfp4_tensor part = *t;
  part.data = (const void *)((uintptr_t)t->data + (uintptr_t)(r0 * t->ld));
  part.scales = (const void *)((uintptr_t)t->scales + (uintptr_t)(r0 / 128) * nvfp4i_sf_steps_of(t).step128);
  part.rows -= r0;
  return part;
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

/* Where the launches walk the scratch: group g's tokens and partials start token_offset and partial_offset
 * bytes in (the sums of the earlier groups' token_bytes and partial_bytes). */
typedef struct gg_cursor {
  uint64_t token_offset, partial_offset;
} gg_cursor;

/* What one part covers of its group: output columns [n0, n0 + n) and K elements [k0, k0 + k_len), written to
 * c (partials 0) or as f32 rows of ldp floats at partials. */
typedef struct gg_span {
  int64_t n0, n, k0, k_len;
  uintptr_t partials;
  uint32_t ldp;
} gg_span;

/* K slice `slice` (of `per` stages, the last one shorter) of group g's columns [n0, n0 + n), written to c. */
static gg_span slice_span(const gg_call *call, int g, int64_t n0, int64_t n, uint32_t per, uint32_t slice) {
  int64_t k = k_of(call, g), k0 = (int64_t)slice * per * GG_K_STEP, len = (int64_t)per * GG_K_STEP;
  return (gg_span){n0, n, k0, k - k0 < len ? k - k0 : len, 0, 0};
}

/* The descriptor of one part: span `span` of product `product` of group g (paired: n0 is 0 and K whole). */
static gg_desc part_desc(const gg_call *call, int g, int product, gg_span span, gg_cursor at) {
  int64_t m = rows_a(call, g), n = span.n, k = k_of(call, g), k0 = span.k0, k_len = span.k_len;
  const nvfp4_tensor whole_b = from_row(weights(call, g, product), span.n0);
  const nvfp4_tensor b = from_k(&whole_b, k0);
  nvfp4i_sf_steps bs = nvfp4i_sf_steps_of(&b);
  /* as for the activations: a single row's pitch and row steps are never used */
  int a_rows = m > 1, b_rows = n > 1;
  gg_desc d = {
      .b = (uintptr_t)b.data,
      .b_sf = (uintptr_t)b.scales,
      .b_step128 = b_rows ? bs.step128 : 0,
      .b_ld = b_rows ? (uint32_t)b.ld : 0,
      .b_step32 = b_rows ? (uint32_t)bs.step32 : 0,
      .b_step1 = b_rows ? (uint32_t)bs.step1 : 0,
      .b_qstep = bs.quad_step,
      .m = (uint32_t)m,
      .n = (uint32_t)n,
      .kbytes = (uint32_t)(k_len / 2),
      .t = tile_rows(call, m, call->cap),
      .flags = scale_copy_flags(&b, GG_F_B_SF_BULK, GG_F_B_SF_WORDS) | scale_pairs_flag(&b),
  };
  if (paired(call)) { /* whole K: b is b1 itself */
    const nvfp4_tensor *b2 = &call->b2[g];
    d.b2 = (uintptr_t)b2->data;
    d.b2_sf = (uintptr_t)b2->scales;
    d.alpha2 = call->alpha2;
    d.flags = GG_F_PAIRED | (scale_copy_flags(&b, GG_F_B_SF_WORDS, GG_F_B_SF_WORDS) &
                             scale_copy_flags(b2, GG_F_B_SF_WORDS, GG_F_B_SF_WORDS)) |
              (scale_pairs_flag(&b) & scale_pairs_flag(b2));
  }
  if (span.partials != 0) {
    d.c = span.partials;
    d.ldc = a_rows ? span.ldp : 0;
    d.flags |= NVFP4_DTYPE_F32 | c_vector_flag(d.c, span.ldp, m, sizeof(float));
  } else {
    const nvfp4_output *c = &call->c[g];
    d.c = (uintptr_t)c->data + (uintptr_t)span.n0 * (uintptr_t)nvfp4i_dtype_size(c->dtype);
    d.ldc = (uint64_t)(a_rows ? c->ld : 0);
    d.flags |= (uint32_t)c->dtype | c_vector_flag(d.c, c->ld, m, nvfp4i_dtype_size(c->dtype));
  }
  if (call->b_tiles) {
    /* column blocks of m rows x 128 bytes; the slice starts k0 / 64 blocks in */
    d.a = call->a_f16 + at.token_offset + (uint64_t)(k0 / GDQ_B_TILE_BLOCK_K) * (uint64_t)m * GDQ_B_TILE_ROW_BYTES;
    d.a_ld = (uint32_t)m * GDQ_B_TILE_ROW_BYTES;
    d.flags |= GG_F_A_B_TILES;
  } else if (call->f16_tokens) {
    const nvfp4_dense tokens = {(const void *)(call->a_f16 + at.token_offset + (uint64_t)k0 * 2), m, k, 1, k, 0,
                                NVFP4_DTYPE_F16};
    describe_dense_activations(&d, &tokens);
  } else if (call->dense != NULL) {
    nvfp4_dense tokens = call->dense[g];
    tokens.data = (const void *)((uintptr_t)tokens.data + (uintptr_t)k0 * nvfp4i_dtype_size(tokens.dtype));
    describe_dense_activations(&d, &tokens);
  } else {
    const nvfp4_tensor tokens = from_k(&call->a[g], k0);
    describe_nvfp4_activations(&d, &tokens);
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

/* The launch shape of the W4A16 entries on the handle's path for token tiles of up to t_max rows: GG_P_RING's
 * word, dynamic shared memory, and the persistent grid for `tiles` tiles. sm_90a: as many load slots as
 * shared memory holds, one CTA per SM; portable: PG_STAGES slots (a literal of the kernel), as many CTAs per SM
 * as registers and shared memory let stay resident, and where the grid leaves SMs room, each CTA asks for the
 * share of an SM's shared memory that lets no more CTAs on it than the grid needs (ceil(grid / SMs)). The GPU
 * fills an SM before it moves on where it can, so without the shares a grid launched while the previous one
 * still ran crowded its CTAs onto the SMs that one had left (gg4 at three an SM took 38 us in a batch of calls
 * against 33 alone, docs/PERFORMANCE.md). */
static uint32_t w4a16_launch_shape(const nvfp4_handle *h, nvfp4i_kernel_id id, uint32_t t_max, uint32_t tiles,
                                   unsigned *smem_bytes, unsigned *grid) {
  uint32_t ring;
  unsigned per_sm = 1;
  if (h->path == NVFP4I_PATH_SM90A) {
    ring = w4a16_ring_config(t_max, smem_bytes);
  } else {
    *smem_bytes = PG_SMEM_BYTES;
    ring = PG_STAGES | t_max << 16;
    per_sm = portable_ctas_per_sm(h, id);
  }
  uint64_t most = (uint64_t)h->sm_count * per_sm;
  *grid = (unsigned)(tiles < most ? tiles : most);
  if (h->path != NVFP4I_PATH_SM90A && *grid > 0) {
    unsigned need = (*grid + (unsigned)h->sm_count - 1) / (unsigned)h->sm_count;
    unsigned share = (unsigned)h->smem_per_sm / need - 1024; /* 1 KB: the driver's own per CTA */
    share = share / 128 * 128;
    if (share > (unsigned)h->kernels[id].max_dynamic_smem) share = (unsigned)h->kernels[id].max_dynamic_smem;
    if (need < per_sm && share > *smem_bytes) *smem_bytes = share;
  }
  return ring;
}

/* A launch being filled: its parameter block, descriptors in the call's order until launch_params. */
static void add_desc(gg_params *params, gg_desc d) { params->desc[params->num_groups++] = d; }

/* The block's descriptors in descending t, the call's order kept among equal t (the snake schedule then pairs
 * the largest tiles with the smallest): a counting sort of their places by t, applied in place by cycles, so
 * a block of 256 groups moves each descriptor once. */
static void order_by_t(gg_params *params) {
  enum { WIDTHS = GG_T_MAX / GG_T_GRAIN };
  uint32_t next[WIDTHS] = {0};
  uint16_t dest[GG_MAX_GROUPS];
  for (uint32_t i = 0; i < params->num_groups; i++) next[(GG_T_MAX - params->desc[i].t) / GG_T_GRAIN]++;
  for (uint32_t b = 0, start = 0; b < WIDTHS; b++) {
    uint32_t count = next[b];
    next[b] = start;
    start += count;
  }
  for (uint32_t i = 0; i < params->num_groups; i++)
    dest[i] = (uint16_t)next[(GG_T_MAX - params->desc[i].t) / GG_T_GRAIN]++;
  for (uint32_t i = 0; i < params->num_groups; i++)
    while (dest[i] != i) { /* swap descriptor i into its place; what was there comes to i */
      uint16_t j = dest[i];
      gg_desc d = params->desc[j];
      params->desc[j] = params->desc[i];
      params->desc[i] = d;
      dest[i] = dest[j];
      dest[j] = j;
    }
}

/* The B-tile family's entry for launches whose tiles all have t = 32, where the image has it; else `id` itself.
 * sm_90a: the stage of the entry of mixed widths at one width, so that ptxas lets each warpgroup's decode
 * overlap its own wgmmas (docs/PERFORMANCE.md, sixteenth session); portable: two token groups a step, half
 * the mma (ptx/sm80/grouped_gemm_w4a16.ptx). */
static nvfp4i_kernel_id t32_entry(const nvfp4_handle *h, nvfp4i_kernel_id id) {
  nvfp4i_kernel_id t32 = id;
  if (id == NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16_TILES) t32 = NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16_TILES_T32;
  if (id == NVFP4I_KERNEL_GROUPED_GEMM_W4A16_BF16_TILES) t32 = NVFP4I_KERNEL_GROUPED_GEMM_W4A16_BF16_TILES_T32;
  return h->kernels[t32].fn != NULL ? t32 : id;
}

/* Launches the filled parameter block: descriptor order, tile numbering, ring, grid. */
static nvfp4_status launch_params(nvfp4_handle *h, const gg_call *call, gg_params *params, CUstream stream) {
  uint32_t t_max = 0;
  order_by_t(params);
  params->total_tiles = 0;
  for (uint32_t i = 0; i < params->num_groups; i++) {
    gg_desc *d = &params->desc[i];
    d->tile_start = params->total_tiles;
    uint32_t cols = d->flags & GG_F_PAIRED ? GG_PAIR_N : GG_TILE_N;
    params->total_tiles += (uint32_t)((d->n + cols - 1) / cols) * ((d->m + d->t - 1) / d->t);
    if (d->t > t_max) t_max = d->t;
  }
  unsigned smem_bytes, grid;
  nvfp4i_kernel_id id = call_kernel(call);
  if (w4a16_launches(call) && t_max <= GG_T_GRAIN) id = t32_entry(h, id);
  if (w4a16_launches(call)) {
    params->ring = w4a16_launch_shape(h, id, t_max, params->total_tiles, &smem_bytes, &grid);
  } else {
    params->ring = ring_config(t_max, &smem_bytes);
    grid = params->total_tiles < (uint32_t)h->sm_count ? params->total_tiles : (unsigned)h->sm_count;
  }
  void *args[] = {params};
  nvfp4i_launch launch = {
      .grid = {grid, 1, 1},
      .block = {(unsigned)h->kernels[id].threads, 1, 1},
      .dynamic_smem = smem_bytes,
      .params = args,
      /* the W4A16 entries set up while the kernel before them runs (the grouped dequantize, or whatever
       * came before the call) and wait for it before their first load */
      .early_start = w4a16_launches(call),
  };
  return nvfp4i_launch_kernel(h, id, &launch, stream);
}

/* What the launches being made need before the first of them (the call planned): every launch's tile
 * count within GG_P_TOTAL_TILES' 32 bits (parts counted into launches as launch_all deals them), and their
 * entry in the image if there is any work. */
static nvfp4_status check_launches(const nvfp4_handle *h, const gg_call *call) {
  uint64_t tiles = 0;
  uint32_t parts = 0;
  for (int g = 0; g < call->num_groups; g++)
    for (int p = 0; takes(call, g) && p < parts_per_slice(call); p++)
      for (uint32_t s = 0; s < group_slices(call, g); s++) {
        if (parts++ % GG_MAX_GROUPS == 0) tiles = 0;
        tiles += group_tiles(call, g, call->cap);
        if (tiles > UINT32_MAX)
          return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "group %d: more than 2^32 tiles in one launch", g);
      }
  /* the last round's split: its parts in the launch that takes its group, after all the others */
  for (uint32_t s = 0; has_tail(call) && takes(call, call->tail_group) && s < tail_slices(call); s++) {
    if (parts++ % GG_MAX_GROUPS == 0) tiles = 0;
    tiles += tail_tiles(call);
    if (tiles > UINT32_MAX)
      return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED, "group %d: more than 2^32 tiles in one launch",
                         call->tail_group);
  }
  return parts > 0 ? nvfp4i_check_kernel(h, call_kernel(call)) : NVFP4_STATUS_SUCCESS;
}

/* Adds descriptor d to the launch being filled, launching the block first where it is full. */
static nvfp4_status add_part(nvfp4_handle *h, const gg_call *call, gg_params *params, gg_desc d, CUstream stream) {
  if (params->num_groups == GG_MAX_GROUPS) {
    nvfp4_status status = launch_params(h, call, params, stream);
    if (status != NVFP4_STATUS_SUCCESS) return status;
    params->num_groups = 0;
  }
  add_desc(params, d);
  return NVFP4_STATUS_SUCCESS;
}

/* Launches every part of the groups the call takes, GG_MAX_GROUPS parts to a launch, on the stream in group
 * order, the last round's split's parts last. Those write their partials with alpha applied: the launch's
 * other parts write c. */
static nvfp4_status launch_all(nvfp4_handle *h, const gg_call *call, CUstream stream) {
  gg_params params = {.alpha = call->partials != 0 ? 1.0f : call->alpha}; /* partials: alpha at the finish */
  gg_cursor at = {0, 0}, tail_at = {0, 0};
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  for (int g = 0; g < call->num_groups; g++) {
    uint32_t ldp = nvfp4i_finish_ldp(call->b[g].rows), per = slice_stages(call, g);
    for (int p = 0; takes(call, g) && p < parts_per_slice(call); p++)
      for (uint32_t s = 0; s < group_slices(call, g) && status == NVFP4_STATUS_SUCCESS; s++) {
        gg_span span = slice_span(call, g, 0, main_cols(call, g), per, s);
        if (call->partials != 0) {
          uint64_t index = (uint64_t)p * group_slices(call, g) + s;
          span.partials = call->partials + at.partial_offset + index * (uint64_t)rows_a(call, g) * ldp * sizeof(float);
          span.ldp = ldp;
        }
        status = add_part(h, call, &params, part_desc(call, g, p, span, at), stream);
      }
    if (g == call->tail_group) tail_at = at;
    at.token_offset += token_bytes(call, g);
    at.partial_offset += partial_bytes(call, g);
  }
  int g = call->tail_group;
  uint32_t ldp = has_tail(call) ? nvfp4i_finish_ldp(tail_cols(call)) : 0;
  for (uint32_t s = 0; has_tail(call) && takes(call, g) && s < tail_slices(call) && status == NVFP4_STATUS_SUCCESS;
       s++) {
    gg_span span = slice_span(call, g, call->tail_n0, tail_cols(call), call->tail_per, s);
    span.partials = call->tail_partials + (uint64_t)s * (uint64_t)rows_a(call, g) * ldp * sizeof(float);
    span.ldp = ldp;
    status = add_part(h, call, &params, part_desc(call, g, 0, span, tail_at), stream);
  }
  if (status != NVFP4_STATUS_SUCCESS) return status;
  return params.num_groups > 0 ? launch_params(h, call, &params, stream) : NVFP4_STATUS_SUCCESS;
}

/* Every group's partials summed, scaled, gated (dual) and written to c, GF_MAX_GROUPS groups to a launch. */
static nvfp4_status finish_all(nvfp4_handle *h, const gg_call *call, CUstream stream) {
  nvfp4i_finish_group batch[GF_MAX_GROUPS];
  uint32_t mode = call->dual ? GF_MODE_SILU_MUL : GF_MODE_SUM;
  int count = 0;
  uint64_t offset = 0;
  for (int g = 0; g < call->num_groups; g++) {
    if (!has_work(call, g)) continue;
    uint32_t m = (uint32_t)rows_a(call, g), ldp = nvfp4i_finish_ldp(call->b[g].rows);
    uint32_t slices = group_slices(call, g);
    uintptr_t gate = call->partials + offset;
    batch[count++] = (nvfp4i_finish_group){
        .gate = gate,
        .up = call->dual ? gate + (uint64_t)slices * m * ldp * sizeof(float) : 0,
        .m = m,
        .n = (uint32_t)call->b[g].rows,
        .ldp = ldp,
        .slices = slices,
        .c = &call->c[g],
    };
    offset += partial_bytes(call, g);
    if (count == GF_MAX_GROUPS) {
      nvfp4_status status = nvfp4i_grouped_finish(h, count, batch, mode, call->alpha, call->alpha2, stream);
      if (status != NVFP4_STATUS_SUCCESS) return status;
      count = 0;
    }
  }
  return count > 0 ? nvfp4i_grouped_finish(h, count, batch, mode, call->alpha, call->alpha2, stream)
                   : NVFP4_STATUS_SUCCESS;
}

/* The last round's split's partials summed in slice order into its columns of c (alpha already applied). */
static nvfp4_status finish_tail(nvfp4_handle *h, const gg_call *call, CUstream stream) {
  int g = call->tail_group;
  const nvfp4_output *whole = &call->c[g];
  nvfp4_output c = *whole;
  c.data = (void *)((uintptr_t)whole->data + (uintptr_t)call->tail_n0 * (uintptr_t)nvfp4i_dtype_size(whole->dtype));
  const nvfp4i_finish_group part = {
      .gate = call->tail_partials,
      .m = (uint32_t)rows_a(call, g),
      .n = (uint32_t)tail_cols(call),
      .ldp = nvfp4i_finish_ldp(tail_cols(call)),
      .slices = tail_slices(call),
      .c = &c,
  };
  return nvfp4i_grouped_finish(h, 1, &part, GF_MODE_SUM, 1.0f, 0.0f, stream);
}

/* Every group's tokens into the scratch at call->a_f16, DEQUANTIZE_BATCH groups to a launch: NVFP4 ones
 * dequantized to f16, dense ones copied into B tiles (a group without work gets rows = 0: its pointers may be
 * NULL). */
static nvfp4_status tokens_to_scratch(nvfp4_handle *h, const gg_call *call, CUstream stream) {
  enum { DEQUANTIZE_BATCH = 64 };
  nvfp4_tensor tokens[DEQUANTIZE_BATCH];
  nvfp4_dense dense[DEQUANTIZE_BATCH];
  void *tokens_f16[DEQUANTIZE_BATCH];
  int64_t ld[DEQUANTIZE_BATCH];
  uint64_t next = 0;
  nvfp4_status status = NVFP4_STATUS_SUCCESS;
  for (int first = 0; first < call->num_groups && status == NVFP4_STATUS_SUCCESS; first += DEQUANTIZE_BATCH) {
    int count = call->num_groups - first < DEQUANTIZE_BATCH ? call->num_groups - first : DEQUANTIZE_BATCH;
    for (int i = 0; i < count; i++) {
      int g = first + i;
      if (call->dense != NULL) {
        dense[i] = call->dense[g];
        if (!has_work(call, g)) dense[i].rows = 0;
      } else {
        tokens[i] = call->a[g];
        ld[i] = tokens[i].k;
        if (!has_work(call, g)) tokens[i].rows = 0;
      }
      tokens_f16[i] = (void *)(call->a_f16 + next);
      next += token_bytes(call, g);
    }
    if (call->dense != NULL)
      status = nvfp4i_grouped_b_tiles_of_dense(h, count, dense, tokens_f16, stream);
    else if (call->b_tiles)
      status = nvfp4i_grouped_dequantize_b_tiles(h, count, tokens, tokens_f16, NVFP4_DTYPE_F16, stream);
    else
      status = nvfp4i_grouped_dequantize(h, count, tokens, tokens_f16, ld, NVFP4_DTYPE_F16, stream);
  }
  return status;
}

/* The scratch a call may use: the handle's pool, unless it has none. */
static int has_scratch(const nvfp4_handle *h) { return h->scratch_pool != NULL; }

/* NVFP4 activations go through the W4A16 kernel: every group's tokens dequantized to f16 once (exact: every
 * e2m1 x e4m3 value is an f16), into scratch, then the W4A16 f16 entry multiplies them by the weights. The
 * fused entry decodes each token tile again for every 128 weight rows (32-56 times a call on the GPU MODE
 * shapes); this way is faster on every one of them (docs/PERFORMANCE.md). The fused entry runs instead with
 * NVFP4_GROUPED_FUSED=1, without scratch (`scratch` 0), or when an entry is missing. */
static int tokens_dequantized(const nvfp4_handle *h, const gg_call *call, int scratch) {
  return call->a != NULL && scratch && !h->grouped_fused &&
         h->kernels[NVFP4I_KERNEL_GROUPED_GEMM_W4A16_F16].fn != NULL &&
         h->kernels[NVFP4I_KERNEL_GROUPED_DEQUANTIZE].fn != NULL;
}

/* Whether the tokens go into scratch as B tiles: dequantized NVFP4 ones, or dense ones where there is scratch
 * (`scratch`; and NVFP4_W4A16_IN_PLACE is not set); with the grouped dequantize and the image's entries of
 * mixed widths for B tiles of every type the call has, where every group's column block, rows x 128 bytes, fits
 * GG_D_A_LD's 32 bits. Both paths: the B-tile entries decode the weights in the tiles' K order, fewer
 * instructions than the natural order's. */
static int b_tiles_fit(const nvfp4_handle *h, const gg_call *call, int scratch) {
  if (!(call->f16_tokens || (call->dense != NULL && scratch && !h->w4a16_in_place)) ||
      h->kernels[NVFP4I_KERNEL_GROUPED_DEQUANTIZE].fn == NULL)
    return 0;
  for (int g = 0; g < call->num_groups; g++) {
    if (!has_work(call, g)) continue;
    nvfp4_dtype type = call->dense != NULL ? call->dense[g].dtype : NVFP4_DTYPE_F16;
    if (h->kernels[w4a16_entry(w4a16_family(type, 1), 0, 0)].fn == NULL ||
        (uint64_t)rows_a(call, g) * GDQ_B_TILE_ROW_BYTES > UINT32_MAX)
      return 0;
  }
  return 1;
}

/* The launches once the call has been checked and planned, with `scratch` (0: none) laid out as the call's
 * a_f16 and partials say: dequantize, GEMM, finish; the dense calls one series of GEMM launches per
 * activation type (each type has an entry of its own). */
static nvfp4_status run_launches(nvfp4_handle *h, gg_call *call, CUstream stream) {
  nvfp4_status status = tokens_in_scratch(call) ? tokens_to_scratch(h, call, stream) : NVFP4_STATUS_SUCCESS;
  static const nvfp4_dtype act_types[] = {NVFP4_DTYPE_F16, NVFP4_DTYPE_BF16};
  for (int p = 0; p < (call->dense != NULL ? 2 : 1) && status == NVFP4_STATUS_SUCCESS; p++) {
    call->act_dtype = act_types[p];
    status = launch_all(h, call, stream);
  }
  if (status == NVFP4_STATUS_SUCCESS && call->partials != 0) status = finish_all(h, call, stream);
  if (status == NVFP4_STATUS_SUCCESS && has_tail(call)) status = finish_tail(h, call, stream);
  return status;
}

/* The call's way through the kernels, where it may take scratch from the handle's pool (`scratch`) or not:
 * its activations' route (dequantized tokens, B tiles, the dual GEMM's pairs), the entries the image has for
 * it, the plan (entry, token tiles, K slices: none without scratch, which holds the partials), and every
 * launch checked. Nothing is launched. */
static nvfp4_status route_call(nvfp4_handle *h, gg_call *call, int scratch) {
  call->f16_tokens = tokens_dequantized(h, call, scratch);
  call->b_tiles = b_tiles_fit(h, call, scratch);
  call->pairable = call->dual && call->b_tiles && h->path == NVFP4I_PATH_SM90A && pairs_fit(call);
  call->cap_max = h->path == NVFP4I_PATH_SM90A ? GG_T_MAX : PG_T_MAX;
  find_entries(h, call);
  if (call->a != NULL && !scratch && nvfp4i_kernel_name(h->path, NVFP4I_KERNEL_GROUPED_GEMM) == NULL)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED,
                       "the %s kernel path runs NVFP4 activations dequantized to f16 in scratch from a memory "
                       "pool, and this device has none",
                       nvfp4i_path_name(h->path));
  if (call->dual && !scratch)
    return nvfp4i_fail(NVFP4_STATUS_NOT_SUPPORTED,
                       "the dual GEMM needs scratch from a memory pool, and this device has none");
  /* K slices only where the finishing kernel is there to add them up; a dual GEMM whose products cannot
   * pair needs it whatever the plan */
  int may_split = scratch && h->kernels[NVFP4I_KERNEL_GROUPED_FINISH].fn != NULL;
  plan_call_memo(h, call, may_split);
  nvfp4_status status = needs_finish(call) || has_tail(call) ? nvfp4i_check_kernel(h, NVFP4I_KERNEL_GROUPED_FINISH)
                                                             : NVFP4_STATUS_SUCCESS;
  for (int p = 0; p < (call->dense != NULL ? 2 : 1) && status == NVFP4_STATUS_SUCCESS; p++) {
    call->act_dtype = p == 0 ? NVFP4_DTYPE_F16 : NVFP4_DTYPE_BF16;
    status = check_launches(h, call);
  }
  return status;
}

/* The whole call: the handle and arrays, every group, and every launch are checked before anything
 * launches. Then the plan, the scratch (stream-ordered from the handle's pool: capturable, no allocation
 * on the device's side once the pool has grown), the launches, and the scratch freed in stream order. */
static nvfp4_status grouped_call(nvfp4_handle *h, gg_call *call, CUstream stream) {
  const nvfp4_status bad = NVFP4_STATUS_INVALID_VALUE;
  int groups = call->num_groups;
  if (h == NULL) return nvfp4i_fail(bad, "h is NULL");
  if (groups < 0) return nvfp4i_fail(bad, "num_groups = %d: must be >= 0", groups);
  if (groups > 0 && call->a == NULL && call->dense == NULL) return nvfp4i_fail(bad, "a is NULL");
  if (groups > 0 && call->b == NULL) return nvfp4i_fail(bad, "%s is NULL", weights_name(call, 0));
  if (groups > 0 && call->dual && call->b2 == NULL) return nvfp4i_fail(bad, "b2 is NULL");
  if (groups > 0 && call->c == NULL) return nvfp4i_fail(bad, "c is NULL");
  for (int g = 0; g < groups; g++) {
    nvfp4_status status = validate_group(call, g);
    if (status != NVFP4_STATUS_SUCCESS) return status;
  }
  int work = 0;
  for (int g = 0; g < groups && !work; g++) work = has_work(call, g);
  if (!work) return NVFP4_STATUS_SUCCESS;
  nvfp4_status status = route_call(h, call, has_scratch(h));
  if (status != NVFP4_STATUS_SUCCESS) return status;
  int partials = needs_finish(call);
  uint64_t token_total = 0, partial_total = 0;
  for (int g = 0; g < groups; g++) {
    token_total += tokens_in_scratch(call) ? token_bytes(call, g) : 0;
    partial_total += partials ? partial_bytes(call, g) : 0;
  }
  /* the portable kernel copies a token tile's rows past M from what follows its column block (products it
   * never stores): after the last group's, up to PG_T_MAX rows of slack */
  if (call->b_tiles && h->path != NVFP4I_PATH_SM90A && token_total > 0)
    token_total += PG_T_MAX * GDQ_B_TILE_ROW_BYTES;
  uint64_t tail_total = tail_partial_bytes(call);
  if (token_total + partial_total + tail_total == 0) return run_launches(h, call, stream);

  /* the scratch calls take the thread's current context (the launches enter the handle's on their own) */
  const nvfp4i_cuda_table *cu = nvfp4i_cuda();
  int pushed;
  status = nvfp4i_context_enter(h, &pushed);
  if (status != NVFP4_STATUS_SUCCESS) return status;
  CUdeviceptr scratch;
  CUresult r =
      cu->cuMemAllocFromPoolAsync(&scratch, token_total + partial_total + tail_total, h->scratch_pool, stream);
  if (r != CUDA_SUCCESS) {
    nvfp4i_context_leave(pushed);
    /* without scratch (the pool could not grow): the call routed, planned and checked again as on a device
     * without pools, the fused entry taking NVFP4 activations and the W4A16 entries of mixed widths dense ones
     * in place, whole K; where that way is refused (the dual GEMM, the portable path's NVFP4 activations, an
     * image without the fused entry), the allocation's failure is the call's */
    if (route_call(h, call, 0) != NVFP4_STATUS_SUCCESS)
      return nvfp4i_cuda_fail(r, call->dual ? "cuMemAllocFromPoolAsync (the dual GEMM's scratch)"
                                            : "cuMemAllocFromPoolAsync (the grouped GEMM's scratch)");
    return run_launches(h, call, stream);
  }
  call->a_f16 = (uintptr_t)scratch;
  call->partials = partials ? (uintptr_t)scratch + token_total : 0;
  call->tail_partials = has_tail(call) ? (uintptr_t)scratch + token_total + partial_total : 0;
  status = run_launches(h, call, stream);
  r = cu->cuMemFreeAsync(scratch, stream);
  if (r != CUDA_SUCCESS && status == NVFP4_STATUS_SUCCESS) status = nvfp4i_cuda_fail(r, "cuMemFreeAsync");
  nvfp4i_context_leave(pushed);
  return status;
}

nvfp4_status nvfp4i_grouped_gemm(nvfp4_handle *h, int num_groups, const nvfp4_tensor *a, const nvfp4_tensor *b,
                                 const nvfp4_output *c, float alpha, CUstream stream) {
  gg_call call = {.num_groups = num_groups, .a = a, .b = b, .c = c, .alpha = alpha};
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
  gg_call call = {.num_groups = num_groups, .dense = a, .b = b, .c = c, .alpha = alpha};
  return grouped_call(h, &call, stream);
}

NVFP4_API nvfp4_status nvfp4_grouped_dual_gemm_silu(nvfp4_handle *h, int num_groups, const nvfp4_tensor *a,
                                                    const nvfp4_tensor *b1, const nvfp4_tensor *b2,
                                                    const nvfp4_output *c, float alpha1, float alpha2,
                                                    CUstream stream) {
  nvfp4i_clear_error();
  gg_call call = {.num_groups = num_groups, .a = a, .b = b1, .b2 = b2, .c = c, .alpha = alpha1,
                  .alpha2 = alpha2, .dual = 1};
  return grouped_call(h, &call, stream);
}
