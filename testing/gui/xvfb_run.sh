#!/usr/bin/env bash
# Run one command on a private Xvfb display, bounded in time.
#
#   xvfb_run.sh SECONDS COMMAND [ARGS...]
#
# The Debian ParaView 5.11 binaries render through GLX only:
# `pvbatch --force-offscreen-rendering` aborts with "bad X server
# connection" when there is no display, so every rendering test needs an X
# server. This starts its own Xvfb (24-bit, 1280x1024), lets Xvfb choose a
# free display number (-displayfd, so parallel tests and other users of the
# machine never collide), runs COMMAND with DISPLAY set under `timeout`
# (TERM after SECONDS, KILL 10 s later) and always stops that Xvfb, by its
# process id, on the way out (EXIT/INT/TERM trap).
#
# Exit code: COMMAND's (124 or 137 when it timed out; the message says so),
# 1 when Xvfb is missing or does not start within 15 s.
set -u
if [ $# -lt 2 ]; then
  echo "usage: xvfb_run.sh SECONDS COMMAND [ARGS...]" >&2
  exit 2
fi
secs=$1
shift
if ! command -v Xvfb > /dev/null; then
  echo "xvfb_run: FAIL: Xvfb not found (testing/setup.sh installs the xvfb package)" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mxn-xvfb.XXXXXX")
xpid=""
cleanup() {
  if [ -n "$xpid" ] && kill -0 "$xpid" 2> /dev/null; then
    kill "$xpid" 2> /dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      kill -0 "$xpid" 2> /dev/null || break
      sleep 0.2
    done
    kill -9 "$xpid" 2> /dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# -displayfd: Xvfb picks the first free display and writes its number to
# fd 3 once it accepts connections.
Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp -noreset \
  3> "$work/display" > "$work/xvfb.log" 2>&1 &
xpid=$!
display=""
for _ in $(seq 1 150); do
  display=$(tr -dc '0-9' < "$work/display")
  [ -n "$display" ] && break
  kill -0 "$xpid" 2> /dev/null || break
  sleep 0.1
done
if [ -z "$display" ]; then
  echo "xvfb_run: FAIL: Xvfb did not start; its log:" >&2
  cat "$work/xvfb.log" >&2
  exit 1
fi

DISPLAY=":$display" timeout -k 10 "$secs" "$@"
rc=$?
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
  echo "xvfb_run: FAIL: '$*' did not finish within $secs s (stopped)" >&2
fi
exit $rc
