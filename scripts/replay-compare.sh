#!/bin/bash
# replay-compare.sh OLD NEW [FOLDER...] - the stall answers two argus binaries
# give for the same kept runs: each FOLDER (default: every /tmp/argus-zoo-*/argus
# that `argus bench zoo|realapps --keep` left) holds trace.argus and prog.pid;
# both binaries replay it (`argus debug --pid P trace.argus`, the daemon's code)
# and the first 140 characters of their stall lines are compared. Prints
# "same" or "DIFF" with both answers per folder; exits 1 when any differ, 2 on
# a usage error. A diagnosis change is checked this way against every kept
# trace before it is run live (docs/evaluation.md).
set -u
if [ $# -lt 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
	echo "usage: replay-compare.sh OLD-ARGUS NEW-ARGUS [KEPT-FOLDER...]" >&2
	exit 2
fi
old=$1 new=$2
shift 2
[ $# -gt 0 ] || set -- /tmp/argus-zoo-*/argus
rc=0
for d in "$@"; do
	[ -f "$d/trace.argus" ] && [ -f "$d/prog.pid" ] || continue
	pid=$(cat "$d/prog.pid")
	o=$("$old" debug --pid "$pid" "$d/trace.argus" 2>/dev/null | grep "^stall" | cut -c1-140)
	n=$("$new" debug --pid "$pid" "$d/trace.argus" 2>/dev/null | grep "^stall" | cut -c1-140)
	if [ "$o" == "$n" ]; then
		echo "same $d: $(echo "$n" | head -1 | cut -c1-110)"
	else
		echo "DIFF $d"
		echo " old: $o"
		echo " new: $n"
		rc=1
	fi
done
exit $rc
