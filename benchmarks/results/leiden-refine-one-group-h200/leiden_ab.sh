# alternating processes: the tree of .probe/base (before) and the working tree (after)
for i in 1 2 3; do
  PYTHONPATH=$PWD/.probe/base python3 .probe/leiden_ab.py before
  PYTHONPATH=$PWD python3 .probe/leiden_ab.py after
done
