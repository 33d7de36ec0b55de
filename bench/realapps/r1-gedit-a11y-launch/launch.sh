#!/bin/sh
# gedit started while the accessibility bus launcher is stopped: GTK's
# atk-bridge asks it for the bus address (org.a11y.Bus.GetAddress) with a
# blocking D-Bus call inside gtk_init, before any window exists.
. "$(dirname "$0")/../common/realapps.sh"
ra_a11y_up
ra_stop "$(ra_bus_pid org.a11y.Bus)"
exec /usr/bin/gedit --standalone
