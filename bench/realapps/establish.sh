#!/bin/sh
# establish.sh - look at a realapps case's hang WITHOUT argus, to write its
# truth file from the mechanism (bench/realapps/README.md, "How truth was
# established").
#
#   bench/realapps/establish.sh [--delay S] [--perf S] CASE_DIR
#
# The case's desktop as run-case.sh sets it up (Xvfb, a private session bus,
# a scratch HOME; no dunst, no argus), then launch.sh and driver.sh. When the
# driver touches `hang`, it waits --delay seconds (1.5) and records what the
# app's threads and every other process of the desktop are doing:
#   threads.txt  ps: every thread of the desktop, state, kernel wait channel
#   kstack.txt   /proc/PID/task/TID/stack of the app's threads (the kernel
#                side of a wait)
#   perf.txt     perf record --call-graph dwarf of the app for --perf s (2):
#                its UI thread's hottest functions, self and with callees,
#                and its samples per second (when the busy hang ends)
#   eustack.txt  eu-stack of every thread of the app (user stacks)
# The folder is kept and printed. Needs root (perf, /proc/PID/stack). Run
# it under `flock /tmp/argus-live.lock` (a GUI session) and read its output
# to the end.
set -u
delay=1.5 perfs=2
while [ $# -gt 0 ]; do
	case $1 in
	--delay) delay=$2; shift 2 ;;
	--perf) perfs=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# = 1 ] || { echo "usage: establish.sh [--delay S] [--perf S] CASE_DIR" >&2; exit 2; }
case=$(cd "$1" && pwd) || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/argus-establish-XXXXXX")
cd "$work" || exit 3
pids=
cleanup() {
	[ -x "$case/cleanup.sh" ] && "$case/cleanup.sh" >>cleanup.log 2>&1
	# an app asked to quit may ask to save first (geany): KILL after 3 s
	for p in $pids; do
		kill "$p" 2>/dev/null
		for _ in 1 2 3 4 5 6; do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=
}
trap cleanup EXIT
# every way out runs cleanup (a reader of our output gone: PIPE): a bus or
# X server left behind would keep the caller's lock file open
trap 'exit 3' INT TERM HUP PIPE
export NO_AT_BRIDGE=1
Xvfb -displayfd 3 -nolisten tcp -screen 0 1024x768x24 3>xdisplay >/dev/null 2>&1 &
pids="$! $pids"
for _ in $(seq 100); do [ -s xdisplay ] && break; sleep 0.1; done
export DISPLAY=":$(cat xdisplay)"
export HOME=$PWD XDG_RUNTIME_DIR=$PWD/run
mkdir -m 0700 run
bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1) || exit 3
export DBUS_SESSION_BUS_ADDRESS=$(echo "$bus" | head -1)
buspid=$(echo "$bus" | sed -n 2p)
pids="$buspid $pids"
"$case/launch.sh" >prog.log 2>&1 &
app=$!
pids="$app $pids"
echo $app >prog.pid
"$case/driver.sh" >driver.log 2>&1 &
drv=$!
for _ in $(seq 600); do [ -e hang ] && break; sleep 0.1; done
[ -e hang ] || { echo "no hang mark: $(cat driver.log)"; exit 1; }
sleep "$delay"
date +%s.%N >probe_at
# the desktop: this shell's descendants and the bus's (its activated services)
desk=$(ps -e -o pid=,ppid= | awk -v root="$$ $buspid" '
	{ kid[$2] = kid[$2] " " $1 }
	END { todo = root; while (todo != "") { split(todo, a, " "); todo = "";
		for (i in a) { out = out " " a[i]; n = split(kid[a[i]], k, " ");
			for (j = 1; j <= n; j++) todo = todo " " k[j] } } print out }')
ps -L -o pid,tid,stat,wchan:32,pcpu,comm -p "$(echo $desk | tr ' ' ,)" >threads.txt 2>&1
for t in /proc/$app/task/*; do
	echo "== $(basename "$t") $(cat "$t/comm") $(cut -d' ' -f3 "$t/stat")"
	cat "$t/stack" 2>/dev/null
done >kstack.txt
if [ "$perfs" != 0 ]; then
	perf record -q -F 199 --call-graph dwarf,32768 -p "$app" -o perf.data -- sleep "$perfs" >/dev/null 2>perf.err
	# the UI (main) thread's samples: own time, time with callees (the
	# innermost rows under 100 % are the hang's), samples per second
	{ echo "== self (UI thread $app)"
	  perf report -i perf.data --tid "$app" --no-children --stdio --sort dso,sym -g none 2>/dev/null | grep '%' | head -25
	  echo "== with callees (UI thread), below 100 %"
	  perf report -i perf.data --tid "$app" --children --stdio --sort dso,sym -g none 2>/dev/null | grep '%' |
		awk '$1 + 0 < 100' | head -60
	  echo "== UI thread samples per second (time since the first sample)"
	  perf script -i perf.data -F tid,time 2>/dev/null | awk -v t="$app" '$1 == t { s = int($2); if (!n++) f = s; c[s - f]++ } END { for (k in c) print k, c[k] }' | sort -n
	  echo "== unnamed addresses: file offsets"
	  perf report -i perf.data --tid "$app" --no-children --stdio --sort dso,sym -g none -v 2>/dev/null | grep '%' | head -5; } >perf.txt
fi
timeout 30 eu-stack -p "$app" >eustack.txt 2>&1
wait $drv
echo "driver rc $?" >>driver.log
echo "$work"
