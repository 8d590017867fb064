/*
 * nvfp4.h - NVFP4 (FP4 E2M1 values, one FP8 E4M3 scale per 16 elements along K) kernels for
 * NVIDIA GPUs (sm_90a: H100, H200): batched GEMV, grouped GEMM and batched dense GEMM with f32 accumulation,
 * the first two also with dense f16 or bf16 activations (W4A16), and dequantization to f16, bf16 or f32.
 *
 * Data. An NVFP4 element is a 4-bit e2m1 code (0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives; bit 3 is
 * the sign), two per byte along K with the even k in the low nibble. Every 16 consecutive elements of a
 * row along K share one e4m3 scale byte (OCP e4m3fn: 0x7F and 0xFF are NaN); an element's value is its
 * e2m1 value times its scale. All operands and outputs live in device memory.
 *
 * Results. C = alpha * A * B^T with exact products and f32 accumulation, rounded once to the output type
 * (round to nearest even, overflow to +-infinity). A NaN scale makes every output that reads it NaN.
 * docs/ACCURACY.md states the bar every result meets against a float64 reference.
 *
 * Calls. Every operation is asynchronous on the given stream (NULL is the legacy default stream; a
 * cudaStream_t converts to CUstream), makes no allocation and no host-device synchronisation per call, and
 * can be captured in a CUDA graph. The arrays and structs a call takes live in host memory and are read
 * during the call only: they may be freed or changed as soon as it returns. A handle is immutable after
 * nvfp4_create() but for its one option (nvfp4_set_weights_stable, which each call reads once), so one
 * handle may be used from several host threads at once. The library never prints and never aborts.
 *
 * Early start. On sm_90a the GEMVs, nvfp4_quantize, nvfp4_dequantize and the kernels of the grouped, dense
 * and dual GEMMs (but NVFP4_GROUPED_FUSED's kernel) are launched with programmatic dependent launch: a
 * kernel may start while the kernel before it on the stream still runs, and it waits for that kernel to end
 * before it reads or writes anything that kernel may touch, so stream order holds as with any launch. What
 * the start saves is the gap between dependent calls (a decode step's GEMVs: ~2-3 us of launch each; ~1.5 us
 * a grouped call);
 * nvfp4_set_weights_stable lets a GEMV also read its weights before that wait.
 *
 * Errors. On any error nothing is launched, no output byte is written, and nvfp4_last_error() holds a
 * message naming the offending field (thread-local, valid until the next call on this thread).
 * docs/LIMITS.md lists every limit and the status a call returns past it.
 *
 * Environment (read once, at nvfp4_create):
 *   NVFP4_FATBIN=path   load this .fatbin / .cubin / .ptx instead of the embedded kernels (tuning); it
 *                       may hold one kernel family: an operation whose kernel it lacks returns NOT_SUPPORTED
 *   NVFP4_LIBCUDA=path  open this driver library instead of libcuda.so.1 (read once per process)
 *
 * Call order: nvfp4_create() on a thread whose current CUDA context is the one to use (or with none,
 * to use device 0's primary context); then any number of operations; then nvfp4_destroy().
 */
#ifndef NVFP4_H
#define NVFP4_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NVFP4_VERSION_MAJOR 0
#define NVFP4_VERSION_MINOR 1
#define NVFP4_VERSION_PATCH 0
#define NVFP4_VERSION_NUMBER /* unsigned, as nvfp4_version() returns it */ \
  (NVFP4_VERSION_MAJOR * 10000u + NVFP4_VERSION_MINOR * 100u + NVFP4_VERSION_PATCH)

#if defined(_WIN32)
#define NVFP4_API
#else
#define NVFP4_API __attribute__((visibility("default")))
#endif

/* The driver's stream type, so that this header needs no CUDA header. cudaStream_t converts to it. */
#ifndef __cuda_cuda_h__
typedef struct CUstream_st *CUstream;
#endif

typedef enum nvfp4_status {
  NVFP4_STATUS_SUCCESS = 0,
  NVFP4_STATUS_INVALID_VALUE = 1, /* NULL where a pointer is needed, negative/zero size, stride too small, bad enum */
  NVFP4_STATUS_NOT_SUPPORTED = 2, /* valid request this build or device cannot serve (see nvfp4_last_error) */
  NVFP4_STATUS_NO_DRIVER = 3,     /* libcuda could not be loaded */
  NVFP4_STATUS_NO_DEVICE = 4,     /* no usable GPU / no context */
  NVFP4_STATUS_CUDA_ERROR = 5,    /* a driver call failed; nvfp4_last_error() has the driver's name and string */
  NVFP4_STATUS_OUT_OF_MEMORY = 6,
} nvfp4_status;

/* Encoded as NVFP4_VERSION_NUMBER; compare with the macro to detect a header/library mismatch. */
NVFP4_API unsigned nvfp4_version(void);

/* Static string naming the status, never NULL (unknown values give "unknown status"). */
NVFP4_API const char *nvfp4_status_string(nvfp4_status s);

/* Thread-local detail of the last failure on this thread ("" when none). */
NVFP4_API const char *nvfp4_last_error(void);

typedef struct nvfp4_handle nvfp4_handle; /* opaque */

/* Binds to the calling thread's current CUDA context, or retains device 0's primary context if there is
 * none. Loads every kernel up front. *out is set to NULL on failure. NO_DRIVER: libcuda.so.1 could not be
 * opened; NO_DEVICE: no usable GPU; NOT_SUPPORTED: the kernel image has no code for this GPU. Each call
 * on the handle makes its context current for the call's duration where another one is current. */
NVFP4_API nvfp4_status nvfp4_create(nvfp4_handle **out);

/* Releases the handle's module (and the primary context it retained, if any). NULL is a no-op. The caller
 * makes sure no work launched through the handle is still running. */
NVFP4_API nvfp4_status nvfp4_destroy(nvfp4_handle *h);

/* The weights-stable option of a handle (enable = 1: on; 0: off, the default). It tells the library that the
 * weights of its GEMV calls, A's data and A's scales in nvfp4_gemv and nvfp4_gemv_w4a16, are not written by
 * the work on the stream before the call that may still be running when the call's kernel starts. With it
 * on, the GEMV kernel starts loading A and its scales before it waits for the kernel before it to end (only
 * x and y wait), which hides the gap between back-to-back GEMVs; with it off, it loads nothing before that
 * wait. x is never read early: it may be written by the kernel just before (the previous layer's output).
 *
 * The caller's promise, for every GEMV call made on the handle while the option is on: no kernel or copy
 * enqueued before the call on its stream that has not completed when the call's kernel starts writes
 * A's data or scales. Since a kernel of this library may start while the one before it runs, a run of
 * consecutive calls of this library on a stream may overlap back to its first; work of any other kind
 * between them (a memcpy, an event wait, a kernel launched without programmatic dependent launch) ends
 * such a run only once it has itself completed, and a kernel of your own that writes the weights must not
 * be the one just before. The simple way to keep it: write the weights (upload, quantize, relayout), make
 * the stream wait for that (cuStreamSynchronize, or an event recorded after the write), then run the GEMVs
 * that read them, as a model does with its weights. A broken promise is not detected: the GEMV may read
 * weights partly old and partly new, and its results are then wrong, with no error.
 *
 * The option belongs to the handle and is read once by each GEMV call, when the call is made (not when its
 * kernel runs): a call made while another thread changes it sees the old or the new value. Setting it
 * neither synchronises nor launches anything. INVALID_VALUE (naming the argument): h NULL, or enable other
 * than 0 or 1. */
NVFP4_API nvfp4_status nvfp4_set_weights_stable(nvfp4_handle *h, int enable);

/* Where the scale of (row r, block j = k/16) of one batch lies, in bytes from `scales`:
 *   NVFP4_SF_LINEAR: r*sf_ld + j (row-major).
 *   NVFP4_SF_BLOCKED_128x4 (cuBLAS's and tcgen05's layout, "reordered" in GPU MODE): rows padded to a
 *     multiple of 128 and blocks to a multiple of 4; each tile of 128 rows x 4 blocks is 512 contiguous
 *     bytes, tiles stored row-tile-major:
 *       tile = (r/128) * ceil(K/64) + j/4
 *       offset = tile*512 + (r%32)*16 + ((r%128)/32)*4 + j%4
 *     One batch spans ceil(rows/128) * ceil(K/64) * 512 bytes. Padding bytes may hold anything: they never
 *     change a result. */
typedef enum nvfp4_sf_layout {
  NVFP4_SF_LINEAR = 0,
  NVFP4_SF_BLOCKED_128x4 = 1
} nvfp4_sf_layout;

typedef enum nvfp4_dtype { NVFP4_DTYPE_F16 = 0, NVFP4_DTYPE_BF16 = 1, NVFP4_DTYPE_F32 = 2 } nvfp4_dtype;

/* An NVFP4 operand: rows x k logical elements per batch, K-major. Row r of batch b starts at byte
 * data + b*batch_stride + r*ld; its scales lie at scales + b*sf_batch_stride + (the layout's offset).
 * The kernels load data 16 bytes at a time: data must be 16-byte aligned, ld a multiple of 16 where there
 * are two rows or more, batch_stride a multiple of 16 where there are two batches or more
 * (NOT_SUPPORTED otherwise). Scales may lie at any byte address with any sf_ld. K must be a multiple of
 * 32 (NOT_SUPPORTED otherwise); rows and k are below 2^31. */
typedef struct nvfp4_tensor {
  const void *data;           /* device pointer to packed e2m1, even k in the low nibble */
  const void *scales;         /* device pointer to e4m3 block scales */
  int64_t rows, k, batch;     /* batch >= 1 */
  int64_t ld;                 /* bytes between consecutive rows of data, >= k/2 */
  int64_t batch_stride;       /* bytes between consecutive batches of data */
  int64_t sf_ld;              /* LINEAR: bytes between rows of scales, >= k/16; ignored for BLOCKED */
  int64_t sf_batch_stride;    /* bytes between consecutive batches of scales */
  nvfp4_sf_layout sf_layout;
} nvfp4_tensor;

/* A dense row-major output: rows x cols per batch. Element (r, c) of batch b is at
 * data + (b*batch_stride + r*ld + c) elements. data must be aligned to its element (2 bytes for F16 and
 * BF16, 4 for F32); ld >= cols where there are two rows or more; batches must not overlap. Only the rows x
 * cols elements of each batch are written. */
typedef struct nvfp4_output {
  void *data;                 /* device pointer */
  int64_t ld;                 /* elements between consecutive rows */
  int64_t batch_stride;       /* elements between consecutive batches */
  nvfp4_dtype dtype;          /* F16, BF16 or F32 */
} nvfp4_output;

/* A dense operand: rows x k elements per batch, row-major (K contiguous). Element (r, c) of batch b is at
 * data + (b*batch_stride + r*ld + c) elements. The W4A16 operations take their activations this way, F16 or
 * BF16 (F32 activations: NOT_SUPPORTED); nvfp4_quantize takes F32 too. data must be aligned to its element;
 * ld >= k where there are two rows or more; batches must not overlap. K must be a multiple of 32
 * (NOT_SUPPORTED otherwise); rows and k are below 2^31. Each operation states the alignment its kernels need
 * beyond that. */
typedef struct nvfp4_dense {
  const void *data;           /* device pointer */
  int64_t rows, k, batch;
  int64_t ld;                 /* elements between consecutive rows, >= k */
  int64_t batch_stride;       /* elements between consecutive batches */
  nvfp4_dtype dtype;          /* F16 or BF16 (activations); F32 too (quantize) */
} nvfp4_dense;

/* y[m, l] = alpha * sum_k A[m, k, l] * x[k, l] for every row m < a->rows and batch l < a->batch: y is an
 * output of a->rows x 1 per batch, y->ld the distance between consecutive m. x->rows == 1,
 * x->k == a->k, x->batch == a->batch; A and x each have their own scales and layouts per batch.
 * Limits (NOT_SUPPORTED past them): K <= 185,728 (x is held in shared memory); at most 65,535 batches.
 * Output F16, BF16 or F32. */
NVFP4_API nvfp4_status nvfp4_gemv(nvfp4_handle *h, const nvfp4_tensor *a, const nvfp4_tensor *x,
                                  const nvfp4_output *y, float alpha, CUstream stream);

/* W4A16 GEMV: nvfp4_gemv with dense x, the way NVFP4 weights meet a decode step's activations. y[m, l] =
 * alpha * sum_k A[m, k, l] * x[k, l] for every row m < a->rows and batch l < a->batch, A NVFP4 (either scale
 * layout) and x dense F16 or BF16 (F32: NOT_SUPPORTED); y as in nvfp4_gemv (F16, BF16 or F32, independent of
 * x's type). x->rows == 1, x->k == a->k, x->batch == a->batch; x->batch_stride is in elements and x->ld is not
 * read. Every product of an element of A and one of x is exact (e2m1 * e4m3 has at most 6 significant bits,
 * an f16 11 and a bf16 8) and is accumulated in f32, under the same accuracy bar as the other operations.
 * x needs only its element alignment: where x of a batch starts 16-byte aligned it is read 16 bytes at a
 * time, else 2 bytes at a time (slower, never refused); A as nvfp4_gemv takes it. Limits (NOT_SUPPORTED past
 * them): K <= 51,584 (x is held in shared memory as f32); at most 65,535 batches. */
NVFP4_API nvfp4_status nvfp4_gemv_w4a16(nvfp4_handle *h, const nvfp4_tensor *a, const nvfp4_dense *x,
                                        const nvfp4_output *y, float alpha, CUstream stream);

/* For g in [0, num_groups): C_g = alpha * A_g * B_g^T, C_g[m, n] = alpha * sum_k A_g[m, k] * B_g[n, k], where
 * A_g = a[g] (M_g x K_g), B_g = b[g] (N_g x K_g, both K-major: "TN") and C_g = c[g], a row-major output of
 * M_g x N_g. The arrays a, b and c (num_groups each) live in host memory and may be freed on return.
 * Each group has batch 1 and a[g].k == b[g].k; groups may differ in M, N, K, scale layouts and output type
 * (F16, BF16 or F32). A group with a[g].rows == 0 or b[g].rows == 0 is valid and skipped (its pointers may
 * be NULL); num_groups == 0 does nothing (the arrays may then be NULL). */
NVFP4_API nvfp4_status nvfp4_grouped_gemm(nvfp4_handle *h, int num_groups, const nvfp4_tensor *a,
                                          const nvfp4_tensor *b, const nvfp4_output *c, float alpha,
                                          CUstream stream);

/* W4A16 grouped GEMM: nvfp4_grouped_gemm with dense activations, the way NVFP4 checkpoints are served. For g in
 * [0, num_groups): C_g[m, n] = alpha * sum_k A_g[m, k] * B_g[n, k], where A_g = a[g] holds the activations
 * (tokens: M_g x K_g, dense F16 or BF16), B_g = b[g] the NVFP4 weights (N_g x K_g, K-major) and C_g = c[g], a
 * row-major output of M_g x N_g (F16, BF16 or F32, independent of the activations' type). Every product is
 * exact (f16 activations meet f16 weights, bf16 ones bf16 weights: e2m1 * e4m3 is exact in both) and is
 * accumulated in f32, under the same accuracy bar as the other operations. The arrays a, b and c (num_groups
 * each) live in host memory and may be freed on return.
 * Each group has batch 1 and a[g].k == b[g].k; groups may differ in M, N, K, weight scale layout, output
 * type and activation type: the F16 groups and the BF16 groups run in separate kernel launches, one after
 * the other on the stream (each only where it has work). F32 activations: NOT_SUPPORTED. The activations are
 * copied 16 bytes at a time: a[g].data must be 16-byte aligned, and where a group has two rows or more a[g].ld
 * a multiple of 8 elements and a[g].ld * 2 below 2^32 bytes (NOT_SUPPORTED otherwise). A group with
 * a[g].rows == 0 or b[g].rows == 0 is valid and skipped (its pointers may be NULL); num_groups == 0 does
 * nothing (the arrays may then be NULL). */
NVFP4_API nvfp4_status nvfp4_grouped_gemm_w4a16(nvfp4_handle *h, int num_groups, const nvfp4_dense *a,
                                                const nvfp4_tensor *b, const nvfp4_output *c, float alpha,
                                                CUstream stream);

/* Dense GEMM with batches (GPU MODE's nvfp4_gemm): for l in [0, a->batch), C_l = alpha * A_l * B_l^T,
 * C_l[m, n] = alpha * sum_k A_l[m, k] * B_l[n, k], where A_l is batch l of a (M x K), B_l batch l of b
 * (N x K, both K-major: "TN") and C_l the row-major M x N output at c->data + l * c->batch_stride elements
 * (c->ld elements between rows; c->ld >= N with two rows or more, and c->batch_stride >= (M - 1) * c->ld + N
 * with two batches or more, so no batches overlap). b->batch == a->batch and b->k == a->k; M = a->rows and
 * N = b->rows are at least 1 (0 is INVALID_VALUE, as for nvfp4_gemv). a and b each have their own scale
 * layout and strides; a batch_stride of 0 reads one operand for every batch. Output F16, BF16 or F32.
 * It runs the grouped GEMM's kernels, batch l as group l of nvfp4_grouped_gemm, with the same results,
 * alignment and limits (a and b as every operation takes them: data, ld and, with two batches or more,
 * batch_stride multiples of 16 bytes; ld and 32 * sf_ld below 2^32 bytes; NOT_SUPPORTED otherwise). The
 * batches go to the kernels 64 at a time, one after the other on the stream. */
NVFP4_API nvfp4_status nvfp4_gemm(nvfp4_handle *h, const nvfp4_tensor *a, const nvfp4_tensor *b,
                                  const nvfp4_output *c, float alpha, CUstream stream);

/* Dual GEMM with SiLU (GPU MODE's nvfp4_dual_gemm; a gated MLP's or MoE expert's gate and up projections): for
 * g in [0, num_groups), C_g[m, n] = silu(alpha1 * sum_k A_g[m, k] * B1_g[n, k]) * (alpha2 * sum_k A_g[m, k] *
 * B2_g[n, k]), silu(x) = x / (1 + e^-x), where A_g = a[g] (M_g x K_g tokens), B1_g = b1[g] and B2_g = b2[g]
 * (N_g x K_g each, K-major) and C_g = c[g], a row-major M_g x N_g output (F16, BF16 or F32). Both products are
 * exact-product f32 sums, the gating is f32, and each output is rounded once. The tokens are dequantized once
 * for both products; each product's f32 result goes through scratch from the handle's memory pool before the
 * gated output is written (a device without memory pools: NOT_SUPPORTED). Groups as nvfp4_grouped_gemm takes
 * them (batch 1, b1[g] and b2[g] with a[g]'s K and the same rows, empty groups skipped, the same alignment
 * and limits); the arrays live in host memory and may be freed on return. */
NVFP4_API nvfp4_status nvfp4_grouped_dual_gemm_silu(nvfp4_handle *h, int num_groups, const nvfp4_tensor *a,
                                                    const nvfp4_tensor *b1, const nvfp4_tensor *b2,
                                                    const nvfp4_output *c, float alpha1, float alpha2,
                                                    CUstream stream);

/* out = the value of every element of in: out[b][r][c] = e2m1(code) * e4m3(scale) of element (r, c) of
 * batch b, for r < in->rows, c < in->k, b < in->batch; out is an output of in->rows x in->k per batch
 * (out->ld elements between rows, out->batch_stride between batches), F16, BF16 or F32. Exact in all three:
 * every product of an e2m1 and an e4m3 value is (0, or a magnitude in [2^-10, 2688] with at most 6
 * significant bits). A zero keeps the sign of code times scale (code 8, -0, with a positive scale gives -0);
 * a NaN scale (0x7F, 0xFF) makes its 16 elements NaN. Either scale layout. in as the other operations take
 * it: rows >= 1, data, ld and batch_stride multiples of 16 bytes, K a multiple of 32 (NOT_SUPPORTED
 * otherwise). out needs only its element alignment: where every row starts 16-byte aligned it is written
 * 16 bytes at a time, else 4 or 2 bytes at a time (slower, never refused). Only the in->rows x in->k
 * elements of each batch are written. */
NVFP4_API nvfp4_status nvfp4_dequantize(nvfp4_handle *h, const nvfp4_tensor *in, const nvfp4_output *out,
                                        CUstream stream);

/* out = NVFP4 of in * global_scale: in (rows x k per batch, dense F16, BF16 or F32) becomes out's codes
 * (out->data) and block scales (out->scales, in out->sf_layout); out->rows, k and batch must equal in's
 * (out is written: the const in nvfp4_tensor is the GEMMs' view). SPEC section 2's recipe, bit for bit: per
 * row and 16-element block, every step one IEEE f32 operation rounded to nearest even (no flush to zero,
 * true divisions): t = fl(x * global_scale); a block with a NaN or infinite t gets scale 0x7F (NaN) and
 * codes 0; else s = e4m3(fl(amax|t| / 6)) (ties to even, saturating at 448, subnormal scales kept); s == 0
 * gives codes 0; else code = e2m1(fl(t / s)) with s the scale's value (ties to even, magnitudes past 6
 * saturate to 6, the sign kept: a negative value that rounds to 0 is code 8, -0).
 * Writes the k/2 data bytes and, LINEAR, the k/16 scale bytes of each row; BLOCKED scales are written in
 * whole tiles, padding bytes 0. No other byte of out changes. global_scale must be finite and > 0
 * (INVALID_VALUE). K a multiple of 32 (NOT_SUPPORTED otherwise). in needs only its element alignment (where
 * every row starts 16-byte aligned it is read 16 bytes at a time, else element by element: slower, never
 * refused); out as the other operations take it (data, ld and batch_stride multiples of 16 bytes,
 * NOT_SUPPORTED otherwise). A GEMM of tensors quantized with global scales g_a and g_b takes
 * alpha = 1 / (g_a * g_b). */
NVFP4_API nvfp4_status nvfp4_quantize(nvfp4_handle *h, const nvfp4_dense *in, const nvfp4_tensor *out,
                                      float global_scale, CUstream stream);

/* to->scales = the scales of from, rewritten in to->sf_layout (and to's sf_ld, sf_batch_stride): LINEAR <->
 * BLOCKED_128x4, or one layout with another stride. The scale of (r, j) of batch b of from lands at the
 * place to's layout gives (r, j) of batch b; nothing else is read or converted. from->rows, k and batch must
 * equal to's. Only scales are touched: from->data and to->data are not read (to->data may be NULL) and
 * neither tensor's ld or batch_stride matters. Writes, LINEAR, the k/16 scale bytes of each row; BLOCKED,
 * each batch's tiles whole, padding bytes 0 (what nvfp4_quantize writes). No other byte changes. The byte
 * ranges the scales of from and to span must not overlap, nor (with batch > 1) to's batches
 * (INVALID_VALUE). rows >= 1; K a multiple of 32 (NOT_SUPPORTED otherwise); no alignment needed. */
NVFP4_API nvfp4_status nvfp4_scales_relayout(nvfp4_handle *h, const nvfp4_tensor *from, const nvfp4_tensor *to,
                                             CUstream stream);

#ifdef __cplusplus
}
#endif

#endif /* NVFP4_H */
