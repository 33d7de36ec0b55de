#!/bin/sh
# Normal edits, then the FUSE daemon stops (as a hung network filesystem
# does) and the user saves: juffed writes the file on its UI thread.
. "$(dirname "$0")/../common/realapps.sh"
w=$(ra_window class '^juffed$' 30) || exit 1
sleep 1
ra_click "$w"
xdotool key ctrl+End Return
xdotool type --delay 30 "an ordinary line"
xdotool key ctrl+s
sleep 1
xdotool type --delay 30 " and more"
sleep 0.5
ra_stop "$(cat fuse.pid)"
xdotool key ctrl+s
zoo_hang_started Right
sleep 6
ra_cont
sleep 3
