#!/usr/bin/env bash
# Build ECL-MM (github.com/burtscher/ECL-MM, BSD-3) on the GPU host for the benchmarks'
# --ecl-mm option: bash benchmarks/build_ecl_mm.sh SRC_DIR BINARY [ARCH, default sm_90].
# SRC_DIR holds its source/ files (ECL-MM_10.cu, ECLgraph.h, ECLatomic.h). CUDA 13 dropped
# cudaDeviceProp's clockRate and memoryClockRate, which ECL-MM only prints: a copy of the
# source without those two prints is compiled, the timed code unchanged.
set -euo pipefail
src=$1; out=$2; arch=${3:-sm_90}
tmp=$(mktemp -d)
cp "$src"/ECL-MM_10.cu "$src"/ECLgraph.h "$src"/ECLatomic.h "$tmp"/
sed -i '/deviceProp\.clockRate\|deviceProp\.memoryClockRate/d' "$tmp"/ECL-MM_10.cu
nvcc -O3 -arch="$arch" -Xcompiler -fopenmp "$tmp"/ECL-MM_10.cu -o "$out"
rm -rf "$tmp"
