#!/bin/sh
# B8 driver: three normal key presses ('f': a short line rendered), then the
# hang ('h': one very long line, whose URL search copies for about 4 s). Runs
# in the case's work folder with DISPLAY set; $1 is the program's window title.
set -e
. "$(dirname "$0")/../common/driver.sh"
zoo_start "$1"
zoo_press 3 0.3 f
zoo_hang h f
# the hang lasts 4 s; it must end inside the recording
sleep 5
