#!/usr/bin/env bash
# The installed plugin: `cmake --install` into a fresh prefix puts
# MxNReader.so (with its module library) under lib/paraview-plugins/MxNReader/,
# and pvbatch finds it there through PV_PLUGIN_PATH alone (no LoadPlugin):
# paraview.simple has MxNReader, the loaded module library is the installed
# one, and it reads DATASET (if present) with ExodusIIReader's cell count.
#   plugin_install.sh BUILD_DIR SCRATCH_DIR PVBATCH DATASET
# Exit codes: 0 pass, 1 failure, 2 bad usage. Costs ~5 s.
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: plugin_install.sh BUILD_DIR SCRATCH_DIR PVBATCH DATASET"; exit 2; }
build=$1 prefix=$2/prefix pvbatch=$3 dataset=$4
rm -rf "$2"
mkdir -p "$2"
cmake --install "$build" --prefix "$prefix" > "$2/install.log" 2>&1 ||
  { cat "$2/install.log"; echo "plugin_install: FAIL: cmake --install"; exit 1; }
plugdir=$prefix/lib/paraview-plugins
[ -f "$plugdir/MxNReader/MxNReader.so" ] ||
  { find "$prefix" -type f; echo "plugin_install: FAIL: no $plugdir/MxNReader/MxNReader.so"; exit 1; }
cat > "$2/check.py" <<'PY'
import os, sys
import paraview.simple as simple
from paraview import servermanager
prefix, dataset = sys.argv[1], sys.argv[2]
if not hasattr(simple, "MxNReader"):
    print("plugin_install: FAIL: PV_PLUGIN_PATH=%s gives no MxNReader" % os.environ.get("PV_PLUGIN_PATH"))
    sys.exit(1)
libs = [l.split()[-1] for l in open("/proc/self/maps") if "libvtkMxNIO" in l]
if not libs or not all(p.startswith(prefix) for p in libs):
    print("plugin_install: FAIL: libvtkMxNIO loaded from %s, not %s" % (sorted(set(libs)), prefix))
    sys.exit(1)
msg = "loaded from %s" % os.path.dirname(libs[0])
if os.path.isfile(dataset):
    r = servermanager.sources.MxNReader()
    r.FileName = dataset
    r.UpdatePipeline()
    e = servermanager.sources.ExodusIIReader()
    e.FileName = [dataset]
    e.UpdatePipeline()
    n = r.GetDataInformation().GetNumberOfCells()
    m = e.GetDataInformation().GetNumberOfCells()
    if n != m or n == 0:
        print("plugin_install: FAIL: %s: %d cells, ExodusIIReader %d" % (dataset, n, m))
        sys.exit(1)
    msg += "; %s: %d cells = ExodusIIReader" % (os.path.basename(dataset), n)
print("plugin_install: PASS: " + msg)
PY
PV_PLUGIN_PATH=$plugdir "$pvbatch" "$2/check.py" "$prefix" "$dataset"
