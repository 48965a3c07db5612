#!/usr/bin/env bash
# The many-files goal of issue 8 in the core alone: is a set of many small
# members slower per byte on disk than the same mesh in fewer members?
# Runs `load_bench SET files 1 1` under mpiexec on two spread sets of one
# mesh, taking turns, R times each, each run from a warm page cache (the
# set's members are read just before: these machines page out file cache
# left idle for about a minute). Per run: the
# time to the piece (max over ranks), the CPU seconds summed over the
# ranks, their user part and the collective open's part (load_bench's
# open-cpu: the part that grows with the members). At the end the medians of each set, their
# ratio, the ratio of the bytes on disk, and each time ratio per byte
# (time ratio / bytes ratio: at most 1.0 is the goal).
#
# The user CPU is the steadiest of the three on a VM: the kernel's
# clearing of memory the host has not backed yet is system time, and it
# varies from run to run by more than the difference between the sets.
# A script, not a CI test.
#
# usage: bash testing/benchmarks/many_bench.sh [R] [FEW] [MANY] [N]
#   R     runs of each set (default 8)
#   FEW   base of the set of fewer members (default
#         $MXN_BENCH_DATA/hex1m-rcb-M64.e, made by run_bench.sh)
#   MANY  base of the set of more members (default .../hex1m-rcb-M1024.e)
#   N     ranks (default 4)
# Environment: MXN_BUILD_DIR (default ../<checkout>-build), MXN_BENCH_DATA
# (default /tmp/mxn-bench), MXN_BENCH_LOADS (default 1: loads per run, the
# last one measured; later loads reuse the memory the first touched, as a
# long-running pvserver does).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/testing/build_dir.sh"
build=${MXN_BUILD_DIR:-$mxn_default_build}
data=${MXN_BENCH_DATA:-/tmp/mxn-bench}
R=${1:-8}
few=${2:-$data/hex1m-rcb-M64.e}
many=${3:-$data/hex1m-rcb-M1024.e}
N=${4:-4}
loads=${MXN_BENCH_LOADS:-1}
bench=$build/bin/load_bench
[ -x "$bench" ] || { echo "many_bench: no $bench (build first)" >&2; exit 2; }
for s in "$few" "$many"; do
  ls "$s".*.* > /dev/null 2>&1 || { echo "many_bench: no members $s.*.* (run run_bench.sh first)" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# (sizes by stat: reading a 2 GB set to count its bytes cost seconds)
bytes() { stat -c %s "$1".*.* | awk '{ s += $1 } END { print s }'; }
member0() { local f=("$1".*.*); echo "${f[0]}"; } # (ls | head can fail under pipefail)
few_bytes=$(bytes "$few")
many_bytes=$(bytes "$many")
echo "many_bench: $few ($(ls "$few".*.* | wc -l) members, $few_bytes B) against"
echo "            $many ($(ls "$many".*.* | wc -l) members, $many_bytes B), N=$N, $R runs each, taking turns, load $loads of $loads measured"
echo "            commit $(git -C "$here" rev-parse --short HEAD 2> /dev/null || echo unknown); uptime:$(uptime)"
echo "set first_s cpu_s user_s open_cpu_s"
for i in $(seq "$R"); do
  for s in "$few" "$many"; do
    cat "$s".*.* > /dev/null
    out=$(mpiexec --oversubscribe -n "$N" "$bench" "$(member0 "$s")" files 1 1 "$loads" 2>&1) ||
      { echo "many_bench: load_bench failed: $out" >&2; exit 1; }
    echo "$out" | awk -v set="$(basename "$s")" '
      /^rank / {
        for (i = 1; i <= NF; i++) {
          if ($i == "first") { v = $(i + 1) + 0; if (v > first) first = v }
          if ($i == "cpu") cpu += $(i + 1)
          if ($i == "(user") user += $(i + 1)
          if ($i == "open-cpu") open += $(i + 1)
        }
      }
      END { printf "%s %.3f %.3f %.3f %.3f\n", set, first, cpu, user, open }'
  done
done | python3 -c '
import statistics, sys
few, many, bf, bm = sys.argv[1:5]
runs = {few: [], many: []}
for line in sys.stdin:
    print(line, end="")
    p = line.split()
    if p[0] in runs:
        runs[p[0]].append([float(x) for x in p[1:5]])
bytes_ratio = int(bm) / int(bf)
print(f"bytes on disk: {int(bf) / 1e6:.1f} against {int(bm) / 1e6:.1f} MB, {bytes_ratio:.3f}x")
for k, name in enumerate(["first step (max over ranks)", "CPU (sum over ranks)", "user CPU (sum over ranks)",
                          "open CPU (sum over ranks)"]):
    a = [r[k] for r in runs[few]]
    b = [r[k] for r in runs[many]]
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"{name}: {ma:.3f} s [{min(a):.3f}-{max(a):.3f}] against {mb:.3f} s [{min(b):.3f}-{max(b):.3f}]: "
          f"{mb / ma:.3f}x the time, {mb / ma / bytes_ratio:.3f}x per byte")
' "$(basename "$few")" "$(basename "$many")" "$few_bytes" "$many_bytes"
