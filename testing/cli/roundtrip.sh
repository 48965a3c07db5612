#!/usr/bin/env bash
# Nothing lost (issue 9): split -> repart on N ranks -> join reproduces the
# original exactly (`mxn diff`: coordinates, connectivity, attributes,
# every variable at every step, sets, by global ids), for generated meshes
# and every mesh and Nemesis set in the shared data.
#
# usage: roundtrip.sh MXN MXN_GEN MPIEXEC SHARED_DATA_DIR TMP_DIR
#
# Two parts:
#   1. the full matrix on a generated 2-block hex mesh with sets and
#      attributes (split into 3 files): every method (files, linear, sfc,
#      rcb, rib, hsfc, graph) x ghosts 0, 1, 2 on N = 3, and every N in
#      2..5 with files and sfc;
#   2. every dataset: generated tet, wedge, quad (2D) and mixed meshes, a
#      hex mesh with sparse 64-bit ids above 2^32,
#      the meshes in SHARED/meshes (split into 3 files) and the sets in
#      SHARED/nemesis (as written by nem_spread): on N = 2, 3, 4, 5 with the
#      method and ghost levels cycling, so that every dataset meets
#      several methods, every N and ghosts 0..2.
# The shared part is skipped (and said) when SHARED_DATA_DIR is absent.
# Every mpiexec runs under `timeout`. A method the load refuses for a
# dataset must refuse with exit 1 on every rank and a message; that is
# reported as "refused", not as a loss. Exit 0 when nothing failed.
set -u
. "$(dirname "$0")/common.sh"
cli_args "MXN MXN_GEN MPIEXEC SHARED_DATA_DIR TMP_DIR" MXN GEN MPIEXEC SHARED TMP -- "$@"
cli_abspath MXN GEN MPIEXEC
cli_workdir

# Round trips are independent (each has its own output names), and each is
# mostly waiting (mpiexec and MPI start-up): up to MXN_ROUNDTRIP_JOBS
# (default 3) run at once. Each writes its verdict to OUT.result; they are
# printed and counted in launch order at the end.
jobs_max=${MXN_ROUNDTRIP_JOBS:-3}
session_parent=${OMPI_MCA_orte_tmpdir_base:-${TMPDIR:-/tmp}}
mkdir -p "$session_parent" || exit 1
nok=0 nref=0
results=()

# roundtrip_run ORIGINAL INPUT_SET N METHOD GHOSTS TAG OUT
#   repart INPUT_SET on N ranks, join, diff against ORIGINAL; the verdict
#   ("ok ...", "refused ..." or "FAIL ...") goes to OUT.result.
roundtrip_run() {
  local orig=$1 in=$2 n=$3 method=$4 L=$5 tag=$6 out=$7
  local joined=$out.joined.e
  rm -f "$out".e.* "$joined"
  if ! timeout 120 "$MPIEXEC" --oversubscribe -n "$n" "$MXN" repart "$in" "$out.e" \
    --method "$method" --ghosts "$L" --quiet > "$out.log" 2>&1; then
    if grep -q "not supported\|refuse\|cannot partition\|unsupported" "$out.log"; then
      echo "refused $tag N=$n $method ghosts=$L: $(grep -m1 error "$out.log")"
    else
      echo "FAIL $tag: repart N=$n --method $method --ghosts $L: $(tail -5 "$out.log")"
    fi
    return
  fi
  if ! "$MXN" join "$out.e" "$joined" --quiet > "$out.join.log" 2>&1; then
    echo "FAIL $tag: join after repart N=$n $method ghosts=$L: $(tail -5 "$out.join.log")"
    return
  fi
  if "$MXN" diff "$orig" "$joined" > "$out.diff.log" 2>&1; then
    echo "ok   $tag N=$n $method ghosts=$L"
  else
    echo "FAIL $tag: N=$n $method ghosts=$L: the join differs: $(head -12 "$out.diff.log")"
  fi
  rm -f "$out".e.* "$joined"
}

# roundtrip ORIGINAL INPUT_SET N METHOD GHOSTS TAG: start one in the
# background once fewer than jobs_max are running.
roundtrip() {
  local out=rt_${6}_n${3}_${4}_g${5}
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  # Open MPI's session base of its own for this round trip: up to three
  # run at once, and two jobs (mpiexec or a singleton mxn) creating and
  # removing their session directories in one base at once can stop one
  # of them with "orte_session_dir failed" (see testing/mpiexec.sh).
  (
    export OMPI_MCA_orte_tmpdir_base
    OMPI_MCA_orte_tmpdir_base=$(mktemp -d "$session_parent/r.XXXXXX") || exit 1
    roundtrip_run "$@" "$out"
    rm -rf "$OMPI_MCA_orte_tmpdir_base"
  ) > "$out.result" 2>&1 &
  results+=("$out.result")
}

# Wait for every round trip, then print and count the verdicts.
tally() {
  wait
  local f line
  for f in "${results[@]}"; do
    line=$(cat "$f")
    echo "$line"
    case $line in
      ok*) nok=$((nok + 1)) ;;
      refused*) nref=$((nref + 1)) ;;
      *) nfail=$((nfail + 1)) ;;
    esac
  done
}

methods=(files linear sfc rcb rib hsfc graph)

# ---- 1. the full matrix on one generated mesh ----
"$GEN" --type hex --dims 9 7 5 --blocks 2 --steps 3 hex.e > /dev/null || { bad "mxn_gen hex"; exit 1; }
"$MXN" split hex.e hex3.e -n 3 --method rcb --quiet || { bad "split hex"; exit 1; }
for method in "${methods[@]}"; do
  for L in 0 1 2; do roundtrip hex.e hex3.e 3 "$method" "$L" hex; done
done
for n in 2 4 5; do
  for method in files sfc; do roundtrip hex.e hex3.e "$n" "$method" $((n % 3)) hex; done
done

# ---- 2. every dataset, N = 2..5, methods and ghost levels cycling ----
k=0
cycle() { # cycle ORIGINAL SET TAG
  local n
  for n in 2 3 4 5; do
    roundtrip "$1" "$2" "$n" "${methods[$((k % ${#methods[@]}))]}" $((k % 3)) "$3"
    k=$((k + 1))
  done
}
# (bigid: 64-bit ids from 5*10^9 on, 10^9+7 apart, shuffled: a scale edge)
for t in "tet 6 5 4" "wedge 6 5 3" "quad 12 9" "mixed 6 5 4" \
  "bigid 6 5 4 --int64 --shuffle-ids 3 --id-offset 5000000000 --id-stride 1000000007"; do
  set -- $t
  type=$1
  shift
  gtype=$type
  [ "$type" = bigid ] && gtype=hex
  "$GEN" --type "$gtype" --dims "$@" --blocks 2 --steps 2 "$type.e" > /dev/null || { bad "mxn_gen $type"; continue; }
  "$MXN" split "$type.e" "${type}3.e" -n 3 --quiet || { bad "split $type"; continue; }
  cycle "$type.e" "${type}3.e" "$type"
done
if [ -d "$SHARED/meshes" ]; then
  for mesh in "$SHARED"/meshes/*; do
    name=$(basename "$mesh")
    tag=mesh_${name%%.*}
    if ! "$MXN" split "$mesh" "$tag.e" -n 3 --quiet > "$tag.split.log" 2>&1; then
      bad "split $name: $(tail -3 "$tag.split.log")"
      continue
    fi
    cycle "$mesh" "$tag.e" "$tag"
  done
  for set_dir in "$SHARED"/nemesis/*/; do
    name=$(basename "$set_dir")
    orig=$(ls "$SHARED"/meshes/"$name".* 2> /dev/null | head -1)
    [ -n "$orig" ] || continue
    for sub_dir in $(ls -d "$set_dir"*/ | head -2); do
      member=$(ls "$sub_dir" | sort | head -1)
      sub=$(basename "$sub_dir")
      cycle "$orig" "$sub_dir$member" "nemesis_${name}_$sub"
    done
  done
else
  echo "skip shared data: $SHARED absent"
fi

tally
echo "roundtrip: $nok equal, $nref refused, $nfail failed"
[ $nfail -eq 0 ]
