#!/bin/sh
# run-case.sh - run bug zoo cases live under argus and score the diagnoses.
#
#   bench/zoo/run-case.sh [--argus BIN] [--bin-dir DIR] [--keep]
#                         [--match function|process] CASE_DIR...
#
# Per case: a private Xvfb, `argus record --all` for the case's
# record_seconds, the case's program, its driver.sh (normal interactions,
# then the hang), then `argus diagnose --json` of the trace with beam search,
# --algo critical-path and --no-weak-edges (while the program still runs, so
# its functions are named), scored by score.py against the case's truth file:
# one line per case. --match process only asks that argus's top-1 names the
# root-cause process (and the stall class). Exit status: 0 argus's top-1
# right on every case, 1 a
# miss, 2 usage, 3 a case could not run (its line says why), 77 cannot run
# here at all (not root, no Xvfb / xdotool / python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
argus=${ARGUS_BIN:-argus}
bindir=
keep=0
match=function
while [ $# -gt 0 ]; do
	case $1 in
	--argus) argus=$2; shift 2 ;;
	--bin-dir) bindir=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--match) match=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "run-case.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: run-case.sh [--argus BIN] [--bin-dir DIR] [--keep] [--match function|process] CASE_DIR..." >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "skipped: needs root for live tracing"; exit 77; }
for t in Xvfb xdotool python3 dbus-daemon; do
	command -v $t >/dev/null || { echo "skipped: $t missing (scripts/install-deps.sh)"; exit 77; }
done

# the case runs in its own folder: make paths absolute
case $argus in */*) argus=$(cd "$(dirname "$argus")" && pwd)/$(basename "$argus") ;; esac
[ -n "$bindir" ] && bindir=$(cd "$bindir" && pwd)

# key=value from a truth file
get() { sed -n "s/^$2=//p" "$1" | head -1; }

status=0
python3 "$here/score.py" --header
for case in "$@"; do
	case=$(cd "$case" 2>/dev/null && pwd) || { echo "$case: no such case" >&2; status=3; continue; }
	name=$(basename "$case")
	truth=$case/truth
	if ! [ -r "$truth" ] || ! [ -x "$case/driver.sh" ]; then
		echo "$name: not a case (needs truth and driver.sh)" >&2; status=3; continue
	fi
	prog=$(get "$truth" program)
	secs=$(get "$truth" record_seconds)
	bin=$prog
	[ -n "$bindir" ] && bin=$bindir/$prog
	command -v "$bin" >/dev/null || { echo "$name: program $bin not found (--bin-dir)" >&2; status=3; continue; }
	work=$(mktemp -d /tmp/argus-zoo-XXXXXX)
	(
		cd "$work" || exit 3
		export NO_AT_BRIDGE=1
		for n in $(seq $((150 + $$ % 200)) 399); do [ -e "/tmp/.X$n-lock" ] || break; done
		export DISPLAY=":$n"
		Xvfb "$DISPLAY" -nolisten tcp -screen 0 640x480x24 >/dev/null 2>&1 &
		xvfb=$!
		for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
		# a private session bus and home: cases may talk D-Bus or write files
		export HOME=$work XDG_RUNTIME_DIR=$work/run
		mkdir -m 0700 run
		bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1) || exit 3
		export DBUS_SESSION_BUS_ADDRESS=$(echo "$bus" | head -1)
		buspid=$(echo "$bus" | sed -n 2p)
		# where a case's program finds its helper programs
		export ZOO_BIN_DIR=$(dirname "$(command -v "$bin")")
		"$argus" record --all -o trace.argus --duration "$secs" --ready-fd 3 3>ready >rec.log 2>&1 &
		rec=$!
		for _ in $(seq 100); do grep -q ready ready 2>/dev/null && break; sleep 0.1; done
		"$bin" --exit-after $((secs + 60)) >prog.log 2>&1 &
		app=$!
		echo $app >prog.pid
		"$case/driver.sh" "$prog" >driver.log 2>&1
		drv=$?
		wait $rec
		rc=$?
		"$argus" diagnose --json trace.argus >beam.json 2>beam.err
		"$argus" diagnose --json --algo critical-path trace.argus >cp.json 2>cp.err
		"$argus" diagnose --json --no-weak-edges trace.argus >nwe.json 2>nwe.err
		kill $app $xvfb $buspid 2>/dev/null
		wait $app $xvfb 2>/dev/null
		[ $drv = 0 ] || { echo "$name: driver failed: $(cat driver.log)" >&2; exit 3; }
		[ $rc = 0 ] || { echo "$name: argus record failed: $(cat rec.log)" >&2; exit 3; }
		python3 "$here/score.py" --match "$match" "$name" "$truth" $app beam.json cp.json nwe.json
	)
	rc=$?
	[ $rc -gt $status ] && status=$rc
	if [ $keep = 1 ] || [ $rc = 3 ]; then
		echo "$name: files in $work" >&2
	else
		rm -rf "$work"
	fi
done
exit $status
