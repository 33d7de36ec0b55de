#!/bin/sh
# B11 driver: three normal documents ('n', wait until it is ready, resize
# it), then the hang: 'n' and a resize at once, while the text is still
# being parsed. Runs in the case's work folder with DISPLAY set; $1 is the
# program's window title.
set -e
timeout 20 xdotool search --sync --onlyvisible --name "^$1\$" >/dev/null
# no window manager: focus by clicking into the window
timeout 10 xdotool search --onlyvisible --name "^$1\$" windowfocus --sync \
	mousemove --window %1 140 30 click 1
for size in "400 260" "440 300" "360 240"; do
	xdotool key n
	timeout 10 xdotool search --sync --onlyvisible --name "^$1 doc: ready\$" >/dev/null
	xdotool search --onlyvisible --name "^$1 doc: ready\$" windowsize %1 $size
	sleep 0.5
done
xdotool key n
# the window is up at once; its text takes ~600 ms to parse
sleep 0.15
timeout 5 xdotool search --sync --onlyvisible --name "^$1 doc: parsing\$" windowsize %1 420 280
# the hang starts now: the runner takes the baselines' snapshots from here
touch hang
# and a key more, as an impatient user would, so the stall trigger sees
# unread input
sleep 0.2
xdotool key x
# the configure handler gives up after 4 s; that must end inside the recording
sleep 5
