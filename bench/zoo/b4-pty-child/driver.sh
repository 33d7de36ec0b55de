#!/bin/sh
# B4 driver: three normal reconnects ('f': key authentication), then the
# hang ('h': the server asks for a password; the UI's callback waits 4 s on
# the child that waits on it). Runs in the case's work folder with DISPLAY
# set; $1 is the program's window title.
set -e
. "$(dirname "$0")/../common/driver.sh"
zoo_start "$1"
zoo_press 3 0.3 f
# the key more matters here: the UI thread waits in a poll of the pty, so
# only unread input tells the stall trigger it is stuck
zoo_hang h f
# the hang lasts 4 s; it must end inside the recording
sleep 5
