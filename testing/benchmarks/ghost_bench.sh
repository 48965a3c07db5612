#!/usr/bin/env bash
# What one ghost layer adds to the parallel load (issue 4): runs
# `load_bench SET files 1 L` under mpiexec for L = 0 and L = 1, alternating,
# R times each, and prints per run the max over ranks of the load time
# (mxn_load_open, no time step) and of the ghost phase (seconds_ghost),
# then the medians, the median of the paired differences L=1 - L=0 and
# both as a share of the L=0 median. A script, not a CI test.
#
# usage: bash testing/benchmarks/ghost_bench.sh [R] [SET] [N]
#   R    pairs of runs (default 15)
#   SET  dataset base (default $MXN_BENCH_DATA/hex1m-rcb-M64.e, made by
#        run_bench.sh --key)
#   N    ranks (default 4)
# Environment: MXN_BUILD_DIR (default ../<checkout>-build), MXN_BENCH_DATA (default
# /tmp/mxn-bench).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/testing/build_dir.sh"
build=${MXN_BUILD_DIR:-$mxn_default_build}
data=${MXN_BENCH_DATA:-/tmp/mxn-bench}
R=${1:-15}
set_base=${2:-$data/hex1m-rcb-M64.e}
N=${3:-4}
bench=$build/bin/load_bench
[ -x "$bench" ] || { echo "ghost_bench: no $bench (build first)" >&2; exit 2; }
ls "$set_base".* > /dev/null 2>&1 || { echo "ghost_bench: no members $set_base.* (run run_bench.sh --key first)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "ghost_bench: $set_base, N=$N, $R alternating pairs; uptime: $(uptime)"
echo "L load_s ghost_s"
for i in $(seq "$R"); do
  for L in 0 1; do
    out=$(mpiexec --oversubscribe -n "$N" "$bench" "$set_base" files 1 "$L" 2>&1) ||
      { echo "ghost_bench: load_bench failed: $out" >&2; exit 1; }
    # (L=0 has no "L=1," line: grep finds nothing there)
    f=$(echo "$out" | { grep -o "first [0-9.]*" || true; } | awk '{ if ($2 > m) m = $2 } END { print m }')
    g=$(echo "$out" | { grep -o "L=1, [0-9.]*" || true; } | awk '{ if ($2 > m) m = $2 } END { print m + 0 }')
    echo "$L $f $g"
  done
done | awk '
function med(v, n,   i, j, t, x) {
  for (i = 1; i <= n; i++) x[i] = v[i]
  for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
  return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
}
{ print }
$1 == 0 { l0 = $2; a0[++n0] = $2 }
$1 == 1 { a1[++n1] = $2; g[n1] = $3; d[n1] = $2 - l0 }
END {
  m0 = med(a0, n0); m1 = med(a1, n1); md = med(d, n1)
  printf "medians: L=0 load %.3f s, L=1 load %.3f s, ghost phase %.3f s\n", m0, m1, med(g, n1)
  printf "extra for one layer: %.3f s (%.1f%%) as the difference of the medians, %.3f s (%.1f%%) as the median of the paired differences\n", m1 - m0, 100 * (m1 - m0) / m0, md, 100 * md / m0
}'
