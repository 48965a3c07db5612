#!/bin/bash
# The generated datasets of the parity test (parity.py): one small set of
# each kind the project's tools write, every one a spread set of 3 members
# made by `mxn split` from one mxn_gen mesh (so IOSSReader, which reads
# spread sets too, sees the same files as MxNReader).
#
# usage: parity_gen.sh MXN_GEN MXN_CLI OUTDIR
#
# OUTDIR/<kind>/s.e.3.{0,1,2}; kinds: classic (netCDF-3 64-bit offset,
# hex/wedge/tet blocks), nc4 (netCDF-4), compressed (deflate 1 + shuffle),
# int64 (64-bit ids and counts), polyhedra (NFACED over NSIDED faces),
# polygons (NSIDED, 2D), shells (make_quadratic.py's HEX20/27, TET10,
# WEDGE15, PYRAMID13 and SHELL8 elements with a side set of every side;
# kept as one file, one element per block being too few to split), and
# series (an adaptive series of 2 segments, s.e and s.e-s002, plain files:
# IOSSReader given a list of files reads each as one file, not as a
# spread set), displaced (a nodal displacement vector, mxn_gen
# --displacement) and names (its variables renamed for the grouping
# options' traces) and series_gap (segments 1 and 5 of a series). Sizes
# stay small: parity.py reads each with two readers on
# 1 and 3 ranks in two modes.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: parity_gen.sh MXN_GEN MXN_CLI OUTDIR" >&2
  exit 2
fi
gen=$1 cli=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"
mkdir -p "$out"

# kind KIND "GEN OPTIONS" "SPLIT OPTIONS"
kind() {
  mkdir -p "$out/$1"
  # shellcheck disable=SC2086
  "$gen" $2 "$out/$1/m.e" > /dev/null
  # shellcheck disable=SC2086
  "$cli" split "$out/$1/m.e" "$out/$1/s.e" -n 3 $3 --quiet
  rm -f "$out/$1/m.e"
}
kind classic "--type mixed --dims 6 3 3 --steps 2" ""
kind nc4 "--type mixed --dims 6 3 3 --steps 2 --format nc4" "--format nc4"
kind compressed "--type hex --dims 6 3 3 --steps 2 --compress 1" "--compress 1"
kind int64 "--type wedge --dims 4 3 3 --steps 2 --int64" "--int64 --method hsfc"
kind polyhedra "--type poly-mixed --dims 6 3 3 --steps 2" ""
kind polygons "--type polygon --dims 8 5 --blocks 2 --steps 2" ""
kind displaced "--type hex --dims 5 3 3 --blocks 2 --steps 2 --displacement" ""
# names: the nodal variables renamed (a_1 a_2, dispx dispy dispz) so
# that the grouping options (GroupNumericVectorFieldComponents,
# FieldSuffixSeparator) change the arrays; the traces set them.
mkdir -p "$out/names"
"$gen" --type hex --dims 5 3 3 --blocks 2 --steps 2 --displacement "$out/names/m.e" > /dev/null
ncdump "$out/names/m.e" |
  sed -e 's/"node_gid_time"/"a_1"/; s/"nodal_x"/"a_2"/; s/"disp_x"/"dispx"/; s/"disp_y"/"dispy"/' \
      -e 's/"disp_z"/"dispz"/' > "$out/names/m.cdl"
ncgen -k 64-bit-offset -o "$out/names/r.e" "$out/names/m.cdl"
"$cli" split "$out/names/r.e" "$out/names/s.e" -n 3 --quiet
rm -f "$out/names/m.e" "$out/names/r.e" "$out/names/m.cdl"
mkdir -p "$out/shells"
python3 "$here/make_quadratic.py" "$out/shells/quadratic.exo" > /dev/null
mkdir -p "$out/series"
"$gen" --type hex --dims 4 3 3 --steps 2 --series 2 "$out/series/m.e" > /dev/null
mv "$out/series/m.e" "$out/series/s.e"
mv "$out/series/m.e-s002" "$out/series/s.e-s002"
# A series whose numbers skip (s.e, s.e-s005: segments kept when only some
# are archived): both readers find s.e-s005 beside s.e.
mkdir -p "$out/series_gap"
"$gen" --type hex --dims 4 3 3 --steps 2 --series 3 "$out/series_gap/m.e" > /dev/null
mv "$out/series_gap/m.e" "$out/series_gap/s.e"
mv "$out/series_gap/m.e-s003" "$out/series_gap/s.e-s005"
rm -f "$out/series_gap/m.e-s002"
echo "parity_gen: $(find "$out" -type f | wc -l) files in $out"
