#!/bin/sh
# One device call: the GPU suites, memcheck, racecheck and synccheck on their small cases, the GPU MODE
# benchmarks of both operations (each with NVFP4 and with f16 activations), dequantize's, quantize's and
# scale relayout's, with their measured ceilings, and the SASS; every log under $OUT. Run from the repository root on the GPU machine after
# `make all tests` built build/ (Check is linked statically).
# Every step has a time limit: a hung kernel would otherwise hang every later step too.
set -u
OUT=${OUT:-build/device-out}
mkdir -p "$OUT"
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
timeout 30 build/bin/nvfp4 info > "$OUT/info.txt" 2>&1 || status=1
CK_FORK=no timeout 900 build/tests/gpu_tests > "$OUT/gpu_tests.txt" 2>&1 || status=1
# The "image" test case is left out here: it loads an image of one kernel family on purpose, and the driver's
# CUDA_ERROR_NOT_FOUND for the kernels that image lacks counts as an error for compute-sanitizer.
for tool in memcheck racecheck synccheck; do
  NVFP4_GPU_QUICK=1 CK_FORK=no CK_EXCLUDE_TAGS=image timeout 150 compute-sanitizer --tool $tool --error-exitcode 3 build/tests/gpu_tests \
    > "$OUT/$tool.txt" 2>&1 || status=1
done
timeout 240 build/bin/nvfp4 bench gemv --gpumode --iters 50 --csv "$OUT/bench_gemv.csv" > "$OUT/bench_gemv.txt" 2>&1 \
  || status=1
timeout 300 build/bin/nvfp4 bench grouped-gemm --gpumode --iters 30 --csv "$OUT/bench_grouped.csv" \
  > "$OUT/bench_grouped.txt" 2>&1 || status=1
timeout 180 build/bin/nvfp4 bench dequantize --gpumode --iters 30 --csv "$OUT/bench_dequantize.csv" \
  > "$OUT/bench_dequantize.txt" 2>&1 || status=1
timeout 120 build/bin/nvfp4 bench quantize --iters 30 --csv "$OUT/bench_quantize.csv" \
  > "$OUT/bench_quantize.txt" 2>&1 || status=1
timeout 120 build/bin/nvfp4 bench relayout --gpumode --iters 30 --csv "$OUT/bench_relayout.csv" \
  > "$OUT/bench_relayout.txt" 2>&1 || status=1
cuobjdump --dump-sass build/nvfp4.fatbin > "$OUT/sass.txt" 2>&1
printf 'HGMMA %s, LDL/STL %s\n' "$(grep -c HGMMA "$OUT/sass.txt")" "$(grep -c -E 'LDL|STL' "$OUT/sass.txt")" \
  > "$OUT/sass_summary.txt"
cat "$OUT/info.txt"; grep -E "^gpu_tests: seed|^[0-9]+%|:F:|:E:" "$OUT/gpu_tests.txt"
tail -n 2 "$OUT/memcheck.txt" "$OUT/racecheck.txt" "$OUT/synccheck.txt"
cat "$OUT/bench_gemv.txt" "$OUT/bench_grouped.txt" "$OUT/bench_dequantize.txt" "$OUT/bench_quantize.txt" \
  "$OUT/bench_relayout.txt" "$OUT/sass_summary.txt"
exit $status
