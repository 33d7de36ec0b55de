#!/bin/sh
# The launch hang: from the start (launch.sh stopped the FUSE daemon), 6 s,
# then the daemon runs again and firefox's window appears.
. "$(dirname "$0")/../common/realapps.sh"
for _ in $(seq 100); do [ -s stopped.pid ] && break; sleep 0.1; done
touch hang
sleep 6
ra_cont
ra_window class firefox 60 >/dev/null
sleep 3
