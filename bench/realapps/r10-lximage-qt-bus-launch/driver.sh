#!/bin/sh
# The launch hang: from the start (launch.sh stopped the bus daemon), 6 s,
# then the bus runs again and lximage-qt's window appears.
. "$(dirname "$0")/../common/realapps.sh"
for _ in $(seq 50); do [ -s stopped.pid ] && break; sleep 0.1; done
touch hang
sleep 6
ra_cont
ra_window class lximage-qt 30 >/dev/null
sleep 3
