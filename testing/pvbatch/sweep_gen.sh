#!/bin/bash
# The generated part of the compatibility sweep (sweep.py): one small mesh
# and its 3-file split for every kind of file mxn_gen and `mxn split` write.
#
# usage: sweep_gen.sh MXN_GEN MXN_CLI OUTDIR [SHELL_MESH]
#
# OUTDIR/<kind>/m.e is the serial mesh, OUTDIR/<kind>/s.e.3.{0,1,2} its
# split. Kinds: classic (netCDF-3 64-bit offset, hex/wedge/tet blocks),
# nc4 (netCDF-4), compressed (deflate 1 + shuffle), int64 (64-bit ids and
# counts), quad (2D), float (4-byte reals, tets), shuffled (ids permuted,
# offset, 2 blocks), manysets (6 node and 6 side sets, no variables and no
# time steps), and shells3d: SHELL_MESH (TRI3 and SHELL4 blocks with a
# HEX8 block in 3D, side sets with a factor per face node) split in 3.
# Sizes stay small: the sweep reads each one twice on 1 and 3 ranks.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: sweep_gen.sh MXN_GEN MXN_CLI OUTDIR [SHELL_MESH]" >&2
  exit 2
fi
gen=$1 cli=$2 out=$3 shells=${4:-}
rm -rf "$out"
mkdir -p "$out"

# kind KIND "GEN OPTIONS" "SPLIT OPTIONS"
kind() {
  mkdir -p "$out/$1"
  # shellcheck disable=SC2086
  "$gen" $2 "$out/$1/m.e" > /dev/null
  # shellcheck disable=SC2086
  "$cli" split "$out/$1/m.e" "$out/$1/s.e" -n 3 $3 --quiet
}
kind classic "--type mixed --dims 6 3 3 --steps 2" ""
kind nc4 "--type mixed --dims 6 3 3 --steps 2 --format nc4" "--format nc4"
kind compressed "--type hex --dims 6 3 3 --steps 2 --compress 1" "--compress 1"
kind int64 "--type wedge --dims 4 3 3 --steps 2 --int64" "--int64 --method hsfc"
kind quad "--type quad --dims 8 5 --steps 2" "--method graph"
kind float "--type tet --dims 3 3 3 --steps 2 --word-size 4" "--method sfc"
kind shuffled "--type hex --dims 6 3 3 --steps 2 --blocks 2 --shuffle-ids 7 --id-offset 100" \
  "--method rib"
kind manysets "--type hex --dims 6 3 3 --sets 6 --no-vars" "--method linear"
if [ -n "$shells" ]; then
  mkdir -p "$out/shells3d"
  "$cli" split "$shells" "$out/shells3d/s.e" -n 3 --quiet
fi
echo "sweep_gen: $(find "$out" -name '*.e*' | wc -l) files in $out"
