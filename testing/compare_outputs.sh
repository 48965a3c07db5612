#!/usr/bin/env bash
# Do two builds write and print the same? For a change that must not
# change behaviour (a refactoring, a merge), run by hand:
#
#   testing/compare_outputs.sh BUILD_A BUILD_B [SHARED_DATA_DIR]
#
# BUILD_A and BUILD_B each hold bin/mxn (a build tree or an install);
# SHARED_DATA_DIR defaults to ../shared/data beside the checkout. The
# project's own data is generated with BUILD_A's mxn_gen, once, for both.
#
# Every case runs one command with A's mxn and with B's, each in a temp
# directory of its own (same relative names, so paths in the outputs
# agree), and compares what they printed and wrote:
#   info     mxn info --json on every mesh, spread set and written set;
#   split    mxn split with two methods and M;
#   join     mxn join of every spread set and of each split;
#   repart   mpiexec -n N mxn repart, a few N, methods and ghost levels;
#   stats    mpiexec -n N mxn stats --json, with per-step re-balancing by
#            every strategy on a generated moving hot spot.
# Exit codes must be equal; JSON must be equal once the timing fields
# (every key starting with "seconds": stats' seconds_max, the per-rank
# seconds, the steps' seconds_balance/seconds_migrate) and the memory the
# metadata took (metadata_bytes: a measure, like the times) are dropped;
# written Exodus files must be equal byte for byte (cmp). mxn writes no
# creation time or other run-dependent bytes (two runs of one build give
# identical files), so cmp is the test; if files differ, their ncdump
# texts are compared too, and the verdict says whether the difference is
# in the data or only in the bytes (attribute order, padding).
# One line per case: "same  CASE" or "DIFF  CASE: what"; exit 1 on any
# difference, 2 on bad usage.
set -u
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BUILD_A BUILD_B [SHARED_DATA_DIR]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
A=$(cd "$1" && pwd) || exit 2
B=$(cd "$2" && pwd) || exit 2
SHARED=${3:-$here/../../shared/data}
for b in "$A" "$B"; do
  [ -x "$b/bin/mxn" ] || { echo "$0: no $b/bin/mxn" >&2; exit 2; }
done
GEN=$A/bin/mxn_gen
[ -x "$GEN" ] || GEN=$B/bin/mxn_gen
[ -x "$GEN" ] || { echo "$0: no bin/mxn_gen in $A or $B" >&2; exit 2; }
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# Every mpiexec with a session directory of its own (see mpiexec.sh).
MPIEXEC=$here/mpiexec.sh
command -v ncdump > /dev/null || echo "note: no ncdump; differing files are reported by cmp only"

work=$(mktemp -d "${TMPDIR:-/tmp}/mxn-compare.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/a" "$work/b" "$work/gen"
ndiff=0 nsame=0

# json_norm FILE: the JSON without timing keys, one canonical text (or
# the file as it is when it is not JSON, e.g. an error message).
json_norm() {
  python3 - "$1" << 'EOF'
import json, sys
def drop(x):
    if isinstance(x, dict):
        return {k: drop(v) for k, v in x.items()
                if not k.startswith("seconds") and k != "metadata_bytes"}
    if isinstance(x, list):
        return [drop(v) for v in x]
    return x
text = open(sys.argv[1], errors="replace").read()
try:
    print(json.dumps(drop(json.loads(text)), indent=1, sort_keys=False))
except ValueError:
    sys.stdout.write(text)
EOF
}

# files_differ DIR_A DIR_B: compare every file the two runs wrote (names
# and bytes); prints what differs, returns 1 if anything does.
files_differ() {
  local da=$1 db=$2 f bad=0
  local la lb
  la=$(cd "$da" && find . -type f ! -name '*.out' ! -name '*.err' ! -name '*.rc' | sort)
  lb=$(cd "$db" && find . -type f ! -name '*.out' ! -name '*.err' ! -name '*.rc' | sort)
  if [ "$la" != "$lb" ]; then
    echo "written files differ: A: $(echo $la) B: $(echo $lb)"
    return 1
  fi
  for f in $la; do
    cmp -s "$da/$f" "$db/$f" && continue
    bad=1
    if command -v ncdump > /dev/null &&
      cmp -s <(cd "$da" && ncdump "$f" 2>&1) <(cd "$db" && ncdump "$f" 2>&1); then
      echo "$f: bytes differ, ncdump text equal"
    else
      echo "$f: contents differ"
    fi
  done
  return $bad
}

# run_case NAME JSON(0|1) INPUT_DIR -- COMMAND...: run COMMAND (with the
# word MXN standing for the build's mxn) in $work/{a,b}/NAME, after
# linking the files of INPUT_DIR (may be "-") there; compare.
run_case() {
  local name=$1 json=$2 input=$3
  shift 4
  local side bin dir why=""
  for side in a b; do
    if [ $side = a ]; then bin=$A/bin/mxn; else bin=$B/bin/mxn; fi
    dir=$work/$side/$name
    rm -rf "$dir"
    mkdir -p "$dir"
    if [ "$input" != - ]; then
      for f in "$input"/*; do ln -s "$f" "$dir/in.$(basename "$f")"; done
    fi
    local argv=() w
    for w in "$@"; do
      if [ "$w" = MXN ]; then argv+=("$bin"); else argv+=("$w"); fi
    done
    (cd "$dir" && timeout 600 "${argv[@]}" > cmd.out 2> cmd.err; echo $? > cmd.rc)
    find "$dir" -type l -delete
  done
  local a=$work/a/$name b=$work/b/$name
  if ! cmp -s "$a/cmd.rc" "$b/cmd.rc"; then
    why="exit $(cat "$a/cmd.rc") vs $(cat "$b/cmd.rc")"
  elif [ "$json" = 1 ] && ! cmp -s <(json_norm "$a/cmd.out") <(json_norm "$b/cmd.out"); then
    why="JSON differs: $(diff <(json_norm "$a/cmd.out") <(json_norm "$b/cmd.out") | head -4 | tr '\n' ' ')"
  elif ! cmp -s "$a/cmd.err" "$b/cmd.err"; then
    why="stderr differs: $(diff "$a/cmd.err" "$b/cmd.err" | head -4 | tr '\n' ' ')"
  else
    why=$(files_differ "$a" "$b" | head -3 | tr '\n' ' ')
  fi
  if [ -z "$why" ]; then
    echo "same  $name (exit $(cat "$a/cmd.rc"))"
    nsame=$((nsame + 1))
  else
    echo "DIFF  $name: $why"
    ndiff=$((ndiff + 1))
  fi
}

# ---- inputs: the project's generated meshes, then the shared data ----
meshes=()
"$GEN" --type hex --dims 9 7 5 --blocks 2 --steps 3 "$work/gen/hex.e" > /dev/null &&
  meshes+=("$work/gen/hex.e")
"$GEN" --type mixed --dims 6 5 4 --steps 2 "$work/gen/mixed.e" > /dev/null &&
  meshes+=("$work/gen/mixed.e")
"$GEN" --type quad --dims 12 9 --blocks 2 --steps 2 "$work/gen/quad.e" > /dev/null &&
  meshes+=("$work/gen/quad.e")
"$GEN" --type hex --dims 6 5 4 --steps 2 --int64 --shuffle-ids 3 --id-offset 5000000000 \
  --id-stride 1000000007 "$work/gen/bigid.e" > /dev/null && meshes+=("$work/gen/bigid.e")
"$GEN" --type poly-mixed --dims 4 3 3 --steps 2 "$work/gen/poly.e" > /dev/null &&
  meshes+=("$work/gen/poly.e")
"$GEN" --type hex --dims 16 16 2 --steps 6 --hot-spot "$work/gen/hot.e" > /dev/null ||
  echo "note: no hot-spot mesh generated"
if [ -d "$SHARED/meshes" ]; then
  for m in "$SHARED"/meshes/*; do meshes+=("$m"); done
else
  echo "note: $SHARED absent: generated data only"
fi
sets=() # first member of every spread set in the shared data
if [ -d "$SHARED" ]; then
  for d in "$SHARED"/nemesis/*/*/; do
    f=$(ls "$d" | sort | head -1)
    [ -n "$f" ] && sets+=("$d$f")
  done
  for f in $(ls "$SHARED"/spread/*/* 2> /dev/null | grep '\.0*0$'); do sets+=("$f"); done
fi

tag_of() { local t=${1#"$SHARED"/}; t=${t#"$work"/}; echo "$t" | tr '/.' '__'; }

# ---- meshes: info, split (two methods and M), join of the split,
# repart of the split (a few N, methods, ghosts) ----
k=0
methods=(files sfc rcb graph linear rib hsfc)
for m in "${meshes[@]}"; do
  t=$(tag_of "$m")
  d=$(dirname "$m")
  b=$(basename "$m")
  run_case "info_$t" 1 - -- MXN info "$m" --json
  run_case "split_${t}_rcb3" 0 - -- MXN split "$m" s.e -n 3 --quiet
  run_case "split_${t}_sfc4" 0 - -- MXN split "$m" s.e -n 4 --method sfc --quiet
  # the rest reads A's split (the same as B's, or the split case says so)
  src=$work/a/split_${t}_rcb3
  [ -f "$src/s.e.3.0" ] || continue
  run_case "join_${t}_split3" 0 "$src" -- MXN join in.s.e.3.0 j.e --quiet
  run_case "info_${t}_split3" 1 "$src" -- MXN info in.s.e.3.0 --json
  for n in 2 4; do
    meth=${methods[$((k % ${#methods[@]}))]}
    g=$((k % 3))
    k=$((k + 1))
    run_case "repart_${t}_n${n}_${meth}_g$g" 0 "$src" -- \
      "$MPIEXEC" --oversubscribe -n "$n" MXN repart in.s.e.3.0 r.e --method "$meth" --ghosts "$g" --quiet
  done
  run_case "stats_${t}_n3" 1 "$src" -- "$MPIEXEC" --oversubscribe -n 3 MXN stats in.s.e.3.0 --json
done

# ---- spread sets as written by others: info, join, repart ----
for s in "${sets[@]}"; do
  t=$(tag_of "$s")
  base=in.$(basename "$s")
  run_case "info_$t" 1 "$(dirname "$s")" -- MXN info "$base" --json
  run_case "join_$t" 0 "$(dirname "$s")" -- MXN join "$base" j.e --quiet
  meth=${methods[$((k % ${#methods[@]}))]}
  g=$((k % 3))
  k=$((k + 1))
  run_case "repart_${t}_n3_${meth}_g$g" 0 "$(dirname "$s")" -- \
    "$MPIEXEC" --oversubscribe -n 3 MXN repart "$base" r.e --method "$meth" --ghosts "$g" --quiet
done

# ---- per-step re-balancing, every strategy (stats --steps) ----
if [ -f "$work/gen/hot.e" ]; then
  run_case split_hot 0 - -- MXN split "$work/gen/hot.e" s.e -n 3 --quiet
  src=$work/a/split_hot
  for c in "sfc shift" "files shift" "rcb repartition" "rib repartition" "sfc diffusion" \
    "rcb refine" "sfc fresh" "graph repartition"; do
    set -- $c
    for n in 2 4; do
      run_case "steps_hot_n${n}_$1_$2" 1 "$src" -- "$MPIEXEC" --oversubscribe -n "$n" MXN stats \
        in.s.e.3.0 --method "$1" --weights hot_spot --steps all --rebalance "$2" --fresh \
        --tolerance 1.1 --json
    done
  done
fi

echo "compare_outputs: $nsame same, $ndiff differ"
[ $ndiff -eq 0 ]
