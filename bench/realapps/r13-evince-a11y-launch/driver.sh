#!/bin/sh
# The launch hang: from the start (launch.sh stopped the launcher), 6 s,
# then the launcher runs again and evince's window appears.
. "$(dirname "$0")/../common/realapps.sh"
for _ in $(seq 50); do [ -s stopped.pid ] && break; sleep 0.1; done
touch hang
sleep 6
ra_cont
ra_app_window 30 >/dev/null
sleep 2
