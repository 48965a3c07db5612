#!/usr/bin/env bash
# The benchmark's floor (issue 60, testing/benchmarks/rangelog.c and
# floor_bench.c) on a tiny generated set, so that the floor the benchmark
# reports is of every byte the load read:
#   - `mxn stats --ghosts 1` on NP ranks under the rangelog shim, of a
#     netCDF-3 and a compressed netCDF-4 4-member split: each rank's dump
#     names only member files, and records at least half the bytes the core
#     counts itself (bytes_read + map_bytes_read + set_bytes_read +
#     partition_bytes_read, every entry counted as its 8-byte memory type:
#     the files store each in 4 or 8; netCDF-3 only, a compressed member
#     stores fewer bytes than it decodes to), through read (netCDF-3's
#     posixio) or pread (HDF5), and no mmap;
#   - floor_bench replays every recorded range (the same bytes and reads
#     per rank), and with --whole reads each touched member whole;
#   - floor_bench --decode (built with libdeflate) inflates chunks of the
#     compressed set's ranges, none of the netCDF-3 set's;
#   - floor_bench on a range past a file's end, or without its dump, fails
#     on every rank (exit 1, within the timeout) naming the file.
#
# usage: floor.sh MXN MXN_GEN MPIEXEC NP TMP_DIR RANGELOG_SO FLOOR_BENCH
# Exit 0 when nothing failed.
set -u
. "$(dirname "$0")/common.sh"
cli_args "MXN MXN_GEN MPIEXEC NP TMP_DIR RANGELOG_SO FLOOR_BENCH" \
  MXN GEN MPIEXEC N TMP RANGELOG FLOOR -- "$@"
cli_abspath MXN GEN MPIEXEC RANGELOG FLOOR
cli_workdir

"$GEN" --type hex --dims 12 12 12 --steps 3 mesh.e > /dev/null || bad "mxn_gen"
"$MXN" split mesh.e nc3.e -n 4 --quiet || bad "split nc3"
"$MXN" split mesh.e z1.e -n 4 --compress 1 --quiet || bad "split --compress 1"

for set in nc3 z1; do
  rm -f "$set".ranges.*
  if MXN_BENCH_OPEN_PREFIX=$TMP/$set.e. MXN_BENCH_RANGES=$TMP/$set.ranges \
     mpi -x LD_PRELOAD="$RANGELOG" -x MXN_BENCH_OPEN_PREFIX -x MXN_BENCH_RANGES \
     "$MXN" stats "$TMP/$set.e.4.0" --json --ghosts 1 > "$set.json" 2> "$set.err"; then
    ok "$set: mxn stats under the shim"
  else
    bad "$set: mxn stats under the shim: $(tail -3 "$set.err")"
    continue
  fi
  mpi "$FLOOR" "$TMP/$set.ranges" --first-phases 1 > "$set.F" 2> "$set.F.err" ||
    bad "$set: floor_bench: $(tail -3 "$set.F.err")"
  mpi "$FLOOR" "$TMP/$set.ranges" --first-phases 1 --whole > "$set.W" 2> "$set.W.err" ||
    bad "$set: floor_bench --whole: $(tail -3 "$set.W.err")"
  out=$(python3 - "$set" "$N" "$TMP/$set.e." << 'EOF'
import json, os, sys
name, n, prefix = sys.argv[1], int(sys.argv[2]), sys.argv[3]
stats = json.load(open(name + ".json"))
detail = stats["ranks_detail"]
def floor(path):
    for line in open(path):
        if line.startswith("BENCH_JSON "):
            return json.loads(line[len("BENCH_JSON "):])
    return None
F, W = floor(name + ".F"), floor(name + ".W")
for r in range(n):
    files, kinds, nbytes, nreads = {}, {}, 0, 0
    for line in open("%s.ranges.%d" % (name, r)):
        f = line.split()
        if f[0] == "F":
            files[int(f[1])] = line.split(" ", 2)[2].rstrip("\n")
        else:
            kind, length = f[2], int(f[5])
            kinds[kind] = kinds.get(kind, 0) + 1
            if kind not in "mo":
                nbytes += length
                nreads += 1
    d = detail[r]
    core = sum(d.get(k, 0) for k in ("bytes_read", "map_bytes_read", "set_bytes_read",
                                      "partition_bytes_read"))
    print("%s rank %d: %d bytes in %d reads recorded, core %d, kinds %s" % (
        name, r, nbytes, nreads, core, sorted(kinds.items())))
    if not files or any(not p.startswith(prefix) for p in files.values()):
        print("BAD files outside %s or none: %s" % (prefix, sorted(files.values())))
    if name == "nc3" and 2 * nbytes < core:
        print("BAD rank %d: recorded %d bytes < half the core's %d: ranges missed" % (
            r, nbytes, core))
    if nbytes <= 0 or not kinds.get("o"):
        print("BAD rank %d: no reads or no opens recorded" % r)
    if kinds.get("m"):
        print("BAD rank %d: %d mmaps of members (floor_bench does not replay them)" % (r, kinds["m"]))
    if not F or sum(F["bytes_per_rank"][r]) != nbytes or sum(F["reads_per_rank"][r]) != nreads:
        print("BAD rank %d: floor_bench replayed %s bytes, %s reads of %d, %d" % (
            r, F and F["bytes_per_rank"][r], F and F["reads_per_rank"][r], nbytes, nreads))
    size = sum(os.path.getsize(p) for p in files.values())
    if not W or W["bytes_per_rank"][r][0] != size:
        print("BAD rank %d: floor_bench --whole read %s bytes of %d" % (
            r, W and W["bytes_per_rank"][r], size))
EOF
)
  echo "$out" | grep -v '^BAD'
  if echo "$out" | grep -q '^BAD'; then
    bad "$set: $(echo "$out" | grep '^BAD' | tr '\n' ';')"
  else
    ok "$set: every range recorded and replayed, members whole read"
  fi
done

# --decode: the compressed set's chunks inflated, nothing in netCDF-3's.
decoded() { # SET: bytes floor_bench --decode inflated over all ranks, or "nodeflate"
  local o
  o=$(mpi "$FLOOR" "$TMP/$1.ranges" --first-phases 1 --decode 2> "$1.D.err") ||
    { grep -q "without libdeflate" "$1.D.err" && echo nodeflate; return; }
  echo "$o" | python3 -c 'import json, sys
r = json.loads(sys.stdin.read().split("BENCH_JSON ", 1)[1])
print(int(sum(sum(x) for x in r["decoded_per_rank"])))'
}
dz=$(decoded z1) d3=$(decoded nc3)
if [ "$dz" = nodeflate ]; then
  ok "floor_bench without libdeflate: --decode not checked"
elif [ "${dz:-0}" -gt 0 ] 2> /dev/null && [ "$d3" = 0 ]; then
  ok "--decode inflated $dz bytes of the compressed set's chunks, none of netCDF-3's"
else
  bad "--decode: compressed set $dz bytes, netCDF-3 set $d3 bytes (want > 0 and 0)"
fi

# A range past the end of a member on the last rank: every rank fails.
last=$((N - 1))
for ((r = 0; r < N; r++)); do cp "nc3.ranges.$r" "bad.ranges.$r"; done
echo "R 0 p 0 999999999 10" >> "bad.ranges.$last"
mpi "$FLOOR" "$TMP/bad.ranges" > bad.out 2> bad.err
rc=$?
if [ "$rc" = 1 ] && grep -q "rank $last: .*nc3.e.4" bad.err; then
  ok "a range past the end fails on every rank (exit 1) naming the file"
else
  bad "a range past the end: exit $rc, $(tail -2 bad.err)"
fi
mpi "$FLOOR" "$TMP/none.ranges" > none.out 2> none.err
rc=$?
if [ "$rc" = 1 ] && grep -q "none.ranges.0" none.err; then
  ok "a missing dump fails (exit 1) naming it"
else
  bad "a missing dump: exit $rc, $(tail -2 none.err)"
fi

[ "$nfail" = 0 ] || { echo "$nfail check(s) failed"; exit 1; }
echo "all checks passed"
