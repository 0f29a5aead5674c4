#!/usr/bin/env bash
# PoCL on 2 cores, before and after: bench_e2e's table on the small suite for the code at a
# baseline tree (BASE, default .old: `git archive <commit> | tar -x -C .old`) and for this
# tree, pinned to two cores (CORES, default 0,1) with PoCL limited to two threads, then
# compare_e2e.py's side-by-side table. Usage: OUT=dir [BASE=.old] [CORES=14,15]
#   bash benchmarks/pocl_before_after.sh [extra bench_e2e args]
out=${OUT:-.}
base=${BASE:-.old}
cores=${CORES:-0,1}
export POCL_MAX_PTHREAD_COUNT=2 POCL_CPU_MAX_CU_COUNT=2
args=(--device cpu --suite small --no-networkit --families matching,weighted,bmatching,louvain,marriage
      --marriage-n 200000 --repeat 5 "$@")
PYTHONPATH="$PWD/$base" taskset -c "$cores" python3 benchmarks/bench_e2e.py "${args[@]}" \
    --out "$out/pocl-before" > "$out/pocl-before.log" 2>&1
echo "before rc=$?"
taskset -c "$cores" python3 benchmarks/bench_e2e.py "${args[@]}" --out "$out/pocl-after" \
    > "$out/pocl-after.log" 2>&1
echo "after rc=$?"
python3 benchmarks/compare_e2e.py "$out/pocl-before/results.json" "$out/pocl-after/results.json" \
    --labels "before ($base),after" > "$out/pocl-before-after.md"
cat "$out/pocl-before-after.md"
