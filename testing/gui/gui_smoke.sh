#!/usr/bin/env bash
# GUI smoke test: the `paraview` client, on a private Xvfb display, loads the
# MxNReader plugin at start-up, opens a spread set and saves a screenshot.
#
#   gui_smoke.sh PLUGIN_SO DATASET POINT_FIELD CELLS OUTDIR
#
# Runs   paraview --dr --plugin-search-paths=<plugin dir> --plugins=MxNReader
#                 --script=gui_smoke.py --exit
# (in ParaView 5.11, --test-script only plays XML test scripts: a .py given
# there is not run; --script runs Python and --exit closes the client when
# it is done). --dr keeps the user's settings out. The client runs under
# xvfb_run.sh with a 90 s limit, which also stops Xvfb afterwards.
# Passes when the client exits 0, gui_smoke.py wrote "PASS" to its verdict
# file (the client's exit code does not reflect a failing script) and
# image_check.py finds the screenshot not blank.
# Exit codes: 0 pass, 1 failure, 2 bad usage, 77 skipped (DATASET absent).
set -u
if [ $# -ne 5 ]; then
  echo "usage: gui_smoke.sh PLUGIN_SO DATASET POINT_FIELD CELLS OUTDIR" >&2
  exit 2
fi
plugin=$1 dataset=$2 field=$3 cells=$4 out=$5
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$dataset" ]; then
  echo "gui_smoke: SKIP: $dataset not found"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
png="$out/gui_smoke.png"

export MXN_GUI_DATASET=$dataset MXN_GUI_FIELD=$field MXN_GUI_CELLS=$cells MXN_GUI_OUT=$png
# Qt wants a private runtime directory; keep it inside OUTDIR.
export XDG_RUNTIME_DIR="$out/runtime"
mkdir -m 700 "$XDG_RUNTIME_DIR"
"$here/xvfb_run.sh" 90 paraview --dr --plugin-search-paths="$(dirname "$plugin")" \
  --plugins=MxNReader --script="$here/gui_smoke.py" --exit > "$out/paraview.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  echo "gui_smoke: FAIL: paraview exited with status $rc; its log:"
  tail -40 "$out/paraview.log"
  exit 1
fi
if [ ! -f "$png.txt" ]; then
  echo "gui_smoke: FAIL: the script wrote no verdict (did the client run it?); log:"
  tail -40 "$out/paraview.log"
  exit 1
fi
echo "gui_smoke: $(cat "$png.txt")"
if ! grep -q "^PASS" "$png.txt"; then
  tail -40 "$out/paraview.log"
  exit 1
fi
python3=/usr/bin/python3
[ -x "$python3" ] || python3=python3
"$python3" "$here/image_check.py" "$png" || exit 1
