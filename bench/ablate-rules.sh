#!/bin/sh
# ablate-rules.sh [--argus BIN] [--rules A,B] CASE_DIR...: which rules a kept case
# needs. For each case folder kept by `argus bench zoo|realapps --keep`
# (its trace.argus and prog.pid), the app's first stall's one-line answer
# with all rules, each of the named rules off, and all of them off
# (argus diagnose --rule-off; docs/diagnosis.md "Ablation").
set -u
argus=argus rules=handoff,futex-sibling
while [ $# -gt 0 ]; do
	case $1 in
	--argus) argus=$2; shift 2 ;;
	--rules) rules=$2; shift 2 ;;
	*) break ;;
	esac
done
offs="- $(echo "$rules" | tr ',' ' ') $rules"
for d in "$@"; do
	for off in $offs; do
		if [ "$off" = - ]; then set -- ; else set -- --rule-off "$off"; fi
		s=$("$argus" diagnose "$@" --json "$d/trace.argus" 2>/dev/null | python3 -c '
import sys, json
pid = int(open(sys.argv[1] + "/prog.pid").read())
for line in sys.stdin:
    j = json.loads(line)
    if j["stall"]["pid"] == pid:
        print(j["summary"], "[" + ", ".join(j["rules_used"]) + "]")
        break
else:
    print("no stall of the app")
' "$d")
		echo "$d off=$off: $s"
	done
done
