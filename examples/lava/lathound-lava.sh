#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs one 'lathound record' soak on a LAVA DUT and reports it to LAVA (lathound-soak.yaml):
#   lathound-TRACER    --result pass|fail --measurement WORST --units us, per latency tracer:
#                      fail when a --max budget failed on it, or when it measured nothing
#   lathound-verdict   --result pass only when lathound exited 0 with verdict pass
#
#   lathound-lava.sh DIR [lathound record options...]   soak into DIR/<UTC time>/, report it
#   lathound-lava.sh --report REPORT.json [STATUS]      report an existing report.json, with
#                                                       the exit status lathound had
# Needs lathound (or $LATHOUND) and jq; lava-test-case is LAVA's. Exits 0 when it reported
# (the results are in the test cases), 1 when it could not.
set -u

# report FILE STATUS: the test cases of one report.json and lathound's exit status.
report() {
	file=$1 status=$2
	if ! jq -e '.verdict' "$file" >/dev/null 2>&1; then
		echo "lathound-lava: no report in '$file' (lathound exited $status)" >&2
		lava-test-case lathound-verdict --result fail
		return 1
	fi
	# One line per tracer: name, worst (us), pass|fail. A tracer fails when a violation
	# names it (its --max budget, as lathound judged it) or when it measured nothing.
	jq -r '(.run.not_measured // {}) as $nm | [.violations[]? | split(": ")[0]] as $v |
		((.tracers | keys) + ($nm | keys) | unique)[] as $t |
		[$t, (.tracers[$t].max_us // 0),
		 (if ($v | index($t)) or $nm[$t] then "fail" else "pass" end)] | @tsv' "$file" |
	while IFS='	' read -r tracer max result; do
		lava-test-case "lathound-$tracer" --result "$result" --measurement "$max" --units us
	done
	verdict=$(jq -r .verdict "$file")
	# Why, in the LAVA log: the error, the violations, the tracers not measured.
	jq -r '(.error // empty), .violations[]?,
		((.run.not_measured // {}) | to_entries[] | "\(.key) not measured: \(.value)")' "$file"
	echo "lathound-lava: verdict $verdict, exit status $status"
	if [ "$verdict" = pass ] && [ "$status" = 0 ]; then
		lava-test-case lathound-verdict --result pass
	else
		lava-test-case lathound-verdict --result fail
	fi
}

if ! command -v jq >/dev/null; then
	echo "lathound-lava: jq is needed to read report.json (install: deps: jq)" >&2
	lava-test-case lathound-verdict --result fail
	exit 1
fi
if [ "${1:-}" = --report ]; then
	[ $# -ge 2 ] || { echo "usage: $0 --report REPORT.json [STATUS]" >&2; exit 1; }
	report "$2" "${3:-0}"
	exit
fi
[ $# -ge 1 ] || { echo "usage: $0 DIR [lathound record options...]" >&2; exit 1; }
parent=$1
shift
mkdir -p "$parent" || exit 1
out=$parent/$(date -u +%Y%m%dT%H%M%SZ)
"${LATHOUND:-lathound}" record -q -o "$out" "$@"
status=$?
report "$out/report.json" "$status"
