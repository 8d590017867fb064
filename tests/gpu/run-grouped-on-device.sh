#!/bin/sh
# One device call for the grouped GEMM: a smoke check, the grouped GPU suite, the benchmark with its
# measured ceilings, memcheck and racecheck on the small cases, and the SASS summary; logs under $OUT.
# Run from a directory holding build/ (made by `make all tests` on the build machine).
set -u
OUT=${OUT:-build/device-out}
mkdir -p "$OUT"
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
build/bin/nvfp4 info > "$OUT/info.txt" 2>&1 || status=1
timeout 20 build/bin/nvfp4 verify grouped-gemm --m 96,7 --n 300 --k 288 > "$OUT/smoke.txt" 2>&1
smoke=$?
[ $smoke -eq 0 ] || status=1
if [ $smoke -ne 124 ]; then  # a hung kernel would hang every later step too
  NVFP4_GPU_SUITE=grouped CK_FORK=no timeout 150 build/tests/gpu_tests > "$OUT/gpu_tests.txt" 2>&1 || status=1
  timeout 45 build/bin/nvfp4 bench grouped-gemm --iters 30 --csv "$OUT/bench.csv" > "$OUT/bench.txt" 2>&1 || status=1
  NVFP4_GPU_SUITE=grouped NVFP4_GPU_QUICK=1 CK_FORK=no timeout 80 compute-sanitizer --tool memcheck \
    --error-exitcode 3 build/tests/gpu_tests > "$OUT/memcheck.txt" 2>&1 || status=1
  NVFP4_GPU_SUITE=grouped NVFP4_GPU_QUICK=1 CK_FORK=no timeout 60 compute-sanitizer --tool racecheck \
    --error-exitcode 3 build/tests/gpu_tests > "$OUT/racecheck.txt" 2>&1 || status=1
fi
cuobjdump --dump-sass build/nvfp4.fatbin > "$OUT/sass.txt" 2>&1
grep -c HGMMA "$OUT/sass.txt" > "$OUT/sass_summary.txt"
grep -c -E "LDL|STL" "$OUT/sass.txt" >> "$OUT/sass_summary.txt"
cat "$OUT/gpu.txt" "$OUT/info.txt" "$OUT/smoke.txt"; tail -n 25 "$OUT/gpu_tests.txt" 2>/dev/null
cat "$OUT/bench.txt" 2>/dev/null; tail -n 4 "$OUT/memcheck.txt" "$OUT/racecheck.txt" 2>/dev/null
cat "$OUT/sass_summary.txt"
exit $status
