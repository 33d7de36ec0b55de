#!/bin/sh
# make fuzz: each libFuzzer target for RUNS executions (docs/testing.md
# "Fuzzing"). Usage: scripts/fuzz.sh BUILD_DIR [RUNS] [TARGET...]
# New inputs go to BUILD_DIR/tests/fuzz/corpus-*; FUZZ_MERGE=1 merges what
# adds coverage back into the seed corpus in tests/fuzz/corpus/ (minimized).
# FUZZ_JOBS=N runs each target as N processes (libFuzzer -jobs) sharing one
# corpus, RUNS/N executions each, each with its own seed (libFuzzer copies
# their logs into the target's log); the line printed sums them.
set -u
build=${1:?usage: scripts/fuzz.sh BUILD_DIR [RUNS] [TARGET...]}
build=$(cd "$build" && pwd) || exit 2
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
	jobs=${FUZZ_JOBS:-1}
	# the hook target reads 1 + 16 + 16 + 128 x 64 bytes at most: longer
	# inputs only slow the mutations down
	maxlen=65536
	[ "$name" = fuzz_hook_ring ] && maxlen=8225
	if [ "$jobs" -gt 1 ]; then
		# each job logs to its own fuzz-J.log in the working directory
		logdir=$build/tests/fuzz/$name.jobs
		rm -rf "$logdir" && mkdir -p "$logdir"
		(cd "$logdir" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$bin" \
			-jobs="$jobs" -workers="$jobs" -runs=$((runs / jobs)) -max_len=$maxlen \
			-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/tests/fuzz/$name-" \
			"$work" "$src/tests/fuzz/corpus/$corpus" >"$log" 2>&1)
		rc=$?
		grep -q -E 'ERROR: (libFuzzer|AddressSanitizer)|runtime error|deadly signal' "$logdir"/fuzz-*.log && rc=1
	else
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$bin" -runs="$runs" -seed=1 -max_len=$maxlen \
			-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/tests/fuzz/$name-" \
			"$work" "$src/tests/fuzz/corpus/$corpus" >"$log" 2>&1
		rc=$?
	fi
	secs=$(( $(date +%s) - start ))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{s+=$1} END {print s+0}')
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
