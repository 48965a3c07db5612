#!/usr/bin/env bash
# Files from writers other than ours and SEACAS (issue 58): mxn info, join
# and stats on the files testing/writers/writers_gen.sh makes.
#
# usage: writers.sh MXN MPIEXEC NP WRITERS_DIR TMP_DIR
#
# WRITERS_DIR/open (meshio_plain.e, meshio_quirks.e, libmesh/adapted.e.3.*,
# stale/adapted.e.3.*:
# files ParaView's readers open): `mxn info` and `mxn join` succeed with at
# most one "warning:" line, naming the file; info gives the counts the
# writers' meshes have (libmesh: 22 active elements where the Nemesis
# counts say 24, 34 nodes, side sets of 6 and 4 sides, a node set of 7);
# the join holds the node values the file holds (meshio's vals_nod_var1,
# compared with ncdump, node order kept: no id maps); `mxn stats` on NP
# ranks loads every element with at most one warning; the libMesh set with
# maps kept from before adaptation (stale/) warns once, naming member 1 and
# its first stale map entry, and joins to the same mesh. meshio_quirks.e's one
# step, whose time meshio never writes, is there with netCDF's fill value.
# WRITERS_DIR/refused/meshio_noprop.e (no block ids, which both ParaView
# readers refuse): info fails naming the file.
set -u
. "$(dirname "$0")/common.sh"
cli_args "MXN MPIEXEC NP WRITERS_DIR TMP_DIR" MXN MPIEXEC N W TMP -- "$@"
cli_abspath MXN W
command -v ncdump > /dev/null || {
  echo "skip: ncdump not found"
  exit 77
}
[ -d "$W/open" ] || {
  echo "writers.sh: $W/open: no such folder (the writers_gen fixture)" >&2
  exit 1
}
cli_workdir

# at_most_one_warning FILE STEM: at most one warning line, naming STEM
at_most_one_warning() {
  local n
  n=$(grep -c '^warning: ' "$1")
  [ "$n" -le 1 ] && { [ "$n" = 0 ] || grep '^warning: ' "$1" | grep -qF -- "$2"; }
}
# data VAR FILE: the values of VAR as ncdump prints them
data() { ncdump -v "$1" "$2" | sed -n "/^ $1 =/,/;/p" | tr -d ' \n'; }

# name nodes elements times
for c in "meshio_plain.e 16 4 3" "meshio_quirks.e 12 8 1" "libmesh/adapted.e.3.0 34 22 2" \
  "stale/adapted.e.3.0 34 22 2"; do
  set -- $c
  f=$W/open/$1 stem=$(basename "${1%.3.0}")
  if "$MXN" info "$f" > info.txt 2> info.err && at_most_one_warning info.err "$stem" &&
    grep -q "^nodes     $2\$" info.txt && grep -q "^elements  $3\$" info.txt &&
    grep -q "^times     $4 " info.txt; then
    ok "info $1: $2 nodes, $3 elements, $4 step(s), $(grep -c '^warning: ' info.err) warning(s)"
  else
    bad "info $1: $(cat info.err; grep -E '^(nodes|elements|times)' info.txt)"
  fi
  d=$(dirname "$1")
  out=j_${d//./top}_$stem # a join's name must not look like a member's
  if "$MXN" join "$f" "$out" > join.txt 2> join.err && at_most_one_warning join.err "$stem" &&
    "$MXN" diff "$f" "$out" > diff.txt 2>&1; then
    ok "join $1: equal to the file read, $(grep -c '^warning: ' join.err) warning(s)"
  else
    bad "join $1: $(cat join.err diff.txt | head -c 600)"
  fi
  if mpi "$MXN" stats "$f" --method rcb --ghosts 1 --json > stats.json 2> stats.err &&
    at_most_one_warning stats.err "$stem" &&
    python3 -c 'import json,sys; d = json.load(open("stats.json")); assert d["total_elements"] == int(sys.argv[1]), d["total_elements"]' "$3"; then
    ok "stats $1 on $N rank(s): $3 elements, $(grep -c '^warning: ' stats.err) warning(s)"
  else
    bad "stats $1 on $N rank(s): $(cat stats.err | head -c 600) $(head -c 300 stats.json)"
  fi
done

# meshio's node values, read as the file holds them (ParaView's readers
# show them unset: parity.py KNOWN)
for c in "meshio_plain.e temperature" "meshio_quirks.e u"; do
  set -- $c
  if [ -n "$(data vals_nod_var1 "$W/open/$1")" ] &&
    [ "$(data vals_nod_var1 "$W/open/$1")" = "$(data vals_nod_var1 "j_top_$1")" ]; then
    ok "join $1: node values ($2) as in the file"
  else
    bad "join $1: node values $(data vals_nod_var1 "j_top_$1" | head -c 200), in the file $(data vals_nod_var1 "$W/open/$1" | head -c 200)"
  fi
done
if "$MXN" info --json "$W/open/meshio_quirks.e" > q.json &&
  python3 -c 'import json; t = json.load(open("q.json"))["times"]; assert len(t) == 1 and abs(t[0] - 9.969209968386869e36) < 1e22, t'; then
  ok "info meshio_quirks.e: one step at netCDF's fill value (time never written)"
else
  bad "info meshio_quirks.e: times $(head -c 300 q.json)"
fi

# the libMesh set: what its members hold, whatever its counts say
m0=$W/open/libmesh/adapted.e.3.0
want="warning: $m0: the members hold 22 distinct element ids where their Nemesis global counts say 24; going on with what the members hold"
if "$MXN" info "$m0" > lm.txt 2> lm.err && [ "$(grep -c '^warning: ' lm.err)" = 1 ] &&
  grep -qxF -- "$want" lm.err && grep -Eq '^  id 0 +6 sides +bottom$' lm.txt &&
  grep -Eq '^  id 2 +4 sides +top$' lm.txt && grep -Eq '^  id 0 +7 nodes +bottom$' lm.txt &&
  grep -Eq '^  id 0 +QUAD4 +x4 +11 elements' lm.txt && grep -Eq '^  id 1 +QUAD4 +x4 +11 elements' lm.txt; then
  ok "info libmesh: blocks 0 and 1 of 11, side sets of 6 and 4 sides, node set of 7, one warning"
else
  bad "info libmesh: $(cat lm.err; cat lm.txt | head -c 800)"
fi

# the same set with communication maps kept from before adaptation: read,
# the maps' first stale entry said once, the same mesh as the set above
m1=$W/open/stale/adapted.e.3.1
want="warning: $m1: its Nemesis node communication maps list node 21, which it does not have; going on with the nodes its id map gives"
if "$MXN" info "$W/open/stale/adapted.e.3.0" > st.txt 2> st.err &&
  [ "$(grep -c '^warning: ' st.err)" = 1 ] && grep -qxF -- "$want" st.err &&
  "$MXN" diff j_libmesh_adapted.e j_stale_adapted.e > st.diff 2>&1; then
  ok "info stale maps: one warning naming member 1 and its first stale entry; joined, the same mesh"
else
  bad "info stale maps: $(cat st.err st.diff | head -c 600)"
fi

if "$MXN" info "$W/refused/meshio_noprop.e" > np.txt 2> np.err; then
  bad "info meshio_noprop.e: succeeded, where ParaView's readers refuse it"
elif grep -q "meshio_noprop.e: cannot read element block ids" np.err; then
  ok "info meshio_noprop.e: refused naming the file ($(cat np.err))"
else
  bad "info meshio_noprop.e: $(cat np.err)"
fi

if [ $nfail -gt 0 ]; then
  echo "$nfail check(s) failed"
  exit 1
fi
echo "all writer checks passed"
