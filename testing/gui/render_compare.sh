#!/usr/bin/env bash
# Rendering test: render_compare.py on NP ranks on a private Xvfb display.
#
#   render_compare.sh MPIEXEC NP PVBATCH PLUGIN_SO DATASET OUTDIR POINT_FIELD [CELL_FIELD]
#
# Skips (77) before starting anything when DATASET is absent; otherwise runs
#   xvfb_run.sh 150 MPIEXEC --oversubscribe -n NP PVBATCH --symmetric
#               render_compare.py PLUGIN_SO DATASET OUTDIR POINT_FIELD [CELL_FIELD]
# and returns its status (see render_compare.py; 124 = over 150 s).
set -u
if [ $# -lt 7 ] || [ $# -gt 8 ]; then
  echo "usage: render_compare.sh MPIEXEC NP PVBATCH PLUGIN_SO DATASET OUTDIR POINT_FIELD [CELL_FIELD]" >&2
  exit 2
fi
mpiexec=$1 np=$2 pvbatch=$3 plugin=$4 dataset=$5 out=$6
shift 6
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$dataset" ]; then
  echo "render_compare: SKIP: $dataset not found"
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
exec "$here/xvfb_run.sh" 150 "$mpiexec" --oversubscribe -n "$np" "$pvbatch" --symmetric \
  "$here/render_compare.py" "$plugin" "$dataset" "$out" "$@"
