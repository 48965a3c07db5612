#!/usr/bin/env bash
# A model of many blocks and sets, split so that every member declares
# every block and set (issue 45), read back by info and stats.
#
# usage: many_blocks.sh MXN MXN_GEN MPIEXEC NP TMP_DIR
#
# mxn_gen --blocks 40 --sets 12 on a 60x2x2 hex mesh (240 elements, block
# b the x slab floor(b*60/40) <= i < floor((b+1)*60/40)), split into 8
# members by rcb. Checks: every member declares all 40 blocks and 12 node
# and 12 side sets (with ncdump, when there is one), and holds elements of
# only some of the blocks; `mxn info --json` of the set gives 40 blocks
# with the generator's counts and ids, 12 node sets of 9 nodes and 12 side
# sets with the generator's counts; `mxn stats --json` on NP ranks gives
# 240 elements, metadata_bytes > 0 on every rank and at the top the
# largest of the ranks', and more metadata than the 1-block model split
# the same way; mxn_gen refuses --sets beyond NX+1 (exit 2).
set -u
. "$(dirname "$0")/common.sh"
cli_args "MXN MXN_GEN MPIEXEC NP TMP_DIR" MXN GEN MPIEXEC N TMP -- "$@"
cli_workdir
K=40 S=12 M=8
"$GEN" --type hex --dims 60 2 2 --blocks $K --sets $S --steps 1 m.e > /dev/null || { bad "mxn_gen"; exit 1; }
"$GEN" --type hex --dims 60 2 2 --steps 1 one.e > /dev/null || { bad "mxn_gen (1 block)"; exit 1; }
mkdir -p s one
"$MXN" split m.e s/m.e -n $M --method rcb --quiet || { bad "split"; exit 1; }
"$MXN" split one.e one/m.e -n $M --method rcb --quiet || { bad "split (1 block)"; exit 1; }

# Every member declares every block and set; each holds only some blocks.
if command -v ncdump > /dev/null; then
  for f in s/m.e.$M.*; do
    h=$(ncdump -h "$f")
    nb=$(echo "$h" | sed -n 's/^\tnum_el_blk = \([0-9]*\) ;/\1/p')
    nns=$(echo "$h" | sed -n 's/^\tnum_node_sets = \([0-9]*\) ;/\1/p')
    nss=$(echo "$h" | sed -n 's/^\tnum_side_sets = \([0-9]*\) ;/\1/p')
    held=$(echo "$h" | grep -c '^	num_el_in_blk[0-9]* = ')
    if [ "$nb" = $K ] && [ "$nns" = $S ] && [ "$nss" = $S ] && [ "$held" -gt 0 ] && [ "$held" -lt $K ]; then
      ok "$f declares $nb blocks (holds $held), $nns node sets, $nss side sets"
    else
      bad "$f declares '$nb' blocks (holds '$held'), '$nns' node sets, '$nss' side sets"
    fi
  done
else
  echo "note: no ncdump; the members' declarations are not checked"
fi

"$MXN" info s/m.e --json > info.json || bad "info exit $?"
if python3 - info.json $K $S << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
K, S, NX, NY, NZ = int(sys.argv[2]), int(sys.argv[3]), 60, 2, 2
errs = []
x0 = [b * NX // K for b in range(K + 1)]
want = [(10 * (b + 1), (x0[b + 1] - x0[b]) * NY * NZ) for b in range(K)]
got = [(b["id"], b["count"]) for b in d["blocks"]]
if got != want:
    errs.append("blocks %s, want %s" % (got[:5], want[:5]))
if d["num_files"] != 8 or d["num_elements"] != NX * NY * NZ:
    errs.append("files %s elements %s" % (d["num_files"], d["num_elements"]))
if [(n["id"], n["count"]) for n in d["node_sets"]] != [(q + 1, (NY + 1) * (NZ + 1)) for q in range(S)]:
    errs.append("node sets %s" % d["node_sets"][:3])
ss = [NX * NZ, NX * NY] + [((q - 1) * NX // (S - 2) - (q - 2) * NX // (S - 2)) * NZ
                           for q in range(2, S)]
if [(n["id"], n["count"]) for n in d["side_sets"]] != [(q + 1, ss[q]) for q in range(S)]:
    errs.append("side sets %s, want %s" % ([n["count"] for n in d["side_sets"]], ss))
if errs:
    print("\n".join(errs))
sys.exit(1 if errs else 0)
PY
then ok "info --json: $K blocks, $S node sets, $S side sets with the generator's counts"; else bad "info --json"; fi

stats() { # SET OUT
  "$MPIEXEC" --oversubscribe -n "$N" "$MXN" stats "$1" --json --method rcb > "$2"
}
stats s/m.e stats.json || bad "stats exit $?"
stats one/m.e stats1.json || bad "stats (1 block) exit $?"
if python3 - stats.json stats1.json "$N" << 'PY'
import json, sys
d, d1, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
errs = []
per = [r.get("metadata_bytes") for r in d["ranks_detail"]]
if d["total_elements"] != 240 or d["ranks"] != n:
    errs.append("total_elements %s ranks %s" % (d["total_elements"], d["ranks"]))
if len(per) != n or not all(isinstance(x, int) and x > 0 for x in per):
    errs.append("per-rank metadata_bytes %s" % per)
elif d.get("metadata_bytes") != max(per):
    errs.append("metadata_bytes %s is not the max of %s" % (d.get("metadata_bytes"), per))
# 39 more blocks (name, type, truth table rows, per-member tables) and 10
# more node and side sets: at least their structure records more
if not d1.get("metadata_bytes") or d["metadata_bytes"] < d1["metadata_bytes"] + 39 * 512:
    errs.append("metadata_bytes %s with 40 blocks, %s with 1" % (d.get("metadata_bytes"),
                                                               d1.get("metadata_bytes")))
print("metadata_bytes per rank %s (1 block: %s)" % (per, d1.get("metadata_bytes")))
if errs:
    print("\n".join(errs))
sys.exit(1 if errs else 0)
PY
then ok "stats --json on $N ranks: 240 elements, metadata_bytes per rank and max"; else bad "stats --json"; fi

"$GEN" --type hex --dims 6 2 2 --sets 8 bad.e > /dev/null 2>&1
rc=$?
if [ $rc -eq 2 ] && [ ! -e bad.e ]; then ok "mxn_gen --sets 8 with NX 6: exit 2"; else bad "mxn_gen --sets 8 with NX 6: exit $rc"; fi

if [ $nfail -gt 0 ]; then
  echo "$nfail check(s) failed"
  exit 1
fi
echo "all checks passed"
