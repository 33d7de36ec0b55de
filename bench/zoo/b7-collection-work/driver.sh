#!/bin/sh
# B7 driver: three small pages ('l'), then the hang ('h': a page that fills
# the heap: about 4 s of collections). Runs in the case's work folder with
# DISPLAY set; $1 is the program's window title.
set -e
. "$(dirname "$0")/../common/driver.sh"
zoo_start "$1"
zoo_press 3 0.3 l
zoo_hang h l
# the hang lasts 4 s; it must end inside the recording
sleep 5
