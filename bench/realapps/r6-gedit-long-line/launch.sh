#!/bin/sh
# gedit, and a text file of one 3 MB line (a minified file, a log without
# line breaks) for the user to open.
. "$(dirname "$0")/../common/realapps.sh"
ra_long_line long.txt 3000000
seq 1 200 | sed 's/^/a line of ordinary text, number /' >notes.txt
exec /usr/bin/gedit --standalone notes.txt
