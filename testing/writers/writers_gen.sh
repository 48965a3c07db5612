#!/bin/bash
# Files laid out as other writers write them (issue 58), made at test time:
# meshio's Exodus layout through ncgen from meshio_cdl.py's CDL, libMesh's
# Nemesis spread output after adaptive refinement through libmesh_like
# (the Exodus/Nemesis calls libMesh makes).
#
# usage: writers_gen.sh LIBMESH_LIKE OUTDIR
#
# OUTDIR/open/ holds what ParaView 5.11's IOSSReader and ExodusIIReader both
# open (MxNReader must too, with the same output): meshio_plain.e,
# meshio_quirks.e, libmesh/adapted.e.3.{0,1,2} and the same set with maps
# kept from before adaptation, stale/adapted.e.3.{0,1,2} (libmesh_like
# --stale-maps). OUTDIR/refused/ holds what
# both refuse: meshio_noprop.e (no eb_prop1: no block ids at all).
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: writers_gen.sh LIBMESH_LIKE OUTDIR" >&2
  exit 2
fi
command -v ncgen > /dev/null || {
  echo "writers_gen: skip: ncgen not found"
  exit 77
}
lm=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"
mkdir -p "$out/open/libmesh" "$out/open/stale" "$out/refused"
# meshio writes netCDF-4 (netCDF4-python's default format)
cdl() {
  python3 "$here/meshio_cdl.py" "$1" > "$out/$1.cdl"
  ncgen -k nc4 -o "$2" "$out/$1.cdl"
  rm -f "$out/$1.cdl"
}
cdl plain "$out/open/meshio_plain.e"
cdl quirks "$out/open/meshio_quirks.e"
cdl noprop "$out/refused/meshio_noprop.e"
"$lm" "$out/open/libmesh/adapted.e"
"$lm" --stale-maps "$out/open/stale/adapted.e"
echo "writers_gen: $(find "$out" -type f | wc -l) files in $out"
