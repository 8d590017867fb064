#!/bin/sh
# tests/unit/check-loads-before-wait.sh - the SASS check of tests/gpu/loads-before-wait.awk (run on the GPU
# machine by run-on-device.sh's sass step) on made-up cuobjdump text, so that the checker itself is tested
# where no GPU or cuobjdump is: it must name a function whose load precedes its wait (predicated or not),
# pass one that waits first, one that never waits, and shared-memory and constant loads before a wait.
set -u
awk_file=${1:-tests/gpu/loads-before-wait.awk}
fail() { echo "check-loads-before-wait: $*" >&2; exit 1; }
line() { printf '        /*%s*/                   %s ;   /* 0x000fe20000000800 */\n' "$1" "$2"; }
fn() { printf '\t\tFunction : %s\n' "$1"; }

good=$( { fn waits_first; line 0000 'LDC R1, c[0x0][0x28]'; line 0010 'S2R R0, SR_TID.X'
          line 0020 'LDS.128 R4, [R0]'; line 0030 'PREEXIT'; line 0040 'ACQBULK'
          line 0050 'LDG.E.128 R8, desc[UR4][R2.64]'
          fn never_waits; line 0000 'LDG.E R2, desc[UR4][R2.64]'; } | awk -f "$awk_file")
[ $? -eq 0 ] || fail "a clean image failed: $good"

for early in '@!P5 LDG.E.NA.128.CONSTANT R52, desc[UR6][R104.64]' 'LDGSTS.E.BYPASS.128 [R3], desc[UR4][R4.64]' \
             'STG.E.U16 desc[UR4][R2.64], R5' 'UBLKCP.S.G [UR4], [UR6], UR8' \
             'REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5'; do
  out=$( { fn ok; line 0000 'ACQBULK'; fn early_load; line 0000 'PREEXIT'; line 0010 "$early"
           line 0020 'ACQBULK' ; } | awk -f "$awk_file")
  [ $? -eq 1 ] || fail "'$early' before the wait was not caught: $out"
  case $out in
    "early_load: global memory before its first wait: "*) ;;
    *) fail "'$early': unexpected report: $out" ;;
  esac
done
echo "check-loads-before-wait: ok"
