#!/bin/sh
# B2 driver: three normal edits of bib/refs.bib by another process (a few hundred
# lines: the app reindexes in a millisecond), then the hang's edit (as many
# lines as the app calibrated for about 4 s of indexing). Runs in the case's
# work folder (the app's) with DISPLAY and ZOO_BIN_DIR set; $1 is the
# program's window title.
set -e
. "$(dirname "$0")/../common/driver.sh"
zoo_start "$1"
writer=$ZOO_BIN_DIR/zoo-b2-writer
for n in 200 300 400; do
	"$writer" bib/refs.bib $n
	sleep 0.4
done
"$writer" bib/refs.bib "$(cat hang-lines)"
# the key press after it is the only input: the stall trigger needs input
# the app leaves unread (a file change is not input)
zoo_hang_started f
# the hang lasts 4 s; it must end inside the recording
sleep 5
