#!/usr/bin/env bash
# tests/summary.sh CONFIG=DIR... - the last line of `make test`: passed,
# failed and skipped over the ctest runs, from the JUnit file and exit
# status each run left in DIR (junit.xml, ctest.rc). Exits 1 when a test
# failed or a run did not complete.
set -u
total_p=0 total_f=0 total_s=0 parts=() bad=0
attr() { sed -n "s/^[[:space:]]*$1=\"\([0-9]*\)\".*/\1/p" "$2" | head -1; }
for arg in "$@"; do
	name=${arg%%=*} dir=${arg#*=}
	xml=$dir/junit.xml rc=$(cat "$dir/ctest.rc" 2>/dev/null || echo missing)
	if [[ ! -s $xml ]]; then
		# no results at all (ctest did not run): one failure for the config
		parts+=("$name did not run")
		total_f=$((total_f + 1)) bad=1
		continue
	fi
	n=$(attr tests "$xml") f=$(attr failures "$xml") s=$(attr skipped "$xml")
	d=$(attr disabled "$xml")
	p=$((n - f - s - ${d:-0}))
	# ctest failing with no failed test (a missing executable, a crash of
	# ctest itself) still fails the run
	if [[ $rc != 0 && $f == 0 ]]; then
		f=1
	fi
	((f > 0)) && bad=1
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + s))
	parts+=("$name $p/$f/$s")
done
summary=$(printf '%s, ' "${parts[@]}")
echo "tests: $total_p passed, $total_f failed, $total_s skipped (${summary%, })"
exit $bad
