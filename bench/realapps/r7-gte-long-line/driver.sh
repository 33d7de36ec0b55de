#!/bin/sh
# Normal typing, then Open (Ctrl+O), the long file's path typed, Return:
# GTK 4 lays the line out on gnome-text-editor's UI thread.
. "$(dirname "$0")/../common/realapps.sh"
w=$(ra_app_window 30) || exit 1
sleep 1
ra_click "$w"
xdotool key ctrl+End Return
xdotool type --delay 40 "an ordinary line"
sleep 0.5
xdotool key ctrl+o
ra_open_path "$PWD/long.txt"
zoo_hang_started Right
ra_impatient 6
sleep 9
