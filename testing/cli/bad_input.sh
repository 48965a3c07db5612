#!/usr/bin/env bash
# Bad input for the mxn command-line tool: every command fed missing, empty,
# non-Exodus, truncated and inconsistent datasets, and every usage error.
#
# usage: bad_input.sh MXN_BINARY SHARED_DATA_DIR TMP_DIR
#
# Each case runs `timeout 20 mxn ...` and checks:
#   - the exit code is the documented one (1 bad data, 2 bad usage, 0 help),
#     never 124 (hang) or >= 128 (crash);
#   - for data errors, stderr is "mxn CMD: error: MESSAGE" and names the
#     offending file; for usage errors stderr points to --help;
#   - a failed join/split leaves no output file and no *.tmp* file behind.
# One line per case, then a summary. Exit 1 if any case failed; 77 (skip) if
# every case that ran passed but the shared data was absent, so some could
# not run; 0 otherwise.
set -u
. "$(dirname "$0")/common.sh"
cli_args "MXN_BINARY SHARED_DATA_DIR TMP_DIR" MXN DATA TMP -- "$@"

# `mxn diff` exits 1 when the datasets differ, so an unreadable dataset
# cannot share that code: the tool exits 3 then (see cmd_diff in
# core/tools/mxn.c). The other commands exit 1 on bad data.
DIFF_DATA_ERROR_RC=3

if [ ! -x "$MXN" ]; then
  echo "FAIL: $MXN is not an executable" >&2
  exit 1
fi

HAVE_DATA=0
if [ -d "$DATA/meshes" ] && [ -d "$DATA/nemesis" ]; then HAVE_DATA=1; fi

cli_workdir

npass=0
nfail=0
nskip=0
ncase=0
failed=()

# case NAME [options] -- MXN_ARGS...
#   -x RC      expected exit code (required)
#   -d         needs the shared data (skipped without it)
#   -n TEXT    stderr must contain TEXT (repeatable; e.g. the offending file)
#   -O TEXT    stdout must contain TEXT (repeatable)
#   -a PREFIX  afterwards no regular file whose path starts with PREFIX
#   -w DIR     afterwards no *.tmp* file under DIR (default: the case's dir)
# The case's private directory is $CASEDIR (set by `newcase`).
case_() {
  local name=$1
  shift
  local want="" needs_data=0 wdir=""
  local -a must=() must_out=() absent=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    case $1 in
      -x) want=$2; shift 2 ;;
      -d) needs_data=1; shift ;;
      -n) must+=("$2"); shift 2 ;;
      -O) must_out+=("$2"); shift 2 ;;
      -a) absent+=("$2"); shift 2 ;;
      -w) wdir=$2; shift 2 ;;
      *) echo "bad_input.sh: bad case option $1" >&2; exit 2 ;;
    esac
  done
  shift
  ncase=$((ncase + 1))
  if [ "$needs_data" = 1 ] && [ "$HAVE_DATA" = 0 ]; then
    nskip=$((nskip + 1))
    printf 'SKIP %-44s (no shared data at %s)\n' "$name" "$DATA"
    return
  fi
  [ -n "$wdir" ] || wdir=${CASEDIR:-$TMP}
  local out="$TMP/case$ncase.stdout" err="$TMP/case$ncase.stderr"
  timeout 20 "$MXN" "$@" >"$out" 2>"$err"
  local rc=$?
  local -a problems=()
  if [ "$rc" -eq 124 ]; then
    problems+=("hung (killed by timeout 20)")
  elif [ "$rc" -ge 128 ]; then
    problems+=("crashed (signal $((rc - 128)))")
  fi
  [ "$rc" = "$want" ] || problems+=("exit $rc, expected $want")
  local cmd=${1:-}
  case $cmd in info | join | split | diff) ;; *) cmd="" ;; esac
  if [ -n "$cmd" ] && { [ "$want" = 1 ] || [ "$want" = "$DIFF_DATA_ERROR_RC" ]; } &&
    ! { [ "$cmd" = diff ] && [ "$want" = 1 ]; }; then
    grep -q "^mxn $cmd: error: " "$err" || problems+=("stderr lacks 'mxn $cmd: error: '")
  fi
  if [ "$want" = 2 ]; then
    grep -qi -- "--help\|usage" "$err" || problems+=("stderr gives no usage hint")
  fi
  local m
  for m in "${must[@]+"${must[@]}"}"; do
    grep -qF -- "$m" "$err" || problems+=("stderr does not name '$m'")
  done
  for m in "${must_out[@]+"${must_out[@]}"}"; do
    grep -qF -- "$m" "$out" || problems+=("stdout lacks '$m'")
  done
  local p f
  for p in "${absent[@]+"${absent[@]}"}"; do
    while IFS= read -r f; do
      case $f in "$p"*) problems+=("left behind: $f") ;; esac
    done < <(find "$(dirname "$p")" -maxdepth 1 -type f 2>/dev/null)
  done
  while IFS= read -r f; do
    problems+=("left behind: $f")
  done < <(find "$wdir" -type f -name '*.tmp*' 2>/dev/null)
  if [ ${#problems[@]} -eq 0 ]; then
    npass=$((npass + 1))
    printf 'ok   %-44s (exit %s)\n' "$name" "$rc"
  else
    nfail=$((nfail + 1))
    failed+=("$name")
    printf 'FAIL %-44s %s\n' "$name" "$(IFS=';'; echo "${problems[*]}")"
    printf '       command: mxn %s\n' "$*"
    sed 's/^/       stderr: /' "$err" | head -5
  fi
}

# A fresh private directory for the next cases.
newcase() {
  CASEDIR="$TMP/$1"
  rm -rf "$CASEDIR"
  mkdir -p "$CASEDIR"
}

# Copy a (read-only) shared file and make the copy writable.
cpw() { cp "$1" "$2" && chmod u+w "$2"; }

# A valid netCDF classic file that is not Exodus: dimension n = 3 and
# int x(n) = 1, 2, 3, written byte by byte (no netCDF tools needed).
tiny_netcdf() {
  printf 'CDF\001\000\000\000\000'                       # magic, numrecs 0
  printf '\000\000\000\012\000\000\000\001'              # NC_DIMENSION, 1
  printf '\000\000\000\001n\000\000\000\000\000\000\003' # "n" = 3
  printf '\000\000\000\000\000\000\000\000'              # no global attributes
  printf '\000\000\000\013\000\000\000\001'              # NC_VARIABLE, 1
  printf '\000\000\000\001x\000\000\000'                 # "x"
  printf '\000\000\000\001\000\000\000\000'              # 1 dim: dimid 0
  printf '\000\000\000\000\000\000\000\000'              # no attributes
  printf '\000\000\000\004\000\000\000\014\000\000\000\120' # NC_INT, vsize 12, begin 80
  printf '\000\000\000\001\000\000\000\002\000\000\000\003'
}

GOOD=$DATA/meshes/mug.e

# data_cases LABEL BAD NAMED [-d]: info, join, split and diff on dataset BAD
# (a path), each expected to fail naming NAMED.
data_cases() {
  local label=$1 bad=$2 named=$3
  shift 3
  local -a d=("$@")
  local outdir=$CASEDIR/out-$label
  mkdir -p "$outdir"
  case_ "info $label" "${d[@]+"${d[@]}"}" -x 1 -n "$named" -- info "$bad"
  case_ "info --json $label" "${d[@]+"${d[@]}"}" -x 1 -n "$named" -- info "$bad" --json
  case_ "join $label" "${d[@]+"${d[@]}"}" -x 1 -n "$named" -a "$outdir/joined.e" \
    -- join "$bad" "$outdir/joined.e"
  case_ "split $label" "${d[@]+"${d[@]}"}" -x 1 -n "$named" -a "$outdir/part.e" \
    -- split "$bad" "$outdir/part.e" -n 3
  if [ "$HAVE_DATA" = 1 ]; then
    case_ "diff BAD GOOD $label" -x "$DIFF_DATA_ERROR_RC" -n "$named" -- diff "$bad" "$GOOD"
    case_ "diff GOOD BAD $label" -x "$DIFF_DATA_ERROR_RC" -n "$named" -- diff "$GOOD" "$bad"
  else
    case_ "diff BAD BAD $label" "${d[@]+"${d[@]}"}" -x "$DIFF_DATA_ERROR_RC" -n "$named" \
      -- diff "$bad" "$bad"
  fi
}

echo "== help and usage"
newcase usage
case_ "mxn --help" -x 0 -O "usage: mxn COMMAND" -- --help
case_ "mxn -h" -x 0 -O "usage: mxn COMMAND" -- -h
case_ "mxn help" -x 0 -O "usage: mxn COMMAND" -- help
for c in info join split diff; do
  case_ "mxn $c --help" -x 0 -O "usage: mxn $c" -- "$c" --help
  case_ "mxn $c -h" -x 0 -O "usage: mxn $c" -- "$c" -h
done
case_ "mxn (no command)" -x 2 -n "usage" --
case_ "mxn nosuchcmd" -x 2 -n "nosuchcmd" -n "usage" -- nosuchcmd
case_ "mxn --nosuchoption" -x 2 -n "usage" -- --nosuchoption
# The dataset argument exists, so only the usage is wrong.
U=$CASEDIR/u.e
printf 'x' >"$U"
O=$CASEDIR/o.e
case_ "info: no DATASET" -x 2 -n "mxn info --help" -- info
case_ "info: two DATASETs" -x 2 -n "mxn info --help" -- info "$U" "$U"
case_ "info: unknown option" -x 2 -n "mxn info --help" -- info "$U" --bogus
case_ "join: no arguments" -x 2 -n "mxn join --help" -a "$O" -- join
case_ "join: OUT missing" -x 2 -n "mxn join --help" -a "$O" -- join "$U"
case_ "join: three arguments" -x 2 -n "mxn join --help" -a "$O" -- join "$U" "$O" "$O.2"
case_ "join: unknown option" -x 2 -n "mxn join --help" -a "$O" -- join "$U" "$O" --bogus
case_ "split: no arguments" -x 2 -n "mxn split --help" -a "$O" -- split
case_ "split: OUTBASE missing" -x 2 -n "mxn split --help" -a "$O" -- split "$U" -n 2
case_ "split: -n missing" -x 2 -n "mxn split --help" -a "$O" -- split "$U" "$O"
case_ "split: -n 0" -x 2 -n "mxn split --help" -a "$O" -- split "$U" "$O" -n 0
case_ "split: -n -3" -x 2 -n "mxn split --help" -a "$O" -- split "$U" "$O" -n -3
case_ "split: -n abc" -x 2 -n "mxn split --help" -a "$O" -- split "$U" "$O" -n abc
case_ "split: -n 2x" -x 2 -n "mxn split --help" -a "$O" -- split "$U" "$O" -n 2x
case_ "split: -n without value" -x 2 -n "mxn split --help" -a "$O" -- split "$U" "$O" -n
case_ "split: unknown --method" -x 2 -n "mxn split --help" -a "$O" \
  -- split "$U" "$O" -n 2 --method nosuch
case_ "split: --method without value" -x 2 -n "mxn split --help" -a "$O" \
  -- split "$U" "$O" -n 2 --method
case_ "split: --imbalance 0.5" -x 2 -n "mxn split --help" -a "$O" \
  -- split "$U" "$O" -n 2 --imbalance 0.5
case_ "split: --imbalance abc" -x 2 -n "mxn split --help" -a "$O" \
  -- split "$U" "$O" -n 2 --imbalance abc
case_ "split: unknown option" -x 2 -n "mxn split --help" -a "$O" -- split "$U" "$O" -n 2 --bogus
case_ "split: three positionals" -x 2 -n "mxn split --help" -a "$O" -- split "$U" "$O" "$O" -n 2
case_ "diff: no arguments" -x 2 -n "mxn diff --help" -- diff
case_ "diff: B missing" -x 2 -n "mxn diff --help" -- diff "$U"
case_ "diff: three arguments" -x 2 -n "mxn diff --help" -- diff "$U" "$U" "$U"
case_ "diff: unknown option" -x 2 -n "mxn diff --help" -- diff "$U" "$U" --bogus
case_ "diff: --tol without value" -x 2 -n "mxn diff --help" -- diff "$U" "$U" --tol
case_ "diff: --tol abc" -x 2 -n "mxn diff --help" -- diff "$U" "$U" --tol abc
case_ "diff: --rel abc" -x 2 -n "mxn diff --help" -- diff "$U" "$U" --rel abc
case_ "diff: --max abc" -x 2 -n "mxn diff --help" -- diff "$U" "$U" --max abc

echo "== inputs made here (no shared data needed)"
newcase missing
data_cases "missing file" "$CASEDIR/nosuch.e" "$CASEDIR/nosuch.e"
data_cases "missing dir" "$CASEDIR/nodir/x.e" "$CASEDIR/nodir/x.e"

newcase empty
: >"$CASEDIR/empty.e"
data_cases "zero-byte file" "$CASEDIR/empty.e" "$CASEDIR/empty.e"

newcase text
printf 'this is not an Exodus file\n' >"$CASEDIR/text.e"
data_cases "text file" "$CASEDIR/text.e" "$CASEDIR/text.e"

newcase netcdf
tiny_netcdf >"$CASEDIR/plain.nc"
data_cases "netCDF, not Exodus" "$CASEDIR/plain.nc" "$CASEDIR/plain.nc"

newcase emptyset
: >"$CASEDIR/z.e.2.0"
: >"$CASEDIR/z.e.2.1"
data_cases "set of zero-byte members" "$CASEDIR/z.e.2.1" "$CASEDIR/z.e.2.0"

echo "== inputs made from the shared data"
if [ "$HAVE_DATA" = 1 ]; then
  newcase trunc
  head -c 1000 "$GOOD" >"$CASEDIR/trunc.e"
  size=$(stat -c %s "$GOOD")
  head -c $((size / 2)) "$GOOD" >"$CASEDIR/half.e"
  head -c 1000 "$DATA/nemesis/disk_out_ref/inertial-M4-int64/disk_out_ref.e.4.0" >"$CASEDIR/t64.e"
else
  newcase trunc
fi
data_cases "truncated (1000 bytes)" "$CASEDIR/trunc.e" "$CASEDIR/trunc.e" -d
data_cases "truncated (half: header intact)" "$CASEDIR/half.e" "$CASEDIR/half.e" -d
data_cases "truncated netCDF-4" "$CASEDIR/t64.e" "$CASEDIR/t64.e" -d

newcase truncmember
if [ "$HAVE_DATA" = 1 ]; then
  for j in 0 1 3; do cpw "$DATA/nemesis/mug/inertial-M4/mug.e.4.$j" "$CASEDIR/mug.e.4.$j"; done
  m2=$DATA/nemesis/mug/inertial-M4/mug.e.4.2
  head -c $(($(stat -c %s "$m2") / 2)) "$m2" >"$CASEDIR/mug.e.4.2"
fi
data_cases "truncated member" "$CASEDIR/mug.e.4.0" "$CASEDIR/mug.e.4.2" -d

newcase missingmember
if [ "$HAVE_DATA" = 1 ]; then
  for j in 0 1 3; do cpw "$DATA/nemesis/mug/inertial-M4/mug.e.4.$j" "$CASEDIR/mug.e.4.$j"; done
fi
data_cases "member missing (open .4.0)" "$CASEDIR/mug.e.4.0" "$CASEDIR/mug.e.4.2" -d
data_cases "member missing (base name)" "$CASEDIR/mug.e" "$CASEDIR/mug.e.4.2" -d

newcase mixed
if [ "$HAVE_DATA" = 1 ]; then
  for j in 0 1 2; do
    cpw "$DATA/nemesis/coarseGrid/inertial-M4/coarseGrid.e.4.$j" "$CASEDIR/coarseGrid.e.4.$j"
  done
  cpw "$DATA/nemesis/disk_out_ref/inertial-M4/disk_out_ref.e.4.3" "$CASEDIR/coarseGrid.e.4.3"
fi
data_cases "members of two datasets" "$CASEDIR/coarseGrid.e.4.0" "$CASEDIR/coarseGrid.e.4.3" -d

newcase otherM
if [ "$HAVE_DATA" = 1 ]; then
  for j in 0 1 2; do
    cpw "$DATA/nemesis/coarseGrid/inertial-M4/coarseGrid.e.4.$j" "$CASEDIR/coarseGrid.e.4.$j"
  done
  cpw "$DATA/nemesis/coarseGrid/random-M3/coarseGrid.e.3.2" "$CASEDIR/coarseGrid.e.4.3"
fi
data_cases "member of a 3-file set" "$CASEDIR/coarseGrid.e.4.1" "$CASEDIR/coarseGrid.e.4.3" -d

newcase stray
if [ "$HAVE_DATA" = 1 ]; then
  for j in 0 1 2 3; do cpw "$DATA/nemesis/mug/inertial-M4/mug.e.4.$j" "$CASEDIR/mug.e.4.$j"; done
  cpw "$DATA/nemesis/mug/inertial-M4/mug.e.4.0" "$CASEDIR/mug.e.4.7"
fi
data_cases "stray member .4.7" "$CASEDIR/mug.e.4.0" "$CASEDIR/mug.e.4.7" -d

newcase nomap
if [ "$HAVE_DATA" = 1 ]; then
  cpw "$DATA/meshes/block_crush_1.ex2" "$CASEDIR/x.e.2.0"
  cpw "$DATA/meshes/block_crush_1.ex2" "$CASEDIR/x.e.2.1"
fi
data_cases "set without id maps" "$CASEDIR/x.e.2.1" "$CASEDIR/x.e.2.0" -d

newcase dup
if [ "$HAVE_DATA" = 1 ]; then
  cpw "$DATA/nemesis/mug/multikl-M3/mug.e.3.0" "$CASEDIR/dup.e.3.0"
  cpw "$DATA/nemesis/mug/multikl-M3/mug.e.3.0" "$CASEDIR/dup.e.3.1"
  cpw "$DATA/nemesis/mug/multikl-M3/mug.e.3.2" "$CASEDIR/dup.e.3.2"
fi
# Its Nemesis global count (2476) is a writer's hint the members do not
# bear out: what they hold is read, with one warning naming member 0.
mkdir -p "$CASEDIR/out-dup"
for c in info join; do
  o=()
  [ $c = join ] && o=("$CASEDIR/out-dup/joined.e")
  case_ "$c member duplicated: read, one warning" -d -x 0 \
    -n "warning: $CASEDIR/dup.e.3.0: the members hold" -n "Nemesis global counts say 2476; going on" \
    -- $c "$CASEDIR/dup.e.3.0" "${o[@]+"${o[@]}"}"
done

echo "== outputs that cannot be written (good input)"
newcase out-isdir
mkdir -p "$CASEDIR/isdir.e"
case_ "join: OUT is a directory" -d -x 1 -n "$CASEDIR/isdir.e" -- join "$GOOD" "$CASEDIR/isdir.e"
newcase out-nodir
case_ "join: OUT in a missing directory" -d -x 1 -n "$CASEDIR/nodir/out.e" \
  -a "$CASEDIR/nodir/out.e" -- join "$GOOD" "$CASEDIR/nodir/out.e"
case_ "split: OUTBASE in a missing directory" -d -x 1 -n "$CASEDIR/nodir/p.e" \
  -a "$CASEDIR/nodir/p.e" -- split "$GOOD" "$CASEDIR/nodir/p.e" -n 2
# Member 0 is written, member 1 cannot be moved into place: no partial set.
newcase out-blocked
mkdir -p "$CASEDIR/blocked.e.2.1"
case_ "split: member 1 blocked" -d -x 1 -n "$CASEDIR/blocked.e.2.1" -a "$CASEDIR/blocked.e" \
  -- split "$GOOD" "$CASEDIR/blocked.e" -n 2 --method linear

echo "== summary"
echo "bad_input: $ncase cases: $npass passed, $nfail failed, $nskip skipped"
if [ "$nfail" -gt 0 ]; then
  printf 'failed: %s\n' "${failed[@]}"
  exit 1
fi
if [ "$nskip" -gt 0 ]; then
  echo "bad_input: shared data absent ($DATA): $nskip cases skipped"
  exit 77
fi
exit 0
