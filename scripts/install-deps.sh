#!/usr/bin/env bash
# Install the Debian packages argus builds, tests and demos with.
# Non-interactive and idempotent: when everything is present it only asks
# dpkg (well under a second) and touches nothing.
set -euo pipefail

packages=(
	# build
	cmake make pkg-config clang llvm lld
	libuv1-dev libck-dev libjemalloc-dev libzstd-dev libcapstone-dev
	libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev
	# `argus debug -i`: line editing and history (libedit)
	libedit-dev
	# the issue store (issues/)
	libsqlite3-dev
	libclang-rt-14-dev
	# the Perfetto trace: protobuf-c encodes it; protoc decodes it in the tests
	libprotobuf-c-dev protobuf-c-compiler protobuf-compiler
	# the HTML reports are loaded in a real browser in the tests
	chromium
	# live tests and the demo: a real X server, session bus, notification
	# daemon and GTK3 apps
	xvfb x11-utils xdotool dbus dbus-x11 dunst libnotify-bin libgtk-3-dev
	# `argus bench hooks --gtk`: the scripted GTK3 workload
	gtk-3-examples
	# hooks tests: a libdbus client, a Qt5 Widgets program
	libdbus-1-dev qtbase5-dev g++
	procps psmisc linux-perf elfutils gdb python3 python3-jsonschema
	# the desktop notification (GIO's GDBus) and the live diagnosis test's
	# Tk apps
	libglib2.0-dev python3-tk
	# make demo: the screenshot of the notification (import)
	imagemagick xdg-utils
	# argus bench quiet: ordinary apps side by side (GTK3, GTK4, Qt5, Tk)
	# and its _NET_WM_PING probe (libxcb; also the notification's fallback
	# window, beam/notify_popup.c, whose map time the benches read with xev
	# and xprop from x11-utils)
	gedit geany gnome-text-editor juffed pcmanfm-qt lximage-qt idle3 libxcb1-dev
	# the X-Resource extension: the pid of a window without _NET_WM_PID
	libxcb-res0-dev
	# argus bench realapps: more unmodified apps (GTK3, a large
	# multi-process browser) and a FUSE filesystem to stop under them
	evince gnumeric abiword firefox-esr bindfs
)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
	exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
	echo "argus: missing packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
	exit 3
fi

echo "argus: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
