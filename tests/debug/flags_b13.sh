#!/bin/sh
# flags_b13.sh DIR ARGUS ZOO_BIN_DIR - the live half of test_flags_b13.c:
# zoo B13 (bench/zoo/b13-yield-loop) under a private Xvfb, 'h' pressed (its
# UI thread spins 4 s on a flag no one sets), `argus flags discover --pid P`
# on it 0.3 s later, not told the address. Leaves prog.log (its "ready (flag
# ADDR)" line: the truth) and discover.out in DIR. Exit 77: cannot run here.
set -u
dir=$1 argus=$2 bins=$3
cd "$dir" || exit 3
for t in Xvfb xdotool; do
	command -v $t >/dev/null || { echo "skipped: $t missing (scripts/install-deps.sh)"; exit 77; }
done
pids=
# shellcheck disable=SC2086 # pids: words
trap 'kill $pids 2>/dev/null' EXIT
# a signal (ctest's timeout, a user's ^C) ends it through the EXIT trap: no daemon outlives it
trap 'exit 3' INT TERM HUP
Xvfb -displayfd 3 -nolisten tcp -screen 0 640x480x24 3>xdisplay >/dev/null 2>&1 &
pids="$!"
for _ in $(seq 100); do [ -s xdisplay ] && break; sleep 0.1; done
[ -s xdisplay ] || { echo "Xvfb did not start"; exit 3; }
DISPLAY=":$(cat xdisplay)"
export DISPLAY NO_AT_BRIDGE=1
"$bins/zoo-b13" --exit-after 30 >prog.log 2>&1 &
app=$!
pids="$app $pids"
for _ in $(seq 100); do grep -q '^ready' prog.log && break; sleep 0.1; done
timeout 10 xdotool search --sync --onlyvisible --name '^zoo-b13$' windowfocus --sync \
	mousemove --window %1 160 30 click 1 >/dev/null 2>&1 || { echo "no B13 window"; exit 3; }
xdotool key h
sleep 0.3
"$argus" flags discover --pid $app --steps 100000 --for 3 >discover.out 2>&1
echo "exit $?" >>discover.out
exit 0
