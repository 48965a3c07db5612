#!/usr/bin/env bash
# The collective commands of the mxn tool on N ranks: `mxn repart` (M -> N
# files) and `mxn stats` (the load's figures, without writing).
#
# usage: repart.sh MXN_BINARY MXN_GEN_BINARY MPIEXEC N TMP_DIR
#
# Checks, on a generated mesh split into 3 files:
#   - `mpiexec -n N mxn repart` writes exactly OUTBASE.N.0 .. N-1 (no
#     temporary file), and `mxn join` of them equals the original mesh
#     (`mxn diff`), for the methods files, rcb and sfc;
#   - `mxn repart --ghosts L` (L = 1, 2; files, rcb, graph) writes members
#     holding owned + ghost elements (as `mxn stats --ghosts L --json`
#     counts them) with the element variable vtkGhostType, and their join
#     equals the mesh;
#   - `mxn stats --json` is valid JSON with ranks, method, imbalance,
#     total_elements and one ranks_detail row per rank (rank, owned, weight,
#     cover_files, bytes_read, bytes_needed), owned summing to the mesh;
#   - a missing member: every rank exits 1, only rank 0 prints
#     "mxn repart: error: ..." naming the file, no output file is left;
#   - bad usage exits 2 on every rank; -n N on one process exits 2.
# Every mpiexec runs under `timeout`, so a hang fails instead of waiting.
set -u

. "$(dirname "$0")/common.sh"
cli_args "MXN_BINARY MXN_GEN_BINARY MPIEXEC N TMP_DIR" MXN GEN MPIEXEC N TMP -- "$@"
cli_abspath MXN GEN MPIEXEC
cli_workdir

# Run `mxn ARGS` on N ranks, each rank recording its exit code in
# DIR/rc.RANK and its stderr in DIR/err.RANK (mpiexec alone would report
# only the first failing rank's code).
per_rank() {
  local dir=$1
  shift
  mkdir -p "$dir"
  rm -f "$dir"/rc.* "$dir"/err.*
  mpi sh -c 'r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}; "$0" "$@" 2>"'"$dir"'/err.$r" >/dev/null; echo $? >"'"$dir"'/rc.$r"' "$MXN" "$@"
  local rc=$?
  [ $rc -eq 0 ] || bad "per-rank wrapper exited $rc (hang or crash?)"
}

# All N ranks exited with $2 (dir $1)?
all_ranks_exited() {
  local dir=$1 want=$2 r
  for r in $(seq 0 $((N - 1))); do
    [ -f "$dir/rc.$r" ] || return 1
    [ "$(cat "$dir/rc.$r")" = "$want" ] || return 1
  done
  return 0
}

"$GEN" --type hex --dims 8 6 5 --blocks 2 --steps 3 mesh.e >/dev/null || { bad "mxn_gen failed"; exit 1; }
"$MXN" split mesh.e in.e -n 3 --quiet || { bad "split failed"; exit 1; }

# ---- repart, join, diff ----
width=${#N}
for method in files rcb sfc; do
  out=out_$method.e
  if mpi "$MXN" repart in.e "$out" --method "$method" >repart_$method.log 2>&1; then
    ok "repart --method $method on $N ranks"
  else
    bad "repart --method $method on $N ranks: $(cat repart_$method.log)"
    continue
  fi
  want=""
  for i in $(seq 0 $((N - 1))); do want="$want $(printf "%s.%d.%0${width}d" "$out" "$N" "$i")"; done
  have=$(ls -1 | grep "^$out" | sort | tr '\n' ' ')
  want=$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')
  if [ "$have" = "$want" ]; then ok "exactly the $N members of $out"; else bad "members of $out: '$have', want '$want'"; fi
  if [ "$(grep -c '^repart:' repart_$method.log)" = 1 ]; then ok "one report (rank 0 only)"; else bad "report lines: $(cat repart_$method.log)"; fi
  rm -f joined.e
  if "$MXN" join "$out" joined.e --quiet && "$MXN" diff mesh.e joined.e >diff_$method.log 2>&1; then
    ok "join of the $N members equals the mesh ($method)"
  else
    bad "join/diff after repart --method $method: $(head -20 diff_$method.log)"
  fi
done

# ---- ghosts: repart --ghosts L writes the halo too, join drops it ----
for method in files rcb graph; do
  for L in 1 2; do
    out=gh_${method}_$L.e
    if ! mpi "$MXN" repart in.e "$out" --method "$method" --ghosts "$L" --quiet >gh.log 2>&1; then
      bad "repart --ghosts $L --method $method: $(cat gh.log)"
      continue
    fi
    if ! mpi "$MXN" stats in.e --method "$method" --ghosts "$L" --json >gh_stats.json 2>gh.log; then
      bad "stats --ghosts $L --method $method: $(cat gh.log)"
      continue
    fi
    # every member holds its owned elements plus its ghosts, as stats says
    for i in $(seq 0 $((N - 1))); do
      # the member alone (mxn info would open the whole set)
      member=$(printf "%s.%d.%0${width}d" "$out" "$N" "$i")
      ncdump -v name_elem_var "$member" >gh_info.$i.txt || bad "ncdump of member $i"
    done
    if python3 - "$N" "$L" gh_stats.json gh_info <<'EOF'
import json, re, sys
n, L = int(sys.argv[1]), int(sys.argv[2])
st = json.load(open(sys.argv[3]))
assert st["ghost_levels"] == L, st.get("ghost_levels")
rows = st["ranks_detail"]
assert st["ghost_elements"] == sum(r["ghosts"] for r in rows)
for r in rows:
    for k in ("ghosts", "ghost_nodes", "ghost_files", "ghost_bytes_read"):
        assert k in r, "row lacks " + k
    hdr = open("%s.%d.txt" % (sys.argv[4], r["rank"])).read()
    m = re.search(r"\bnum_elem = (\d+) ;", hdr)
    assert m and int(m.group(1)) == r["owned"] + r["ghosts"], (m and m.group(1), r)
    assert '"vtkGhostType' in hdr, "no vtkGhostType in member %d" % r["rank"]
    if n > 1:
        assert r["ghosts"] > 0, r
EOF
    then ok "repart --ghosts $L --method $method: members hold owned + ghosts, vtkGhostType"; else bad "ghost members ($method, L=$L): $(head -c 1500 gh_stats.json)"; fi
    rm -f joined.e
    if "$MXN" join "$out" joined.e --quiet && "$MXN" diff mesh.e joined.e >gh_diff.log 2>&1; then
      ok "join of the ghosted members equals the mesh ($method, L=$L)"
    else
      bad "join/diff after repart --ghosts $L --method $method: $(head -20 gh_diff.log)"
    fi
  done
done
per_rank gh_usage stats in.e --ghosts -1
if all_ranks_exited gh_usage 2; then ok "--ghosts -1 exits 2 on every rank"; else bad "--ghosts -1 exit codes $(cat gh_usage/rc.* | tr '\n' ' ')"; fi

# ---- stats --json ----
if mpi "$MXN" stats in.e --json >stats.json 2>stats.err; then
  if python3 - "$N" stats.json <<'EOF'
import json, sys
n = int(sys.argv[1])
d = json.load(open(sys.argv[2]))
for k in ("ranks", "method", "imbalance", "total_elements", "ranks_detail", "files",
          "bytes_read", "bytes_needed", "map_bytes_read", "set_bytes_read"):
    assert k in d, "missing key " + k
assert d["ranks"] == n, d["ranks"]
assert d["method"] == "files", d["method"]
assert d["total_elements"] == 240, d["total_elements"]
assert d["files"] == 3, d["files"]
assert 1.0 <= d["imbalance"] <= 1.05, d["imbalance"]
rows = d["ranks_detail"]
assert [r["rank"] for r in rows] == list(range(n)), rows
for r in rows:
    for k in ("rank", "owned", "weight", "cover_files", "files_overlapping", "bytes_read",
              "bytes_needed", "map_bytes_read", "set_bytes_read", "read_calls", "files_opened"):
        assert k in r, "row lacks " + k
    assert r["owned"] > 0 and r["cover_files"] >= 1
    assert r["cover_files"] <= r["files_overlapping"] <= 3
    assert r["bytes_read"] >= r["bytes_needed"] > 0
    # id maps: every member a rank reads from has them (8 bytes an entry)
    assert r["map_bytes_read"] > 0 and r["set_bytes_read"] >= 0, r
assert sum(r["owned"] for r in rows) == 240
assert abs(max(r["weight"] for r in rows) / (sum(r["weight"] for r in rows) / n) - d["imbalance"]) < 1e-9
EOF
  then ok "stats --json on $N ranks"; else bad "stats --json: $(head -c 2000 stats.json)"; fi
else
  bad "stats --json exited non-zero: $(cat stats.err)"
fi
if mpi "$MXN" stats in.e --method rcb >stats.txt 2>&1 && [ "$(grep -c '^total elements 240;' stats.txt)" = 1 ]; then
  ok "stats (text) printed once"
else
  bad "stats text: $(cat stats.txt)"
fi

# ---- a missing member: all ranks exit 1, one message, nothing written ----
mkdir -p miss
cp in.e.3.* miss/ && rm miss/in.e.3.1
per_rank miss/ranks repart miss/in.e miss/out.e
if all_ranks_exited miss/ranks 1; then ok "missing member: every rank exits 1"; else bad "missing member: exit codes $(cat miss/ranks/rc.* | tr '\n' ' ')"; fi
if grep -q "^mxn repart: error: .*miss/in.e.3.1" miss/ranks/err.0; then
  ok "rank 0 names the missing file"
else
  bad "rank 0 stderr: $(cat miss/ranks/err.0)"
fi
quiet=1
for r in $(seq 1 $((N - 1))); do [ -s miss/ranks/err.$r ] && quiet=0; done
if [ $quiet = 1 ]; then ok "other ranks print nothing"; else bad "other ranks printed: $(cat miss/ranks/err.*)"; fi
if ls miss | grep -q '^out\.e'; then bad "output left behind: $(ls miss)"; else ok "no output file left"; fi
mpi "$MXN" repart miss/in.e miss/out.e >/dev/null 2>&1
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ]; then ok "mpiexec reports failure ($rc)"; else bad "mpiexec exit $rc"; fi
per_rank miss/stats stats miss/in.e --json
if all_ranks_exited miss/stats 1 && grep -q "^mxn stats: error: .*miss/in.e.3.1" miss/stats/err.0; then
  ok "stats of a broken set: every rank exits 1, rank 0 names the file"
else
  bad "stats of a broken set: $(cat miss/stats/rc.* | tr '\n' ' ') $(cat miss/stats/err.0)"
fi

# ---- bad usage: exit 2 everywhere ----
per_rank usage1 repart in.e
if all_ranks_exited usage1 2; then ok "repart without OUTBASE exits 2 on every rank"; else bad "usage exit codes $(cat usage1/rc.* | tr '\n' ' ')"; fi
per_rank usage2 stats in.e --method nonsense
if all_ranks_exited usage2 2; then ok "stats --method nonsense exits 2 on every rank"; else bad "usage exit codes $(cat usage2/rc.* | tr '\n' ' ')"; fi
per_rank usage3 stats in.e -n $((N + 1))
if all_ranks_exited usage3 2; then ok "stats -n disagreeing with mpiexec exits 2"; else bad "stats -n exit codes $(cat usage3/rc.* | tr '\n' ' ')"; fi
per_rank usage4 repart in.e out_map.e --method map
if all_ranks_exited usage4 2; then ok "--method map without --map exits 2"; else bad "map usage exit codes $(cat usage4/rc.* | tr '\n' ' ')"; fi
timeout 60 "$MXN" stats in.e -n "$N" >one.out 2>one.err
rc=$?
if [ "$N" -gt 1 ]; then
  if [ $rc = 2 ] && grep -q "mpiexec -n $N" one.err; then ok "stats -n $N on one process exits 2, says how"; else bad "stats -n on one process: $rc $(cat one.err)"; fi
fi
for c in repart stats; do
  if timeout 60 "$MXN" $c --help | grep -q "mpiexec -n N mxn $c"; then ok "$c --help"; else bad "$c --help"; fi
done
if "$MXN" --help | grep -q "repart DATASET OUTBASE" && "$MXN" --help | grep -q "stats DATASET"; then
  ok "mxn --help lists repart and stats"
else
  bad "mxn --help lacks repart/stats"
fi

echo "repart.sh on $N ranks: $nfail failure(s)"
[ $nfail -eq 0 ]
