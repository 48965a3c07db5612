#!/usr/bin/env bash
# Baseline of the parallel load (a benchmark, not a test): a generated
# 1M-hex mesh with 5 steps, split into M = 8 and 64 files, loaded on
# N = 1, 2, 4 ranks with the files and sfc methods. Prints one line per
# rank (see load_bench.c). Run after testing/setup.sh:
#   bash testing/benchmarks/run_load_baseline.sh [outdir]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/testing/build_dir.sh"
build=${MXN_BUILD_DIR:-$mxn_default_build}
out=${1:-$here/data/generated/bench}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
[ -f "$out/hex1m.e" ] || "$build/bin/mxn_gen" --type hex --dims 100 100 100 --blocks 3 --steps 5 "$out/hex1m.e"
for M in 8 64; do
  [ -f "$out/hex1m-M$M.e.$M.0" ] || [ -f "$out/hex1m-M$M.e.$M.00" ] ||
    "$build/bin/mxn" split "$out/hex1m.e" "$out/hex1m-M$M.e" -n "$M" --method rcb --quiet
  for N in 1 2 4; do
    for method in files sfc; do
      mpiexec --oversubscribe -n "$N" "$build/bin/load_bench" "$out/hex1m-M$M.e" "$method"
    done
  done
done
