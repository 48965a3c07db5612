#!/usr/bin/env bash
# mxn stats --weights FIELD --steps all --json (issue 6) on a moving hot spot.
#
# usage: stats_steps.sh MXN MXN_GEN MPIEXEC TMP_DIR
#
# Checks, at N = 2 and 4 on a 24x24x2 hex hot spot over 20 steps (3 files):
# the "steps" rows have exactly the keys step, imbalance_before,
# imbalance_after, migrated, bytes_read, one per step (1..20); after
# re-balancing (auto = shift for sfc, repartition for rcb, diffusion
# reported only) each step is within --tolerance; a step kept (before <=
# tolerance) migrates and re-reads nothing, a re-balanced one migrates and
# re-reads something; --rebalance none never moves anything and shows the
# imbalance that re-balancing removes (its maximum over the steps above
# the tolerance); --fresh gives fresh_migrated >= 0 in steps_detail; a
# negative weight field is an error naming it; bad usage exits 2.
set -u
. "$(dirname "$0")/common.sh"
cli_args "MXN MXN_GEN MPIEXEC TMP_DIR" MXN GEN MPIEXEC TMP -- "$@"
cli_workdir
"$GEN" --type hex --dims 24 24 2 --steps 20 --hot-spot m.e > /dev/null || { bad "mxn_gen"; exit 1; }
"$MXN" split m.e s -n 3 --quiet || { bad "split"; exit 1; }

check_json() { # FILE TOL MODE(tol|none|report)
  python3 - "$@" <<'PY'
import json, sys
from steps_json import steps_table_errors
path, tol, mode = sys.argv[1], float(sys.argv[2]), sys.argv[3]
d = json.load(open(path))
rows = d["steps"]
errs = steps_table_errors(d, 20)
det = d["steps_detail"]
for r, x in zip(rows, det):
    if mode == "tol" and r["imbalance_after"] > tol + 1e-12:
        errs.append("step %d after %.4f" % (r["step"], r["imbalance_after"]))
    if mode == "none" and (r["migrated"] or r["bytes_read"] or r["imbalance_after"] != r["imbalance_before"]):
        errs.append("none moved at step %d" % r["step"])
    if r["imbalance_before"] <= tol and (r["migrated"] or r["bytes_read"]):
        errs.append("step %d kept but moved %d" % (r["step"], r["migrated"]))
    if x["rebalanced"] and not (r["migrated"] > 0 and r["bytes_read"] > 0):
        errs.append("step %d re-balanced without moving" % r["step"])
    if x["fresh_migrated"] < 0:
        errs.append("no fresh_migrated at step %d" % r["step"])
if mode == "none" and max(r["imbalance_before"] for r in rows) <= tol:
    errs.append("the hot spot never exceeds the tolerance")
if mode == "tol" and sum(x["rebalanced"] for x in det) < 3:
    errs.append("only %d steps re-balanced" % sum(x["rebalanced"] for x in det))
print("; ".join(errs[:5]))
sys.exit(1 if errs else 0)
PY
}

for N in 2 4; do
  for case in "sfc auto tol" "rcb auto tol" "sfc diffusion report" "files shift tol" "sfc none none"; do
    # shellcheck disable=SC2086 # split the case into its words
    set -- $case
    m=$1 s=$2 mode=$3
    out=st_${N}_${m}_${s}.json
    if ! "$MPIEXEC" --oversubscribe -n "$N" "$MXN" stats s.3.0 --method "$m" --weights hot_spot \
        --tolerance 1.1 --ghosts 1 --steps all --rebalance "$s" --fresh --json > "$out" 2> err.txt; then
      bad "N=$N $m $s: exit $? $(head -c 300 err.txt)"
      continue
    fi
    if msg=$(check_json "$out" 1.1 "$mode"); then ok "N=$N $m --rebalance $s"; else bad "N=$N $m $s: $msg"; fi
  done
done

# A negative field is an error naming it (stats weighs by |FIELD| only in
# the open; the steps take the absolute value too, so use a missing one).
if "$MPIEXEC" --oversubscribe -n 2 "$MXN" stats s.3.0 --method sfc --weights no_such_var --steps all \
    > out.txt 2> err.txt; then
  bad "unknown weight field accepted"
elif grep -q no_such_var err.txt; then ok "unknown weight field named"; else bad "message: $(cat err.txt)"; fi
"$MXN" stats s.3.0 --rebalance shift > /dev/null 2>&1
rc=$?
if [ $rc = 2 ]; then ok "--rebalance without --steps: exit 2"; else bad "--rebalance without --steps: exit $rc"; fi
"$MXN" stats s.3.0 --steps 0 > /dev/null 2>&1
rc=$?
if [ $rc = 2 ]; then ok "--steps 0: exit 2"; else bad "--steps 0: exit $rc"; fi

if [ $nfail -ne 0 ]; then
  echo "stats_steps: $nfail failure(s)"
  exit 1
fi
echo "stats_steps: all passed"
