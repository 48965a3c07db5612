#!/usr/bin/env bash
# mpiexec with a session directory of its own: what every test and script
# of testing/ starts instead of mpiexec itself.
#
# usage: mpiexec.sh [mpiexec arguments...]
#
# Open MPI 4.1 keeps the session files of every job of a user on a host
# under one directory, BASE/ompi.<host>.<uid>. The job that finds it
# missing makes it, the last one to leave removes it, and a mkdir that
# meets EEXIST is an error: when two mpiexec start at once just after the
# directory went away, both try to make it and the loser stops with
# "orte_session_dir failed" (open-mpi/ompi#8510). A ctest case that starts
# its jobs one after another is safe; one that starts several at once
# (cli/roundtrip.sh runs three) is not. So each mpiexec gets a fresh BASE
# (orte_tmpdir_base), made here and removed when it ends. PMIx follows:
# Open MPI hands it the job's directory under BASE for its sockets and
# shared-memory store, so no other setting is needed.
#
# The real mpiexec is $MXN_MPIEXEC_REAL, else the first mpiexec on PATH.
# The fresh directory goes under $OMPI_MCA_orte_tmpdir_base when a ctest
# case set one (testing/CMakeLists.txt), else under $TMPDIR or /tmp; kept
# short, since PMIx's socket paths must stay under 108 bytes.
real=${MXN_MPIEXEC_REAL:-mpiexec}
parent=${OMPI_MCA_orte_tmpdir_base:-${TMPDIR:-/tmp}}
mkdir -p "$parent" || exit 1
base=$(mktemp -d "$parent/m.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT

# Not exec: the directory is removed when mpiexec ends. A signal sent to
# the process group (timeout, ctest, a harness's killpg) reaches mpiexec
# directly, once; bash then leaves at once, running the trap.
OMPI_MCA_orte_tmpdir_base=$base "$real" "$@"
