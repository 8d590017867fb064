# tests/gpu/loads-before-wait.awk - reads `cuobjdump --dump-sass` output; prints, for every function that has
# a griddepcontrol.wait (SASS ACQBULK), the global-memory instructions its text holds before the first one, and
# exits 1 when any function has one. Under programmatic dependent launch a kernel may run while the kernel
# before it still writes its inputs or reads its outputs: nothing may touch global memory before the wait.
# ptxas moves ld.global.nc loads across the wait (ptx/sm90a/target.inc), which is how the NVFP4 GEMV once
# loaded its first weights ahead of it; this check reads what ptxas made of the PTX. Text order stands for
# execution order here: a kernel's start (before its first wait) is straight-line code.
#   awk -f tests/gpu/loads-before-wait.awk sass.txt
function report() {
  if (name != "" && waited && early != "") {
    printf "%s: global memory before its first wait:%s\n", name, early
    bad = 1
  }
}
/Function : / { report(); name = $NF; waited = 0; early = ""; next }
/\/\*[0-9a-f]+\*\// {
  op = $0
  sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", op)   # drop the address
  sub(/^@!?U?P[T0-9]+[ \t]+/, "", op)              # and a predicate
  split(op, word, /[ ;]/)
  if (word[1] ~ /^ACQBULK/) { waited = 1; next }
  if (!waited && word[1] ~ /^(LDG|STG|LDGSTS|UBLKCP|UTMALDG|UTMASTG|UTMAPF|ATOMG|ATOM|REDG|RED|LD|ST)(\.|$)/)
    early = early " " word[1]
}
END {
  report()
  if (!bad) print "every function that waits touches global memory only after its first wait"
  exit bad
}
