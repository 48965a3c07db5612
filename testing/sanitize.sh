#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer: build the core, the CLI,
# the generator and the GoogleTest/CLI tests (no plugin) with
# -fsanitize=address,undefined into BUILD_DIR, then run their ctest cases
# there. Any ASan report, UBSan report (halt_on_error) or leak fails the
# test it happens in, and so this script.
#   bash testing/sanitize.sh [BUILD_DIR]     # default: build/asan
# Registered as the ctest case sanitize_asan_ubsan (testing/sanitize.cmake),
# so `bash testing/test.sh` runs it.
# Environment: MXN_JOBS (build, default 2), MXN_TEST_JOBS (ctest, default 2),
#   MXN_SANITIZE_EXCLUDE (ctest -E regex of cases to skip; default: the long
#   round trip, whose code paths the other cases already cover).
# Leaks inside Open MPI (state kept until exit) are suppressed by
# testing/sanitize/lsan.supp; nothing of mxn is.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/asan}
jobs=${MXN_JOBS:-2}
tjobs=${MXN_TEST_JOBS:-2}
exclude=${MXN_SANITIZE_EXCLUDE-^cli_roundtrip\$}

mkdir -p "$build"
t0=$(date +%s)
# -O1 keeps the build and the runs short; the sanitizers need no more.
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DMXN_SANITIZE=ON -DMXN_BUILD_PLUGIN=OFF > "$build/configure.log" 2>&1 ||
  { tail -30 "$build/configure.log"; echo "sanitize: configure failed"; exit 1; }
cmake --build "$build" -j "$jobs" > "$build/build.log" 2>&1 ||
  { grep -E "error|Error" -A3 "$build/build.log" | head -60; echo "sanitize: build failed"; exit 1; }
t1=$(date +%s)
echo "sanitize: built in $build ($((t1 - t0)) s)"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# fast_unwind_on_malloc=0: Open MPI is built without frame pointers, and only
# full stacks let the suppressions recognize its allocations.
export ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:abort_on_error=0
export LSAN_OPTIONS=suppressions=$here/testing/sanitize/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
cd "$build"
args=(--output-on-failure --timeout 900 -j "$tjobs")
[ -n "$exclude" ] && args+=(-E "$exclude")
rc=0
ctest "${args[@]}" || rc=$?
echo "sanitize: tests ran in $(($(date +%s) - t1)) s"
exit $rc
