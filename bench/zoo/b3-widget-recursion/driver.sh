#!/bin/sh
# B3 driver: three small document windows ('n'), then the big one ('h': its
# accessible objects are described for about 4 s before it is shown). Runs
# in the case's work folder with DISPLAY set; $1 is the program's window
# title.
set -e
timeout 20 xdotool search --sync --onlyvisible --name "^$1\$" >/dev/null
focus() {
	# no window manager: focus by clicking into the window (a new document
	# window may have opened on top of it)
	timeout 10 xdotool search --onlyvisible --name "^$1\$" windowraise windowfocus --sync \
		mousemove --window %1 160 30 click 1
}
for _ in 1 2 3; do
	focus "$1"
	xdotool key n
	sleep 0.4
done
focus "$1"
xdotool key h
# the hang starts now: the runner takes the baselines' snapshots from here
touch hang
# and a key more, as an impatient user would: the press and release of 'h'
# may both be read before the handler hangs, leaving no unread input for the
# stall trigger to see
sleep 0.2
xdotool key n
# the hang lasts 4 s; it must end inside the recording
sleep 5
