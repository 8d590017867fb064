#!/bin/sh
# One device call: GPU suite, memcheck on the small cases, the GPU MODE benchmark and the SASS, with every
# log under $OUT. Run from the repository root on the GPU machine after `make all tests` built build/ here.
set -u
OUT=${OUT:-build/device-out}
mkdir -p "$OUT"
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
build/bin/nvfp4 info > "$OUT/info.txt" 2>&1 || status=1
CK_FORK=no build/tests/gpu_tests > "$OUT/gpu_tests.txt" 2>&1 || status=1
NVFP4_GPU_QUICK=1 CK_FORK=no compute-sanitizer --tool memcheck --error-exitcode 3 build/tests/gpu_tests \
  > "$OUT/memcheck.txt" 2>&1 || status=1
build/bin/nvfp4 bench --gpumode --iters 50 --csv "$OUT/bench.csv" > "$OUT/bench.txt" 2>&1 || status=1
cuobjdump --dump-sass build/nvfp4.fatbin > "$OUT/sass.txt" 2>&1
cat "$OUT/info.txt"; tail -n 5 "$OUT/gpu_tests.txt"; tail -n 3 "$OUT/memcheck.txt"; cat "$OUT/bench.txt"
exit $status
