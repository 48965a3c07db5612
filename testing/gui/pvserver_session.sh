#!/usr/bin/env bash
# MxNReader in a client-server session: an MPI pvserver and a pvpython client.
#
#   pvserver_session.sh PLUGIN_SO MPIEXEC RANKS DATASET CELLS NODES OUTDIR [--bad-connectivity]
#
# Starts `mpiexec -n RANKS pvserver --server-port=<free port>` on localhost
# with the plugin's directory on PV_PLUGIN_PATH (so every server process
# loads it at start-up), waits until it accepts connections, and runs
# pvserver_client.py (connect, load DATASET in RANKS pieces and check the
# totals against CELLS/NODES; then bad files, each followed by DATASET).
# Then the server, whose only client has gone, must exit by itself with
# status 0. --bad-connectivity adds one more bad set: a copy of DATASET's
# set whose member 2 is intact as a file but whose first connectivity array
# points at node 999999 (rewritten with ncdump/ncgen): the damage shows only
# while reading the elements, on the ranks that read that member.
#
# Bounded: the server is started under `timeout` (120 s), the client too
# (90 s), and an EXIT/INT/TERM trap stops the server (TERM, then KILL) by
# its process id whatever happens, so the test never hangs and leaves no
# process behind. The client connects to localhost only.
# Exit codes: 0 pass, 1 failure, 2 bad usage, 77 skipped (DATASET absent).
set -u
if [ $# -ne 7 ] && { [ $# -ne 8 ] || [ "$8" != "--bad-connectivity" ]; }; then
  echo "usage: pvserver_session.sh PLUGIN_SO MPIEXEC RANKS DATASET CELLS NODES OUTDIR" \
    "[--bad-connectivity]" >&2
  exit 2
fi
plugin=$1 mpiexec=$2 ranks=$3 dataset=$4 cells=$5 nodes=$6 out=$7 badconn=${8:-}
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$dataset" ]; then
  echo "pvserver_session: SKIP: $dataset not found"
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$out"
mkdir -p "$out"

# Bad inputs: a file of random bytes, and a copy of DATASET's spread set
# whose member 2 is cut to half its size.
bad=("$out/noise.e")
head -c 65536 /dev/urandom > "${bad[0]}"
base=${dataset%.*.*}
members=("$base".*.*)
if [ ${#members[@]} -ge 3 ] && [ "$dataset" != "$base" ]; then
  for m in "${members[@]}"; do
    cp "$m" "$out/cut.e${m#"$base"}"
  done
  copies=("$out"/cut.e.*.*)
  victim=${copies[2]}
  truncate -s $(($(stat -c %s "$victim") / 2)) "$victim"
  bad+=("$victim")
fi
if [ -n "$badconn" ]; then
  if [ ${#members[@]} -lt 3 ] || [ "$dataset" = "$base" ]; then
    echo "pvserver_session: FAIL: --bad-connectivity needs a spread set of 3 or more files"
    exit 1
  fi
  for m in "${members[@]}"; do
    cp "$m" "$out/conn.e${m#"$base"}"
  done
  copies=("$out"/conn.e.*.*)
  victim=${copies[2]}
  ncdump "$victim" > "$out/conn.cdl" || exit 1
  python3 "$here/bad_connectivity.py" "$out/conn.cdl" || exit 1
  rm -f "$victim"
  ncgen -k "$(ncdump -k "${copies[0]}")" -o "$victim" "$out/conn.cdl" || exit 1
  bad+=("$victim")
fi

spid=""
stop_server() {
  if [ -n "$spid" ] && kill -0 "$spid" 2> /dev/null; then
    kill "$spid" 2> /dev/null
    for _ in $(seq 1 25); do
      kill -0 "$spid" 2> /dev/null || break
      sleep 0.2
    done
    kill -9 "$spid" 2> /dev/null
  fi
}
trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A free port: bind port 0, read what the kernel chose, release it. The
# short window before pvserver binds it is harmless on a test machine, and a
# lost race shows as "server did not start", not as a hang.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ms() { echo $(($(date +%s%N) / 1000000)); }
t0=$(ms)
PV_PLUGIN_PATH=$(dirname "$plugin") timeout -k 5 120 \
  "$mpiexec" --oversubscribe -n "$ranks" -x PV_PLUGIN_PATH \
  pvserver --server-port="$port" > "$out/server.log" 2>&1 &
spid=$!
up=0
for _ in $(seq 1 300); do
  if grep -q "Accepting connection" "$out/server.log" 2> /dev/null; then
    up=1
    break
  fi
  kill -0 "$spid" 2> /dev/null || break
  sleep 0.1
done
if [ $up -ne 1 ]; then
  echo "pvserver_session: FAIL: pvserver did not start on port $port; its log:"
  cat "$out/server.log"
  exit 1
fi
t1=$(ms)

timeout -k 5 90 pvpython "$here/pvserver_client.py" "$plugin" "$port" "$ranks" \
  "$dataset" "$cells" "$nodes" "${bad[@]}" > "$out/client.log" 2>&1
crc=$?
t2=$(ms)
grep "pvserver_client:" "$out/client.log"
if [ $crc -ne 0 ]; then
  [ $crc -eq 124 ] && echo "pvserver_session: FAIL: the client did not finish within 90 s"
  echo "pvserver_session: FAIL: client exit code $crc; client log:"
  tail -40 "$out/client.log"
  echo "--- server log:"
  tail -40 "$out/server.log"
  exit 1
fi

# The client disconnected: the server must end on its own, cleanly.
for _ in $(seq 1 150); do
  kill -0 "$spid" 2> /dev/null || break
  sleep 0.1
done
if kill -0 "$spid" 2> /dev/null; then
  echo "pvserver_session: FAIL: pvserver still running 15 s after the client disconnected"
  tail -20 "$out/server.log"
  exit 1
fi
wait "$spid"
src=$?
spid=""
if [ $src -ne 0 ]; then
  echo "pvserver_session: FAIL: pvserver exited with status $src; its log:"
  tail -40 "$out/server.log"
  exit 1
fi
t3=$(ms)
echo "pvserver_session: PASS: server up in $((t1 - t0)) ms, client session $((t2 - t1)) ms," \
  "server exit $((t3 - t2)) ms (logs in $out)"
