#!/usr/bin/env bash
# make demo: the main job. Until live diagnosis lands, it generates a synthetic
# desktop (display server, GUI apps, a message bus, a font service, worker
# pools, kernel workers, timers, interrupts) with injected hangs and prints the
# trace's summary with the ground truth of every injected anomaly.
set -euo pipefail
build=${1:-build}
argus="$build/cli/argus"
out=${ARGUS_DEMO_OUT:-out}
mkdir -p "$out"
trace="$out/demo.argus"

echo "== argus synth: a synthetic desktop with injected hangs =="
"$argus" synth -o "$trace" --events 2000000 --seed 1
echo
echo "== argus info $trace =="
"$argus" info "$trace"
echo
echo "== the first events of the trace, as the JSON stream carries them =="
"$argus" cat "$trace" --json | head -n 5
