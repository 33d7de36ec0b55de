#!/bin/sh
# B12 driver: three times two commands recalled into the console ('f f'),
# then the hang ('h': a script pasted, whose echo keeps the console locked
# 4 s; the next key press waits for it). Runs in the case's work folder
# with DISPLAY set; $1 is the program's window title.
set -e
. "$(dirname "$0")/../common/driver.sh"
zoo_start "$1"
# each 'f' twice in a row: the second press waits for the first one's echo
zoo_press 3 0.3 f f
# the key more is what hangs: its handler waits for the mutex the paste's
# echo holds (the 'h' handler itself does not wait)
zoo_hang h f
# the hang lasts 4 s; it must end inside the recording
sleep 5
