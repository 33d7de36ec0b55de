#!/bin/sh
# B11 driver: three normal documents ('n', wait until it is ready, resize
# it), then the hang: 'n' and a resize at once, while the text is still
# being parsed. Runs in the case's work folder with DISPLAY set; $1 is the
# program's window title.
set -e
. "$(dirname "$0")/../common/driver.sh"
# polled every 50 ms, not with xdotool's 0.5 s --sync: too slow for a window
# that is parsing for 0.6 s
zoo_poll_window "$1"
zoo_focus "$1" 140
for size in "400 260" "440 300" "360 240"; do
	xdotool key n
	zoo_poll_window "$1 doc: ready"
	xdotool search --onlyvisible --name "^$1 doc: ready\$" windowsize %1 $size
	sleep 0.3
done
xdotool key n
zoo_poll_window "$1 doc: parsing"
xdotool search --onlyvisible --name "^$1 doc: parsing\$" windowsize %1 420 280
zoo_hang_started x
# the configure handler gives up after 4 s; that must end inside the recording
sleep 5
