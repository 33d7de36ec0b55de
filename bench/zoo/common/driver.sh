# What the zoo's drivers share, sourced by each case's driver.sh:
#   . "$(dirname "$0")/../common/driver.sh"
# POSIX sh functions over xdotool. A TITLE is a window's whole title (an
# xdotool regex, anchored here). There is no window manager on the private
# X server: focus is given by clicking, and nothing raises windows unasked.
# No case: no truth file here, so the runner never takes this folder for one.

# zoo_wait_window TITLE [SECONDS]: wait (20 s at most) until a window with
# that title is visible. xdotool's --sync polls every 0.5 s: fine for the
# program's first window.
zoo_wait_window() {
	timeout "${2:-20}" xdotool search --sync --onlyvisible --name "^$1\$" >/dev/null
}

# zoo_poll_window TITLE [SECONDS]: the same, polling every 50 ms (10 s at
# most), for a window the case's timeline waits on.
zoo_poll_window() {
	_zoo_polls=$(( ${2:-10} * 20 ))
	_zoo_i=0
	until xdotool search --onlyvisible --name "^$1\$" >/dev/null 2>&1; do
		_zoo_i=$((_zoo_i + 1))
		[ $_zoo_i -lt $_zoo_polls ] || { echo "no window ^$1\$" >&2; return 1; }
		sleep 0.05
	done
}

# zoo_focus [--raise] TITLE [X]: focus the window by clicking into it at
# (X, 30) (X: 160 unless given); --raise first raises it over a window that
# may have opened on top of it.
zoo_focus() {
	_zoo_raise=
	if [ "$1" = --raise ]; then
		_zoo_raise=windowraise
		shift
	fi
	# shellcheck disable=SC2086 # _zoo_raise: a word or none
	timeout 10 xdotool search --onlyvisible --name "^$1\$" $_zoo_raise windowfocus --sync \
		mousemove --window %1 "${2:-160}" 30 click 1
}

# zoo_start TITLE [X]: zoo_wait_window TITLE, then zoo_focus TITLE [X]: the
# program's window, up and focused.
zoo_start() {
	zoo_wait_window "$1"
	zoo_focus "$1" ${2:+"$2"}
}

# zoo_press COUNT PAUSE KEY...: COUNT times, press the keys (one xdotool
# call) and sleep PAUSE seconds.
zoo_press() {
	_zoo_count=$1
	_zoo_pause=$2
	shift 2
	_zoo_i=0
	while [ $_zoo_i -lt "$_zoo_count" ]; do
		xdotool key "$@"
		sleep "$_zoo_pause"
		_zoo_i=$((_zoo_i + 1))
	done
}

# zoo_hang_started EXTRA_KEY: call right after the action that starts the
# hang. Touches `hang` (the runner takes the baselines' snapshots from
# then), then presses EXTRA_KEY 0.2 s later and once a second after that,
# four presses in all (to 3.2 s), as an impatient user would while the
# hang lasts (bench/realapps ra_impatient does the same): the hang's own
# input may all be read before the handler hangs (on an idle machine B12's
# UI thread read the hanging key and the first extra one together, then
# waited 4 s with nothing unread), and the stall trigger needs unread input
# to see. The cases hang 4 s or more (their stalls ran 3.8-9.4 s live on
# 2026-11-26 09:19, counted from the first extra key); the extra key is the
# case's quick action, so after the hang it only runs a few more of them.
zoo_hang_started() {
	touch hang
	sleep 0.2
	xdotool key "$1"
	for _ in 1 2 3; do
		sleep 1
		xdotool key "$1"
	done
}

# zoo_hang KEY EXTRA_KEY: press KEY, the one that starts the hang, then
# zoo_hang_started EXTRA_KEY.
zoo_hang() {
	xdotool key "$1"
	zoo_hang_started "$2"
}
