# A/B (issue 31): the tail's bids in global col_bid/col_winner (.probe/base, 638f3f2) against
# a local hash table (this tree), alternating processes, uniform 1M / knn 250K / uniform 250K
# (.probe/base: mkdir -p .probe/base; git archive 638f3f2 pyclmatch kernels | tar -x -C .probe/base)
set -u
for i in 1 2; do
  for t in base new; do
    if [ $t = base ]; then P=$PWD/.probe/base; else P=$PWD; fi
    PYTHONPATH=$P python3 -u benchmarks/results/assignment-tail-size-h100/tailsweep.py 1024 2>&1 | sed "s/^/$t-$i /"
  done
done
