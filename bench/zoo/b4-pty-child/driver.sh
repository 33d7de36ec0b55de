#!/bin/sh
# B4 driver: three normal reconnects ('f': key authentication), then the
# hang ('h': the server asks for a password; the UI's callback waits 4 s on
# the child that waits on it). Runs in the case's work folder with DISPLAY
# set; $1 is the program's window title.
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
# and a key more, as an impatient user would: the UI thread waits in a poll
# of the pty, so only unread input tells the stall trigger it is stuck
sleep 0.2
xdotool key f
# the hang lasts 4 s; it must end inside the recording
sleep 5
