#!/bin/sh
# run-case.sh - run bug zoo cases live under argus and score argus and the
# baselines against each case's truth (bench/zoo/README.md).
#
#   bench/zoo/run-case.sh [--argus BIN] [--bin-dir DIR] [--keep] [--json]
#                         [--match function|process] [--no-baselines]
#                         [--no-live] [--score replay|live] [--syscalls] CASE_DIR...
#
# Each case runs twice, on a fresh private desktop (Xvfb, session bus,
# dunst) each time:
#  1. argus: the live daemon (`argus start`, as a user runs it) with a JSON
#     stream client, `argus record --all` for the case's record_seconds, the
#     program, the driver (normal interactions, then the hang), watch.py
#     logging the notifications; then `argus diagnose --json` of the trace
#     with beam search, --algo critical-path and --no-weak-edges (while the
#     program still runs, so its functions are named).
#  2. baselines, without argus: the program and the driver again, watch.py
#     taking the stack snapshot and perf's profile 1 s into the hang. A
#     separate run because the snapshot stops the app (ptrace), which cuts
#     the very wait argus follows.
# score.py then prints one line per case (--json: one JSON object per case).
# --no-baselines skips run 2, --no-live leaves the daemon out of run 1.
# --syscalls runs argus start and argus record with per-call capture.
# --match process only asks that argus's top-1 names the root-cause process
# (and the stall class). --score live: the live daemon's answer decides the
# exit status, not the replay's (realapps). With ARGUS_DAEMON_RUN=DIR and
# ARGUS_DAEMON_RECORDER=DIR in the environment, run 1 uses a daemon that is
# already running (its run and recorder directories: argus bench storm's)
# instead of starting one and argus record: its stream, and an argus dump of
# its recorder as the trace. Exit status: 0 argus's top-1 right on every case, 1
# a miss, 2 usage, 3 a case could not run (its line says why), 77 cannot run
# here at all (not root, no Xvfb / xdotool / python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
argus=${ARGUS_BIN:-argus}
bindir=
keep=0
match=function
score=replay
format=text
baselines=1
live=1
capture=
# full stacks for both the daemon (argus start's default) and the recording
# (argus record --full-stacks); ARGUS_FULL_STACKS=0 turns them off for both
if [ "${ARGUS_FULL_STACKS:-1}" = 0 ]; then
	fullstacks= startstacks=--no-full-stacks
else
	fullstacks=--full-stacks startstacks=
fi
while [ $# -gt 0 ]; do
	case $1 in
	--argus) argus=$2; shift 2 ;;
	--bin-dir) bindir=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--json) format=json; shift ;;
	--match) match=$2; shift 2 ;;
	--score) score=$2; shift 2 ;;
	--no-baselines) baselines=0; shift ;;
	--no-live) live=0; shift ;;
	--syscalls) capture=--syscalls; shift ;;
	--) shift; break ;;
	-*) echo "run-case.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: run-case.sh [--argus BIN] [--bin-dir DIR] [--keep] [--json] [--match function|process] [--score replay|live] [--no-baselines] [--no-live] [--syscalls] CASE_DIR..." >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "skipped: needs root for live tracing"; exit 77; }
for t in Xvfb xdotool python3 dbus-daemon; do
	command -v $t >/dev/null || { echo "skipped: $t missing (scripts/install-deps.sh)"; exit 77; }
done
# without these a column is n/a, not the run
command -v dunst >/dev/null && command -v dbus-monitor >/dev/null || live=0
if [ $baselines = 1 ]; then
	for t in eu-stack perf; do
		command -v $t >/dev/null || echo "run-case.sh: $t missing: its column will be n/a" >&2
	done
fi

# the case runs in its own folder: make paths absolute
case $argus in */*) argus=$(cd "$(dirname "$argus")" && pwd)/$(basename "$argus") ;; esac
[ -n "$bindir" ] && bindir=$(cd "$bindir" && pwd)

# key=value from a truth file
get() { sed -n "s/^$2=//p" "$1" | head -1; }

# until a file exists (tenths of a second)
wait_file() { for _ in $(seq "$2"); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }

# run_pass argus|baselines DIR: one run of the case in DIR (a subshell:
# its exit status is 3 when the case could not run)
run_pass() (
	pass=$1
	cd "$2" || exit 3
	pids=
	daemon= stream=
	# everything this run started, last first; the app reaps its helpers
	# before the X server goes away
	cleanup() {
		# a case's own undoing first: a stopped service running again, a
		# FUSE mount gone (realapps)
		[ -x "$case/cleanup.sh" ] && "$case/cleanup.sh" >>cleanup.log 2>&1
		for p in $pids; do
			kill "$p" 2>/dev/null
			# an app may not end on SIGTERM (geany asks about its
			# documents): 5 s, then SIGKILL
			for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
			kill -9 "$p" 2>/dev/null
			wait "$p" 2>/dev/null
		done
		pids=
	}
	trap cleanup EXIT
	trap 'exit 3' INT TERM HUP PIPE
	export NO_AT_BRIDGE=1
	# the X server picks a free display itself and writes its number when
	# it is ready (runs at the same time cannot take the same one)
	Xvfb -displayfd 3 -nolisten tcp -screen 0 "$screen" 3>xdisplay >/dev/null 2>&1 &
	pids="$! $pids"
	for _ in $(seq 100); do [ -s xdisplay ] && break; sleep 0.1; done
	n=$(cat xdisplay 2>/dev/null)
	[ -n "$n" ] || { echo "Xvfb did not start" >&2; exit 3; }
	export DISPLAY=":$n"
	# a private session bus and home: cases may talk D-Bus or write files
	export HOME=$PWD XDG_RUNTIME_DIR=$PWD/run
	mkdir -m 0700 run
	bus=$("${ZOO_BUS_DAEMON:-dbus-daemon}" --session --fork --print-address=1 --print-pid=1) || exit 3
	export DBUS_SESSION_BUS_ADDRESS=$(echo "$bus" | head -1)
	buspid=$(echo "$bus" | sed -n 2p)
	pids="$buspid $pids"
	# where a case's program finds its helper programs
	export ZOO_BIN_DIR=$(dirname "$(command -v "$bin")")
	wopt="--no-baselines --no-notify"
	if [ $pass = argus ] && [ $live = 1 ]; then
		# the desktop's notification daemon, and argus as a user runs it:
		# the daemon finds the app's session bus itself
		dunst >dunst.log 2>&1 &
		pids="$! $pids"
		for _ in $(seq 100); do
			dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
				org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Notifications 2>/dev/null |
				grep -q "boolean true" && break
			sleep 0.1
		done
		rundir=$PWD/daemon
		if [ -n "${ARGUS_DAEMON_RUN:-}" ]; then
			# a daemon already running (argus bench storm's): its stream
			# and its recorder, not a daemon of our own
			rundir=$ARGUS_DAEMON_RUN
		else
			# shellcheck disable=SC2086 # capture: empty or one word
			env -u DBUS_SESSION_BUS_ADDRESS "$argus" start --run-dir "$rundir" --no-recorder \
				--hooks-dir "" --reports "$PWD/reports" $capture $startstacks \
				--issues-db "${ARGUS_ISSUES_DB:-$PWD/issues.db}" >daemon.log 2>&1 &
			daemon=$!
			pids="$daemon $pids"
		fi
		if wait_file "$rundir/stream.sock" 200; then
			"$argus" stream --run-dir "$rundir" --kinds stall,diagnosis >live.ndjson 2>stream.err &
			stream=$!
			pids="$stream $pids"
			wopt="--no-baselines"
		else
			echo "$name: argus start did not come up (no live figures): $(tail -1 daemon.log)" >&2
		fi
	fi
	[ $pass = baselines ] && wopt="--no-notify"
	rec=
	if [ $pass = argus ] && [ -n "${ARGUS_DAEMON_RUN:-}" ]; then
		# the running daemon records already (its recorder is dumped below)
		rec_start=$(date +%s)
	elif [ $pass = argus ]; then
		# shellcheck disable=SC2086 # capture: empty or one word
		"$argus" record --all $fullstacks $capture -o trace.argus --duration "$secs" --ready-fd 3 3>ready >rec.log 2>&1 &
		rec=$!
		for _ in $(seq 100); do grep -q ready ready 2>/dev/null && break; sleep 0.1; done
	fi
	if [ -x "$case/launch.sh" ]; then
		# an unmodified app: launch.sh sets its scene up (files, a mount, a
		# stopped service), then execs it (same pid)
		"$case/launch.sh" >prog.log 2>&1 &
	else
		"$bin" --exit-after $((secs + 60)) >prog.log 2>&1 &
	fi
	app=$!
	pids="$app $pids"
	echo $app >prog.pid
	# shellcheck disable=SC2086 # wopt: words
	python3 "$here/watch.py" --app $app --case-root $$ --bus-pid "$buspid" --seconds "$secs" \
		$wopt >watch.log 2>&1 &
	watch=$!
	pids="$watch $pids"
	"$case/driver.sh" "$prog" >driver.log 2>&1
	drv=$?
	: >driver.done # the hang is over: watch.py's off-wake recording may end
	rc=0
	if [ -n "$rec" ]; then
		wait $rec
		rc=$?
	fi
	wait $watch
	if [ $pass = argus ] && [ -n "${ARGUS_DAEMON_RUN:-}" ]; then
		# not our daemon: no stop; its last lines had a second to arrive
		if [ -n "$stream" ]; then
			sleep 1
			kill "$stream"
			wait "$stream"
		fi
		"$argus" dump --run-dir "$ARGUS_DAEMON_RUN" --recorder "$ARGUS_DAEMON_RECORDER" \
			--last "$(( $(date +%s) - rec_start + 2 ))s" -o trace.argus >rec.log 2>&1 || rc=$?
		# 5: a chunk unreadable (the one being written), the rest dumped
		[ $rc = 5 ] && [ -s trace.argus ] && rc=0
	elif [ -n "$stream" ]; then
		# the stream client ends on the daemon's EOF, its lines flushed
		"$argus" stop --run-dir "$PWD/daemon" >/dev/null 2>&1 || kill "$daemon"
		wait "$daemon"
		for _ in $(seq 50); do kill -0 "$stream" 2>/dev/null || break; sleep 0.1; done
	fi
	if [ $pass = argus ]; then
		"$argus" diagnose --json trace.argus >beam.json 2>beam.err
		"$argus" diagnose --json --algo critical-path trace.argus >cp.json 2>cp.err
		"$argus" diagnose --json --no-weak-edges trace.argus >nwe.json 2>nwe.err
	fi
	cleanup
	# perf's symbols come from the binaries on disk: after the hang, so
	# that its CPU time does not land inside the stall. --no-inline: perf
	# resolves inlined frames with addr2line, minutes for a DWARF
	# recording of a GTK app (and names "(inlined)" its objects)
	if [ -s perf.data ]; then
		perf script --no-inline -i perf.data -F comm,pid,tid,ip,sym,dso >perf.script 2>perf-script.err
	fi
	# offwaketime's folded stacks, from perf's scheduler tracepoints
	if [ -s offwake.data ]; then
		perf script --no-inline -i offwake.data -F trace:comm,pid,tid,time,event,trace,ip,sym,dso \
			>offwake.script 2>>offwake.err &&
			python3 "$here/offwake.py" offwake.script >offwake.txt 2>>offwake.err ||
			echo "offwake.py failed: $(tail -1 offwake.err)" >offwake.na
	fi
	[ $drv = 0 ] || { echo "$name: driver failed ($pass run): $(cat driver.log)" >&2; exit 3; }
	[ $rc = 0 ] || { echo "$name: argus record failed: $(cat rec.log)" >&2; exit 3; }
	exit 0
)

status=0
[ $format = text ] && python3 "$here/score.py" --header
for case in "$@"; do
	case=$(cd "$case" 2>/dev/null && pwd) || { echo "$case: no such case" >&2; status=3; continue; }
	name=$(basename "$case")
	truth=$case/truth
	if ! [ -r "$truth" ] || ! [ -x "$case/driver.sh" ]; then
		echo "$name: not a case (needs truth and driver.sh)" >&2; status=3; continue
	fi
	prog=$(get "$truth" program)
	secs=$(get "$truth" record_seconds)
	screen=$(get "$truth" screen)
	[ -n "$screen" ] || screen=640x480x24
	bin=$prog
	case $prog in
	/*)
		# an installed app (realapps): missing is "cannot run here"
		[ -x "$prog" ] || { echo "skipped: $name: $prog not installed (scripts/install-deps.sh)"; [ $status = 0 ] && status=77; continue; } ;;
	*)
		[ -n "$bindir" ] && bin=$bindir/$prog
		command -v "$bin" >/dev/null || { echo "$name: program $bin not found (--bin-dir)" >&2; status=3; continue; } ;;
	esac
	work=$(mktemp -d "${TMPDIR:-/tmp}/argus-zoo-XXXXXX")
	mkdir "$work/argus"
	run_pass argus "$work/argus"
	rc=$?
	basedir=
	if [ $rc = 0 ] && [ $baselines = 1 ]; then
		mkdir "$work/baselines"
		run_pass baselines "$work/baselines"
		rc=$?
		basedir=$work/baselines
	fi
	if [ $rc = 0 ]; then
		fopt="--match $match --score $score --bin-dir $(dirname "$(command -v "$bin")")"
		[ $format = json ] && fopt="$fopt --json"
		[ -n "$basedir" ] && fopt="$fopt --baselines $basedir"
		# shellcheck disable=SC2086 # fopt: words
		python3 "$here/score.py" $fopt "$name" "$truth" "$(cat "$work/argus/prog.pid")" "$work/argus"
		rc=$?
	fi
	{ [ $status = 77 ] || [ $rc -gt $status ]; } && status=$rc
	if [ $keep = 1 ] || [ $rc = 3 ]; then
		echo "$name: files in $work" >&2
	else
		rm -rf "$work"
	fi
done
exit $status
