#!/usr/bin/env bash
# Two builds of the reader side by side, in one run on one machine: the
# way a change is checked against the commit before it (a script, not a
# CI test). For each round, each set and each build, in turn (the order
# turning round by round: round r starts with build r):
#   mpiexec -n N pvbatch --symmetric bench.py --variant A --dataset SET
# with that build's plugin, from a warm page cache. At the end, per set and
# build: the median first-step time (max over ranks), its ratio to the
# first build's median and the median of the ratios round by round
# ("paired"), the median peak RSS per rank (max over ranks) and the same
# above pvbatch's own base (what the reader adds), with its ratio. Run a
# multiple of the number of builds as rounds, so each build comes first
# equally often.
#
# usage: bash testing/benchmarks/ab_bench.sh [-r ROUNDS] [-n N] [-s STEPS] \
#          NAME=BUILD_DIR[:ENV=VALUE,...][@PROPERTY=VALUE,...] ... -- SET_BASE ...
#   NAME=BUILD_DIR  a label and a build tree holding
#                   lib/paraview-plugins/MxNReader/MxNReader.so; the first
#                   one is the reference of the ratios. ":ENV=VALUE" sets
#                   environment variables for that build's runs only;
#                   "@PROPERTY=VALUE" sets MxNReader properties for them
#                   (bench.py --property), so one build can be compared
#                   with itself, e.g. off=B@ApplyDisplacements=0
#                   on=B@ApplyDisplacements=1.
#   -s STEPS        time steps read (default 1: the first step alone); with
#                   more, the table adds the median further step (median
#                   over a run's further steps, max over ranks) and its
#                   ratios, plain and paired, as for the first step.
#   SET_BASE        base name of a spread set (SET_BASE.M.j), e.g. the
#                   /tmp/mxn-bench/hex1m-rcb-M64.e that run_bench.sh makes.
# Records go to $MXN_AB_OUT (default /tmp/mxn-ab.jsonl), one JSON line each.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=5 N=4 steps=1
builds=()
while [ $# -gt 0 ]; do
  case $1 in
    -r) rounds=$2; shift 2 ;;
    -n) N=$2; shift 2 ;;
    -s) steps=$2; shift 2 ;;
    --) shift; break ;;
    *=*) builds+=("$1"); shift ;;
    *) echo "ab_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
sets=("$@")
[ ${#builds[@]} -ge 1 ] && [ ${#sets[@]} -ge 1 ] ||
  { echo "usage: ab_bench.sh [-r R] [-n N] [-s STEPS] NAME=BUILD[:ENV=V,...][@PROP=V,...] ... -- SET_BASE ..." >&2; exit 2; }
out=${MXN_AB_OUT:-/tmp/mxn-ab.jsonl}
: > "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "ab_bench: $rounds rounds, N=$N, builds: ${builds[*]}; uptime:$(uptime)"
for r in $(seq "$rounds"); do
  for s in "${sets[@]}"; do
    members=("$s".*.*)
    [ -e "${members[0]}" ] || { echo "ab_bench: no members $s.*.*" >&2; exit 2; }
    # the builds' order turns each round: on these machines the run that
    # came second in a pair was faster whichever build it was (1ad5d3c
    # against 73160c0: paired medians 0.90 with 1ad5d3c first, 6 rounds,
    # and 1.17 with it second, 8 rounds), so a fixed order favours the
    # later builds
    k=${#builds[@]}
    for ((i = 0; i < k; i++)); do
      b=${builds[(r - 1 + i) % k]}
      name=${b%%=*} rest=${b#*=}
      props=""
      if [[ $rest == *@* ]]; then props=${rest#*@} rest=${rest%%@*}; fi
      dir=${rest%%:*} envs=""
      [ "$rest" != "$dir" ] && envs=${rest#*:}
      propargs=()
      IFS=, read -ra pv <<< "$props"
      for p in "${pv[@]}"; do [ -n "$p" ] && propargs+=(--property "$p"); done
      plugin=$dir/lib/paraview-plugins/MxNReader/MxNReader.so
      [ -f "$plugin" ] || { echo "ab_bench: no plugin $plugin" >&2; exit 2; }
      cat "${members[@]}" > /dev/null
      envargs=()
      IFS=, read -ra kv <<< "$envs"
      for e in "${kv[@]}"; do [ -n "$e" ] && envargs+=(-x "$e"); done
      line=$(env ${envs//,/ } mpiexec --oversubscribe -n "$N" "${envargs[@]}" \
        pvbatch --symmetric "$here/bench.py" --variant A --dataset "${members[0]}" \
        --plugin "$plugin" --steps "$steps" "${propargs[@]}" 2>&1 | sed -n 's/^BENCH_JSON //p' | tail -1)
      [ -n "$line" ] || { echo "ab_bench: run of $name on $s gave no record" >&2; exit 1; }
      python3 -c 'import json,sys; d=json.loads(sys.argv[1]); d.update(build=sys.argv[2], set=sys.argv[3], round=int(sys.argv[4]), order=int(sys.argv[5])); print(json.dumps(d))' \
        "$line" "$name" "$(basename "$s")" "$r" "$i" >> "$out"
      echo "round $r $(basename "$s") $name: $(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print("first %.3f s, peak %.0f MB/rank" % (d["first_s"], d["rss_peak_max_kb"]/1024) + ("; further steps %s ms" % " ".join("%.0f" % (1000 * x) for x in d["step_s"]) if d.get("step_s") else ""))' "$line")"
    done
  done
done
python3 - "$out" << 'EOF'
import json, statistics, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
order = []
for r in recs:
    if r["build"] not in order: order.append(r["build"])
for s in dict.fromkeys(r["set"] for r in recs):
    print(f"\n{s}")
    print(f"{'build':>12} {'first s':>9} {'ratio':>6} {'paired':>7} {'peak MB':>8} {'above base MB':>14} {'ratio':>6}")
    ref = None
    first = {(r["round"], r["build"]): r["first_s"] for r in recs if r["set"] == s}
    for b in order:
        rr = [r for r in recs if r["set"] == s and r["build"] == b]
        t = statistics.median(r["first_s"] for r in rr)
        m = statistics.median(r["rss_peak_max_kb"] for r in rr) / 1024
        a = statistics.median((r["rss_peak_sum_kb"] - r["rss_base_sum_kb"]) / len(r["rss_peak_kb"]) for r in rr) / 1024
        ref = ref or (t, a, b)
        # the median of this build's time over the first build's, round by round
        pr = [first[(q, b)] / first[(q, ref[2])] for (q, x) in first if x == b and (q, ref[2]) in first]
        p = statistics.median(pr) if pr else float("nan")
        print(f"{b:>12} {t:9.3f} {t / ref[0]:6.3f} {p:7.3f} {m:8.0f} {a:14.0f} {a / ref[1]:6.3f}   ({len(rr)} runs, first {min(r['first_s'] for r in rr):.3f}-{max(r['first_s'] for r in rr):.3f})")
    # further steps: each run's median step (max over ranks), then as above
    step = {(r["round"], r["build"]): statistics.median(r["step_s"])
            for r in recs if r["set"] == s and r.get("step_s")}
    if step:
        print(f"{'build':>12} {'step ms':>9} {'ratio':>6} {'paired':>7}")
        for b in order:
            v = [x for (q, y), x in step.items() if y == b]
            if not v:
                continue
            t, t0 = statistics.median(v), statistics.median(x for (q, y), x in step.items() if y == order[0])
            pr = [step[(q, b)] / step[(q, order[0])] for (q, y) in step if y == b and (q, order[0]) in step]
            print(f"{b:>12} {1000 * t:9.1f} {t / t0:6.3f} {statistics.median(pr):7.3f}   ({len(v)} runs, {1000 * min(v):.1f}-{1000 * max(v):.1f} ms)")
EOF
