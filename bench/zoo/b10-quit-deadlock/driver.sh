#!/bin/sh
# B10 driver: three normal plays ('p', wait for the video window, 'q'), then
# the hang: 'p' and at once 'q', while the stream is still opening. Runs in
# the case's work folder with DISPLAY set; $1 is the program's window title.
set -e
. "$(dirname "$0")/../common/driver.sh"
# polled every 50 ms, not with xdotool's 0.5 s --sync: it keeps the
# timeline short
zoo_poll_window "$1"
zoo_focus "$1"
for _ in 1 2 3; do
	xdotool key p
	# the output thread is ready once its window is up
	zoo_poll_window "$1 video"
	sleep 0.3
	xdotool key q
	sleep 0.5
done
xdotool key p q
# the key more matters here: the close handler may read every pending event
# before it blocks, leaving no unread input for the stall trigger to see
zoo_hang_started x
# the close handler gives up after 4 s; that must end inside the recording
sleep 5
