#!/bin/sh
# B3 driver: three small document windows ('n'), then the big one ('h': its
# accessible objects are described for about 4 s before it is shown). Runs
# in the case's work folder with DISPLAY set; $1 is the program's window
# title.
set -e
. "$(dirname "$0")/../common/driver.sh"
zoo_wait_window "$1"
# raised before each click: a new document window may have opened on top of
# the main one
for _ in 1 2 3; do
	zoo_focus --raise "$1"
	xdotool key n
	sleep 0.4
done
zoo_focus --raise "$1"
zoo_hang h n
# the hang lasts 4 s; it must end inside the recording
sleep 5
