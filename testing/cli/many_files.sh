#!/usr/bin/env bash
# Scale edge (issues 8, 9): a 1024-member spread set read on N ranks under
# an open-file limit far below 1024 (ulimit -n 200; the dataset keeps at
# most half the limit open and closes the least recently used member).
#
# usage: many_files.sh MXN MXN_GEN MPIEXEC N TMP_DIR
#
# Checks: `mxn split -n 1024` writes the 1024 members; under ulimit -n 200,
# `mpiexec -n N mxn repart --ghosts 1` succeeds and its join equals the
# mesh; `mxn stats --json` counts every element once with each rank's
# cover at most ceil(1024/N) + 2 members; `mxn join` of the 1024 members
# equals the mesh.
set -u
. "$(dirname "$0")/common.sh"
cli_args "MXN MXN_GEN MPIEXEC N TMP_DIR" MXN GEN MPIEXEC N TMP -- "$@"
cli_workdir
"$GEN" --type hex --dims 16 16 8 --blocks 2 --steps 2 m.e > /dev/null || { bad "mxn_gen"; exit 1; }
"$MXN" split m.e s.e -n 1024 --quiet || { bad "split -n 1024"; exit 1; }
n=$(ls s.e.1024.* | wc -l)
[ "$n" = 1024 ] && ok "1024 members written" || bad "$n members written"
ulimit -n 200 || { bad "cannot lower the open-file limit"; exit 1; }
if timeout 240 "$MPIEXEC" --oversubscribe -n "$N" "$MXN" repart s.e o.e --ghosts 1 --quiet > repart.log 2>&1 &&
  "$MXN" join o.e j.e --quiet && "$MXN" diff m.e j.e > diff.log 2>&1; then
  ok "repart of 1024 members on $N ranks under ulimit -n 200, join equals the mesh"
else
  bad "repart/join under ulimit -n 200: $(tail -5 repart.log diff.log 2> /dev/null)"
fi
if timeout 240 "$MPIEXEC" --oversubscribe -n "$N" "$MXN" stats s.e --json > stats.json 2> stats.log &&
  python3 - "$N" stats.json << 'PY'; then
import json, math, sys
n = int(sys.argv[1])
d = json.load(open(sys.argv[2]))
rows = d["ranks_detail"]
assert sum(r["owned"] for r in rows) == d["total_elements"] == 2048, d["total_elements"]
for r in rows:
    assert r["cover_files"] <= math.ceil(1024 / n) + 2, r
print("ok   stats: every element once; cover per rank", [r["cover_files"] for r in rows])
PY
  :
else
  bad "stats under ulimit -n 200: $(tail -5 stats.log)"
fi
if "$MXN" join s.e j2.e --quiet && "$MXN" diff m.e j2.e > /dev/null; then
  ok "join of the 1024 members equals the mesh"
else
  bad "join of the 1024 members"
fi
echo "many_files: $nfail failed"
[ $nfail -eq 0 ]
