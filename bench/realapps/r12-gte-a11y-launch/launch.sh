#!/bin/sh
# gnome-text-editor (GTK4) started while the accessibility bus launcher is
# stopped: GTK 4's own AT-SPI code asks it for the bus address
# (org.a11y.Bus.GetAddress) when the first window is realized.
. "$(dirname "$0")/../common/realapps.sh"
ra_a11y_up
seq 1 200 | sed 's/^/a line of ordinary text, number /' >notes.txt
ra_stop "$(ra_bus_pid org.a11y.Bus)"
exec /usr/bin/gnome-text-editor --standalone notes.txt
