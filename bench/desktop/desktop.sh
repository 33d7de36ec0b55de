#!/bin/sh
# desktop.sh - a desktop-like workload for `argus bench overhead --desktop`:
# a real GTK3 app (gedit, Debian's, unchanged) used by a scripted user
# (typing, selecting, scrolling, the Open dialog, saving) while a C build
# runs in the background, on a private desktop (Xvfb, a session bus).
#
#   bench/desktop/desktop.sh [--rounds N] [--files N]
#
# The same input every run (N rounds of the same actions, default 3) and
# the same build (N generated C files, default 32, at -O2, two at a time),
# so that what a tracer costs shows in two figures, printed on stdout as
#   metric app_cpu SECONDS    the app's CPU time (all its threads) from its
#                             window's first appearance to the script's end
#   metric build_wall SECONDS the build's wall time
#   metric build_cpu SECONDS  the build's CPU time (its compilers)
#   pid app PID               the app's process (argus bench overhead --meter)
# Nothing else goes to stdout. Exit status: 0 it ran, 2 usage, 4 a tool or
# the app missing (scripts/install-deps.sh), 5 the desktop or the app did
# not come up, 6 the build failed.
set -u
rounds=3 files=32
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--files) files=$2; shift 2 ;;
	*) echo "desktop.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
app=/usr/bin/gedit
for t in Xvfb xdotool dbus-daemon cc xargs; do
	command -v $t >/dev/null || { echo "desktop.sh: $t missing (scripts/install-deps.sh)" >&2; exit 4; }
done
[ -x $app ] || { echo "desktop.sh: $app missing (scripts/install-deps.sh)" >&2; exit 4; }

work=$(mktemp -d /tmp/argus-desktop-XXXXXX) || exit 5
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	pids=
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 5' INT TERM
cd "$work" || exit 5

Xvfb -displayfd 3 -nolisten tcp -screen 0 1280x800x24 3>xdisplay >xvfb.log 2>&1 &
pids="$! $pids"
for _ in $(seq 100); do [ -s xdisplay ] && break; sleep 0.1; done
n=$(cat xdisplay 2>/dev/null)
[ -n "$n" ] || { echo "desktop.sh: Xvfb did not start: $(tail -1 xvfb.log)" >&2; exit 5; }
export DISPLAY=":$n" HOME=$work/home XDG_RUNTIME_DIR=$work/run
mkdir -p "$HOME" && mkdir -m 0700 "$XDG_RUNTIME_DIR" || exit 5
export NO_AT_BRIDGE=1 GTK_A11Y=none
bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1) ||
	{ echo "desktop.sh: dbus-daemon --session did not start" >&2; exit 5; }
DBUS_SESSION_BUS_ADDRESS=$(echo "$bus" | head -1)
export DBUS_SESSION_BUS_ADDRESS
pids="$(echo "$bus" | sed -n 2p) $pids"

# the build's sources: generated, the same every run, each a few hundred
# ms of -O2 work
mkdir src obj
i=0
while [ $i -lt "$files" ]; do
	awk -v f=$i 'BEGIN {
		for (k = 0; k < 60; k++) {
			printf "static double f%d_%d(double *v, int n) {\n", f, k
			printf "  double s = 0; for (int i = 0; i < n; i++) {\n"
			printf "    s += v[i] * %d.5 / (1 + v[(i * 7) %% n]);\n", k
			printf "    if (s > %d) s -= v[i] * v[i]; }\n", k * 13
			printf "  return s; }\n"
		}
		printf "double unit%d(double *v, int n) { double s = 0;\n", f
		for (k = 0; k < 60; k++) printf "  s += f%d_%d(v, n);\n", f, k
		printf "  return s; }\n"
	}' >src/u$i.c
	i=$((i + 1))
done
seq 1 300 | sed 's/^/a line of ordinary text, number /' >"$HOME/doc.txt"

(cd "$HOME" && exec $app doc.txt) >app.log 2>&1 &
apppid=$!
pids="$apppid $pids"
wid=
for _ in $(seq 100); do
	wid=$(xdotool search --onlyvisible --pid "$apppid" 2>/dev/null | head -1)
	[ -n "$wid" ] && break
	sleep 0.2
done
[ -n "$wid" ] || { echo "desktop.sh: no window from $app: $(tail -1 app.log)" >&2; exit 5; }
sleep 1 # past the app's start-up work
xdotool windowsize "$wid" 1000 700 windowmove "$wid" 0 0 2>/dev/null
xdotool windowfocus --sync "$wid" 2>/dev/null
xdotool mousemove --window "$wid" 500 350 click 1 2>/dev/null

# CPU seconds of a process, all its threads (schedstat: ns)
cpu_of() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.6f", s / 1e9 }'
}
now() { date +%s.%N; }

a0=$(cpu_of $apppid)
b0=$(now)
(
	ls src/*.c | xargs -P 2 -I{} sh -c 'cc -O2 -c {} -o obj/$(basename {} .c).o' || exit 6
	# the link: one more step a build has
	cc -shared -o obj/libunits.so obj/*.o || exit 6
	# its children's CPU time: the compilers' and the linker's
	times >build.times
) >build.log 2>&1 &
build=$!
pids="$build $pids"

r=0
while [ $r -lt "$rounds" ]; do
	xdotool key ctrl+End Return
	xdotool type --delay 30 "an ordinary line typed by a user, round $r"
	xdotool key shift+Up shift+Up shift+End
	sleep 0.2
	xdotool key Down ctrl+Home
	for _ in 1 2 3 4 5 6; do xdotool click 5; sleep 0.05; done
	xdotool key Page_Down Page_Down Page_Up
	xdotool key ctrl+o
	sleep 0.8
	xdotool key Escape
	sleep 0.2
	xdotool key ctrl+s
	sleep 0.3
	r=$((r + 1))
done
a1=$(cpu_of $apppid)

wait $build
st=$?
b1=$(now)
pids=$(echo "$pids" | sed "s/^$build //")
[ $st = 0 ] || { echo "desktop.sh: the build failed: $(tail -1 build.log)" >&2; exit 6; }
bcpu=$(awk 'NR == 2 {
	split($1, u, "m"); split($2, s, "m"); sub("s", "", u[2]); sub("s", "", s[2]);
	printf "%.3f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' build.times)
echo "metric app_cpu $(echo "$a1 $a0" | awk '{ printf "%.4f", $1 - $2 }')"
echo "metric build_wall $(echo "$b1 $b0" | awk '{ printf "%.4f", $1 - $2 }')"
echo "metric build_cpu $bcpu"
echo "pid app $apppid"
exit 0
