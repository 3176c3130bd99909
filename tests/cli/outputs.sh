#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Reports as CI systems take them: each format to a file of its own (--text, --json,
# --junit, --html FILE), '-' for standard output, and a workload's output never inside a report;
# JUnit with time and timestamp, and a failure text that says where to look.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fake-tracefs.sh"
FAKERAID=$DATA/vm-irqsoff-fakeraid.trace
cd "$TMP" || exit 1	# where a file named '-' would be written

# xml_ok FILE: well-formed for a strict XML parser.
xml_ok() { python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$1"; }

# ---- analyze: one file per format ----
run analyze --max all=1ms --text "$TMP/a.txt" --json "$TMP/a.json" --junit "$TMP/a.xml" "$FAKERAID"
expect_rc "analyze --text --json --junit FILE, a gate failed" 2
check "... nothing on stdout: every report went to its file" test -z "$out"
check "... the text report" grep -q '^Verdict: FAIL' "$TMP/a.txt"
expect_jq "... the JSON report" "$TMP/a.json" '.verdict == "fail"'
check "... the JUnit report, well-formed" xml_ok "$TMP/a.xml"
expect_in "... the violations on stderr, as no text report is on stdout" "$err" \
	"gate failed: irqsoff: worst 2005us"
run analyze --max all=1ms --json "$TMP/h.json" --html "$TMP/h.html" "$FAKERAID"
expect_rc "analyze --json --html FILE, a gate failed" 2
check "... nothing on stdout" test -z "$out"
check "... the HTML report: a page with its plots" \
	grep -q '<svg' "$TMP/h.html"
check "... the HTML report states the verdict" grep -q 'FAIL' "$TMP/h.html"
run analyze --max all=1ms -f html "$FAKERAID"
check "... the HTML file is what -f html prints" cmp -s "$TMP/h.html" <(echo "$out")
run analyze --max all=1ms -f json "$FAKERAID"
check "... the JSON file is what -f json prints" \
	cmp -s <(jq -S . "$TMP/a.json") <(jq -S . <<<"$out")
run analyze --max all=1ms --json - --junit "$TMP/b.xml" "$FAKERAID"
expect_rc "--json - with --junit FILE" 2
expect_jq "... the JSON on stdout" <(echo "$out") '.verdict == "fail"'
check "... the JUnit in its file" xml_ok "$TMP/b.xml"
run analyze -f junit -o - "$FAKERAID"
expect_rc "-o - (analyze)" 2
check "-o -: the report is on stdout" xml_ok <(echo "$out")
check "-o -: no file named '-'" test ! -e ./-
run analyze --text - --json - "$FAKERAID"
expect_rc "two reports to stdout" 1
expect_in "... refused" "$err" "only one report can go to standard output ('-')"
run analyze -f json -o "$TMP/c.json" --json "$TMP/d.json" "$FAKERAID"
expect_rc "-o and --json for the JSON report" 1
expect_in "... refused" "$err" "-o and --json both name where the json report goes"
check "... nothing written" test ! -e "$TMP/c.json" -a ! -e "$TMP/d.json"

# ---- JUnit: time, timestamp, and where a failure was ----
run analyze -f junit --max all=1ms "$FAKERAID"
echo "$out" >"$TMP/j.xml"
check "junit: testsuites and testsuite carry time and an ISO 8601 timestamp" \
	test "$(grep -cE '<testsuites? [^>]* time="[0-9]+\.[0-9]{3}" timestamp="[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z"' "$TMP/j.xml")" = 2
check "junit: every testcase has a time" \
	test "$(grep -c '<testcase ' "$TMP/j.xml")" = "$(grep -c '<testcase [^>]* time="[0-9.]*"' "$TMP/j.xml")"
tc=$(sed -n '/<testcase classname="lathound.max" name="irqsoff"/,/<\/testcase>/p' "$TMP/j.xml")
expect_in "junit failure text: the source file and line" "$tc" "source: $FAKERAID:1"
expect_in "junit failure text: start -> end sites" "$tc" "section: irqentry_enter -&gt; handle_softirqs"
expect_in "junit failure text: the IRQ handler" "$tc" "irq handler: fakeraid (irq 24, 2001us)"
expect_in "junit failure text: the rule" "$tc" "rule: raid-irq-held (critical)"
tc=$(sed -n '/<testcase classname="lathound.rules" name="raid-irq-held"/,/<\/testcase>/p' "$TMP/j.xml")
expect_in "junit rule failure text: where it hit" "$tc" "source: $FAKERAID:1"
expect_in "junit rule failure text: the handler" "$tc" "irq handler: fakeraid (irq 24, 2001us)"

# ---- record: a workload that prints, the reports in their files ----
# What the workload prints is not in its command line (which the report holds).
echo '<workload said>&' >"$TMP/noise.txt"
mkfake
(
	wait_armed irqsoff || exit 1
	sleep 0.3; section "$FAKERAID" 2005
) &
BG=$!
rec -t irqsoff -d 1500ms -o "$TMP/o1" --max irqsoff=1ms "${NORULES[@]}" \
	--junit "$TMP/r.xml" --json "$TMP/r.json" -- sh -c "cat $TMP/noise.txt; sleep 5"
wait $BG
expect_rc "record --junit --json FILE, the workload prints, a gate failed" 2
expect_in "... the workload's output is on stdout" "$out" "<workload said>&"
check "... and nothing else is" test "$out" = "<workload said>&"
check "... the JUnit file is well-formed" xml_ok "$TMP/r.xml"
expect_not_in "... without the workload's output" "$(cat "$TMP/r.xml")" "workload said"
expect_jq "... the JSON file as DIR/report.json" "$TMP/r.json" '.verdict == "fail" and .records_total == 1'
check "... the same report" cmp -s <(jq -S . "$TMP/r.json") <(jq -S . "$TMP/o1/report.json")
check "... JUnit: the run took its time (-d 1500ms)" grep -qE \
	'<testcase classname="lathound.run" name="run" time="([1-9]|[1-9][0-9])\.[0-9]{3}"' "$TMP/r.xml"
check "... JUnit: irqsoff's armed time" grep -qE \
	'<testcase classname="lathound.max" name="irqsoff" time="([1-9]|[1-9][0-9])\.[0-9]{3}"' "$TMP/r.xml"
expect_tree "record with report files"
mkfake
rec -t irqsoff -d 1s -o - "${NORULES[@]}"
expect_rc "record -o - (the output directory)" 1
expect_in "... says where a report on stdout comes from" "$err" \
	"-o names the output directory; for a report on standard output give --text -, --json - or --junit -"
check "... nothing created" test ! -e ./- -a ! -e "$ST"

finish
