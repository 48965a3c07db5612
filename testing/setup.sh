#!/usr/bin/env bash
# Install what MxN needs on Debian (bookworm) when it is missing, then
# configure and build everything into ../<checkout>-build.  Safe to run again: it only
# installs missing packages and rebuilds what changed.
#   bash testing/setup.sh            # as root (or with sudo available)
# Environment: MXN_BUILD_DIR (default: ../<checkout>-build, testing/build_dir.sh), MXN_JOBS (default: nproc).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/testing/build_dir.sh"
build=${MXN_BUILD_DIR:-$mxn_default_build}
jobs=${MXN_JOBS:-$(nproc)}

# ParaView's CMake package needs the third-party development packages VTK
# was built with, not just paraview-dev (the list below).
packages=(
  cmake make g++ pkg-config
  paraview paraview-dev python3-paraview
  qtbase5-dev libqt5svg5-dev qttools5-dev qtxmlpatterns5-dev-tools
  libdouble-conversion-dev libutfcpp-dev
  libexodusii-dev libnetcdf-dev netcdf-bin libhdf5-dev libdeflate-dev
  libtrilinos-zoltan-dev libptscotch-dev zlib1g-dev
  libopenmpi-dev openmpi-bin
  libgtest-dev
  xvfb xauth valgrind clang libclang-rt-14-dev python3-matplotlib
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" > /tmp/mxn-apt.log 2>&1 ||
    { tail -20 /tmp/mxn-apt.log; echo "setup: apt-get install failed (log: /tmp/mxn-apt.log)"; exit 1; }
else
  echo "setup: all ${#packages[@]} Debian packages present"
fi

mkdir -p "$build"
echo "setup: configuring and building in $build"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; echo "setup: cmake configure failed"; exit 1; }
cmake --build "$build" -j "$jobs" > "$build/build.log" 2>&1 ||
  { grep -E "error|Error" -A3 "$build/build.log" | head -60; echo "setup: build failed (log: $build/build.log)"; exit 1; }
echo "setup: built $build/bin/mxn, $build/bin/mxn_gen and the tests"
