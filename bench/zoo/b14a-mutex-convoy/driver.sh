#!/bin/sh
# B14 mutex-convoy driver: three normal saves ('f'), then the hang ('h': the
# saver sleeps 4 s), all while the convoy threads churn their mutex. Runs in
# the case's work folder with DISPLAY set; $1 is the program's window title.
set -e
timeout 20 xdotool search --sync --onlyvisible --name "^$1\$" >/dev/null
# no window manager: focus by clicking into the window
timeout 10 xdotool search --onlyvisible --name "^$1\$" windowfocus --sync \
	mousemove --window %1 160 30 click 1
for _ in 1 2 3; do
	xdotool key f
	sleep 0.3
done
xdotool key h
# the hang starts now: the runner takes the baselines' snapshots from here
touch hang
# and a key more, as an impatient user would: the press and release of 'h'
# may both be read before the handler hangs, leaving no unread input for the
# stall trigger to see
sleep 0.2
xdotool key f
# the hang lasts 4 s; it must end inside the recording
sleep 5
