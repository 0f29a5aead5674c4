#!/usr/bin/env bash
# Run on the GPU host (after `source benchmarks/gpu_setup.sh`): the GPU-marked tests of every
# family, then the default test run on the GPU (PYCLMATCH_TEST_DEVICE=gpu; the file readers'
# tests, which use no device, are left to CI). Logs and JUnit XML go to ${OUT:-.}/.
# Usage: OUT=dir bash benchmarks/gpu_tests.sh [budget seconds per run]
out=${OUT:-.}
t=${1:-240}
export PYCLMATCH_SHARED=${PYCLMATCH_SHARED:-$PWD/.gpu_shared}
timeout "$t" python3 -m pytest -q -p no:cacheprovider -m gpu -rs --durations=10 \
    --junitxml="$out/gpu-marked.xml" tests > "$out/gpu-marked.log" 2>&1
echo "gpu-marked rc=$?"; tail -3 "$out/gpu-marked.log"
PYCLMATCH_TEST_DEVICE=gpu timeout "$t" python3 -m pytest -q -p no:cacheprovider -rs \
    --durations=10 --ignore=tests/test_io.py --junitxml="$out/gpu-default.xml" tests \
    > "$out/gpu-default.log" 2>&1
echo "gpu-default rc=$?"; tail -3 "$out/gpu-default.log"
