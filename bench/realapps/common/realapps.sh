# What the realapps cases' launch.sh, driver.sh and cleanup.sh share:
#   . "$(dirname "$0")/../common/realapps.sh"
# POSIX sh functions. They run in the case's scratch folder (the runner's
# cwd, also HOME), on the private desktop run-case.sh sets up. Every fault
# is the environment's: a stopped service, a stopped FUSE daemon, a big
# input file; the apps are Debian's, unchanged. No case: no truth file here.
. "$(dirname "$0")/../../zoo/common/driver.sh"

# ra_bus_pid NAME: the pid owning a well-known name on the session bus
ra_bus_pid() {
	dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus.GetConnectionUnixProcessID "string:$1" 2>/dev/null |
		awk '/uint32/ { print $2 }'
}

# ra_stop PID: SIGSTOP the service (its pid in stopped.pid, for the driver
# and cleanup.sh); ra_cont: SIGCONT it
ra_stop() {
	echo "$1" >stopped.pid
	kill -STOP "$1"
}
ra_cont() {
	[ -s stopped.pid ] && kill -CONT "$(cat stopped.pid)" 2>/dev/null
	return 0
}

# ra_a11y_up: start the accessibility bus (at-spi-bus-launcher, activated on
# the session bus by its first GetAddress) and let apps use it
ra_a11y_up() {
	unset NO_AT_BRIDGE
	dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus \
		org.a11y.Bus.GetAddress >a11y.addr
}

# ra_a11y_stop: the accessibility bus launcher stopped, and the bus address
# it published taken off the X root window: at-spi-bus-launcher writes it
# there (AT_SPI_BUS) once its bus runs, and libatspi reads it there before
# it asks the launcher (org.a11y.Bus.GetAddress on the session bus), so
# this is the state of a launcher stopped before it published it: apps ask
# it. Its pid in stopped.pid.
ra_a11y_stop() {
	ra_stop "$(ra_bus_pid org.a11y.Bus)"
	xprop -root -remove AT_SPI_BUS 2>/dev/null
	return 0
}

# ra_fuse_mount SRC MNT: bindfs (single-threaded, in the foreground, in
# the background of this shell) mirrors SRC at MNT; its pid in fuse.pid
ra_fuse_mount() {
	mkdir -p "$1" "$2"
	bindfs -f "$1" "$2" >bindfs.log 2>&1 &
	echo $! >fuse.pid
	for _ in $(seq 100); do
		mountpoint -q "$2" && return 0
		sleep 0.1
	done
	echo "bindfs did not mount $2: $(cat bindfs.log)" >&2
	return 1
}

# ra_fuse_cleanup MNT: the daemon running again, then unmounted
ra_fuse_cleanup() {
	[ -s fuse.pid ] && kill -CONT "$(cat fuse.pid)" 2>/dev/null
	mountpoint -q "$1" && { fusermount3 -u "$1" 2>/dev/null || umount -l "$1"; }
	return 0
}

# ra_window CLASS|NAME PATTERN [SECONDS]: wait for a visible window, print its id
ra_window() {
	_ra_i=0
	while [ $_ra_i -lt $(( ${3:-20} * 10 )) ]; do
		_ra_w=$(xdotool search --onlyvisible "--$1" "$2" 2>/dev/null | head -1)
		[ -n "$_ra_w" ] && { echo "$_ra_w"; return 0; }
		sleep 0.1
		_ra_i=$((_ra_i + 1))
	done
	echo "no window --$1 $2" >&2
	return 1
}

# ra_click WID: focus the window by a click into it (no window manager)
ra_click() {
	xdotool windowfocus --sync "$1" mousemove --window "$1" "${2:-200}" "${3:-150}" click 1
}

# ra_long_line FILE BYTES: a text file of one line of BYTES bytes (words
# and spaces, no newline before the end), as a minified script or a log
# without line breaks is
ra_long_line() {
	python3 -c 'import sys
w = b"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod "
n = int(sys.argv[2])
open(sys.argv[1], "wb").write((w * (n // len(w) + 1))[:n] + b"\n")' "$1" "$2"
}

# ra_open_file PATH: open PATH as a user does, through the app's own Open
# dialog: Ctrl+O, wait for the dialog (a new visible window: the app's by
# _NET_WM_PID, else any), give it the focus (there is no window manager:
# a new window does not get it by itself, and keys typed before went to
# the main window, which a modal dialog makes ignore them), Ctrl+L (the
# location entry of GTK 3 and 4's file chooser), Ctrl+A, the path,
# Return; then wait until the dialog has gone or the app works on the file
# (its CPU time grows: at least 60 % of the time since), and try again once
# if neither within 1 s; the focus back to the window that had it. Under load the path once went to
# the document and no hang began (r6, r8 in realapps runs). Returns 1 if
# the dialog never came or never went.
ra_visible() {
	xdotool search --onlyvisible --pid "$(cat prog.pid)" 2>/dev/null
	xdotool search --onlyvisible --name '' 2>/dev/null
}
ra_open_file() {
	ra_visible | sort -u >windows.before
	_ra_main=$(xdotool getwindowfocus 2>/dev/null)
	xdotool key ctrl+o
	_ra_dlg= _ra_i=0
	while [ -z "$_ra_dlg" ] && [ $_ra_i -lt 200 ]; do
		sleep 0.1
		_ra_dlg=$(ra_visible | sort -u | comm -13 windows.before - | head -1)
		_ra_i=$((_ra_i + 1))
	done
	[ -n "$_ra_dlg" ] || { echo "ra_open_file: no dialog came" >&2; return 1; }
	for _ra_try in 1 2; do
		sleep 0.5
		timeout 5 xdotool windowfocus --sync "$_ra_dlg" 2>/dev/null || xdotool windowfocus "$_ra_dlg"
		sleep 0.3
		xdotool key ctrl+l
		sleep 0.3
		xdotool key ctrl+a
		xdotool type --delay 20 "$1"
		sleep 0.5
		xdotool key Return
		# accepted: the dialog goes, or stays up while the app works (geany
		# keeps it mapped until the file is laid out): its CPU time grows
		_ra_cpu0=$(ra_cpu_ticks)
		_ra_i=0
		while [ $_ra_i -lt 10 ]; do
			sleep 0.1
			_ra_i=$((_ra_i + 1))
			if ! ra_visible | grep -qx "$_ra_dlg" ||
				[ $(($(ra_cpu_ticks) - _ra_cpu0)) -ge $((_ra_i * 6)) ]; then
				# the focus back where it was (it went to the root
				# with the dialog): the user's next keys reach the app
				[ -n "$_ra_main" ] && xdotool windowfocus "$_ra_main" 2>/dev/null
				return 0
			fi
		done
		echo "ra_open_file: the dialog still open and the app idle after try $_ra_try" >&2
	done
	return 1
}

# ra_cpu_ticks: the app's CPU time so far (utime + stime, clock ticks:
# 100 a second)
ra_cpu_ticks() {
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$(cat prog.pid)/stat" 2>/dev/null || echo 0
}

# ra_app_window [SECONDS]: the app's window (by _NET_WM_PID: the pid the
# runner wrote to prog.pid), printed
ra_app_window() {
	_ra_i=0
	while [ $_ra_i -lt $(( ${1:-30} * 10 )) ]; do
		_ra_w=$(xdotool search --onlyvisible --pid "$(cat prog.pid)" 2>/dev/null | head -1)
		[ -n "$_ra_w" ] && { echo "$_ra_w"; return 0; }
		sleep 0.1
		_ra_i=$((_ra_i + 1))
	done
	echo "no window of pid $(cat prog.pid)" >&2
	return 1
}

# ra_impatient SECONDS: a user waiting on a busy app: one key a second
# (Right: moves nothing that matters). A busy hang may start only after the
# app has read the input that started it (a file loaded, then laid out):
# later presses are the unread input that makes the wait a UI stall.
ra_impatient() {
	_ra_i=0
	while [ $_ra_i -lt "$1" ]; do
		sleep 1
		xdotool key Right
		_ra_i=$((_ra_i + 1))
	done
}
