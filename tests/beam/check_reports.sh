#!/bin/sh
# check_reports.sh SRC DIR... - every report the daemon wrote into DIR (the
# bug zoo's, argus start's): each STAMP-APP-PID-ID.pftrace decodes with
# `protoc --decode` against SRC/beam/perfetto_trace.proto and matches its
# .json (tests/beam/perfetto_check.py: threads, slices, flows, marks, with
# scheduling), and each .html loads in headless Chromium with no console
# message and a stall section in its DOM. Exit 0 when all do (and there was
# at least one report), 1 otherwise, 4 when a tool is missing.
set -u
src=$1
shift
for t in protoc python3 chromium; do
	command -v $t >/dev/null || { echo "check_reports: $t missing" >&2; exit 4; }
done
n=0
bad=0
for dir in "$@"; do
	for js in "$dir"/*.json; do
		[ -e "$js" ] || continue
		base=${js%.json}
		n=$((n + 1))
		if ! protoc --decode=perfetto.protos.Trace -I"$src/beam" "$src/beam/perfetto_trace.proto" \
			<"$base.pftrace" >"$base.pftrace.txt"; then
			echo "check_reports: $base.pftrace does not decode" >&2
			bad=1
		elif ! python3 "$src/tests/beam/perfetto_check.py" "$js" "$base.pftrace.txt" --sched; then
			echo "check_reports: $base.pftrace does not match its report" >&2
			bad=1
		fi
		timeout 90 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$dir/.chromium" \
			--enable-logging=stderr --v=0 --virtual-time-budget=3000 --dump-dom \
			"file://$base.html" >"$base.dom" 2>"$base.chromium.log"
		if ! grep -q '<section class="stall"' "$base.dom"; then
			echo "check_reports: $base.html: no stall section in the DOM" >&2
			bad=1
		fi
		if grep ':CONSOLE' "$base.chromium.log" >&2; then
			echo "check_reports: $base.html: console messages" >&2
			bad=1
		fi
	done
done
echo "check_reports: $n reports checked"
[ $n -gt 0 ] && [ $bad = 0 ]
