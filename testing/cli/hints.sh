#!/usr/bin/env bash
# Writers' hints checked, not trusted (issue 58): mxn info, join and repart
# of spread sets whose Nemesis global counts disagree with the members.
#
# usage: hints.sh MXN MXN_GEN MPIEXEC NP TMP_DIR
#
# Makes two sets through mxn_gen and mxn split, then rewrites their
# members' num_elems_global and num_nodes_global with ncdump and ncgen:
# coarse.e (6x6x6 hex, 216 elements, split in 4) whose counts say 236
# elements (a count left from before coarsening), and removed.e (6x6x5,
# 180 elements, split in 3) whose counts are the 6x6x6 mesh's (216).
# Checks: info, join and repart (on NP ranks) succeed, each printing
# exactly one line "warning: M0: the members hold H distinct element ids
# where their Nemesis global counts say S; going on with what the members
# hold" on stderr (M0 member 0, under mpiexec from one rank); join and
# repart hold every element (mxn diff against the generated mesh: equal),
# and what repart wrote reads back without a warning. Then a plain file
# whose side set 1 has 10 distribution factors for its 8 hex sides: join
# goes on without them, with one warning; and a spread set whose member 1
# alone has such a set: repart on NP ranks warns once (rank 1 finds it).
set -u
. "$(dirname "$0")/common.sh"
cli_args "MXN MXN_GEN MPIEXEC NP TMP_DIR" MXN GEN MPIEXEC N TMP -- "$@"
command -v ncdump > /dev/null && command -v ncgen > /dev/null || {
  echo "skip: ncdump/ncgen not found"
  exit 77
}
cli_workdir

# counts FILE NODES ELEMS: rewrite a member's Nemesis global counts
counts() {
  local kind
  kind=$(ncdump -k "$1") &&
    ncdump "$1" | sed -e "s/^\(\s*num_nodes_global = \)[0-9]* ;/\1$2 ;/" \
      -e "s/^\(\s*num_elems_global = \)[0-9]* ;/\1$3 ;/" > tmp.cdl &&
    grep -q "num_elems_global = $3 ;" tmp.cdl && ncgen -k "$kind" -o tmp.e tmp.cdl && mv tmp.e "$1"
}
# set BASE NX NY NZ M NODES ELEMS
mkset() {
  "$GEN" --type hex --blocks 2 --steps 2 --dims "$2" "$3" "$4" "src_$1" > /dev/null &&
    "$MXN" split "src_$1" "$1" -n "$5" --quiet || return 1
  local j
  for j in $(seq 0 $(($5 - 1))); do counts "$1.$5.$j" "$6" "$7" || return 1; done
}
mkset coarse.e 6 6 6 4 363 236 && mkset removed.e 6 6 5 3 343 216 || {
  bad "making the sets"
  exit 1
}

# one_warning FILE M0 HOLD SAID: FILE holds exactly one warning line, this one
one_warning() {
  local want="warning: $2: the members hold $3 distinct element ids where their Nemesis global counts say $4; going on with what the members hold"
  [ "$(grep -c '^warning: ' "$1")" = 1 ] && grep -qxF -- "$want" "$1"
}

for c in "coarse.e 4 216 236" "removed.e 3 180 216"; do
  set -- $c
  base=$1 M=$2 hold=$3 said=$4
  m0=$base.$M.0
  if "$MXN" info "$base.$M.1" > info.txt 2> info.err && one_warning info.err "$m0" "$hold" "$said" &&
    grep -q "^elements  $hold\$" info.txt; then
    ok "info $base: $hold elements, one warning"
  else
    bad "info $base: $(cat info.err; grep elements info.txt)"
  fi
  if "$MXN" info --json "$base" > info.json 2> /dev/null &&
    python3 -c 'import json,sys; d = json.load(open("info.json")); assert d["num_elements"] == int(sys.argv[1]) and "say %s;" % sys.argv[2] in d["hint_warning"], d["hint_warning"]' "$hold" "$said"; then
    ok "info --json $base: hint_warning"
  else
    bad "info --json $base: $(head -c 300 info.json)"
  fi
  if "$MXN" join "$base" "j_$base" > join.txt 2> join.err && one_warning join.err "$m0" "$hold" "$said" &&
    "$MXN" diff "src_$base" "j_$base" > diff.txt 2>&1; then
    ok "join $base: equal to the generated mesh, one warning"
  else
    bad "join $base: $(cat join.err diff.txt | head -c 600)"
  fi
  for method in files rcb graph; do
    if mpi "$MXN" repart "$m0" "r_${method}_$base" --method $method > rep.txt 2> rep.err &&
      one_warning rep.err "$m0" "$hold" "$said" &&
      "$MXN" diff "src_$base" "r_${method}_$base" > diff.txt 2>&1 &&
      "$MXN" info "r_${method}_$base" > /dev/null 2> rinfo.err && ! grep -q warning rinfo.err; then
      ok "repart $base on $N ranks ($method): equal to the generated mesh, one warning; read back without one"
    else
      bad "repart $base ($method): $(cat rep.err diff.txt rinfo.err | head -c 600)"
    fi
  done
done

# A side set's count of distribution factors that its sides do not bear
# out (10 factors for 8 hex sides, which need 4 each, or 1 each): join goes
# on without that set's factors and says so once.
# baddf FILE: side set 1 of FILE gets 2 factors more than its sides
baddf() {
  ncdump "$1" > df.cdl && python3 - df.cdl << 'EOF_PY' && ncgen -k "$(ncdump -k "$1")" -o df_tmp.e df.cdl && mv df_tmp.e "$1"
import re, sys
p = sys.argv[1]
t = open(p).read()
sides = int(re.search(r"num_side_ss1 = (\d+) ;", t).group(1))
t = re.sub(r"num_df_ss1 = \d+ ;", "num_df_ss1 = %d ;" % (sides + 2), t)
m = re.search(r"dist_fact_ss1 =([^;]*);", t)
vals = [v.strip() for v in m.group(1).split(",")][:sides + 2]
t = t[:m.start()] + "dist_fact_ss1 = " + ", ".join(vals) + " ;" + t[m.end():]
open(p, "w").write(t)
EOF_PY
}
"$GEN" --type hex --dims 4 3 2 --steps 1 df_src.e > /dev/null && cp df_src.e df.e && baddf df.e
if "$MXN" join df.e j_df.e > join.txt 2> join.err && [ "$(grep -c '^warning: ' join.err)" = 1 ] &&
  grep -q "^warning: .*df.e: side set 1: 10 distribution factors for 8 entries needing 32; going on without this member's factors of the set\$" join.err; then
  ok "join of a side set with 10 factors where its 8 sides need 32: one warning"
else
  bad "join of a side set whose factor count is wrong: $(cat join.err | head -c 600)"
fi

# The same in one member of a spread set, the last member holding the set
# (linear split in 3: member 1), repart on NP ranks with --method files:
# rank 1 alone reads that member, and the warning (said by rank 0) is
# still there, once.
"$MXN" split df_src.e dfs.e -n 3 --method linear --quiet && baddf dfs.e.3.1
mpi "$MXN" repart dfs.e.3.0 r_dfs.e --method files --quiet > repart_df.txt 2> repart_df.err
if [ $? = 0 ] && [ "$(grep -c '^warning: ' repart_df.err)" = 1 ] &&
  grep -q "^warning: .*dfs.e.3.1: side set 1: 6 distribution factors for 4 entries needing 16; going on without this member's factors of the set\$" repart_df.err; then
  ok "repart on $N ranks of a set whose member 1 has 6 factors for its 4 sides: one warning"
else
  bad "repart on $N ranks, member 1's side set factor count wrong: $(head -c 600 repart_df.err)"
fi

if [ $nfail -gt 0 ]; then
  echo "$nfail check(s) failed"
  exit 1
fi
echo "all hint checks passed"
