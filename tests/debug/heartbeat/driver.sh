#!/bin/sh
# The heartbeat case's driver: three normal saves ('f'), then the hang ('h':
# the saver sleeps 4 s). ZOO_SRC_DIR is bench/zoo (the test sets it); $1 is
# the program's window title.
set -e
. "${ZOO_SRC_DIR:?}/common/driver.sh"
zoo_start "$1"
zoo_press 3 0.3 f
zoo_hang h f
sleep 5
