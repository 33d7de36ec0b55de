#!/bin/sh
# Normal typing, then Open (Ctrl+O, the path in the dialog, Return:
# ra_open_file):
# AbiWord imports and lays out the text on its UI thread.
. "$(dirname "$0")/../common/realapps.sh"
w=$(ra_app_window 30) || exit 1
sleep 1
ra_click "$w"
xdotool key Return
xdotool type --delay 40 "an ordinary line"
sleep 0.5
ra_open_file "$PWD/big.txt"
zoo_hang_started Right
ra_impatient 6
sleep 19
