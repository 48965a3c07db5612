#!/usr/bin/env bash
# The benchmark of issue 6 (a script, not a CI test): per-time-step
# re-balancing on the moving hot spot (mxn_gen --hot-spot), N ranks.
#
# usage: bash testing/benchmarks/rebalance_bench.sh [options]
#   --bin DIR      build's bin directory (mxn, mxn_gen; default
#                  ../<checkout>-build/bin, or $MXN_BUILD_DIR/bin)
#   --work DIR     scratch directory for the dataset (default /tmp/mxn_rebalance_bench)
#   --cells 1m     64k (40^3), 1m (100^3, default) or 8m (200^3) hex cells
#   --peak P       hot spot height (mxn_gen --hot-spot-peak, default 9)
#   --M M          member files (mxn split -n M --method rcb, default 16)
#   --N N          ranks (default 4)
#   --steps T      time steps the spot crosses the mesh in (default 20)
#   --tol T        imbalance tolerance (default 1.1)
#   --ghosts L     ghost layers kept up to date (default 1)
#   --out FILE     also write the table there (markdown)
#
# Runs `mpiexec -n N mxn stats DATASET --weights hot_spot --steps all
# --fresh --json` once per configuration:
#   none        sfc partition, never re-balanced (the imbalance without it)
#   shift       sfc, RankDLB cut-point shift of the Hilbert string
#   rcb         REPARTITION for rcb: the RCB tree of the current owners,
#               each cut shifted only as far as the tolerance needs
#   rib         Zoltan LB_APPROACH=REPARTITION
#   refine      rcb start, Zoltan PHG LB_APPROACH=REFINE on the dual graph
#   diffusion   sfc start, LuNA Patch neighbour diffusion (20 rounds max)
# and prints per step: the imbalance without re-balancing, then for each
# strategy the imbalance after, the elements migrated (all ranks), what a
# fresh partition of that step would migrate, and the bytes re-read (all
# ranks: gained elements, new ghosts and their step fields), plus totals
# and the seconds spent balancing / rebuilding (max over ranks, summed
# over steps).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/testing/build_dir.sh"
BIN=${MXN_BUILD_DIR:-$mxn_default_build}/bin WORK=/tmp/mxn_rebalance_bench CELLS=1m PEAK=9 M=16 N=4 STEPS=20 TOL=1.1 GH=1 OUT=
while [ $# -gt 0 ]; do
  case $1 in
    --bin) BIN=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --cells) CELLS=$2; shift 2 ;;
    --peak) PEAK=$2; shift 2 ;;
    --M) M=$2; shift 2 ;;
    --N) N=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --tol) TOL=$2; shift 2 ;;
    --ghosts) GH=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
case $CELLS in
  64k) D=40 ;; 1m) D=100 ;; 8m) D=200 ;;
  *) echo "--cells: 64k, 1m or 8m" >&2; exit 2 ;;
esac
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$WORK" || exit 1
SET="$WORK/hs_${CELLS}_p${PEAK}_t${STEPS}"
# shellcheck disable=SC2012 # our own generated names
first() { ls "$SET.$M."* 2> /dev/null | head -1; }
if [ -z "$(first)" ]; then
  "$BIN/mxn_gen" --type hex --dims $D $D $D --steps "$STEPS" --hot-spot-peak "$PEAK" "$SET.e" > /dev/null ||
    exit 1
  "$BIN/mxn" split "$SET.e" "$SET" -n "$M" --method rcb --quiet || exit 1
  rm -f "$SET.e"
fi
MEMBER=$(first)
runs=()
for cfg in "none sfc none" "shift sfc shift" "rcb rcb repartition" "rib rib repartition" \
           "refine rcb refine" "diffusion sfc diffusion"; do
  # shellcheck disable=SC2086 # split the configuration into its words
  set -- $cfg
  tag=$1 method=$2 strat=$3
  js="$WORK/run_${CELLS}_p${PEAK}_N${N}_${tag}.json"
  echo "running $tag ($method, --rebalance $strat) ..." >&2
  if ! /usr/bin/time -f "%e s wall" mpiexec -n "$N" "$BIN/mxn" stats "$MEMBER" --method "$method" \
      --weights hot_spot --tolerance "$TOL" --ghosts "$GH" --steps all --rebalance "$strat" \
      --fresh --json > "$js"; then
    echo "FAIL: $tag" >&2
    exit 1
  fi
  runs+=("$tag=$js")
done
python3 "$(dirname "$0")/rebalance_report.py" "$CELLS" "$PEAK" "$M" "$N" "$TOL" "$GH" "${OUT:-}" "${runs[@]}"
