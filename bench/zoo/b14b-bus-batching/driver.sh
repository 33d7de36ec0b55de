#!/bin/sh
# B14 bus-batching driver: three normal D-Bus saves ('f'), then the hang
# ('h': the service sleeps 4 s), while three clients chatter on the bus. Runs in
# the case's work folder with DISPLAY set; $1 is the program's window title.
set -e
. "$(dirname "$0")/../common/driver.sh"
zoo_start "$1"
zoo_press 3 0.3 f
zoo_hang h f
# the hang lasts 4 s; it must end inside the recording
sleep 5
