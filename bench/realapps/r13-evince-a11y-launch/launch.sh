#!/bin/sh
# evince (GTK3) started while the accessibility bus launcher is stopped.
. "$(dirname "$0")/../common/realapps.sh"
ra_a11y_up
ra_a11y_stop
exec /usr/bin/evince
