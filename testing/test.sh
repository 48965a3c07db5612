#!/usr/bin/env bash
# Run every test of MxN (GoogleTest unit tests, CLI tests, ParaView tests)
# through ctest on the build made by testing/setup.sh.
# Tests reading ../shared/data skip cleanly where it is absent.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/testing/build_dir.sh"
build=${MXN_BUILD_DIR:-$mxn_default_build}
# Open MPI refuses root unless told; CI and fresh machines run as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
cd "$build"
ctest --output-on-failure --timeout 900 -j "${MXN_TEST_JOBS:-2}" "$@"
