#!/usr/bin/env bash
# Build the libFuzzer harnesses of testing/fuzz with clang (ASan + UBSan +
# coverage, no plugin, no tests) and run each for MXN_FUZZ_RUNS executions
# (default 10^6) or SECONDS (default 600), whichever comes first, one at a
# time under `nice`. Prints one line per harness: executions, seconds,
# corpus size, and FINDING with the saved input when it crashed, leaked or
# broke a check (then exit 1).
#   bash testing/fuzz/run.sh [SECONDS] [HARNESS...]   # idset args mapfile dataset
# Environment: MXN_FUZZ_BUILD (default ../<checkout>-build/fuzz), MXN_FUZZ_RUNS, MXN_JOBS.
# A finding is reproduced with `$MXN_FUZZ_BUILD/bin/fuzz_NAME FILE`; once
# fixed, copy it to testing/fuzz/regress/NAME/ so the ctest case
# fuzz_replay_NAME replays it in every test build (the ASan one included).
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-600}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(idset args mapfile dataset)
. "$here/testing/build_dir.sh"
build=${MXN_FUZZ_BUILD:-$mxn_default_build/fuzz}
runs=${MXN_FUZZ_RUNS:-1000000}
jobs=${MXN_JOBS:-2}

mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMXN_FUZZ=ON -DMXN_BUILD_TESTS=OFF -DMXN_BUILD_PLUGIN=OFF > "$build/configure.log" 2>&1 ||
  { tail -30 "$build/configure.log"; echo "fuzz: configure failed"; exit 1; }
nice cmake --build "$build" -j "$jobs" > "$build/build.log" 2>&1 ||
  { grep -E "error" -A3 "$build/build.log" | head -40; echo "fuzz: build failed"; exit 1; }

# Open MPI is linked (not initialized) by the core: no MPI state to leak.
# Allocations are not capped (allocator_may_return_null): netCDF 4.9.0
# crashes on its own out-of-memory paths (NC_hashmapfree(NULL) in nc_open),
# which a cap reaches on files that open cleanly without it. A single
# allocation beyond -malloc_limit_mb (= -rss_limit_mb) is a finding.
export ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1
export LSAN_OPTIONS=suppressions=$here/testing/sanitize/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export MXN_FUZZ_TMP=${MXN_FUZZ_TMP:-$build/tmp}
mkdir -p "$MXN_FUZZ_TMP"

# Seeds: the committed ones, and for the dataset small generated meshes and
# split members (one copy per kind of content the reader handles).
make_dataset_seeds() {
  local d=$1 g=$build/bin/mxn_gen m=$build/bin/mxn t=$build/seedtmp
  rm -rf "$t" "$d" && mkdir -p "$t" "$d"
  # Not the --int64 files: those are netCDF-4, whose HDF5 layer would take
  # the fuzzing time (HDF5's own robustness is not this project's).
  # The tools are instrumented too; Open MPI's state at exit is not a finding.
  local ASAN_OPTIONS=detect_leaks=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export ASAN_OPTIONS OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
  "$g" --type hex --dims 2 1 1 --steps 1 "$d/hex.e" > /dev/null
  "$g" --type quad --dims 2 2 --steps 2 "$d/quad.e" > /dev/null
  "$g" --type tet --dims 1 1 1 --steps 1 "$d/tet.e" > /dev/null
  "$g" --type wedge --dims 1 1 1 --no-vars --word-size 4 "$d/wedge4.e" > /dev/null
  "$g" --type mixed --dims 3 1 1 --steps 1 --shuffle-ids 3 --id-offset 5 "$d/mixed.e" > /dev/null
  "$g" --type poly-hex --dims 2 1 1 --steps 1 "$d/polyhex.e" > /dev/null
  "$g" --type polygon --dims 2 2 --steps 1 "$d/polygon.e" > /dev/null
  "$g" --type hex --dims 2 2 1 --steps 1 "$t/h.e" > /dev/null &&
    "$m" split "$t/h.e" "$t/s.e" -n 2 --quiet && cp "$t/s.e.2.1" "$d/member.e"
  rm -rf "$t"
}

status=0
printf "%-8s %10s %8s %8s  %s\n" harness executions seconds corpus result
for h in "${harnesses[@]}"; do
  bin=$build/bin/fuzz_$h
  corpus=$build/corpus/$h
  found=$build/findings/$h
  mkdir -p "$corpus" "$found"
  seeds=()
  [ -d "$here/testing/fuzz/seeds/$h" ] && seeds+=("$here/testing/fuzz/seeds/$h")
  [ -d "$here/testing/fuzz/regress/$h" ] && seeds+=("$here/testing/fuzz/regress/$h")
  if [ "$h" = dataset ]; then
    make_dataset_seeds "$build/seeds_dataset"
    seeds+=("$build/seeds_dataset")
  fi
  dict=()
  [ -f "$here/testing/fuzz/$h.dict" ] && dict=(-dict="$here/testing/fuzz/$h.dict")
  log=$build/fuzz_$h.log
  t0=$(date +%s)
  nice "$bin" -runs="$runs" -max_total_time="$secs" -rss_limit_mb=3072 -timeout=30 \
    -print_final_stats=1 -artifact_prefix="$found/" "${dict[@]}" "$corpus" "${seeds[@]}" \
    > "$log" 2>&1
  rc=$?
  t1=$(date +%s)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  ncorp=$(ls "$corpus" | wc -l)
  if [ $rc -eq 0 ]; then
    result=ok
  else
    status=1
    art=$(grep -o 'Test unit written to .*' "$log" | tail -1 | sed 's/Test unit written to //')
    why=$(grep -m1 -oE 'ERROR: [A-Za-z]+: [^ ]+( [^ ]+)?|deadly signal|out-of-memory|timeout' "$log")
    result="FINDING ($why) input $art, log $log"
  fi
  printf "%-8s %10s %8s %8s  %s\n" "$h" "${execs:-?}" "$((t1 - t0))" "$ncorp" "$result"
done
exit $status
