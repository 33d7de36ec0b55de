#!/bin/sh
# run-quiet.sh - ordinary use of unmodified apps side by side, with nothing
# hanging, under the live daemon: what `argus bench quiet` (bench_quiet.c)
# runs and then reads.
#
#   bench/quiet/run-quiet.sh --argus BIN --probe BIN --work DIR [--minutes N]
#                            [--no-probe] [--record]
#
# On a private desktop (Xvfb, a session bus, dunst; bench/zoo/run-case.sh's
# set-up) it starts `argus start` (reports in DIR/reports, its stall and
# diagnosis lines in DIR/live.ndjson, the Notify calls on the bus in
# DIR/notify.log), the ping probe (DIR/probe.txt) and the apps of APPS below
# with a scratch HOME (DIR/home), then drives them for N minutes (default 10,
# fractions too): typing, selecting, scrolling, a menu, the Open dialog then
# Escape, saving, clicking from window to window. --no-probe: no ping probe
# (its pings are X events the apps read too: the run without it tells
# whether they change what argus sees). --record: the daemon's flight
# recorder on, in DIR/recorder (the whole run: `argus debug --recorder
# DIR/recorder --last 15m` replays it offline). DIR/apps lists
# "name toolkit pid window" per app, DIR/driven the seconds and actions.
# Exit status: 0 it ran, 2 usage, 3 not root, 4 a tool or app missing
# (scripts/install-deps.sh), 5 the desktop or the daemon did not come up.
set -u
argus='' probe='' work='' minutes=10 noprobe=0 record=0
while [ $# -gt 0 ]; do
	case $1 in
	--argus) argus=$2; shift 2 ;;
	--probe) probe=$2; shift 2 ;;
	--work) work=$2; shift 2 ;;
	--minutes) minutes=$2; shift 2 ;;
	--no-probe) noprobe=1; shift ;;
	--record) record=1; shift ;;
	*) echo "run-quiet.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$argus" ] && [ -n "$probe" ] && [ -d "$work" ] ||
	{ echo "usage: run-quiet.sh --argus BIN --probe BIN --work DIR [--minutes N]" >&2; exit 2; }
seconds=$(awk -v m="$minutes" 'BEGIN { s = m * 60; if (s < 1) s = 1; printf "%d", s + 0.5 }')

# name toolkit kind menu-key class command: kind picks the driving
# (editor: a text to type and save; files: a folder; image: pictures);
# class finds a window that has no _NET_WM_PID (Tk's; an IDLE editor is
# a Toplevel, its root window stays withdrawn). The apps' own
# binaries, not a user's PATH (pyenv's idle is another Python's).
APPS="gedit GTK3 editor F10 gedit /usr/bin/gedit docs/gedit.txt
geany GTK3 editor F10 Geany /usr/bin/geany docs/geany.c
gnome-text-editor GTK4 editor F10 gnome-text-editor /usr/bin/gnome-text-editor docs/gte.txt
juffed Qt5 editor alt+f juffed /usr/bin/juffed docs/juffed.txt
pcmanfm-qt Qt5 files alt+f pcmanfm-qt /usr/bin/pcmanfm-qt docs
lximage-qt Qt5 image alt+f lximage-qt /usr/bin/lximage-qt docs/pic1.png
idle Tk editor F10 Toplevel /usr/bin/idle -e docs/idle.py"

[ "$(id -u)" = 0 ] || { echo "run-quiet.sh: needs root: argus start traces with eBPF" >&2; exit 3; }
for t in Xvfb xdotool dbus-daemon dbus-send dbus-monitor dunst; do
	command -v $t >/dev/null || { echo "run-quiet.sh: $t missing (scripts/install-deps.sh)" >&2; exit 4; }
done
echo "$APPS" | while read -r name _ _ _ _ bin _; do
	[ -x "$bin" ] || { echo "run-quiet.sh: app missing: $name ($bin; scripts/install-deps.sh)" >&2; exit 4; }
done || exit 4

cd "$work" || exit 5
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	pids=
}
trap cleanup EXIT
trap 'exit 5' INT TERM
wait_file() { for _ in $(seq "$2"); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }

# room for seven windows side by side: a 4 x 2 grid of 480 x 540
Xvfb -displayfd 3 -nolisten tcp -screen 0 1920x1080x24 3>xdisplay >xvfb.log 2>&1 &
pids="$! $pids"
for _ in $(seq 100); do [ -s xdisplay ] && break; sleep 0.1; done
n=$(cat xdisplay 2>/dev/null)
[ -n "$n" ] || { echo "run-quiet.sh: Xvfb did not start: $(tail -1 xvfb.log)" >&2; exit 5; }
export DISPLAY=":$n"
# a scratch home before the bus: the apps' settings and files go there
export HOME=$work/home XDG_RUNTIME_DIR=$work/run
mkdir -p "$HOME/docs" && mkdir -m 0700 "$XDG_RUNTIME_DIR" || exit 5
# no accessibility bus on this desktop (as in the zoo)
export NO_AT_BRIDGE=1 GTK_A11Y=none
bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1) ||
	{ echo "run-quiet.sh: dbus-daemon --session did not start" >&2; exit 5; }
DBUS_SESSION_BUS_ADDRESS=$(echo "$bus" | head -1)
export DBUS_SESSION_BUS_ADDRESS
pids="$(echo "$bus" | sed -n 2p) $pids"
# dunst's notifications in the grid's empty cell, bottom right: over an
# app's window they would take the clicks that focus it
mkdir -p "$HOME/.config/dunst"
printf '[global]\norigin = bottom-right\noffset = 10x10\nwidth = 400\nnotification_limit = 4\n' \
	>"$HOME/.config/dunst/dunstrc"
dunst >dunst.log 2>&1 &
pids="$! $pids"
for _ in $(seq 100); do
	dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Notifications 2>/dev/null |
		grep -q "boolean true" && break
	sleep 0.1
done
dbus-monitor --session "type='method_call',interface='org.freedesktop.Notifications',member='Notify'" \
	>notify.log 2>/dev/null &
monitor=$!
pids="$monitor $pids"

# the daemon as a user runs it: it finds each app's session bus itself
recopt=--no-recorder
[ $record = 1 ] && recopt="--recorder $work/recorder --keep $((seconds / 60 + 5))m"
# shellcheck disable=SC2086 # recopt: one to three words, no spaces in them
env -u DBUS_SESSION_BUS_ADDRESS "$argus" start --run-dir "$work/daemon" $recopt \
	--hooks-dir "" --reports "$work/reports" >daemon.log 2>&1 &
daemon=$!
pids="$daemon $pids"
wait_file "$work/daemon/stream.sock" 300 ||
	{ echo "run-quiet.sh: argus start did not come up: $(tail -1 daemon.log)" >&2; exit 5; }
"$argus" stream --run-dir "$work/daemon" --kinds stall,diagnosis >live.ndjson 2>stream.err &
stream=$!
pids="$stream $pids"

probepid=
if [ $noprobe = 0 ]; then
	"$probe" --out probe.txt 2>probe.log &
	probepid=$!
	pids="$probepid $pids"
fi

# the scratch files the apps open and save
for f in gedit.txt gte.txt juffed.txt; do
	seq 1 200 | sed 's/^/a line of ordinary text, number /' >"$HOME/docs/$f"
done
seq 1 200 | sed 's|^|int f|; s|$|(void) { return 0; }|' >"$HOME/docs/geany.c"
seq 1 200 | sed 's/^/x = /' >"$HOME/docs/idle.py"
if command -v convert >/dev/null; then
	for c in red green blue; do
		convert -size 400x300 "gradient:$c-white" "$HOME/docs/pic-$c.png" 2>/dev/null
	done
	cp "$HOME/docs/pic-red.png" "$HOME/docs/pic1.png"
fi

# start every app, then wait for its window and put it in its cell
: >apps
i=0
echo "$APPS" | while read -r name tk kind menu cls bin args; do
	# shellcheck disable=SC2086 # args: words, relative to HOME
	(cd "$HOME" && exec "$bin" $args) >"app-$name.log" 2>&1 &
	echo "$name $tk $! $kind $menu $cls" >>apps.start
done
while read -r name tk pid kind menu cls; do
	pids="$pid $pids"
	# by _NET_WM_PID, else by class (Tk sets no pid on its windows)
	wid=
	for _ in $(seq 80); do
		wid=$(xdotool search --onlyvisible --pid "$pid" 2>/dev/null | head -1)
		[ -n "$wid" ] || wid=$(xdotool search --onlyvisible --class "^$cls\$" 2>/dev/null | head -1)
		[ -n "$wid" ] && break
		sleep 0.5
	done
	if [ -n "$wid" ]; then
		x=$(( (i % 4) * 480 )) y=$(( (i / 4) * 540 ))
		xdotool windowsize "$wid" 470 520 windowmove "$wid" "$x" "$y" 2>/dev/null
		echo "$name $tk $pid yes $wid $kind $menu $x $y" >>apps
	else
		echo "$name $tk $pid no - $kind $menu 0 0" >>apps
	fi
	i=$((i + 1))
done <apps.start

# focus: click into the middle of the app's window
focus() {
	timeout 5 xdotool windowfocus --sync "$1" 2>/dev/null
	timeout 5 xdotool mousemove --window "$1" 235 300 click 1 2>/dev/null
}

# one action on a focused window; the round and the app's place pick which,
# so that each app gets each kind of use in turn, and each round has them all
act() {
	wid=$1 kind=$2 menu=$3 name=$4 at=$5
	case $kind:$(((round + at) % 6)) in
	editor:0)
		xdotool key ctrl+End Return
		xdotool type --delay 40 "# an ordinary line typed in $name, round $round"
		sleep 0.3
		xdotool key ctrl+s ;;
	editor:1|files:1) xdotool key shift+Up shift+Up shift+Up shift+End; sleep 0.3; xdotool key Down ;;
	editor:5) xdotool key ctrl+Home; sleep 0.3; xdotool key Page_Down Page_Down; sleep 0.3; xdotool key ctrl+End ;;
	*:2)
		for _ in 1 2 3 4 5; do xdotool click 5; sleep 0.1; done
		for _ in 1 2 3; do xdotool click 4; sleep 0.1; done ;;
	*:3) xdotool key "$menu"; sleep 0.8; xdotool key Escape; sleep 0.2; xdotool key Escape ;;
	editor:4|image:4) xdotool key ctrl+o; sleep 1.5; xdotool key Escape ;;
	files:0) xdotool key Down Down Down Up ;;
	files:4) xdotool key F5 ;;
	files:5) xdotool key End; sleep 0.3; xdotool key Home ;;
	image:0|image:5) xdotool key Right; sleep 0.5; xdotool key Left ;;
	image:1) xdotool key Right ;;
	esac
	actions=$((actions + 1))
}

t0=$(date +%s)
round=0 actions=0
while [ $(( $(date +%s) - t0 )) -lt "$seconds" ]; do
	at=0
	while read -r name tk pid up wid kind menu x y; do
		at=$((at + 1))
		[ "$up" = yes ] || continue
		[ $(( $(date +%s) - t0 )) -lt "$seconds" ] || break
		focus "$wid"
		act "$wid" "$kind" "$menu" "$name" $at
		sleep 0.5
	done <apps
	round=$((round + 1))
	# what the desktop looked like after the first round
	[ $round = 1 ] && command -v import >/dev/null && import -window root desktop.png 2>/dev/null
	echo "$(( $(date +%s) - t0 )) $round $actions" >driven
done >driver.log 2>&1
[ -s driven ] || echo "0 0 0" >driven
# the files saved with a typed line in them: the driving reached the apps
saved=$(grep -l "an ordinary line typed in" "$HOME"/docs/* 2>/dev/null | wc -l)
echo "$(cat driven) $saved" >driven

# the probe's figures, then the daemon's lines up to now; the apps go last
if [ -n "$probepid" ]; then
	kill "$probepid"
	wait "$probepid"
fi
"$argus" stop --run-dir "$work/daemon" >/dev/null 2>&1 || kill "$daemon"
wait "$daemon"
for _ in $(seq 50); do kill -0 "$stream" 2>/dev/null || break; sleep 0.1; done
sleep 1 # a notifier still on its way to the bus
exit 0
