#!/usr/bin/env bash
# mxn started without mpiexec leaves no Open MPI daemon behind. Open MPI
# 4 forks a daemon (orted) for a singleton unless told not to, and that
# daemon removes the session directory under the base only after mxn has
# exited: a second mxn started at once in the same base could find the
# directory going away under it and stop in MPI_Init (CI saw it once,
# between a round trip's join and diff). mxn asks for no daemon
# (OMPI_MCA_ess_singleton_isolated, set in main() unless the user set it).
#
# usage: singleton.sh MXN MXN_GEN TMP_DIR
#
# Checks, with the variable taken out of the environment (ctest sets it
# for every case; what is checked here is mxn's own setting):
#   - right after `mxn info` returns, its fresh session base is empty
#     (with a daemon, ompi.<host>.<uid> is still there then);
#   - commands started back to back in one base all succeed.
set -u
. "$(dirname "$0")/common.sh"
cli_args "MXN MXN_GEN TMP_DIR" MXN GEN TMP -- "$@"
cli_abspath MXN GEN
cli_workdir

"$GEN" --type hex --dims 4 4 3 s.e > /dev/null || { bad "mxn_gen"; exit 1; }
alone() { env -u OMPI_MCA_ess_singleton_isolated OMPI_MCA_orte_tmpdir_base="$1" "${@:2}"; }

for i in 1 2 3; do
  base=$TMP/base$i
  mkdir -p "$base"
  if ! alone "$base" "$MXN" info s.e > info$i.log 2>&1; then
    bad "mxn info (round $i): $(tail -3 info$i.log)"
    continue
  fi
  left=$(ls -A "$base")
  if [ -n "$left" ]; then
    bad "round $i: mxn info has returned, its session base still holds '$left' (a daemon outlives mxn)"
  else
    ok "round $i: nothing of Open MPI's left in the session base once mxn info returned"
  fi
done

base=$TMP/shared
mkdir -p "$base"
fails=0
for i in $(seq 10); do
  alone "$base" "$MXN" info s.e > b$i.log 2>&1 && alone "$base" "$MXN" diff s.e s.e > d$i.log 2>&1 ||
    fails=$((fails + 1))
done
if [ "$fails" -eq 0 ]; then
  ok "10 rounds of info then diff, back to back in one session base"
else
  bad "$fails of 10 rounds of info then diff in one session base failed: $(tail -3 d*.log b*.log | head -12)"
fi

[ "$nfail" -eq 0 ]
