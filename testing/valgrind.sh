#!/usr/bin/env bash
# Valgrind memcheck of the core's tests: every GoogleTest executable of a
# normal build (one process; the tests of the collective code also once
# under mpiexec -n 2) and the mxn CLI through its bad-input and repart
# scripts. Reports, per run, memcheck's error count and the bytes
# definitely / indirectly / possibly lost, then the totals; exit 1 if any
# run has an error, a leak or a failing test.
#   bash testing/valgrind.sh [TEST_REGEX]      # e.g. 'test_idset|test_cover'
# Environment: MXN_BUILD_DIR (default ../<checkout>-build, made by testing/setup.sh),
#   MXN_VALGRIND_OUT (logs; default $MXN_BUILD_DIR/valgrind),
#   MXN_VALGRIND_GTEST_FILTER (GTEST_FILTER; default: without the one timing
#   test, meaningless at valgrind's speed, and the round trips of the 8
#   shared meshes at 4 file counts, whose code paths the generated round
#   trips take; '' runs everything).
# Suppressed: Open MPI's own list and testing/valgrind/openmpi.supp (Open
# MPI, PMIx, hwloc, libevent only; see there).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/testing/build_dir.sh"
build=${MXN_BUILD_DIR:-$mxn_default_build}
out=${MXN_VALGRIND_OUT:-$build/valgrind}
filter=${1:-.}
bin=$build/bin
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# Keep Open MPI's components loaded until exit so that their frames stay
# named in leak stacks (and so match the suppressions).
export OMPI_MCA_mca_base_component_disable_dlclose=1
export GTEST_FILTER=${MXN_VALGRIND_GTEST_FILTER--IdsetLarge.TenMillionMembersInLinearTime:AllSharedMeshes/*}
[ -n "$GTEST_FILTER" ] || unset GTEST_FILTER

supp=(--suppressions="$here/testing/valgrind/openmpi.supp")
[ -f /usr/share/openmpi/openmpi-valgrind.supp ] &&
  supp+=(--suppressions=/usr/share/openmpi/openmpi-valgrind.supp)
vg=(valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible --num-callers=40
    --track-origins=no --child-silent-after-fork=yes "${supp[@]}")

# The CLI scripts and the tests that run mxn_gen / mxn themselves find the
# binaries in $bin: a wrapper directory puts mxn under valgrind as well.
wrap=$out/wrap
mkdir -p "$wrap"
cat > "$wrap/mxn" <<W
#!/usr/bin/env bash
exec ${vg[*]} --log-file=$out/cli.%p.log $bin/mxn "\$@"
W
chmod +x "$wrap/mxn"

total_err=0 total_def=0 total_ind=0 total_pos=0 failed=0 nruns=0
# sum_logs LOGS...: add up memcheck's summaries of one run's processes.
sum_logs() {
  local e=0 d=0 i=0 p=0 f v
  for f in "$@"; do
    [ -f "$f" ] || continue
    v=$(grep -o 'ERROR SUMMARY: [0-9,]*' "$f" | tail -1 | grep -o '[0-9,]*$' | tr -d ,)
    e=$((e + ${v:-0}))
    v=$(grep -o 'definitely lost: [0-9,]* bytes' "$f" | tail -1 | grep -o '[0-9,]* bytes' | tr -d ', bytes')
    d=$((d + ${v:-0}))
    v=$(grep -o 'indirectly lost: [0-9,]* bytes' "$f" | tail -1 | grep -o '[0-9,]* bytes' | tr -d ', bytes')
    i=$((i + ${v:-0}))
    v=$(grep -o 'possibly lost: [0-9,]* bytes' "$f" | tail -1 | grep -o '[0-9,]* bytes' | tr -d ', bytes')
    p=$((p + ${v:-0}))
  done
  echo "$e $d $i $p"
}
report() { # name rc logs...
  local name=$1 rc=$2
  shift 2
  read -r e d i p < <(sum_logs "$@")
  total_err=$((total_err + e)) total_def=$((total_def + d))
  total_ind=$((total_ind + i)) total_pos=$((total_pos + p))
  nruns=$((nruns + 1))
  local verdict=ok
  if [ "$rc" -ne 0 ] || [ "$e" -ne 0 ]; then verdict=FAIL; failed=$((failed + 1)); fi
  printf "%-26s %6s %8s %10s %10s %10s  %s\n" "$name" "$rc" "$e" "$d" "$i" "$p" "$verdict"
}

printf "%-26s %6s %8s %10s %10s %10s\n" run exit errors definite indirect possible
for t in test_idset test_cover test_partmap test_fuzz_regress test_partition test_directory \
         test_dataset test_extract test_forms test_load test_halo test_repart \
         test_poly test_rebalance test_memory; do
  [[ $t =~ $filter ]] || continue
  [ -x "$bin/$t" ] || { echo "valgrind: $bin/$t missing (build first)"; exit 1; }
  rm -f "$out/$t".*.log
  (cd "$build/testing" && "${vg[@]}" --log-file="$out/$t.%p.log" "$bin/$t" > "$out/$t.out" 2>&1)
  report "$t" $? "$out/$t".*.log
done
for t in test_partition test_directory test_load test_halo test_repart test_poly test_rebalance; do
  [[ ${t}_np2 =~ $filter ]] || continue
  rm -f "$out/${t}_np2".*.log
  (cd "$build/testing" && mpiexec -n 2 "${vg[@]}" --log-file="$out/${t}_np2.%p.log" "$bin/$t" \
    > "$out/${t}_np2.out" 2>&1)
  report "${t}_np2" $? "$out/${t}_np2".*.log
done
if [[ cli_bad_input =~ $filter ]]; then
  rm -f "$out"/cli.*.log
  bash "$here/testing/cli/bad_input.sh" "$wrap/mxn" "$here/../shared/data" "$out/bad_input" \
    > "$out/cli_bad_input.out" 2>&1
  rc=$?
  [ $rc -eq 77 ] && rc=0 # skipped cases: shared data absent
  report cli_bad_input $rc "$out"/cli.*.log
fi
if [[ cli_repart_np2 =~ $filter ]]; then
  rm -f "$out"/cli.*.log
  bash "$here/testing/cli/repart.sh" "$wrap/mxn" "$bin/mxn_gen" mpiexec 2 "$out/cli_repart" \
    > "$out/cli_repart_np2.out" 2>&1
  report cli_repart_np2 $? "$out"/cli.*.log
fi
echo "valgrind: $nruns runs, $failed failed; errors $total_err; definitely lost $total_def B," \
     "indirectly $total_ind B, possibly $total_pos B (logs: $out)"
[ $failed -eq 0 ] && [ $total_err -eq 0 ]
