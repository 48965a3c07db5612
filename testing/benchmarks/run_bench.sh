#!/usr/bin/env bash
# The benchmark of issue 8 (a script, not a CI test): read generated hex
# meshes split into M files, and the spread sets of the shared data, on N
# ranks to balanced data with one ghost layer, three ways, alternating:
#   A  MxNReader (GhostLevels 1)
#   B  ExodusIIReader -> RedistributeDataSet -> GhostCellsGenerator
#   C  IOSSReader     -> RedistributeDataSet -> GhostCellsGenerator
# and, when asked (--variants "A F W"), the floor of issue 60:
#   F  floor of the ranges: floor_bench replays, on the same N ranks, the
#      byte ranges each rank of a recording run of A read (pread into one
#      buffer: no VTK), phase by phase (the reader's creation,
#      the rest of the first step, one further step)
#   W  covered members whole: floor_bench reads every member file each
#      rank touched in the recording run's first step, whole
# The recording run (A under the rangelog.c shim, once per set and N
# before the repeats) appends a "ranges" record, not a run of A; F and W
# append "floor" records. For compressed members (nc4zL) F also inflates
# each chunk it reads (floor_bench --decode, libdeflate as the core).
# Every run of A, B, C is `mpiexec -n N pvbatch --symmetric bench.py ...`
# (of F, W `mpiexec -n N floor_bench ...`) and appends
# one JSON line to the results file; per (dataset, N) the core's own
# counters come from `mpiexec -n N mxn stats --json --ghosts G` (the reader
# does not expose them yet). Then report.py redraws BENCHMARKS.md and plots.
#
# usage: bash testing/benchmarks/run_bench.sh [MODE] [options]
# MODE (default --quick):
#   --quick   64k cells, M 8, N 1 2, 1 repeat, 3 steps, + shared spread
#             sets on N 2 (a few minutes on 2 idle cores)
#   --key     1M cells, M 64, N 4, 3 repeats (the issue's key comparison)
#   --small   1M cells, M 8 64, N 1 2 4, 3 repeats
#   --full    1M and 8M cells, M 8 64 1024, N 1 2 4 8, splits rcb and
#             linear, 3 repeats, + shared spread sets on N 1 2 4 8
# options (override the mode's lists):
#   --sizes "64k 1m 8m"   generated meshes (hex, 40^3 / 100^3 / 200^3 cells)
#   --M "8 64 1024"       member files per generated set
#   --N "1 2 4 8"         ranks
#   --splits "rcb linear" mxn split --method of the generated sets
#   --formats "nc3 nc4 nc4z1"  member file formats of the generated sets:
#                         nc3 (netCDF-3, the default), nc4 (netCDF-4), nc4zL
#                         (netCDF-4, deflate level L + shuffle); sets other
#                         than nc3 are named ...-M64-nc4.e, ...-M64-nc4z1.e
#                         (default $MXN_BENCH_FORMATS, else nc3)
#   --variants "A B C"    pipelines, and F, W (the floors above)
#   --repeats R           runs of each variant per configuration (>= 1)
#   --steps K             time steps read (first + K-1 further; 0 = all)
#   --method NAME         MxNReader PartitionMethod (default Files)
#   --ghosts L            ghost layers (default 1)
#   --spread / --no-spread  also / not the sets in $MXN_SHARED_DATA/spread
#   --spread-N "2"        ranks for the spread sets
#   --data DIR            generated data (default $MXN_BENCH_DATA or /tmp/mxn-bench)
#   --out FILE            results JSONL (default testing/benchmarks/results/<mode>.jsonl;
#                         appended to)
#   --timeout S           per run (default 3600)
#   --no-warm             do not read the set's members before each run (by
#                         default they are read once, so every variant starts
#                         from a warm page cache; see warm_set below)
#   --no-report           do not run report.py at the end
#   --dry-run             print the runs, run nothing
# Environment: MXN_BUILD_DIR (default ../<checkout>-build), MXN_SHARED_DATA (default
# ../shared/data beside the checkout), MXN_BENCH_FORMATS (see --formats).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bench=$here/testing/benchmarks
. "$here/testing/build_dir.sh"
build=${MXN_BUILD_DIR:-$mxn_default_build}
shared=${MXN_SHARED_DATA:-$here/../shared/data}
# Absolute and without "..": bench.py's paths and the open counter's prefix must agree.
[ -d "$shared" ] && shared=$(cd "$shared" && pwd -P)
data=${MXN_BENCH_DATA:-/tmp/mxn-bench}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

mode=quick
sizes="" Ms="" Ns="" splits="" formats=${MXN_BENCH_FORMATS:-nc3} variants="A B C" repeats="" steps="" method=Files ghosts=1
spread="" spreadN="" out="" timeout_s=3600 report=1 dry=0 warm=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick ;;
    --key) mode=key ;;
    --small) mode=small ;;
    --full) mode=full ;;
    --sizes) sizes=$2; shift ;;
    --M) Ms=$2; shift ;;
    --N) Ns=$2; shift ;;
    --splits) splits=$2; shift ;;
    --formats) formats=$2; shift ;;
    --variants) variants=$2; shift ;;
    --repeats) repeats=$2; shift ;;
    --steps) steps=$2; shift ;;
    --method) method=$2; shift ;;
    --ghosts) ghosts=$2; shift ;;
    --spread) spread=1 ;;
    --no-spread) spread=0 ;;
    --spread-N) spreadN=$2; shift ;;
    --data) data=$2; shift ;;
    --out) out=$2; shift ;;
    --timeout) timeout_s=$2; shift ;;
    --no-report) report=0 ;;
    --no-warm) warm=0 ;;
    --dry-run) dry=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_bench: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

# Mode defaults; explicit options win.
case $mode in
  quick) d_sizes="64k" d_M="8" d_N="1 2" d_splits="rcb" d_rep=1 d_steps=3 d_spread=1 d_spreadN="2" ;;
  key)   d_sizes="1m" d_M="64" d_N="4" d_splits="rcb" d_rep=3 d_steps=0 d_spread=0 d_spreadN="" ;;
  small) d_sizes="1m" d_M="8 64" d_N="1 2 4" d_splits="rcb" d_rep=3 d_steps=0 d_spread=1 d_spreadN="1 2 4" ;;
  full)  d_sizes="1m 8m" d_M="8 64 1024" d_N="1 2 4 8" d_splits="rcb linear" d_rep=3 d_steps=0
         d_spread=1 d_spreadN="1 2 4 8" ;;
esac
sizes=${sizes:-$d_sizes} Ms=${Ms:-$d_M} Ns=${Ns:-$d_N} splits=${splits:-$d_splits}
repeats=${repeats:-$d_rep} steps=${steps:-$d_steps} spread=${spread:-$d_spread}
spreadN=${spreadN:-${d_spreadN:-$Ns}}
out=${out:-$bench/results/$mode.jsonl}
[ "$repeats" -ge 1 ] 2>/dev/null || { echo "run_bench: --repeats needs a count >= 1" >&2; exit 2; }

mxn=$build/bin/mxn gen=$build/bin/mxn_gen floor=$build/bin/floor_bench
plugin=$build/lib/paraview-plugins/MxNReader/MxNReader.so
floors=0
case " $variants " in *" F "*|*" W "*) floors=1 ;; esac
for v in $variants; do
  case $v in A|B|C|F|W) ;; *) echo "run_bench: unknown variant $v (A B C F W)" >&2; exit 2 ;; esac
done
need=("$mxn" "$gen" "$plugin")
[ "$floors" = 1 ] && need+=("$floor")
for f in "${need[@]}"; do
  [ -e "$f" ] || { echo "run_bench: $f missing: build first (MXN_BUILD_DIR=$build bash testing/setup.sh)" >&2; exit 1; }
done
command -v pvbatch > /dev/null || { echo "run_bench: pvbatch not found" >&2; exit 1; }
mkdir -p "$data" "$(dirname "$out")"
data=$(cd "$data" && pwd)
logdir=$data/logs
mkdir -p "$logdir"

# The open counter (LD_PRELOAD) for files opened per rank in every variant.
opencount=$data/opencount.so
if [ ! -f "$opencount" ] || [ "$bench/opencount.c" -nt "$opencount" ]; then
  cc -shared -fPIC -O2 -o "$opencount" "$bench/opencount.c" -ldl
fi
# The range recorder (LD_PRELOAD) of the floor's recording run.
rangelog=$data/rangelog.so
if [ "$floors" = 1 ] && { [ ! -f "$rangelog" ] || [ "$bench/rangelog.c" -nt "$rangelog" ]; }; then
  cc -shared -fPIC -O2 -o "$rangelog" "$bench/rangelog.c" -ldl
fi

# The code measured is the build's: the commit of the checkout the build
# directory was configured from (MXN_BUILD_DIR may be another checkout's).
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
[ -n "$src" ] && [ -d "$src" ] || src=$here
commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo 1 || echo 0)

json_env() { # one "env" record: the machine state the figures were taken in
  python3 - "$mode" "$commit" "$dirty" "$1" << 'EOF'
import glob, json, os, platform, subprocess, sys, time
mode, commit, dirty, when = sys.argv[1:5]
up = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
try:
    pv = subprocess.run(["pvbatch", "--version"], capture_output=True, text=True).stdout.strip()
except OSError:
    pv = None
# A proactive reclaim of the page cache (DAMON schemes), if the kernel runs one.
def rd(p):
    try:
        return open(p).read().strip()
    except OSError:
        return None
damon = []
for k in sorted(glob.glob("/sys/kernel/mm/damon/admin/kdamonds/*/")):
    for c in sorted(glob.glob(k + "contexts/*/")):
        for sch in sorted(glob.glob(c + "schemes/*/")):
            damon.append({"kdamond": rd(k + "state"), "action": rd(sch + "action"),
                          "min_age_aggregations": rd(sch + "access_pattern/age/min"),
                          "aggregation_us": rd(c + "monitoring_attrs/intervals/aggr_us")})
print(json.dumps({"kind": "env", "when": when, "mode": mode, "commit": commit,
                  "dirty": dirty == "1", "uptime": up, "loadavg": list(os.getloadavg()),
                  "nproc": os.cpu_count(), "host": platform.node(), "paraview": pv,
                  "unix_time": time.time(), "damon_schemes": damon}, sort_keys=True))
EOF
}

# The issue's floor is the page cache delivering the set, and the variants
# compare on equal terms only if each starts from the same cache. That
# does not hold by itself: the machines this ran on page out memory left
# unused for about a minute (a DAMON scheme: the env record's
# damon_schemes), file cache included, and reads of a set paged out in
# part slept in the kernel. So each run first reads the set's members
# once, and records how much of the set was cached before (fincore).
warm_set() { # BASE: prints the fraction of the set cached, then reads every member
  local frac
  frac=$(fincore -b -n -o RES,SIZE "$1".*.* 2> /dev/null |
         awk '{r += $1; s += int(($2 + 4095) / 4096) * 4096} END {if (s > 0) printf "%.3f", r / s; else print "null"}') || frac=null
  cat "$1".*.* > /dev/null
  echo "${frac:-null}"
}

dataset_record() { # NAME MEMBER TAGS: a "dataset" record (mxn info --json, bytes on disk)
  "$mxn" info "$2" --json | python3 -c 'import glob, json, os, sys
d = json.load(sys.stdin); name, member, tags = sys.argv[1:4]
base = member.rsplit(".", 2)[0]
files = sorted(glob.glob(glob.escape(base) + ".*.*")) or [member]
t = dict(kv.split("=", 1) for kv in tags.split())
v = d["variables"]
print(json.dumps({"kind": "dataset", "set": name, "member": member, "tags": t,
                  "files": len(files), "file_bytes": sum(os.path.getsize(f) for f in files),
                  "num_dim": d["num_dim"], "num_nodes": d["num_nodes"],
                  "num_elements": d["num_elements"], "times": d["times"],
                  "nodes_per_element": [b["nodes_per_element"] for b in d["blocks"]],
                  "block_counts": [b["count"] for b in d["blocks"]],
                  "node_vars": len(v["nodal"]), "elem_vars": len(v["element"]),
                  "global_vars": len(v["global"])}, sort_keys=True))' "$1" "$2" "$3"
}

format_args() { # FORMAT: the mxn split options writing it
  case $1 in
    nc3) echo "" ;;
    nc4) echo "--format nc4" ;;
    nc4z[0-9]) echo "--compress ${1#nc4z}" ;;
    *) echo "run_bench: unknown format $1 (nc3, nc4, nc4z1 ... nc4z9)" >&2; exit 2 ;;
  esac
}
for f in $formats; do format_args "$f" > /dev/null; done

dims_of() {
  case $1 in
    64k) echo 40 ;; 1m) echo 100 ;; 8m) echo 200 ;;
    *) echo "run_bench: unknown size $1 (64k, 1m, 8m)" >&2; exit 2 ;;
  esac
}

# Generate the meshes and split them (kept between runs in $data).
declare -a sets=()  # "name|path|N list|tags"
for size in $sizes; do
  d=$(dims_of "$size")
  mesh=$data/hex$size.e
  if [ "$dry" = 0 ] && [ ! -f "$mesh" ]; then
    echo "run_bench: generating $mesh ($d^3 hex, 5 steps)"
    nice -n 10 "$gen" --type hex --dims "$d" "$d" "$d" --steps 5 "$mesh"
  fi
  for split in $splits; do
    for M in $Ms; do
      for fmt in $formats; do
        # nc3 sets keep their names (and the data made before formats).
        sfx=""
        [ "$fmt" = nc3 ] || sfx=-$fmt
        base=$data/hex$size-$split-M$M$sfx.e
        if [ "$dry" = 0 ] && ! ls "$base.$M."* > /dev/null 2>&1; then
          echo "run_bench: splitting into $M files ($split, $fmt): $base.$M.*"
          # shellcheck disable=SC2046
          nice -n 10 "$mxn" split "$mesh" "$base" -n "$M" --method "$split" $(format_args "$fmt") --quiet
        fi
        sets+=("hex$size-$split-M$M$sfx|$base|$Ns|size=$size split=$split M=$M format=$fmt")
      done
    done
  done
done
if [ "$spread" = 1 ]; then
  if [ -d "$shared/spread" ]; then
    for first in $(find "$shared/spread" -name '*.*.0' -o -name '*.*.00' -o -name '*.*.000' | sort); do
      M=${first%.*}; M=${M##*.}
      base=${first%.*.*}
      sets+=("$(basename "$base")|$base|$spreadN|size=spread split=shared M=$M")
    done
  else
    echo "run_bench: no $shared/spread: shared spread sets skipped"
  fi
fi

# Every variant alternates within a repeat, and the order rotates between
# repeats (ABC, BCA, CAB) so no variant always runs first (warm caches,
# machine drift). Each run starts from a warm page cache (warm_set).
read -r -a V <<< "$variants"
nv=${#V[@]}
[ "$dry" = 1 ] || json_env start >> "$out"
echo "run_bench: mode $mode, results -> $out"
uptime
for entry in "${sets[@]}"; do
  IFS='|' read -r name base nlist tags <<< "$entry"
  member=$(ls "$base".*.* 2> /dev/null | head -1 || true)
  if [ "$dry" = 0 ] && [ -z "$member" ]; then
    echo "run_bench: $base.*: no members" >&2
    continue
  fi
  expect=-1
  if [ "$dry" = 0 ]; then
    rec=$(dataset_record "$name" "$member" "$tags")
    echo "$rec" >> "$out"
    expect=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["num_elements"])' "$rec")
  fi
  for N in $nlist; do
    # The core's counters on the same data and ranks (files opened, bytes
    # read vs needed, ghosts), once per (dataset, N).
    if [ "$dry" = 0 ]; then
      if stats=$(timeout "$timeout_s" nice -n 10 mpiexec --oversubscribe -n "$N" "$mxn" stats \
                   "$member" --json --ghosts "$ghosts" --method "$(echo "$method" | tr A-Z a-z)" \
                   2> "$logdir/stats.err"); then
        python3 -c 'import json,sys
d = json.loads(sys.argv[1]); t = dict(kv.split("=", 1) for kv in sys.argv[2].split())
t["set"] = sys.argv[3]
print(json.dumps({"kind": "core_stats", "source": "mxn stats --json", "ranks": int(sys.argv[4]),
                  "ghost_levels": int(sys.argv[5]), "tags": t, "stats": d}, sort_keys=True))' \
          "$stats" "$tags" "$name" "$N" "$ghosts" >> "$out"
      else
        echo "run_bench: mxn stats failed on $member N=$N: $(tail -3 "$logdir/stats.err")" >&2
      fi
    fi
    # The floors' recording run: A under the range recorder, its ranges
    # dumped per rank for floor_bench; its record becomes kind "ranges".
    ranges=$logdir/ranges-$name-N$N
    if [ "$floors" = 1 ]; then
      rcmd=(mpiexec --oversubscribe -n "$N" -x LD_PRELOAD="$opencount:$rangelog"
            -x MXN_BENCH_OPEN_PREFIX -x MXN_BENCH_RANGES
            pvbatch --symmetric "$bench/bench.py" --variant A --dataset "$member"
            --plugin "$plugin" --method "$method" --ghost-levels "$ghosts" --steps "$steps"
            --expect-cells "$expect" --tag "set=$name" --tag "mode=$mode" --tag "commit=$commit")
      for t in $tags; do rcmd+=(--tag "$t"); done
      if [ "$dry" = 1 ]; then
        echo "MXN_BENCH_RANGES=$ranges ${rcmd[*]}"
      else
        printf 'run_bench: %-28s N=%-2s recording the ranges read ... ' "$name" "$N"
        rm -f "$ranges".*
        [ "$warm" = 1 ] && warm_set "$base" > /dev/null
        rc=0
        (cd "$logdir" && MXN_BENCH_OPEN_PREFIX=$base. MXN_BENCH_RANGES=$ranges \
          timeout "$timeout_s" nice -n 10 "${rcmd[@]}") > "$ranges.log" 2>&1 || rc=$?
        line=$(grep -m1 '^BENCH_JSON ' "$ranges.log" | sed 's/^BENCH_JSON //' || true)
        if [ "$rc" = 0 ] && [ -n "$line" ]; then
          python3 -c 'import json,sys
r = json.loads(sys.argv[1]); r["kind"] = "ranges"; print(json.dumps(r, sort_keys=True))' \
            "$line" >> "$out"
          python3 -c 'import json,sys
g = json.loads(sys.argv[1])["ranges"]
print("%.1f MB first step, %.1f MB a further step, %d mmaps, %d lost (sum over ranks)" % (
  sum(b[0] + b[1] for b in g["bytes"]) / 1048576.0, sum(b[2] for b in g["bytes"]) / 1048576.0,
  sum(g["mmaps"]), sum(g["lost"])))' "$line"
        else
          echo "FAILED (exit $rc, log $ranges.log): F and W skipped"
        fi
      fi
    fi
    for ((rep = 1; rep <= repeats; rep++)); do
      for ((k = 0; k < nv; k++)); do
        v=${V[$(((k + rep - 1) % nv))]}
        log=$logdir/$name-N$N-$v-r$rep.log
        case $v in
          F|W)
            cmd=(mpiexec --oversubscribe -n "$N" "$floor" "$ranges")
            [ "$v" = W ] && cmd+=(--whole)
            # compressed members: the floor is read + decode once
            case " $tags " in *" format=nc4z"*) [ "$v" = F ] && cmd+=(--decode) ;; esac
            if [ "$dry" = 0 ] && [ ! -f "$ranges.0" ]; then
              continue # the recording run failed (said above)
            fi ;;
          *)
            cmd=(mpiexec --oversubscribe -n "$N" -x LD_PRELOAD="$opencount" -x MXN_BENCH_OPEN_PREFIX
                 pvbatch --symmetric "$bench/bench.py" --variant "$v" --dataset "$member"
                 --plugin "$plugin" --method "$method" --ghost-levels "$ghosts" --steps "$steps"
                 --expect-cells "$expect") ;;
        esac
        cmd+=(--tag "set=$name" --tag "repeat=$rep" --tag "order=$k"
              --tag "mode=$mode" --tag "commit=$commit")
        for t in $tags; do cmd+=(--tag "$t"); done
        if [ "$dry" = 1 ]; then
          echo "${cmd[*]}"
          continue
        fi
        printf 'run_bench: %-28s N=%-2s %s rep %d ... ' "$name" "$N" "$v" "$rep"
        cached=null
        [ "$warm" = 1 ] && cached=$(warm_set "$base")
        t0=$(date +%s.%N)
        rc=0
        # Only the set's members count as opened files (netCDF also probes
        # rc files in the working directory).
        (cd "$logdir" && MXN_BENCH_OPEN_PREFIX=$base. timeout "$timeout_s" \
          nice -n 10 "${cmd[@]}") > "$log" 2>&1 || rc=$?
        line=$(grep -m1 '^BENCH_JSON ' "$log" | sed 's/^BENCH_JSON //' || true)
        secs=$(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)")
        if [ "$rc" = 0 ] && [ -n "$line" ]; then
          # The job's own wall time (pvbatch start-up included) and load.
          python3 -c 'import json,os,sys
r = json.loads(sys.argv[1]); r["job_s"] = float(sys.argv[2])
r["warmed"] = sys.argv[3] == "1"; r["cached_before_warm"] = json.loads(sys.argv[4])
r["loadavg_after_job"] = list(os.getloadavg()); print(json.dumps(r, sort_keys=True))' \
            "$line" "$secs" "$warm" "$cached" >> "$out"
          python3 -c 'import json,sys
r = json.loads(sys.argv[1])
if r["kind"] == "floor":
    print("first %.3f s%s, %.1f MB read (job %s s)" % (
        r["first_s"], ", step %.3f s" % r["step_s"][0] if r["step_s"] else "",
        sum(sum(b) for b in r["bytes_per_rank"]) / 1048576.0, sys.argv[2]))
    sys.exit(0)
print("first %.2f s, step %s s, peak RSS max %.0f MB, ghosts %d, imbalance %.3f%s (job %s s)" % (
  r["first_s"], "%.2f" % r["step_s_median"] if r["step_s_median"] is not None else "-",
  r["rss_peak_max_kb"] / 1024, r["total_ghost_cells"], r["imbalance"] or 0,
  "" if r["complete"] in (True, None) else ", INCOMPLETE %d of %d cells" % (
      r["total_owned_cells"], r["expect_cells"]), sys.argv[2]))' "$line" "$secs"
        else
          echo "FAILED (exit $rc, log $log)"
          python3 -c 'import json,sys
t = dict(kv.split("=", 1) for kv in sys.argv[5].split()); t.update({"set": sys.argv[1]})
tail = open(sys.argv[6], errors="replace").read().splitlines()[-12:]
print(json.dumps({"kind": "fail", "variant": sys.argv[2], "ranks": int(sys.argv[3]),
                  "exit": int(sys.argv[4]), "tags": t, "log": sys.argv[6], "log_tail": tail},
                 sort_keys=True))' "$name" "$v" "$N" "$rc" "$tags repeat=$rep mode=$mode" "$log" >> "$out"
        fi
      done
    done
  done
done
[ "$dry" = 1 ] && exit 0
json_env end >> "$out"
uptime
if [ "$report" = 1 ]; then
  python3 "$bench/report.py"
fi
