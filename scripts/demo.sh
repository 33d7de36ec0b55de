#!/usr/bin/env bash
# make demo: argus live, end to end, on a private desktop it sets up itself.
#
# A private Xvfb, session bus and notification daemon (dunst); `argus start`
# tracing the machine with the diagnoser attached; a GTK3 app whose key
# handler asks a helper process synchronously. A few normal look-ups, then
# one that makes the helper sleep 4 s: the app hangs, argus fires on the
# stall after 2 s, diagnoses it and sends "pinwheel root cause found" to the
# app's session bus. The demo clicks the notification ("Open report": the
# HTML report, shot in headless Chromium to out/demo-report.png), prints the
# notification, the report and the time to diagnosis, saves a screenshot
# (out/demo.png), stops everything,
# and then shows the synthetic side briefly (argus synth + diagnose --truth).
# Needs root (eBPF); without it only the synthetic part runs.
set -euo pipefail
build=${1:-build}
argus="$build/cli/argus"
app="$build/tests/live/argus-demo-app"
out=${ARGUS_DEMO_OUT:-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)

work=""
pids=()
cleanup() {
	local i
	# last started first, each waited for: the app reaps its helper
	# before the X server goes away
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		kill -TERM "${pids[i]}" 2>/dev/null || true
		wait "${pids[i]}" 2>/dev/null || true
	done
	pids=()
	[[ -n "$work" ]] && rm -rf "$work"
	work=""
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ms() { date +%s%3N; }
wait_for() { # wait_for SECONDS CMD...: until CMD succeeds
	local end=$(($(ms) + $1 * 1000))
	shift
	until "$@" >/dev/null 2>&1; do
		(($(ms) < end)) || return 1
		sleep 0.02
	done
}

has_owner() {
	dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null | grep -q "boolean true"
}

live_demo() {
	work=$(mktemp -d /tmp/argus-demo-XXXXXX)
	chmod 700 "$work"
	mkdir -m 0700 "$work/xdg"
	export XDG_RUNTIME_DIR="$work/xdg" HOME="$work" NO_AT_BRIDGE=1
	local n
	for n in $(seq $((600 + $$ % 200)) 999); do [[ -e /tmp/.X$n-lock ]] || break; done
	export DISPLAY=":$n"
	echo "== a private desktop: Xvfb $DISPLAY, a session bus, dunst =="
	Xvfb "$DISPLAY" -nolisten tcp -screen 0 1024x640x24 >/dev/null 2>&1 &
	pids+=($!)
	wait_for 10 test -e "/tmp/.X11-unix/X$n" || { echo "demo: Xvfb did not start" >&2; return 1; }
	# the bus address is set before the bus starts
	export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
	dbus-daemon --session --nofork --address="$DBUS_SESSION_BUS_ADDRESS" >/dev/null 2>&1 &
	pids+=($!)
	wait_for 10 test -S "$XDG_RUNTIME_DIR/bus" || { echo "demo: no session bus" >&2; return 1; }
	mkdir -p "$HOME/.config/dunst"
	cat >"$HOME/.config/dunst/dunstrc" <<-'EOF'
		[global]
		    width = 520
		    height = 200
		    origin = top-right
		    offset = 16x16
		    font = Monospace 10
		    frame_width = 2
		[urgency_critical]
		    background = "#2b1b1b"
		    foreground = "#ffffff"
		    frame_color = "#ff5555"
		    timeout = 0
	EOF
	dunst >/dev/null 2>&1 &
	pids+=($!)
	# ask the bus, not dunst: a call to a name nobody owns yet would make the
	# bus start a second dunst of its own
	wait_for 10 has_owner org.freedesktop.Notifications ||
		{ echo "demo: dunst did not start" >&2; return 1; }

	echo "== argus start (eBPF tracer + stall trigger + diagnosis) =="
	# "Open report" in the notification runs this (ARGUS_OPEN, for the
	# notifier): the HTML page it gets, shot in headless Chromium
	cat >"$work/open.sh" <<-EOF
		#!/bin/sh
		echo "\$1" > "$work/opened"
		command -v chromium >/dev/null && timeout 60 chromium --headless --no-sandbox \\
			--disable-gpu --hide-scrollbars --user-data-dir="$work/chromium" \\
			--window-size=1200,1000 --virtual-time-budget=3000 \\
			--screenshot="$out/demo-report.png" "file://\$1" >/dev/null 2>&1
		echo done >> "$work/opened"
	EOF
	chmod +x "$work/open.sh"
	# no bus in its environment: it finds the stalled app's session bus
	env -u DBUS_SESSION_BUS_ADDRESS ARGUS_OPEN="$work/open.sh" \
		"$argus" start --run-dir "$work/run" --no-recorder \
		--hooks-dir "" --reports "$out/reports" >"$work/argus.log" 2>&1 &
	local daemon=$!
	pids+=($daemon)
	if ! wait_for 20 test -S "$work/run/stream.sock"; then
		echo "demo: argus start did not come up:" >&2
		cat "$work/argus.log" >&2
		return 1
	fi
	"$argus" stream --run-dir "$work/run" --kinds stall,diagnosis >"$out/demo-stream.ndjson" &
	pids+=($!)

	echo "== the GTK3 app: its key handler asks a helper process (slow-lookup) =="
	"$app" --exit-after 60 >"$work/app.log" 2>&1 &
	pids+=($!)
	local app_pid=$!
	wait_for 15 grep -q ready "$work/app.log" || { echo "demo: the app did not start" >&2; return 1; }
	xdotool search --sync --onlyvisible --name argus-demo >/dev/null
	xdotool search --onlyvisible --name argus-demo windowmove %1 40 120 windowsize %1 420 180 \
		windowfocus --sync %1 mousemove --window %1 200 40 click 1
	local i
	for i in 1 2 3 4 5; do
		xdotool key f
		sleep 0.15
	done
	wait_for 5 grep -q "answer f" "$work/app.log"
	echo "   $(grep -c 'answer' "$work/app.log") normal look-ups answered in a few ms each"
	echo "== pressing 'h': the helper sleeps 4 s, the app's UI thread waits on it =="
	local t_key t_note
	t_key=$(ms)
	xdotool key h
	sleep 0.2
	xdotool key f # impatient: input the hung app cannot read
	until (($(dunstctl count displayed) + $(dunstctl count history) > 0)); do
		if (($(ms) - t_key > 15000)); then
			echo "demo: no notification within 15 s; argus said:" >&2
			cat "$work/argus.log" >&2
			return 1
		fi
		sleep 0.02
	done
	t_note=$(ms)
	sleep 0.3 # dunst draws it
	import -window root "$out/demo.png"
	# the user clicks it: "Open report" opens the HTML page
	dunstctl action 0 || true
	wait_for 70 grep -q done "$work/opened" 2>/dev/null || true
	local opened=""
	[[ -s "$work/opened" ]] && opened=$(head -1 "$work/opened")
	wait_for 10 grep -q "answer s" "$work/app.log" || true
	sleep 0.5 # the stall's end reaches the stream
	dunstctl close-all
	sleep 0.1
	local body
	body=$(dunstctl history | python3 -c '
import json, sys
for n in json.load(sys.stdin)["data"][0]:
    if n["summary"]["data"] == "pinwheel root cause found":
        print(n["summary"]["data"] + "\n    " + n["body"]["data"].replace("\n", "\n    "))
        break')
	"$argus" stop --run-dir "$work/run" >/dev/null 2>&1 || kill -TERM "$daemon"
	wait "$daemon" 2>/dev/null || true
	cp "$work/argus.log" "$out/demo-argus.log"
	cleanup

	echo
	echo "== the desktop notification (dunst) =="
	echo "    $body"
	echo
	echo "== the report (text; JSON, HTML and a Perfetto trace next to it) =="
	local report
	report=$(ls -t "$out"/reports/*-argus-demo-app-"$app_pid"-*.txt 2>/dev/null | head -1)
	if [[ -n "$report" ]]; then
		sed -n '1,/normal run/p' "$report" | sed '$d' | head -24
		echo "   ($report)"
	else
		echo "   no report for the app (see $out/demo-stream.ndjson)"
	fi
	echo
	echo "== \"Open report\" (the notification's action) =="
	if [[ -n "$opened" ]]; then
		echo "   opened $opened"
		[[ -f "$out/demo-report.png" ]] && echo "   the page in headless Chromium: $out/demo-report.png"
	else
		echo "   the action did not open the report (see $out/demo-argus.log)"
	fi
	echo "   all its reports: $argus report --dir $out/reports"
	echo
	echo "== time to diagnosis =="
	grep -h "stall .*argus-demo-app.*after the threshold" "$out/demo-argus.log" | sed 's/^/   /' || true
	python3 - "$out/demo-stream.ndjson" "$app_pid" <<-'EOF'
		import json, sys
		for line in open(sys.argv[1]):
		    o = json.loads(line)
		    if o.get("kind") == "stall" and o["pid"] == int(sys.argv[2]):
		        if o["phase"] == "start":
		            print(f"   stall of {o['app']} fired {(o['detected'] - o['since']) / 1e9:.3f} s after the input ({o['class']})")
		        else:
		            print(f"   stall ended after {o['duration_ns'] / 1e9:.2f} s")
		    if o.get("kind") == "diagnosis" and o["report"]["stall"]["pid"] == int(sys.argv[2]):
		        print(f"   diagnosis took {o['report']['diagnose_ns'] / 1e6:.1f} ms")
	EOF
	echo "   key press -> notification on screen: $(((t_note - t_key))) ms (stall threshold 2000 ms;" \
		"the notification came $(((t_note - t_key - 2000))) ms after it)"
	echo "   screenshot with the notification: $out/demo.png"
}

missing=""
for t in Xvfb dbus-daemon dbus-send dunst dunstctl xdotool import python3; do
	command -v "$t" >/dev/null 2>&1 || missing+=" $t"
done
if [[ $(id -u) -ne 0 ]]; then
	echo "demo: the live part needs root (eBPF); showing the synthetic part only" >&2
elif [[ -n "$missing" || ! -x "$app" ]]; then
	echo "demo: the live part needs$missing ${app##*/} (scripts/install-deps.sh, a build with" \
		"gtk+-3.0); showing the synthetic part only" >&2
else
	live_demo
fi

echo
echo "== synthetic: a desktop with injected hangs, diagnosed against ground truth =="
trace="$out/demo.argus"
"$argus" synth -o "$trace" -n 400k --rate 5000 -s 1 >/dev/null 2>&1
"$argus" diagnose --truth "$trace" >"$out/demo-synth.txt" || echo "demo: --truth found a miss (see $out/demo-synth.txt)"
grep -E '^truth|events,' "$out/demo-synth.txt" | sed 's/^/   /'
echo "   (full reports: $out/demo-synth.txt)"
