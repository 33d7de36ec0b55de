#!/bin/sh
# B12 driver: three times two commands recalled into the console ('f f'),
# then the hang ('h': a script pasted, whose echo keeps the console locked
# 4 s; the next key press waits for it). Runs in the case's work folder
# with DISPLAY set; $1 is the program's window title.
set -e
timeout 20 xdotool search --sync --onlyvisible --name "^$1\$" >/dev/null
# no window manager: focus by clicking into the window
timeout 10 xdotool search --onlyvisible --name "^$1\$" windowfocus --sync \
	mousemove --window %1 160 30 click 1
# each 'f' twice in a row: the second press waits for the first one's echo
for _ in 1 2 3; do
	xdotool key f f
	sleep 0.3
done
xdotool key h
# the hang starts now: the runner takes the baselines' snapshots from here
touch hang
# and a key more, as an impatient user would: its handler waits for the
# mutex the paste's echo holds (the 'h' handler itself does not wait)
sleep 0.2
xdotool key f
# the hang lasts 4 s; it must end inside the recording
sleep 5
