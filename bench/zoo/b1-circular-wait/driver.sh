#!/bin/sh
# B1 driver: three normal keys ('f': shaped asynchronously), then the input
# method's commit ('h': three characters, each a circular wait the peer
# breaks after 1.5 s). Runs in the case's work folder with DISPLAY set; $1 is
# the program's window title.
set -e
. "$(dirname "$0")/../common/driver.sh"
zoo_start "$1"
zoo_press 3 0.3 f
zoo_hang h f
# the hang lasts 4.5 s; it must end inside the recording
sleep 5.5
