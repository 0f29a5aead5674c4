N=${N:-24}
D=/tmp/dask-graphs
python3 benchmarks/tmp/diag.py gen $N $D
for rep in ${REPS:-1 2}; do
python3 benchmarks/tmp/diag.py serial $N $D > $OUT/serial-plain-$rep.json
MALLOC_TRIM_THRESHOLD_=65536 python3 benchmarks/tmp/diag.py serial $N $D > $OUT/serial-malloc-$rep.json
OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python3 benchmarks/tmp/diag.py serial $N $D > $OUT/serial-omp-$rep.json
python3 benchmarks/tmp/diag.py dask $N $D default 0:0 2>/dev/null > $OUT/dask-default-$rep.json
python3 benchmarks/tmp/diag.py dask $N $D clean 0:0 2>/dev/null > $OUT/dask-clean-$rep.json
done
for f in $OUT/*.json; do python3 -c "import json,sys; d=json.load(open('$f')); print('$(basename $f)', round(d['wall'],2), [round(x,3) for x in d['per'][:12]])"; done
