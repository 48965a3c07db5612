#!/usr/bin/env bash
# mxn info, stats, join and repart on an adaptive file series (issue 44).
#
# usage: series.sh MXN MXN_GEN MPIEXEC NP TMP_DIR
#
# Makes the series s.e (hex 2^3, times 0 .1 .2), s.e-s002 (3^3, .2 .3 .4),
# s.e-s003 spread over 3 files (4^3, .5 .6 .7) and s.e-s004 over 2 (3^3,
# .8 .9 1); time values are set through ncdump/ncgen. Checks: info (text
# and --json, from every naming form) shows 4 segments with their M,
# counts and times, and 11 series steps, the equal time .2 read from
# segment 2; --json keeps every key of a dataset's and adds step_segments
# and segments; a single file or spread set prints no series; stats
# --steps all on NP ranks gives a row per series step with its segment and
# the mesh changes; join and repart write the series under the same names
# (OUT, OUT-s002, ..., widths kept), each segment equal to its input (mxn
# diff); numbers that skip (segments 1 and 5; 1, 2 and 4, the last spread)
# make a series of the segments that exist, which info, stats, join and
# repart read and write under the same numbers; every bad input (a missing
# member, a segment of another
# dimension, a segment that cannot be read) fails with a message naming
# the files, with one exit code on every rank and no hang.
set -u
. "$(dirname "$0")/common.sh"
cli_args "MXN MXN_GEN MPIEXEC NP TMP_DIR" MXN GEN MPIEXEC N TMP -- "$@"
command -v ncdump > /dev/null && command -v ncgen > /dev/null || {
  echo "skip: ncdump/ncgen not found"
  exit 77
}
cli_workdir

# seg NAME TYPE N M T0 T1 T2: a mesh of N^d cells, times T0 T1 T2, written
# as NAME (M = 1) or split into NAME.M.j
seg() {
  local name=$1 type=$2 n=$3 M=$4 dims
  shift 4
  if [ "$type" = quad ]; then dims="$n $n"; else dims="$n $n $n"; fi
  "$GEN" --type "$type" --dims $dims --steps 3 tmp.e > /dev/null || return 1
  ncdump tmp.e | sed -e "s/^ time_whole = .*/ time_whole = $1, $2, $3 ;/" > tmp.cdl &&
    ncgen -k '64-bit offset' -o tmp2.e tmp.cdl || return 1
  rm -f tmp.e tmp.cdl
  if [ "$M" = 1 ]; then
    mv tmp2.e "$name"
  else
    "$MXN" split tmp2.e "$name" -n "$M" --quiet && rm -f tmp2.e
  fi
}

seg s.e hex 2 1 0 0.1 0.2 && seg s.e-s002 hex 3 1 0.2 0.3 0.4 &&
  seg s.e-s003 hex 4 3 0.5 0.6 0.7 && seg s.e-s004 hex 3 2 0.8 0.9 1 &&
  seg solo.e hex 2 1 1 2 3 && seg set.e hex 3 4 1 2 3 || {
  bad "making the series"
  exit 1
}

# ---- info ----
keys_single=$("$MXN" info --json solo.e | python3 -c 'import json,sys; print(" ".join(json.load(sys.stdin)))')
for form in s.e s.e-s002 s.e-s003.3.1 s.e-s003 s.e-s004.2.0; do
  if "$MXN" info --json "$form" > info.json 2> info.err &&
    python3 - "$form" "$keys_single" <<'PY'; then
import json, sys
form, single = sys.argv[1], sys.argv[2].split()
d = json.load(open("info.json"))
errs = []
if list(d)[:len(single)] != single or list(d)[len(single):] != ["step_segments", "segments"]:
    errs.append("keys %s" % list(d))
if d["dataset"] != form:
    errs.append("dataset %s" % d["dataset"])
t = [0, .1, .2, .3, .4, .5, .6, .7, .8, .9, 1]
if [round(x, 9) for x in d["times"]] != t:
    errs.append("times %s" % d["times"])
if d["step_segments"] != [1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]:
    errs.append("step_segments %s" % d["step_segments"])
sg = d["segments"]
want = [(1, 1, 27, 8, 1, 2), (2, 1, 64, 27, 3, 3), (3, 3, 125, 64, 6, 3), (4, 2, 64, 27, 9, 3)]
got = [(g["number"], g["num_files"], g["num_nodes"], g["num_elements"], g["first_step"],
        g["num_series_steps"]) for g in sg]
if got != want:
    errs.append("segments %s" % got)
if len(sg[2]["file_names"]) != 3 or d["num_elements"] != 8:
    errs.append("segment 3 files %s, first segment %d elements" % (sg[2]["file_names"], d["num_elements"]))
if errs:
    print("; ".join(errs))
    sys.exit(1)
PY
    ok "info --json $form: 4 segments, 11 steps"
  else
    bad "info --json $form: $(cat info.err)"
  fi
done
"$MXN" info s.e-s003 > info.txt 2>&1
if grep -q "^series    4 segments" info.txt && grep -q "^times     11 (0 .. 1) over the series" info.txt &&
  [ "$(grep -c '^segment ' info.txt)" = 4 ] && grep -q "series steps 1..2 (some times read from a later segment)" info.txt &&
  grep -q "^  files     3 (spread set)" info.txt; then
  ok "info text: the segments and the series' times"
else
  bad "info text: $(cat info.txt)"
fi
for one in solo.e set.e set.e.4.1; do
  "$MXN" info "$one" > one.txt 2>&1 && "$MXN" info --json "$one" > one.json 2>&1
  if grep -q "^dataset   $one" one.txt && ! grep -q "^series\|^segment" one.txt &&
    ! grep -q '"segments"' one.json && grep -q '"times": \[1, 2, 3\]' one.json; then
    ok "info $one: a single dataset, no series"
  else
    bad "info $one: $(cat one.txt)"
  fi
done
if "$MXN" info --help | grep -q "OUT-s002" && "$MXN" info --help | grep -q "later segment"; then
  ok "info --help: the naming and the time rule"
else
  bad "info --help says nothing of series"
fi

# ---- stats across segments ----
if mpi "$MXN" stats s.e --steps all --json > stats.json 2> stats.err &&
  python3 - <<'PY'; then
import json, sys
from steps_json import steps_table_errors
d = json.load(open("stats.json"))
errs = steps_table_errors(d, 11)
det = d["steps_detail"]
if [x["segment"] for x in det] != [1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]:
    errs.append("segments %s" % [x["segment"] for x in det])
if [x["segment_step"] for x in det] != [1, 2, 1, 2, 3, 1, 2, 3, 1, 2, 3]:
    errs.append("segment steps %s" % [x["segment_step"] for x in det])
if [(g["number"], g["files"], g["total_elements"]) for g in d["segments"]] != \
        [(1, 1, 8), (2, 1, 27), (3, 3, 64), (4, 2, 27)]:
    errs.append("segments %s" % d["segments"])
if d["total_elements"] != 8 or d["dataset"] != "s.e":
    errs.append("first load %s %s" % (d["dataset"], d["total_elements"]))
if errs:
    print("; ".join(errs))
    sys.exit(1)
PY
  ok "stats --steps all --json on $N ranks: 11 steps over 4 segments"
else
  bad "stats --steps all --json: $(cat stats.err)"
fi
if mpi "$MXN" stats s.e-s004 --steps all > stats.txt 2>&1 &&
  [ "$(grep -c '<- new mesh' stats.txt)" = 3 ] && [ "$(grep -c '^segment . of the series' stats.txt)" = 4 ]; then
  ok "stats --steps all text: a table per segment, the 3 mesh changes marked"
else
  bad "stats text: $(cat stats.txt)"
fi

# ---- join and repart write the series under the same names ----
mkdir -p out
if "$MXN" join s.e-s002 out/j.e > join.txt 2>&1 && [ "$(ls out | tr '\n' ' ')" = "j.e j.e-s002 j.e-s003 j.e-s004 " ]; then
  ok "join: j.e j.e-s002 j.e-s003 j.e-s004"
else
  bad "join: $(cat join.txt; ls out)"
fi
diffs=0
for k in "" -s002 -s003 -s004; do
  "$MXN" diff "s.e$k" "out/j.e$k" > /dev/null 2>&1 || diffs=$((diffs + 1))
done
[ $diffs = 0 ] && ok "join: every segment equal to its input" || bad "join: $diffs segments differ"
if mpi "$MXN" repart s.e out/r.e --quiet > repart.txt 2>&1; then
  diffs=0
  for k in "" -s002 -s003 -s004; do
    [ -f "out/r.e$k.$N.0" ] || diffs=$((diffs + 1))
    "$MXN" diff "s.e$k" "out/r.e$k" > /dev/null 2>&1 || diffs=$((diffs + 1))
  done
  [ $diffs = 0 ] && ok "repart: r.e.$N.i, r.e-s00K.$N.i, each equal to its segment" ||
    bad "repart: $diffs segments missing or different: $(ls out)"
else
  bad "repart: $(cat repart.txt)"
fi
"$MXN" info --json out/r.e-s003 > rinfo.json 2>&1
python3 -c 'import json; d = json.load(open("rinfo.json")); assert d["step_segments"] == [1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]' 2> /dev/null &&
  ok "the repart's series reads back as the same series" || bad "repart series: $(head -c 400 rinfo.json)"
# widths kept: w.e, w.e-s0002 -> o.e, o.e-s0002
seg w.e hex 2 1 1 2 3 && seg w.e-s0002 hex 2 1 4 5 6
if "$MXN" join w.e out/o.e --quiet && [ -f out/o.e ] && [ -f out/o.e-s0002 ]; then
  ok "join keeps the width of the numbers (-s0002)"
else
  bad "join -s0002: $(ls out)"
fi

# ---- numbers that skip: every segment that exists, by number ----
seg x.e hex 2 1 0 0.1 0.2 && seg x.e-s005 hex 3 1 0.3 0.4 0.5 &&
  seg y.e hex 2 1 0 0.1 0.2 && seg y.e-s002 hex 3 1 0.3 0.4 0.5 && seg y.e-s004 hex 4 3 0.6 0.7 0.8 ||
  bad "making the series with gaps"
# gapinfo PATH NUMBERS STEP_SEGMENTS ELEMENTS: info --json of PATH
gapinfo() {
  "$MXN" info --json "$1" > gap.json 2> gap.err &&
    python3 - "$2" "$3" "$4" <<'PY'
import json, sys
d = json.load(open("gap.json"))
nums, steps, elems = (eval(a) for a in sys.argv[1:4])
errs = []
if [g["number"] for g in d["segments"]] != nums:
    errs.append("numbers %s" % [g["number"] for g in d["segments"]])
if d["step_segments"] != steps:
    errs.append("step_segments %s" % d["step_segments"])
if [round(t, 9) for t in d["times"]] != [round(0.1 * i, 9) for i in range(len(steps))]:
    errs.append("times %s" % d["times"])
if [g["num_elements"] for g in d["segments"]] != elems:
    errs.append("elements %s" % [g["num_elements"] for g in d["segments"]])
if errs:
    print("; ".join(errs))
    sys.exit(1)
PY
}
for form in x.e x.e-s005; do
  if gapinfo $form "[1, 5]" "[1, 1, 1, 5, 5, 5]" "[8, 27]" > gap.txt 2>&1; then
    ok "info --json $form: segments 1 and 5, 6 steps"
  else
    bad "info --json $form (gap 1, 5): $(cat gap.txt gap.err)"
  fi
done
for form in y.e y.e-s002 y.e-s004.3.2; do
  if gapinfo $form "[1, 2, 4]" "[1, 1, 1, 2, 2, 2, 4, 4, 4]" "[8, 27, 64]" > gap.txt 2>&1; then
    ok "info --json $form: segments 1, 2 and 4, 9 steps"
  else
    bad "info --json $form (gap 1, 2, 4): $(cat gap.txt gap.err)"
  fi
done
mkdir -p gout
if "$MXN" join x.e-s005 gout/x.e > gjoin.txt 2>&1 && [ "$(ls gout | tr '\n' ' ')" = "x.e x.e-s005 " ] &&
  "$MXN" diff x.e gout/x.e > /dev/null 2>&1 && "$MXN" diff x.e-s005 gout/x.e-s005 > /dev/null 2>&1 &&
  gapinfo gout/x.e "[1, 5]" "[1, 1, 1, 5, 5, 5]" "[8, 27]" > /dev/null 2>&1; then
  ok "join of segments 1 and 5: x.e x.e-s005, each equal to its input, read back as the series"
else
  bad "join with a gap: $(cat gjoin.txt; ls gout)"
fi
if mpi "$MXN" repart y.e gout/y.e --quiet > grepart.txt 2>&1; then
  diffs=0
  for k in "" -s002 -s004; do
    [ -f "gout/y.e$k.$N.0" ] || diffs=$((diffs + 1))
    "$MXN" diff "y.e$k" "gout/y.e$k" > /dev/null 2>&1 || diffs=$((diffs + 1))
  done
  [ -e "gout/y.e-s003.$N.0" ] && diffs=$((diffs + 1))
  if [ $diffs = 0 ] && gapinfo "gout/y.e-s004.$N.0" "[1, 2, 4]" "[1, 1, 1, 2, 2, 2, 4, 4, 4]" "[8, 27, 64]" > /dev/null 2>&1; then
    ok "repart of segments 1, 2 and 4: y.e, y.e-s002, y.e-s004 on $N ranks, each equal, read back as the series"
  else
    bad "repart with a gap: $diffs segments missing or different: $(ls gout)"
  fi
else
  bad "repart with a gap: $(cat grepart.txt)"
fi
if mpi "$MXN" stats x.e --steps all --json > gstats.json 2> gstats.err &&
  python3 -c 'import json; d = json.load(open("gstats.json")); assert [x["segment"] for x in d["steps_detail"]] == [1, 1, 1, 5, 5, 5], d["steps_detail"]' 2> /dev/null; then
  ok "stats --steps all across a gap: segments 1 and 5"
else
  bad "stats across a gap: $(cat gstats.err)"
fi

# ---- bad input: the message names the files, every rank agrees ----
mkdir -p bad && cd bad || exit 1
seg h.e hex 2 1 0 1 2 && seg h.e-s002 hex 3 3 3 4 5 && rm h.e-s002.3.1 &&
  seg d.e hex 2 1 0 1 2 && seg d.e-s002 quad 2 1 3 4 5 &&
  seg u.e hex 2 1 0 1 2 && echo "not Exodus" > u.e-s002 || bad "making the bad series"
# expect CASE PATH WORDS...: info, join, stats, repart all exit 1 naming WORDS
expect() {
  local name=$1 path=$2 cmd out rc w miss
  shift 2
  for cmd in info join stats repart; do
    case $cmd in
      info) "$MXN" info "$path" > out.txt 2>&1; rc=$? ;;
      join) "$MXN" join "$path" j.e > out.txt 2>&1; rc=$? ;;
      stats) mpi "$MXN" stats "$path" > out.txt 2>&1; rc=$? ;;
      repart) mpi "$MXN" repart "$path" r.e > out.txt 2>&1; rc=$? ;;
    esac
    miss=""
    for w in "$@"; do grep -qF -- "$w" out.txt || miss="$miss '$w'"; done
    # under mpiexec only rank 0 prints: one message
    if [ $rc = 1 ] && [ -z "$miss" ] && [ "$(grep -c "mxn $cmd: error" out.txt)" = 1 ] &&
      ! ls j.e* r.e* > /dev/null 2>&1; then
      ok "$cmd $name: exit 1, names: $*"
    else
      bad "$cmd $name: exit $rc, missing$miss: $(head -c 600 out.txt)"
    fi
    rm -f j.e* r.e*
  done
}
expect incomplete h.e-s002.3.0 "h.e-s002.3.1" "missing"
expect dimension d.e "d.e-s002 has 2 spatial dimensions" "d.e, earlier"
expect unreadable u.e "u.e-s002" "not a readable Exodus II file"
cd ..

if [ $nfail -gt 0 ]; then
  echo "$nfail check(s) failed"
  exit 1
fi
echo "all series checks passed"
