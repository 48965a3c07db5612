#!/usr/bin/env bash
# netCDF-4 and compressed files (issue 43): what mxn_gen, split, join and
# repart write with --format nc4 / --compress L reads back exactly as the
# netCDF-3 files of the same data.
#
# usage: formats.sh MXN MXN_GEN MPIEXEC NP TMP_DIR
#
# On a generated 2-block hex mesh with sets, attributes and 3 steps:
#   - mxn_gen --format nc4 and --compress 2 (Exodus's own netCDF-4 output)
#     are HDF5 files equal (mxn diff) to the netCDF-3 one;
#   - split into 4 members as nc3 (default and --format nc3: the same
#     bytes), nc4 and nc4 --compress 1: the members are HDF5 files where
#     asked; `mxn info --json` of the three sets is the same but for the
#     names; each joins (to netCDF-3) into the same bytes, equal to the mesh;
#   - the parallel load on NP ranks: `mxn stats` gives the same partition
#     (elements and nodes per rank), and `mxn repart` of each set writes the
#     same member bytes, so fields, ids, sets and times were read alike;
#     repart --compress 1 joins back equal to the mesh;
#   - the chunks of a compressed join (when ncdump is there): connectivity
#     chunks hold whole elements, per-step fields one step per chunk, no
#     chunk much above 1 MiB;
#   - bad format options exit 2 with a message, writing nothing.
# Exit 0 when nothing failed.
set -u
. "$(dirname "$0")/common.sh"
cli_args "MXN MXN_GEN MPIEXEC NP TMP_DIR" MXN GEN MPIEXEC N TMP -- "$@"
cli_workdir
par() { mpi "$MXN" "$@"; }
# The first bytes say the format: HDF5 (netCDF-4) or CDF (netCDF-3).
kind() {
  case $(head -c 4 "$1" | od -An -c | tr -d ' ') in
    211HDF) echo nc4 ;;
    CDF*) echo nc3 ;;
    *) echo unknown ;;
  esac
}
expect_kind() { # KIND FILE...
  local k=$1 f
  shift
  for f in "$@"; do
    [ "$(kind "$f")" = "$k" ] || { bad "$f is $(kind "$f"), not $k"; return; }
  done
  ok "$k: $*"
}

gen="--type hex --dims 12 6 5 --blocks 2 --steps 3"
# shellcheck disable=SC2086
"$GEN" $gen m.e > /dev/null || { bad "mxn_gen"; exit 1; }
# shellcheck disable=SC2086
"$GEN" $gen --format nc4 g4.e > /dev/null || bad "mxn_gen --format nc4"
# shellcheck disable=SC2086
"$GEN" $gen --compress 2 g4z.e > /dev/null || bad "mxn_gen --compress 2"
expect_kind nc3 m.e
expect_kind nc4 g4.e g4z.e
for f in g4.e g4z.e; do
  "$MXN" diff m.e "$f" > /dev/null && ok "generated $f equals m.e" || bad "diff m.e $f"
done

"$MXN" split m.e d -n 4 --quiet || bad "split (default)"
"$MXN" split m.e c -n 4 --format nc3 --quiet || bad "split --format nc3"
"$MXN" split m.e h -n 4 --format nc4 --quiet || bad "split --format nc4"
"$MXN" split m.e z -n 4 --compress 1 --quiet || bad "split --compress 1"
for j in 0 1 2 3; do
  cmp -s d.4.$j c.4.$j || bad "--format nc3 member $j differs from the default's"
done
expect_kind nc3 d.4.0 d.4.3
expect_kind nc4 h.4.0 h.4.1 h.4.2 h.4.3 z.4.0 z.4.1 z.4.2 z.4.3

# info: the same apart from the names of the set and its files.
for s in d h z; do
  "$MXN" info $s --json | sed -e "s/\"$s\\.4\\./\"X.4./g" -e "s/\"$s\"/\"X\"/" > info.$s || bad "info $s"
done
cmp -s info.d info.h && cmp -s info.d info.z && ok "info --json alike" || bad "info --json differs"

# join (netCDF-3 output): the same bytes from every format, equal to m.e.
for s in d h z; do
  "$MXN" join $s j$s.e --quiet || bad "join $s"
done
cmp -s jd.e jh.e && cmp -s jd.e jz.e && ok "joins byte-identical" || bad "joins differ"
"$MXN" diff m.e jz.e > /dev/null && ok "join of compressed members equals m.e" || bad "diff m.e jz.e"
"$MXN" join z jzc.e --compress 1 --quiet || bad "join --compress 1"
expect_kind nc4 jzc.e
"$MXN" diff m.e jzc.e > /dev/null && ok "compressed join equals m.e" || bad "diff m.e jzc.e"

# The parallel load: the same partition and the same pieces.
for s in d h z; do
  par stats $s --method rcb --json > stats.$s 2> stats.$s.err || bad "stats $s: $(cat stats.$s.err)"
  python3 - stats.$s > part.$s <<'PY' || bad "stats $s: unreadable JSON"
import json, sys
d = json.load(open(sys.argv[1]))
print(d["total_elements"], d["imbalance"])
for r in d["ranks_detail"]:
    print(r["owned"], r["nodes"], r["cover_files"], r["bytes_needed"])
PY
done
cmp -s part.d part.h && cmp -s part.d part.z && ok "stats on $N ranks alike" || bad "stats differ"
for s in d h z; do
  par repart $s r$s --method rcb --quiet || bad "repart $s"
done
n1=$((N - 1))
for f in $(cd . && ls rd.$N.* 2> /dev/null); do
  i=${f##*.}
  cmp -s "$f" "rh.$N.$i" && cmp -s "$f" "rz.$N.$i" || bad "repart member $i differs by input format"
done
[ -f "rd.$N.$(printf "%0${#N}d" "$n1")" ] && ok "repart members byte-identical" || bad "repart wrote nothing"
par repart z rc --method rcb --compress 1 --quiet || bad "repart --compress 1"
expect_kind nc4 "rc.$N.$(printf "%0${#N}d" 0)"
"$MXN" join rc jrc.e --quiet && "$MXN" diff m.e jrc.e > /dev/null &&
  ok "repart --compress 1 joins back equal" || bad "repart --compress 1 round trip"

# Chunk shapes of a compressed file large enough to be cut (152k nodes).
if command -v ncdump > /dev/null; then
  "$GEN" --type hex --dims 60 50 48 --steps 2 big.e > /dev/null || bad "mxn_gen big"
  "$MXN" join big.e bigz.e --compress 1 --quiet || bad "join big --compress 1"
  "$MXN" diff big.e bigz.e > /dev/null || bad "diff big.e bigz.e"
  ncdump -hs bigz.e > bigz.cdl
  python3 - bigz.cdl <<'PY' && ok "chunk shapes" || bad "chunk shapes"
import re, sys
text = open(sys.argv[1]).read()
size = {"double": 8, "int64": 8, "int": 4, "float": 4, "char": 1}
dims = {m.group(1): (0 if m.group(2) == "UNLIMITED" else int(m.group(2)))
        for m in re.finditer(r"^\s+(\w+) = (\d+|UNLIMITED)", text, re.M)}
errs, seen = [], 0
for m in re.finditer(r"^\s+(\w+) (\w+)\(([^)]*)\) ;", text, re.M):
    t, name, vd = m.group(1), m.group(2), [d.strip() for d in m.group(3).split(",")]
    c = re.search(r"^\s+%s:_ChunkSizes = ([\d, ]+) ;" % name, text, re.M)
    if not c:
        continue
    chunk = [int(x) for x in c.group(1).split(",")]
    nbytes = size.get(t, 8)
    for x in chunk:
        nbytes *= x
    if nbytes > (1 << 20) + 64 * 1024 and not (vd[0] == "time_step" and chunk[0] == 1):
        errs.append("%s: chunk %s is %d bytes" % (name, chunk, nbytes))
    if name.startswith("connect"):
        seen += 1
        if chunk[1] != dims[vd[1]] or chunk[0] >= dims[vd[0]]:
            errs.append("%s: chunk %s cuts elements or is whole" % (name, chunk))
    if name.startswith("vals_nod_var"):
        seen += 1
        if chunk[0] != 1 or chunk[1] >= dims[vd[1]]:
            errs.append("%s: chunk %s" % (name, chunk))
if seen < 3:
    errs.append("only %d chunked connectivity/nodal variables" % seen)
if errs:
    print("\n".join(errs))
    sys.exit(1)
PY
else
  echo "skip chunk shapes (no ncdump)"
fi

# Bad usage: exit 2, nothing written.
usage_case() { # WHAT CMD...
  local what=$1
  shift
  "$@" > out.txt 2> err.txt
  local rc=$?
  [ $rc = 2 ] && [ -s err.txt ] && ok "usage: $what" || bad "usage: $what exit $rc: $(cat err.txt)"
}
usage_case "split --format nc5" "$MXN" split m.e u -n 2 --format nc5
usage_case "split --compress 10" "$MXN" split m.e u -n 2 --compress 10
usage_case "split nc3 + compress" "$MXN" split m.e u -n 2 --format nc3 --compress 1
usage_case "join --compress x" "$MXN" join d u.e --compress x
usage_case "gen nc3 + compress" "$GEN" --type hex --dims 2 2 2 --format nc3 --compress 1 u.e
usage_case "gen --format" "$GEN" --type hex --dims 2 2 2 --format hdf u.e
usage_case "repart nc3 + compress" par repart d u --format nc3 --compress 1
ls u.* > /dev/null 2>&1 && bad "bad usage wrote files" || ok "bad usage wrote nothing"

echo "formats: $nfail failure(s)"
[ $nfail = 0 ]
