#!/bin/sh
# B6 driver: three normal requests down the chain ('f'), then the hang ('h':
# svc-c sleeps 4 s). Runs in the case's work folder with DISPLAY set; $1 is
# the program's window title.
set -e
. "$(dirname "$0")/../common/driver.sh"
zoo_start "$1"
zoo_press 3 0.3 f
zoo_hang h f
# the hang lasts 4 s; it must end inside the recording
sleep 5
