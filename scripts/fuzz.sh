#!/bin/sh
# make fuzz: each libFuzzer target for RUNS executions (docs/testing.md
# "Fuzzing"). Usage: scripts/fuzz.sh BUILD_DIR [RUNS] [TARGET...]
# New inputs go to BUILD_DIR/tests/fuzz/corpus-*; FUZZ_MERGE=1 merges what
# adds coverage back into the seed corpus in tests/fuzz/corpus/ (minimized).
set -u
build=${1:?usage: scripts/fuzz.sh BUILD_DIR [RUNS] [TARGET...]}
runs=${2:-10000000}
shift $(( $# >= 2 ? 2 : 1 ))
src=$(cd "$(dirname "$0")/.." && pwd)
targets=${*:-"trace_reader:trace stream_request:request hook_ring:hook"}
status=0
for t in $targets; do
	name=fuzz_${t%%:*}
	corpus=${t#*:}
	bin=$build/tests/fuzz/$name
	[ -x "$bin" ] || { echo "$name: not built (needs clang and -DARGUS_SANITIZE=ON)"; status=1; continue; }
	work=$build/tests/fuzz/corpus-$corpus
	mkdir -p "$work"
	log=$build/tests/fuzz/$name.log
	start=$(date +%s)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$bin" -runs="$runs" -seed=1 -max_len=65536 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/tests/fuzz/$name-" \
		"$work" "$src/tests/fuzz/corpus/$corpus" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	n=$(ls "$work" | wc -l)
	if [ $rc -eq 0 ]; then verdict="no crash"; else verdict="FAILED (exit $rc, see $log)"; status=1; fi
	echo "$name: ${execs:-0} execs in ${secs} s, cov ${cov:-?} edges, ft ${ft:-?}, corpus $n: $verdict"
	if [ $rc -eq 0 ] && [ "${FUZZ_MERGE:-0}" = 1 ]; then
		"$bin" -merge=1 "$src/tests/fuzz/corpus/$corpus" "$work" >/dev/null 2>&1
	fi
done
exit $status
