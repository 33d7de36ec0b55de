#!/bin/sh
# B2 driver: three normal edits of bib/refs.bib by another process (a few hundred
# lines: the app reindexes in a millisecond), then the hang's edit (as many
# lines as the app calibrated for about 4 s of indexing). Runs in the case's
# work folder (the app's) with DISPLAY and ZOO_BIN_DIR set; $1 is the
# program's window title.
set -e
timeout 20 xdotool search --sync --onlyvisible --name "^$1\$" >/dev/null
# no window manager: focus by clicking into the window
timeout 10 xdotool search --onlyvisible --name "^$1\$" windowfocus --sync \
	mousemove --window %1 160 30 click 1
writer=$ZOO_BIN_DIR/zoo-b2-writer
for n in 200 300 400; do
	"$writer" bib/refs.bib $n
	sleep 0.4
done
"$writer" bib/refs.bib "$(cat hang-lines)"
# the hang starts now: the runner takes the baselines' snapshots from here
touch hang
# a key press, as an impatient user would: the stall trigger needs input the
# app leaves unread (a file change is not input)
sleep 0.2
xdotool key f
# the hang lasts 4 s; it must end inside the recording
sleep 5
