#!/usr/bin/env bash
# The scale benchmark of issue 45 (a script, not a CI test): how the
# collective open and the partition grow with the model's blocks K and the
# set's members M. A small mesh (16,000 hexes, `mxn_gen --dims 1000 4 4`)
# with K element blocks (slabs along x) and K node and K side sets is split
# by `mxn split --method rcb` into M members, every member declaring every
# block and set (empty where it holds none, as SEACAS nem_spread and
# ParaView's writer do); then, on N ranks (oversubscribed),
#   mpiexec -n N mxn stats MEMBER --json --method rcb
# Per run one JSON line (kind "scale") is appended to the results file:
# the wall time of the mpiexec, the largest peak RSS of a rank (and each
# rank's, from /usr/bin/time), the core's count of header metadata bytes
# per rank (mxn stats' metadata_bytes), the phases' seconds (max over
# ranks), the exit status. scale_report.py renders them into the scale
# section of BENCHMARKS.md.
#
# usage: bash testing/benchmarks/scale_bench.sh [options]
#   --K "2 200 1000"        blocks (and node and side sets) of the model
#   --M "1024 4096 16384"   members of each set
#   --N "8 32 64"           ranks
#   --dims "1000 4 4"       hex cells per direction (K <= NX)
#   --repeats R             runs of each (K, M, N) (default 1)
#   --data DIR              generated sets (default $MXN_BENCH_DATA or /tmp/mxn-scale);
#                           a set already there (its "done" marker) is reused
#   --out FILE              results JSONL, appended to (default
#                           testing/benchmarks/results/scale.jsonl)
#   --timeout S             seconds a run may take before it is stopped and
#                           recorded as failed (default 900)
#   --report                render BENCHMARKS.md's scale section afterwards
#   --plugin SO             also load each set through the reader plugin SO
#                           (MxNReader.so of a build): mpiexec -n N pvbatch
#                           --symmetric bench.py --variant A (PartitionMethod
#                           Files, one ghost layer), one record of kind
#                           "scale_plugin" per run: the first step's seconds
#                           and the RSS above pvbatch's own base (bench.py's)
# The default lists are the issue's full matrix (27 runs; the sets of
# M = 16384 hold more members than the mesh has elements, so some members
# are empty). The machine these run on has 2 cores: pick a subset.
# Environment: MXN_BUILD_DIR (default ../<checkout>-build).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/testing/build_dir.sh"
build=${MXN_BUILD_DIR:-$mxn_default_build}
Ks="2 200 1000" Ms="1024 4096 16384" Ns="8 32 64" dims="1000 4 4"
repeats=1 timeout_s=900 report=0 plugin=""
data=${MXN_BENCH_DATA:-/tmp/mxn-scale}
out=$here/testing/benchmarks/results/scale.jsonl
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --K) Ks=$2; shift ;;
    --M) Ms=$2; shift ;;
    --N) Ns=$2; shift ;;
    --dims) dims=$2; shift ;;
    --repeats) repeats=$2; shift ;;
    --data) data=$2; shift ;;
    --out) out=$2; shift ;;
    --timeout) timeout_s=$2; shift ;;
    --report) report=1 ;;
    --plugin) plugin=$2; shift ;;
    -h | --help) usage ;;
    *) echo "scale_bench: unknown option '$1'" >&2; usage ;;
  esac
  shift
done
mxn=$build/bin/mxn gen=$build/bin/mxn_gen
for b in "$mxn" "$gen"; do
  [ -x "$b" ] || { echo "scale_bench: no $b (build first)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "scale_bench: needs /usr/bin/time (GNU time) for the peak RSS" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpiexec_sh=$here/testing/mpiexec.sh
mkdir -p "$data" "$(dirname "$out")"
read -r nx ny nz <<< "$dims"
commit=$(git -C "$here" rev-parse --short HEAD 2> /dev/null || echo unknown)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mxn-scale-run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "scale_bench: K {$Ks} x M {$Ms} x N {$Ns}, dims $dims, $repeats repeat(s); commit $commit"
echo "             data $data, results $out; uptime:$(uptime)"

# The model with K blocks and K node and side sets, then its M-member split.
make_set() { # K M -> prints the set's base name
  local K=$1 M=$2 mesh set
  mesh=$data/hex${nx}x${ny}x${nz}-K$K.e
  set=$data/hex${nx}x${ny}x${nz}-K$K-M$M
  if [ ! -f "$mesh" ]; then
    "$gen" --type hex --dims "$nx" "$ny" "$nz" --blocks "$K" --sets "$K" "$mesh.tmp" > /dev/null
    mv "$mesh.tmp" "$mesh"
  fi
  if [ ! -f "$set/done" ]; then
    rm -rf "$set"
    mkdir -p "$set"
    local t0 t1
    t0=$(date +%s.%N)
    "$mxn" split "$mesh" "$set/mesh.e" -n "$M" --method rcb --quiet >&2
    t1=$(date +%s.%N)
    echo "scale_bench: split K=$K into M=$M in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s" >&2
    touch "$set/done"
  fi
  echo "$set/mesh.e"
}

# One load of the set through the plugin (--plugin): bench.py's record,
# with the run's K, M, N, repeat and exit status, as kind "scale_plugin".
plugin_run() { # BASE K M N REPEAT
  local rc
  set +e
  timeout -s TERM "$timeout_s" "$mpiexec_sh" --oversubscribe -n "$4" \
    pvbatch --symmetric "$here/testing/benchmarks/bench.py" --variant A --dataset "$1.$3" \
    --plugin "$plugin" --method Files --ghost-levels 1 --steps 0 > "$tmp/pv.out" 2> "$tmp/pv.err"
  rc=$?
  set -e
  python3 - "$tmp/pv.out" "$rc" "$2" "$3" "$4" "$5" "$commit" "$dims" >> "$out" << 'EOF'
import json, os, socket, sys, time
path, rc = sys.argv[1], int(sys.argv[2])
K, M, N, rep = (int(x) for x in sys.argv[3:7])
rec = {"kind": "scale_plugin", "commit": sys.argv[7], "dims": [int(x) for x in sys.argv[8].split()],
       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "host": socket.gethostname(),
       "cpus": os.cpu_count(), "load1": os.getloadavg()[0], "K": K, "M": M, "N": N,
       "repeat": rep, "exit": rc}
for line in open(path, errors="replace"):
    if line.startswith("BENCH_JSON "):
        b = json.loads(line.split(" ", 1)[1])
        rec.update({"first_s": b.get("first_s"), "phases_s": b.get("phases_s"),
                    "rss_base_sum_kb": b.get("rss_base_sum_kb"),
                    "rss_peak_sum_kb": b.get("rss_peak_sum_kb"),
                    "rss_peak_max_kb": b.get("rss_peak_max_kb"),
                    "owned_cells": b.get("total_owned_cells")})
print(json.dumps(rec, sort_keys=True))
EOF
  tail -n 1 "$out" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
above = (r["rss_peak_sum_kb"] - r["rss_base_sum_kb"]) / 1024.0 if r.get("rss_peak_sum_kb") else None
print("K=%-5d M=%-6d N=%-3d plugin exit %d  first %s s  RSS above base (sum) %s MB" % (
    r["K"], r["M"], r["N"], r["exit"], "%.2f" % r["first_s"] if r.get("first_s") else "-",
    "%.0f" % above if above is not None else "-"))'
}

for K in $Ks; do
  for M in $Ms; do
    base=$(make_set "$K" "$M")
    members=("$base".*) # (ls | head can fail under pipefail)
    member0=${members[0]}
    for N in $Ns; do
      for r in $(seq "$repeats"); do
        rm -f "$tmp"/rss.* "$tmp"/out "$tmp"/err
        # every rank under GNU time, its peak RSS into rss.<rank>
        t0=$(date +%s.%N)
        set +e
        timeout -s TERM "$timeout_s" "$mpiexec_sh" --oversubscribe -n "$N" \
          sh -c 'exec /usr/bin/time -f %M -o "$0/rss.$OMPI_COMM_WORLD_RANK" "$@"' "$tmp" \
          "$mxn" stats "$member0" --json --method rcb > "$tmp/out" 2> "$tmp/err"
        rc=$?
        set -e
        t1=$(date +%s.%N)
        python3 - "$tmp" "$rc" "$t0" "$t1" "$K" "$M" "$N" "$r" "$commit" "$dims" >> "$out" << 'EOF'
import glob, json, os, socket, sys, time
tmp, rc, t0, t1 = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
K, M, N, rep = (int(x) for x in sys.argv[5:9])
commit, dims = sys.argv[9], [int(x) for x in sys.argv[10].split()]
rec = {"kind": "scale", "commit": commit, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
       "host": socket.gethostname(), "cpus": os.cpu_count(), "load1": os.getloadavg()[0],
       "dims": dims, "K": K, "M": M, "N": N, "repeat": rep, "exit": rc,
       "wall_s": round(t1 - t0, 3)}
rss = []
for r in range(N):
    try:
        # GNU time writes "Command exited with non-zero status" before the
        # figure when the command failed: the figure is the last line
        rss.append(int(open(os.path.join(tmp, "rss.%d" % r)).read().split()[-1]))
    except (OSError, ValueError, IndexError):
        rss.append(None)
got = [x for x in rss if x is not None]
rec["rss_max_kb"] = max(got) if got else None
rec["rss_kb"] = rss
try:
    st = json.load(open(os.path.join(tmp, "out")))
    rec["total_elements"] = st["total_elements"]
    rec["metadata_bytes_max"] = st.get("metadata_bytes")
    rec["metadata_bytes"] = [x.get("metadata_bytes") for x in st["ranks_detail"]]
    rec["seconds_max"] = st["seconds_max"]
    rec["files"] = st["files"]
except (OSError, ValueError, KeyError):
    rec["log_tail"] = open(os.path.join(tmp, "err"), errors="replace").read().splitlines()[-5:]
print(json.dumps(rec, sort_keys=True))
EOF
        tail -n 1 "$out" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
mb = r.get("metadata_bytes_max")
print("K=%-5d M=%-6d N=%-3d exit %d  wall %7.2f s  peak RSS/rank %s MB  metadata/rank %s MB" % (
    r["K"], r["M"], r["N"], r["exit"], r["wall_s"],
    "%.1f" % (r["rss_max_kb"] / 1024.0) if r["rss_max_kb"] else "-",
    "%.2f" % (mb / 1048576.0) if mb else "-"))'
        if [ -n "$plugin" ]; then plugin_run "$base" "$K" "$M" "$N" "$r"; fi
      done
    done
  done
done
if [ "$report" = 1 ]; then
  python3 "$here/testing/benchmarks/scale_report.py" "$out"
fi
