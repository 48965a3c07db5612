#!/usr/bin/env bash
# The main job, end to end on the build made by testing/setup.sh:
# generate a sample mesh, split it into M files, look at the spread set
# with `mxn info`, join it back and show that nothing was lost, then load
# the M files on N ranks through the ParaView plugin (pvbatch under
# mpiexec, 1 ghost level), print what every rank got, save it with a
# screenshot and a per-rank summary (data/generated/demo/loaded/).
#   bash testing/demo.sh [M] [N]      (default M = 4, N = 3; output in data/generated/)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/testing/build_dir.sh"
build=${MXN_BUILD_DIR:-$mxn_default_build}
M=${1:-4}
N=${2:-3}
out=$here/data/generated/demo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mxn=$build/bin/mxn
rm -rf "$out" && mkdir -p "$out"

echo "== 1. generate a 40x30x20 hex mesh, 3 blocks, sets, 5 time steps"
"$build/bin/mxn_gen" --type hex --dims 40 30 20 --blocks 3 --steps 5 "$out/sample.e"
echo "== 2. split it into M=$M files with Zoltan RCB"
"$mxn" split "$out/sample.e" "$out/sample-rcb.e" -n "$M" --method rcb
echo "== 3. the spread set, as mxn sees it"
"$mxn" info "$out/sample-rcb.e"
echo "== 4. join the $M files back into one"
"$mxn" join "$out/sample-rcb.e" "$out/joined.e"
echo "== 5. compare with the original by global ids (coordinates, connectivity, sets, every variable at every step)"
"$mxn" diff "$out/sample.e" "$out/joined.e"
echo "== 6. load the $M files on N=$N ranks with the MxNReader plugin (pvbatch, 1 ghost level), save a screenshot and a per-rank summary"
# Rendering needs an X display: xvfb_run.sh starts a private Xvfb for it.
"$here/testing/gui/xvfb_run.sh" 600 mpiexec --oversubscribe -n "$N" pvbatch --symmetric \
  "$here/testing/pvbatch/demo_load.py" "$build/lib/paraview-plugins/MxNReader/MxNReader.so" \
  "$(ls "$out"/sample-rcb.e."$M".* | sort | head -1)" "$out/loaded" 1 > "$out/pvbatch.log" 2>&1 ||
  { tail -30 "$out/pvbatch.log"; echo "demo: FAIL: pvbatch failed (log above)"; exit 1; }
grep -E "^(rank|saved)" "$out/pvbatch.log"
elements=$("$mxn" info "$out/sample-rcb.e" | awk '$1 == "elements" { print $2 }')
owned=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["owned_cells_total"])' "$out/loaded/ranks.json")
if [ "$owned" != "$elements" ]; then
  echo "demo: FAIL: the ranks own $owned cells in all, the dataset has $elements elements"
  exit 1
fi
echo "demo: nothing lost; $M files read as $N balanced pieces with ghost cells ($owned owned cells in all); files in $out"
