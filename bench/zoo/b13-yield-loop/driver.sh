#!/bin/sh
# B13 driver: three normal saves ('f': the UI spins a few ms until the
# peer's answer sets its flag), then the hang ('h': a request the peer drops;
# the UI spins until it gives up after 4 s). Runs in the case's work folder
# with DISPLAY set; $1 is the program's window title.
set -e
. "$(dirname "$0")/../common/driver.sh"
zoo_start "$1"
zoo_press 3 0.3 f
zoo_hang h f
# the hang lasts 4 s; it must end inside the recording
sleep 5
