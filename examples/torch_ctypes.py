"""libnvfp4 from Python: ctypes on torch tensors and a torch stream.

    python3 examples/torch_ctypes.py [--lib build/lib/libnvfp4.so]

Makes NVFP4 operands as torch uint8 tensors on the GPU (packed e2m1 codes, the even k in the low nibble; one
e4m3 scale per 16 elements), runs nvfp4_gemv and nvfp4_grouped_gemm on a torch side stream, and checks both
against float64 torch math under the library's accuracy bar (docs/ACCURACY.md). Exit status 0 when both
pass, 1 otherwise (no GPU included).

An example, not part of the library. The ctypes structs mirror include/nvfp4.h, whose field order is the ABI.
"""
import argparse
import ctypes as C
import os
import sys

import torch

SF_LINEAR, SF_BLOCKED_128x4 = 0, 1
F16, BF16, F32 = 0, 1, 2
REL = {F16: 2.0**-10, BF16: 2.0**-8, F32: 2.0**-20}  # the bar's relative term per output type
TORCH_DTYPE = {F16: torch.float16, BF16: torch.bfloat16, F32: torch.float32}


class Tensor(C.Structure):  # nvfp4_tensor
    _fields_ = [("data", C.c_void_p), ("scales", C.c_void_p), ("rows", C.c_int64), ("k", C.c_int64),
                ("batch", C.c_int64), ("ld", C.c_int64), ("batch_stride", C.c_int64), ("sf_ld", C.c_int64),
                ("sf_batch_stride", C.c_int64), ("sf_layout", C.c_int)]


class Output(C.Structure):  # nvfp4_output
    _fields_ = [("data", C.c_void_p), ("ld", C.c_int64), ("batch_stride", C.c_int64), ("dtype", C.c_int)]


class Nvfp4Error(RuntimeError):
    pass


def load(path):
    lib = C.CDLL(path)
    lib.nvfp4_status_string.restype = C.c_char_p
    lib.nvfp4_status_string.argtypes = [C.c_int]
    lib.nvfp4_last_error.restype = C.c_char_p
    lib.nvfp4_create.argtypes = [C.POINTER(C.c_void_p)]
    lib.nvfp4_destroy.argtypes = [C.c_void_p]
    lib.nvfp4_gemv.argtypes = [C.c_void_p, C.POINTER(Tensor), C.POINTER(Tensor), C.POINTER(Output), C.c_float,
                               C.c_void_p]
    lib.nvfp4_grouped_gemm.argtypes = [C.c_void_p, C.c_int, C.POINTER(Tensor), C.POINTER(Tensor),
                                       C.POINTER(Output), C.c_float, C.c_void_p]
    return lib


def check_status(lib, status, call):
    """Every call returns a status; on failure nvfp4_last_error() (this thread's) says which field and why."""
    if status != 0:
        raise Nvfp4Error(f"{call}: {lib.nvfp4_status_string(status).decode()}: {lib.nvfp4_last_error().decode()}")


def random_operand(rows, k, batch=1):
    """Packed codes (batch, rows, k/2) and LINEAR scales (batch, rows, k/16) of magnitude 2^-3..2^3, on the GPU."""
    data = torch.randint(0, 256, (batch, rows, k // 2), dtype=torch.uint8, device="cuda")
    r = torch.randint(0, 0x38, (batch, rows, k // 16), dtype=torch.int32, device="cuda")
    sign = torch.randint(0, 2, r.shape, dtype=torch.int32, device="cuda") << 7
    return data, (sign | (0x20 + r)).to(torch.uint8)


def decode(data, scales):
    """The exact float64 values of an operand with LINEAR scales: (..., rows, k)."""
    e2m1 = torch.tensor([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6],
                        dtype=torch.float64, device=data.device)
    codes = torch.stack([data & 15, data >> 4], dim=-1).flatten(-2).long()  # even k: low nibble
    sf = scales.view(torch.float8_e4m3fn).to(torch.float64).repeat_interleave(16, dim=-1)
    return e2m1[codes] * sf


def linear_tensor(data, scales):
    """An nvfp4_tensor over contiguous (batch, rows, k/2) codes and (batch, rows, k/16) scales."""
    batch, rows, half_k = data.shape
    return Tensor(data.data_ptr(), scales.data_ptr(), rows, 2 * half_k, batch, half_k, rows * half_k,
                  half_k // 8, rows * half_k // 8, SF_LINEAR)


def worst_ratio(out, ref, magnitude, dtype):
    """max |out - ref| / (rel * |ref| + 2^-16 * magnitude): the bar passes at <= 1 (an exact result is 0)."""
    error = (out.double() - ref).abs()
    tolerance = REL[dtype] * ref.abs() + 2.0**-16 * magnitude
    return torch.where(error == 0, torch.zeros_like(error), error / tolerance).max().item()


def run_gemv(lib, handle, stream, m=1000, k=7168, batches=2, alpha=0.5):
    a, a_sf = random_operand(m, k, batches)
    x, x_sf = random_operand(1, k, batches)
    y = torch.empty(batches, m, dtype=torch.float16, device="cuda")
    at, xt = linear_tensor(a, a_sf), linear_tensor(x, x_sf)
    yo = Output(y.data_ptr(), 1, m, F16)
    stream.wait_stream(torch.cuda.current_stream())  # the operands were made on the current stream
    with torch.cuda.stream(stream):
        check_status(lib, lib.nvfp4_gemv(handle, at, xt, yo, alpha, C.c_void_p(stream.cuda_stream)), "nvfp4_gemv")
    for t in (a, a_sf, x, x_sf, y):
        t.record_stream(stream)  # tell torch's allocator the side stream uses them
    torch.cuda.current_stream().wait_stream(stream)
    products = decode(a, a_sf) * decode(x, x_sf)  # (batch, m, k)
    ratio = worst_ratio(y, alpha * products.sum(-1), abs(alpha) * products.abs().sum(-1), F16)
    print(f"gemv {m}x{k}x{batches}: worst error/tolerance {ratio:.3g}")
    return ratio <= 1.0


def run_grouped_gemm(lib, handle, stream, shapes=((64, 256, 1024), (0, 256, 1024), (200, 384, 512)), alpha=1.0,
                     dtype=BF16):
    groups = len(shapes)
    operands = [(random_operand(m, k), random_operand(n, k)) for m, n, k in shapes]
    outputs = [torch.empty(m, n, dtype=TORCH_DTYPE[dtype], device="cuda") for m, n, _ in shapes]
    a = (Tensor * groups)(*(linear_tensor(*op[0]) for op in operands))
    b = (Tensor * groups)(*(linear_tensor(*op[1]) for op in operands))
    c = (Output * groups)(*(Output(out.data_ptr(), n, 0, dtype) for out, (_, n, _) in zip(outputs, shapes)))
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        status = lib.nvfp4_grouped_gemm(handle, groups, a, b, c, alpha, C.c_void_p(stream.cuda_stream))
        check_status(lib, status, "nvfp4_grouped_gemm")  # a, b, c (host arrays) may go now
    for t in [t for a_pair, b_pair in operands for t in (*a_pair, *b_pair)] + outputs:
        t.record_stream(stream)
    torch.cuda.current_stream().wait_stream(stream)
    ok = True
    for g, (((a_data, a_sf), (b_data, b_sf)), out) in enumerate(zip(operands, outputs)):
        if out.numel() == 0:
            continue  # an empty group is skipped
        products = decode(a_data, a_sf)[0][:, None, :] * decode(b_data, b_sf)[0][None, :, :]  # (m, n, k)
        ratio = worst_ratio(out, alpha * products.sum(-1), abs(alpha) * products.abs().sum(-1), dtype)
        print(f"grouped gemm group {g} {tuple(shapes[g])}: worst error/tolerance {ratio:.3g}")
        ok = ok and ratio <= 1.0
    return ok


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", default=os.path.join(here, "..", "build", "lib", "libnvfp4.so"),
                        help="libnvfp4.so to load (default: the build tree's)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("torch_ctypes: no CUDA device visible to torch", file=sys.stderr)
        return 1
    lib = load(args.lib)
    # Creating the stream makes torch's context (device 0's primary context) current on this thread, and
    # nvfp4_create binds the handle to the current context.
    stream = torch.cuda.Stream()
    handle = C.c_void_p()
    try:
        check_status(lib, lib.nvfp4_create(C.byref(handle)), "nvfp4_create")
        ok = run_gemv(lib, handle, stream)
        ok = run_grouped_gemm(lib, handle, stream) and ok
    except Nvfp4Error as e:
        print(f"torch_ctypes: {e}", file=sys.stderr)
        ok = False
    finally:
        torch.cuda.synchronize()  # nothing may still run on the handle when it goes
        lib.nvfp4_destroy(handle)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
