# A/B: the tree before the host-overhead commit (.probe/base) and this one, alternating
set -u
for i in 1 2; do
  for t in base new; do
    if [ $t = base ]; then P=$PWD/.probe/base; B=.probe/base/benchmarks; else P=$PWD; B=benchmarks; fi
    PYTHONPATH=$P python3 $B/bench_bipartite.py --device gpu --suite reference --graphs kron-21 --rcp both --algorithms ptg,apfb-gpubfs-wr-mt --scipy-timeout 0 --repeat 5 --out $OUT/ab/$t-$i 2>&1 | grep -E "^kron" | sed "s/^/$t-$i /"
  done
done
