#!/bin/sh
# lximage-qt (Qt5) started while the session bus (dbus-daemon --session)
# is stopped: a hung session bus, as after a crash of a service it waits
# on or a bus daemon stopped under a debugger.
. "$(dirname "$0")/../common/realapps.sh"
convert -size 800x600 gradient:blue-white pic.png 2>/dev/null ||
	python3 -c 'open("pic.png", "wb").write(bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
	"1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"))'
ra_stop "$(ra_bus_pid org.freedesktop.DBus)"
exec /usr/bin/lximage-qt pic.png
