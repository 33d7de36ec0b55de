#!/bin/sh
# B10 driver: three normal plays ('p', wait for the video window, 'q'), then
# the hang: 'p' and at once 'q', while the stream is still opening. Runs in
# the case's work folder with DISPLAY set; $1 is the program's window title.
set -e
# xdotool search --sync polls every 0.5 s: a finer poll keeps the timeline
# short
wait_for() {
	i=0
	until xdotool search --onlyvisible --name "$1" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 200 ] || { echo "no window $1" >&2; return 1; }
		sleep 0.05
	done
}
wait_for "^$1\$"
# no window manager: focus by clicking into the window
timeout 10 xdotool search --onlyvisible --name "^$1\$" windowfocus --sync \
	mousemove --window %1 160 30 click 1
for _ in 1 2 3; do
	xdotool key p
	# the output thread is ready once its window is up
	wait_for "^$1 video\$"
	sleep 0.3
	xdotool key q
	sleep 0.5
done
xdotool key p q
# the hang starts now: the runner takes the baselines' snapshots from here
touch hang
# and a key more, as an impatient user would: the close handler may read
# every pending event before it blocks, leaving no unread input for the stall
# trigger to see
sleep 0.2
xdotool key x
# the close handler gives up after 4 s; that must end inside the recording
sleep 5
