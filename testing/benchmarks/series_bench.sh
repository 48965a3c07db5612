#!/usr/bin/env bash
# An adaptive series through the plugin (issue 44): mxn_gen --series 3
# (NX^3 hexes growing x1.5 and x2 per direction: 40 gives 64k, 216k, 512k),
# segments spread as M = 4, 6, 8, read on N ranks with GhostLevels 1 by
# series_bench.py: crossing into a new segment against a fresh load of that
# segment alone, and the bytes a further step reads against its field
# bytes. A script, not a CI test.
#
# usage: bash testing/benchmarks/series_bench.sh [R] [N] [NX] [METHOD]
#   R rounds (default 5), N ranks (default 3), NX (default 40),
#   METHOD (default Files)
# Environment: MXN_BUILD_DIR (default ../<checkout>-build), MXN_BENCH_DATA
# (default /tmp/mxn-bench).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/testing/build_dir.sh"
build=${MXN_BUILD_DIR:-$mxn_default_build}
data=${MXN_BENCH_DATA:-/tmp/mxn-bench}/series
R=${1:-5} N=${2:-3} NX=${3:-40} METHOD=${4:-Files}
plugin=$build/lib/paraview-plugins/MxNReader/MxNReader.so
[ -f "$plugin" ] || { echo "series_bench: no $plugin (build first)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
base=$data/x$NX
if [ ! -f "$base/spread/s.e-s003.8.0" ]; then
  rm -rf "$base" && mkdir -p "$base/spread" "$base/alone2" "$base/alone3"
  "$build/bin/mxn_gen" --type hex --dims "$NX" "$NX" "$NX" --steps 3 --series 3 "$base/p.e" > /dev/null
  "$build/bin/mxn" split "$base/p.e" "$base/spread/s.e" -n 4 --quiet
  "$build/bin/mxn" split "$base/p.e-s002" "$base/spread/s.e-s002" -n 6 --quiet
  "$build/bin/mxn" split "$base/p.e-s003" "$base/spread/s.e-s003" -n 8 --quiet
  for f in "$base"/spread/s.e-s002.6.*; do ln -s "$f" "$base/alone2/"; done
  for f in "$base"/spread/s.e-s003.8.*; do ln -s "$f" "$base/alone3/"; done
fi
echo "series_bench: $base, N=$N, $METHOD, $R rounds; uptime: $(uptime)"
mpiexec --oversubscribe -n "$N" pvbatch --symmetric "$here/testing/benchmarks/series_bench.py" \
  "$plugin" "$METHOD" "$R" "$base/spread/s.e.4.0" "$base/alone2/s.e-s002.6.0" "$base/alone3/s.e-s003.8.0" 2>&1 |
  grep -v "^$"
