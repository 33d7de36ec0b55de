#!/bin/sh
# B9 driver: three normal redraws ('f': one small tile), then the hang
# ('h': zoomed in, one frame of many large tiles, about 4 s of mmap, page
# faults and munmap). Runs in the case's work folder with DISPLAY set; $1 is
# the program's window title.
set -e
. "$(dirname "$0")/../common/driver.sh"
zoo_start "$1"
zoo_press 3 0.3 f
zoo_hang h f
# the hang lasts 4 s; it must end inside the recording
sleep 5
