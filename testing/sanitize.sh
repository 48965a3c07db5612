#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer: build the core, the CLI,
# the generator and the GoogleTest/CLI tests (no plugin) with
# -fsanitize=address,undefined into BUILD_DIR, then run their ctest cases
# there. Any ASan report, UBSan report (halt_on_error) or leak fails the
# test it happens in, and so this script.
#   bash testing/sanitize.sh [--build-only | --test-only] [BUILD_DIR]
#                                   # default: ../<checkout>-build/asan
# Registered as two ctest cases (testing/sanitize.cmake), so `bash
# testing/test.sh` runs it: sanitize_build (--build-only, a fixture started
# first, beside the other tests) and sanitize_asan_ubsan (--test-only).
# Environment: MXN_JOBS (build, default 2), MXN_TEST_JOBS (ctest, default 2),
#   MXN_SANITIZE_TESTS   ctest -R regex of the first pass (default: every
#                        one-process gtest, the collective gtests at 2 ranks,
#                        the fuzz replays; '.' runs every case of the build),
#   MXN_SANITIZE_CLI     ctest -R regex of the CLI pass (default: bad input
#                        and repart at 2 ranks; '' skips it),
#   MXN_SANITIZE_GTEST_FILTER  GTEST_FILTER (default: without the one timing
#                        test, whose bound the sanitizers' slowdown breaks,
#                        and the round trips of the 8 shared meshes at 4 file
#                        counts, whose code paths the generated round trips
#                        take; '' keeps all).
# Leaks: checked in the first pass by the test executables themselves
# (testing/unit/test_main.cpp and testing/fuzz/replay_main.c call
# LeakSanitizer after the tests, before MPI_Finalize, with MPI_Init's
# allocations ignored), so at-exit checks are off and no Open MPI
# suppression is needed; nothing of mxn is suppressed. The CLI pass runs
# without LeakSanitizer: its at-exit scan crashed now and then in short mxn
# processes under load ("Tracer caught signal 11"); the CLI's leaks are
# valgrind.sh's. ASan and UBSan reports stop every process in both passes.
# Both passes run in one ctest invocation (see below).
set -euo pipefail
do_build=1 do_test=1
case ${1:-} in
  --build-only) do_test=0; shift ;;
  --test-only) do_build=0; shift ;;
esac
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/testing/build_dir.sh"
build=${1:-$mxn_default_build/asan}
jobs=${MXN_JOBS:-2}
tjobs=${MXN_TEST_JOBS:-2}
tests=${MXN_SANITIZE_TESTS:-'^(test_[a-z_]+|test_[a-z]+_np2|fuzz_replay_[a-z]+)$'}
cli=${MXN_SANITIZE_CLI-'^cli_(bad_input|repart_np2)$'}

mkdir -p "$build"
t0=$(date +%s)
if [ $do_build = 1 ]; then
  # -O1 -g1 keep the build and the runs short; the sanitizers need no more
  # (line tables are enough for symbolized reports). The C++ is the
  # GoogleTest files alone (the core, CLI and fuzz replays are C): built at
  # -O0, where instrumenting them compiles about three times faster than at
  # -O1; the tests' time is spent in the core, still at -O1.
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g1" \
    -DMXN_SANITIZE=ON -DMXN_BUILD_PLUGIN=OFF > "$build/configure.log" 2>&1 ||
    { tail -30 "$build/configure.log"; echo "sanitize: configure failed"; exit 1; }
  cmake --build "$build" -j "$jobs" > "$build/build.log" 2>&1 ||
    { grep -E "error|Error" -A3 "$build/build.log" | head -60; echo "sanitize: build failed"; exit 1; }
  echo "sanitize: built in $build ($(($(date +%s) - t0)) s)"
fi
[ $do_test = 1 ] || exit 0
[ -f "$build/CTestTestfile.cmake" ] || { echo "sanitize: no build in $build (--build-only first)"; exit 1; }
t1=$(date +%s)

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# hwloc's GL component (used by Open MPI's topology discovery in mpiexec and
# in every singleton) opens X displays :0.0 to :9.9 looking for NVIDIA
# GPUs. When a GUI test's Xvfb holds :0, such a process connects to it, and
# dies ("X connection to :0 broken") if that Xvfb exits meanwhile: a
# reliability_corpus_cli_np3 case failed so beside gui_pvserver_*. No GPU
# matters to the tests.
export HWLOC_COMPONENTS=-gl
export GTEST_FILTER=${MXN_SANITIZE_GTEST_FILTER--IdsetLarge.TenMillionMembersInLinearTime:AllSharedMeshes/*}
[ -n "$GTEST_FILTER" ] || unset GTEST_FILTER
asan=strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1
export LSAN_OPTIONS=suppressions=$here/testing/sanitize/lsan.supp:print_suppressions=0:leak_check_at_exit=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
cd "$build"
# One ctest run for both passes, so that the long serial CLI script
# (cli_bad_input, started first: its COST) runs beside the gtests instead
# of after them on one core. In this build the CLI tests append
# detect_leaks=0 to ASAN_OPTIONS themselves (testing/sanitize.cmake).
regex=$tests
[ -z "$cli" ] || regex="($tests)|($cli)"
rc=0
ASAN_OPTIONS=$asan:detect_leaks=1 \
  ctest --output-on-failure --timeout 900 -j "$tjobs" -R "$regex" || rc=1
echo "sanitize: tests ran in $(($(date +%s) - t1)) s"
exit $rc
