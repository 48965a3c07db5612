# What the CLI test scripts share; each sources it first
# (`. "$(dirname "$0")/common.sh"`) and keeps only its own checks.
# Sourcing it lets Open MPI run as root (mxn calls MPI_Init, CI runs as
# root) and provides:
#   cli_args USAGE VAR... -- "$@"  one argument per VAR, else the usage
#                                  line on stderr and exit 2
#   cli_abspath VAR...             each VAR's path made absolute (the
#                                  scripts work in their TMP_DIR)
#   cli_workdir                    $TMP emptied, made absolute and entered
#   ok TEXT / bad TEXT             one line per check; bad counts in nfail
#   mpi CMD...                     CMD on $N ranks under a 120 s timeout,
#                                  so that a hang fails instead of waiting
# and puts this folder on PYTHONPATH, for the scripts' Python checks to
# import its modules (steps_json.py).
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
PYTHONPATH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)${PYTHONPATH:+:$PYTHONPATH}
export PYTHONPATH

cli_args() {
  local usage=$1 vars=() v
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    vars+=("$1")
    shift
  done
  shift
  if [ $# -ne ${#vars[@]} ]; then
    echo "usage: $0 $usage" >&2
    exit 2
  fi
  for v in "${vars[@]}"; do
    printf -v "$v" '%s' "$1"
    shift
  done
}

# A path with a slash is taken from the current directory, a bare name
# from PATH.
abspath() { case $1 in /*) echo "$1" ;; */*) echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;; *) command -v "$1" ;; esac; }
cli_abspath() {
  local v
  for v in "$@"; do printf -v "$v" '%s' "$(abspath "${!v}")"; done
}

cli_workdir() {
  rm -rf "$TMP"
  mkdir -p "$TMP" || exit 1
  TMP=$(cd "$TMP" && pwd)
  cd "$TMP" || exit 1
}

nfail=0
ok() { echo "ok   $*"; }
bad() {
  echo "FAIL $*"
  nfail=$((nfail + 1))
}
mpi() { timeout 120 "$MPIEXEC" --oversubscribe -n "$N" "$@"; }
