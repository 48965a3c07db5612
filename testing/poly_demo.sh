#!/usr/bin/env bash
# Polyhedral meshes end to end (core/README.md, "Polyhedral meshes"): generate a
# mixed hexahedron / prism / pyramid mesh written as NFACED polyhedra over
# shared NSIDED faces, split it into M files, join it back and compare,
# then load the M files on N ranks through the ParaView plugin (pvbatch
# under mpiexec on a private Xvfb, 1 ghost level) and save a screenshot of
# the pieces coloured by rank with the polyhedra's edges drawn.
#   bash testing/poly_demo.sh [M] [N]   (default M = 4, N = 3)
# Output in data/generated/poly_demo/; the screenshot is also copied to
# testing/images/poly_M<M>_N<N>.png.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/testing/build_dir.sh"
build=${MXN_BUILD_DIR:-$mxn_default_build}
M=${1:-4}
N=${2:-3}
out=$here/data/generated/poly_demo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mxn=$build/bin/mxn
rm -rf "$out" && mkdir -p "$out"

echo "== 1. generate a 12x8x6 mesh: slabs of hexahedra, prisms and pyramids, all NFACED"
"$build/bin/mxn_gen" --type poly-mixed --dims 12 8 6 --steps 3 "$out/poly.e"
echo "== 2. split it into M=$M files with Zoltan RCB"
"$mxn" split "$out/poly.e" "$out/poly-rcb.e" -n "$M" --method rcb
echo "== 3. the spread set, as mxn sees it"
"$mxn" info "$out/poly-rcb.e"
echo "== 4. join the $M files back into one and compare by global ids"
"$mxn" join "$out/poly-rcb.e" "$out/joined.e"
"$mxn" diff "$out/poly.e" "$out/joined.e"
echo "== 5. load the $M files on N=$N ranks with the MxNReader plugin (1 ghost level) and take a screenshot"
"$here/testing/gui/xvfb_run.sh" 600 mpiexec --oversubscribe -n "$N" pvbatch --symmetric \
  "$here/testing/pvbatch/demo_load.py" "$build/lib/paraview-plugins/MxNReader/MxNReader.so" \
  "$(ls "$out"/poly-rcb.e."$M".* | sort | head -1)" "$out/loaded" 1 edges > "$out/pvbatch.log" 2>&1 ||
  { tail -30 "$out/pvbatch.log"; echo "poly_demo: FAIL: pvbatch failed (log above)"; exit 1; }
grep -E "^(rank|saved)" "$out/pvbatch.log"
elements=$("$mxn" info "$out/poly-rcb.e" | awk '$1 == "elements" { print $2 }')
owned=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["owned_cells_total"])' "$out/loaded/ranks.json")
if [ "$owned" != "$elements" ]; then
  echo "poly_demo: FAIL: the ranks own $owned cells in all, the dataset has $elements elements"
  exit 1
fi
cp "$out/loaded/demo.png" "$here/testing/images/poly_M${M}_N${N}.png"
echo "poly_demo: $M files of polyhedra read as $N pieces with ghosts ($owned owned cells in all); screenshot testing/images/poly_M${M}_N${N}.png"
