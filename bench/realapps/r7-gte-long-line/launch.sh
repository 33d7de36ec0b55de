#!/bin/sh
# gnome-text-editor (GTK4), and a text file of one 2 MB line for the user
# to open.
. "$(dirname "$0")/../common/realapps.sh"
ra_long_line long.txt 2000000
seq 1 200 | sed 's/^/a line of ordinary text, number /' >notes.txt
exec /usr/bin/gnome-text-editor --standalone notes.txt
