#!/bin/sh
# The GPU checks and benchmarks of a final run, in steps, on the GPU machine: run from the repository root
# after `make all tests` built build/ (Check is linked statically, so build/ may be built elsewhere).
#
#   tests/gpu/run-on-device.sh [step ...]      (no step: every step, in this order)
#     info        nvfp4 info and the GPU's clocks
#     suite       the whole GPU suite on the device's own path (sm_90a on a Hopper)
#     portable    the whole GPU suite with the portable kernels forced (NVFP4_FORCE_PORTABLE=1)
#     sanitize    compute-sanitizer memcheck, racecheck and synccheck over the suites' small cases, both paths
#     bench       nvfp4 bench: GEMV, grouped, dense and dual GEMM, then dequantize, quantize and relayout
#     peers       PEERS=<path of peers.py>: the library just built beside cuBLAS f16 on pre-dequantized
#                 operands, every row on the device's path, the GEMVs and grouped rows forced portable too
#     sass        the SASS of the library's image, with its HGMMA and local-memory (spill) counts, and the
#                 check that no kernel touches global memory before its grid-dependency wait
#                 (tests/gpu/loads-before-wait.awk; the step fails where one does)
#
# Logs go to $OUT/<step>.txt (OUT: default build/device-out); the last lines of each are printed at the end,
# with the suites' seeds, so that a run can be repeated (NVFP4_TEST_SEED). Every command has a time limit: a
# hung kernel would otherwise hang every later step too. The whole suite takes about 250 s a path; the
# sanitizers about 60-150 s a tool and path. Exit status 1 when any step failed.
set -u
OUT=${OUT:-build/device-out}
mkdir -p "$OUT"
status=0
steps=${*:-info suite portable sanitize bench peers sass}
for step in $steps; do
  case $step in
    info | suite | portable | sanitize | bench | peers | sass) ;;
    *) echo "run-on-device.sh: unknown step '$step' (steps: info suite portable sanitize bench peers sass)" >&2
       exit 2 ;;
  esac
done

# run <log> <seconds> command...: the command's output appended to $OUT/<log>.txt; a failure sets status.
run() {
  log=$1 limit=$2
  shift 2
  echo "\$ $*" >> "$OUT/$log.txt"
  timeout "$limit" "$@" >> "$OUT/$log.txt" 2>&1 || { echo "FAILED (exit $?): $*" >> "$OUT/$log.txt"; status=1; }
}

# The "image" test case is left out under the sanitizers: it loads an image of one kernel family on purpose,
# and the driver's CUDA_ERROR_NOT_FOUND for the kernels that image lacks counts as an error for
# compute-sanitizer.
sanitize() { # sanitize <path label> [VAR=value ...]
  label=$1
  shift
  for tool in memcheck racecheck synccheck; do
    run sanitize 300 env "$@" NVFP4_GPU_QUICK=1 CK_FORK=no CK_EXCLUDE_TAGS=image \
      compute-sanitizer --tool "$tool" --error-exitcode 3 build/tests/gpu_tests
    echo "$label $tool: $(grep -E '^=+ (ERROR SUMMARY|RACECHECK SUMMARY)' "$OUT/sanitize.txt" | tail -n 1)" \
      >> "$OUT/sanitize_summary.txt"
  done
}

for step in $steps; do
  rm -f "$OUT/$step.txt"
  case $step in
    info)
      run info 30 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
      run info 30 build/bin/nvfp4 info
      run info 30 env NVFP4_FORCE_PORTABLE=1 build/bin/nvfp4 info ;;
    suite) run suite 900 env CK_FORK=no build/tests/gpu_tests ;;
    portable) run portable 900 env NVFP4_FORCE_PORTABLE=1 CK_FORK=no build/tests/gpu_tests ;;
    sanitize)
      rm -f "$OUT/sanitize_summary.txt"
      sanitize sm90a
      sanitize portable NVFP4_FORCE_PORTABLE=1 ;;
    bench)
      run bench 600 build/bin/nvfp4 bench --iters 30 --csv "$OUT/bench.csv"
      for op in dequantize quantize relayout; do
        run bench 180 build/bin/nvfp4 bench "$op" --iters 30
      done ;;
    peers)
      if [ -z "${PEERS:-}" ]; then
        echo "peers: PEERS names no peers.py" >> "$OUT/peers.txt"
        status=1
        continue
      fi
      run peers 600 env PYTHONUNBUFFERED=1 python3 "$PEERS" --lib build/lib/libnvfp4.so \
        --only-peer nvfp4_ptx,cublas_fp16_predequant --out "$OUT/peers"
      run peers 600 env PYTHONUNBUFFERED=1 NVFP4_FORCE_PORTABLE=1 python3 "$PEERS" --lib build/lib/libnvfp4.so \
        --only gemv1,gemv2,gemv3,gg1,gg2,gg3,gg4,moe1 --only-peer nvfp4_ptx,cublas_fp16_predequant \
        --out "$OUT/peers-portable" ;;
    sass)
      cuobjdump --dump-sass build/nvfp4.fatbin > "$OUT/sass.txt" 2>&1 || status=1
      printf 'HGMMA %s, LDL/STL %s\n' "$(grep -c HGMMA "$OUT/sass.txt")" "$(grep -c -E 'LDL|STL' "$OUT/sass.txt")" \
        > "$OUT/sass_summary.txt"
      awk -f tests/gpu/loads-before-wait.awk "$OUT/sass.txt" >> "$OUT/sass_summary.txt" || status=1 ;;
  esac
done

for step in $steps; do
  case $step in
    suite | portable) grep -E "seed|^[0-9]+%|:F:|:E:|FAILED" "$OUT/$step.txt" | sed "s/^/$step: /" ;;
    sanitize) cat "$OUT/sanitize_summary.txt" ;;
    sass) cat "$OUT/sass_summary.txt" ;;
    *) [ -f "$OUT/$step.txt" ] && tail -n 40 "$OUT/$step.txt" ;;
  esac
done
exit $status
