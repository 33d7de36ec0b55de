#!/bin/sh
# B11 driver: three normal documents ('n', wait until it is ready, resize
# it), then the hang: 'n' and a resize at once, while the text is still
# being parsed. Runs in the case's work folder with DISPLAY set; $1 is the
# program's window title.
set -e
# xdotool search --sync polls every 0.5 s: too slow for a window that is
# parsing for 0.6 s
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
	mousemove --window %1 140 30 click 1
for size in "400 260" "440 300" "360 240"; do
	xdotool key n
	wait_for "^$1 doc: ready\$"
	xdotool search --onlyvisible --name "^$1 doc: ready\$" windowsize %1 $size
	sleep 0.3
done
xdotool key n
wait_for "^$1 doc: parsing\$"
xdotool search --onlyvisible --name "^$1 doc: parsing\$" windowsize %1 420 280
# the hang starts now: the runner takes the baselines' snapshots from here
touch hang
# and a key more, as an impatient user would, so the stall trigger sees
# unread input
sleep 0.2
xdotool key x
# the configure handler gives up after 4 s; that must end inside the recording
sleep 5
