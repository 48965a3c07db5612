#!/usr/bin/env bash
# Polyhedral and polygonal meshes through the mxn tool on N ranks.
#
# usage: poly.sh MXN_BINARY MXN_GEN_BINARY MPIEXEC N TMP_DIR
#
# For a polygon mesh (NSIDED elements, 3 to 5 sides), a hexahedral and a
# mixed prism/hex/pyramid mesh written as NFACED polyhedra over one NSIDED
# face block, and the mixed one with TRI3/QUAD4 face blocks:
#   - split -n 4, then `mpiexec -n N mxn repart` with files, rcb, sfc and
#     graph (and --ghosts 1 with rcb), then join: equals the original
#     (`mxn diff`), and repart wrote exactly N members;
#   - `mxn info --json` of the split set reports the poly blocks with their
#     per-entry count ranges and reference totals equal to the original's;
#   - a member whose connectivity variable is gone, or whose per-entry
#     counts do not add up, fails on every rank, naming the file and the
#     block, and nothing is written.
# Every mpiexec runs under `timeout`, so a hang fails instead of waiting.
set -u
. "$(dirname "$0")/common.sh"
cli_args "MXN_BINARY MXN_GEN_BINARY MPIEXEC N TMP_DIR" MXN GEN MPIEXEC N TMP -- "$@"
cli_abspath MXN GEN MPIEXEC
cli_workdir

cases=("polygon|--type polygon --dims 13 9 --blocks 2 --steps 2"
  "hex|--type poly-hex --dims 6 5 4 --steps 2"
  "mixed|--type poly-mixed --dims 7 4 3 --steps 2"
  "mixedsplit|--type poly-mixed --dims 6 3 3 --steps 1 --split-faces")
for c in "${cases[@]}"; do
  name=${c%%|*}
  args=${c#*|}
  # shellcheck disable=SC2086
  "$GEN" $args "$name.e" > /dev/null || { bad "$name: mxn_gen $args"; continue; }
  "$MXN" split "$name.e" "$name.s.e" -n 4 --quiet || { bad "$name: split"; continue; }
  "$MXN" info "$name.e" --json > "$name.info.json" && "$MXN" info "$name.s.e" --json > "$name.s.info.json"
  if python3 - "$name.info.json" "$name.s.info.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def polys(d):
    return [(x["id"], x["type"], x.get("poly"), x.get("min_per_entry"), x.get("max_per_entry"),
             x.get("references"), x["count"]) for x in d["blocks"] + d.get("face_blocks", [])]
pa, pb = polys(a), polys(b)
assert pa == pb, (pa, pb)
assert any(p[2] for p in pa), pa
PY
  then ok "$name: info of the split set reports the poly blocks as the original"; else bad "$name: info"; fi
  for m in files rcb sfc graph; do
    out="$name.$m"
    mpi "$MXN" repart "$name.s.e" "$out.e" --method "$m" --quiet 2> "$out.err" || { bad "$name $m: repart exit $? ($(head -c 300 "$out.err"))"; continue; }
    n=$(ls "$out.e.$N."* 2> /dev/null | wc -l)
    [ "$n" = "$N" ] || bad "$name $m: $n members written, not $N"
    "$MXN" join "$out.e" "$out.j.e" --quiet || { bad "$name $m: join"; continue; }
    if "$MXN" diff "$name.e" "$out.j.e" > "$out.diff"; then ok "$name $m: split, repart on $N, join equals the original"; else bad "$name $m: $(head -3 "$out.diff")"; fi
  done
  out="$name.ghosts"
  if mpi "$MXN" repart "$name.s.e" "$out.e" --method rcb --ghosts 1 --quiet 2> "$out.err" &&
    "$MXN" join "$out.e" "$out.j.e" --quiet && "$MXN" diff "$name.e" "$out.j.e" > "$out.diff"; then
    ok "$name: repart --ghosts 1 then join equals the original"
  else
    bad "$name: ghosts $(head -3 "$out.err" "$out.diff" 2> /dev/null)"
  fi
done

# A member without its polyhedra's face list.
mkdir -p broken && cp hex.s.e.4.* broken/ &&
  ncdump broken/hex.s.e.4.2 > broken/m.cdl &&
  sed -i 's/facconn1/facconnX/g' broken/m.cdl && ncgen -o broken/hex.s.e.4.2 broken/m.cdl
mpi "$MXN" repart broken/hex.s.e broken/out.e --quiet > broken/out.txt 2> broken/err.txt
rc=$?
if [ $rc = 1 ] && grep -q "hex.s.e.4.2" broken/err.txt && grep -q "block 10" broken/err.txt &&
  ! ls broken/out.e.* > /dev/null 2>&1; then
  ok "a member without facconn fails naming the file and block, nothing written"
else
  bad "broken member: rc $rc, $(head -c 400 broken/err.txt)"
fi

# A member whose per-entry face counts do not add up to its block: only
# the rank reading that member sees it; every rank must fail with its
# message, none may hang.
mkdir -p badcounts && cp hex.s.e.4.* badcounts/ &&
  ncdump badcounts/hex.s.e.4.1 > badcounts/m.cdl &&
  sed -i '/^ ebepecnt1 =/,/;/ s/ 6,/ 7,/' badcounts/m.cdl && ncgen -o badcounts/hex.s.e.4.1 badcounts/m.cdl
mpi "$MXN" repart badcounts/hex.s.e badcounts/out.e --quiet > badcounts/out.txt 2> badcounts/err.txt
rc=$?
if [ $rc = 1 ] && grep -q "hex.s.e.4.1" badcounts/err.txt && grep -q "block 10" badcounts/err.txt &&
  grep -q "per-entry counts" badcounts/err.txt && ! ls badcounts/out.e.* > /dev/null 2>&1; then
  ok "per-entry counts that do not add up fail on every rank naming the file and block"
else
  bad "bad counts: rc $rc, $(head -c 400 badcounts/err.txt)"
fi

[ $nfail = 0 ] && echo "all ok" || echo "$nfail failed"
[ $nfail = 0 ]
