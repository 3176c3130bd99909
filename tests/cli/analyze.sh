#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lathound analyze as a user runs it: exit codes, the three formats on real traces, gates,
# rules, -o (atomic, and its write errors), stdin, concatenated and malformed input.
. "$(dirname "$0")/../lib.sh"

NOFUNC=$DATA/pidt-irqsoff-nofunc.trace
MULTI=$DATA/handmade-multi.trace
IRQEV=$DATA/handmade-irq-events.trace
MALFORMED=$DATA/handmade-malformed.trace
WAKEUP=$DATA/ftrace-rst-wakeup_rt-events.trace
PREEMPT=$DATA/pidt-preemptoff-nofunc.trace

# No rules, so that the shipped rule set cannot change what these tests expect.
NORULES=(-r "$TMP/none.rules")
echo '# no rules' >"$TMP/none.rules"

cat >"$TMP/site.rules" <<'EOF'
# fakeraid's handler keeps IRQs off
[fakeraid-held]
match    = ^fakeraid$
in       = irq
severity = warning
message  = fakeraid handler runs with IRQs off

# A known camera driver section: accepted, never gated
[camera-known]
match    = ^lhx_camera_poll_locked$
in       = start
severity = ignore
message  = camera BSP fix pending
EOF

# --help: usage from the option table, exit codes, an example
run analyze --help
expect_rc "--help" 0
expect_in "--help lists --max" "$out" "--max=TRACER=DURATION"
expect_in "--help documents exit status 2" "$out" "2  a gate failed"
expect_in "--help has an example" "$out" "lathound analyze --max irqsoff=500us"

# Default text report on a real snapshot
run analyze "${NORULES[@]}" "$NOFUNC"
expect_rc "text report of a real irqsoff snapshot" 0
expect_in "text: worst per tracer" "$out" "irqsoff     2002 us         1     0  irq_test-82"
expect_in "text: start and end sites" "$out" "execute_preemptirqtest -> execute_preemptirqtest"
expect_in "text: innermost frames of the offender" "$out" \
	"preemptirq_delay_run < trace_hardirqs_on < execute_preemptirqtest"
expect_in "text: the worst section's stack" "$out" "    ret_from_fork"
expect_in "text: input counters" "$out" "Input: 1 snapshot parsed, 0 skipped as malformed"
expect_in "text: verdict" "$out" "Verdict: PASS (--fail-on critical)"

# JSON on real traces, field by field
run analyze "${NORULES[@]}" -f json "$NOFUNC"
expect_rc "--format json" 0
echo "$out" >"$TMP/nofunc.json"
expect_jq "json: top-level shape" "$TMP/nofunc.json" \
	'.lathound != null and .mode == "analyze" and .verdict == "pass" and .violations == [] and .run == null and .irq_stats == null'
expect_jq "json: tracer, latency, cpu" "$TMP/nofunc.json" \
	'.records[0] | .tracer == "irqsoff" and .latency_us == 2002 and .cpu == 0 and .nr_cpus == 1'
expect_jq "json: task" "$TMP/nofunc.json" \
	'.records[0].task | .comm == "irq_test" and .pid == 82 and .uid == 0 and .policy == 0 and .rt_prio == 0'
expect_jq "json: sites" "$TMP/nofunc.json" \
	'.records[0] | .started_at == "execute_preemptirqtest" and .ended_at == "execute_preemptirqtest"'
expect_jq "json: frames innermost first" "$TMP/nofunc.json" \
	'.records[0].stack == ["preemptirq_delay_run","trace_hardirqs_on","execute_preemptirqtest","preemptirq_delay_run","kthread","kthread","ret_from_fork"]'
expect_jq "json: kernel and model" "$TMP/nofunc.json" \
	'.records[0] | .kernel == "6.1.192" and .preempt_model == "preempt"'
expect_jq "json: source names the file and line" "$TMP/nofunc.json" \
	".records[0].source == \"$NOFUNC:1\""
expect_jq "json: tracers aggregate" "$TMP/nofunc.json" \
	'.tracers.irqsoff.max_us == 2002 and .tracers.irqsoff.count == 1 and (.tracers | length) == 1'
expect_jq "json: progression of maxima" "$TMP/nofunc.json" \
	'.tracers.irqsoff.progression == [{"cpu":0,"latency_us":2002,"at":null,"source":"'"$NOFUNC"':1"}]'
expect_jq "json: offenders" "$TMP/nofunc.json" \
	'.offenders[0] | .count == 1 and .worst_us == 2002 and .tracer == "irqsoff" and .frames[0] == "preemptirq_delay_run"'
expect_jq "json: totals" "$TMP/nofunc.json" \
	'.records_total == 1 and .records_kept == 1 and .records_dropped == 0 and .input.snapshots == 1 and .input.skipped == 0'
expect_jq "json: gate echoed" "$TMP/nofunc.json" '.gate == {"max_us":{},"min_available_percent":{},"fail_on":"critical"}'

run analyze "${NORULES[@]}" -f json "$IRQEV"
echo "$out" >"$TMP/irq.json"
expect_jq "json: irq handler names and durations" "$TMP/irq.json" \
	'.records[0].irqs[0] | .irq == 24 and .name == "fakeraid" and .duration_us > 1900 and .ret != null'

run analyze "${NORULES[@]}" -f json "$WAKEUP"
echo "$out" >"$TMP/wakeup.json"
expect_jq "json: wakeup_rt woken task, no sites" "$TMP/wakeup.json" \
	'.records[0] | .tracer == "wakeup_rt" and .woken.comm != null and .started_at == null'

# Gates: --max
run analyze "${NORULES[@]}" --max irqsoff=3ms "$NOFUNC"
expect_rc "--max under budget passes" 0
run analyze "${NORULES[@]}" --max irqsoff=2002us "$NOFUNC"
expect_rc "--max equal to the worst passes (strictly greater fails)" 0
run analyze "${NORULES[@]}" --max irqsoff=1ms "$NOFUNC"
expect_rc "--max exceeded fails the gate" 2
expect_in "text: violation says by how much" "$out" \
	"irqsoff: worst 2002us (irq_test-82 on CPU0) exceeds --max irqsoff=1ms by 1002us"
expect_in "text: verdict FAIL" "$out" "Verdict: FAIL"
run analyze "$NOFUNC" "${NORULES[@]}" -f json --max irqsoff=1ms
expect_rc "options after FILE are options" 2
echo "$out" >"$TMP/fail.json"
expect_jq "json: verdict and violation" "$TMP/fail.json" \
	'.verdict == "fail" and .violations == ["irqsoff: worst 2002us (irq_test-82 on CPU0) exceeds --max irqsoff=1ms by 1002us"] and .gate.max_us.irqsoff == 1000'
expect_in "json to stdout: violations also on stderr" "$err" "gate failed: irqsoff: worst 2002us"

# all= and a tracer's own budget (irqsoff 1999us, wakeup_rt 64us, preemptoff 46us)
run analyze "${NORULES[@]}" -f json --max all=50us --max irqsoff=2ms "$MULTI"
expect_rc "all= applies to tracers without their own budget" 2
echo "$out" >"$TMP/all.json"
expect_jq "all=: only wakeup_rt fails, irqsoff's own budget wins" "$TMP/all.json" \
	'(.violations | length) == 1 and (.violations[0] | startswith("wakeup_rt: worst 64us")) and (.violations[0] | endswith("exceeds --max all=50us by 14us"))'
run analyze "${NORULES[@]}" --max all=2ms "$MULTI"
expect_rc "all= above every worst passes" 0

# Bad gate values are usage errors naming the option and value
run analyze "${NORULES[@]}" --max irqsoff=1parsec "$NOFUNC"
expect_rc "bad --max duration" 1
expect_in "bad --max names option and value" "$err" "invalid --max 'irqsoff=1parsec'"
run analyze "${NORULES[@]}" --max irqsof=1ms "$NOFUNC"
expect_rc "bad --max tracer" 1
expect_in "bad --max tracer says why" "$err" "unknown tracer"
run analyze "${NORULES[@]}" --max 1ms "$NOFUNC"
expect_rc "--max without TRACER=" 1
# A budget is a latency: "1m" (a minute, meant as 1 ms) used to pass everything
run analyze "${NORULES[@]}" --max irqsoff=1m "$NOFUNC"
expect_rc "--max irqsoff=1m" 1
expect_in "--max irqsoff=1m: did you mean" "$err" \
	"invalid --max 'irqsoff=1m': 'm' is minutes, and a latency budget is under 1s: did you mean 'ms'?"
run analyze "${NORULES[@]}" --max all=2s "$NOFUNC"
expect_rc "--max all=2s" 1
expect_in "--max all=2s: under 1s" "$err" "a latency budget is under 1s: did you mean ms or us?"
run analyze "${NORULES[@]}" --max all=0 "$NOFUNC"
expect_rc "--max all=0" 1
expect_in "--max all=0: says why" "$err" "0 is not a latency budget"
run analyze "${NORULES[@]}" --max irqsoff=1000 "$NOFUNC"
expect_rc "--max irqsoff=1000: a bare budget is microseconds" 2
expect_in "--max irqsoff=1000: 1ms" "$out" "exceeds --max irqsoff=1ms"
run analyze "${NORULES[@]}" --fail-on urgent "$NOFUNC"
expect_rc "bad --fail-on" 1
expect_in "bad --fail-on names option and value" "$err" "invalid --fail-on 'urgent'"
run analyze "${NORULES[@]}" -f xml "$NOFUNC"
expect_rc "bad --format" 1
expect_in "bad --format names the value" "$err" "invalid --format 'xml'"
run analyze --keep -3 "$NOFUNC"
expect_rc "bad --keep" 1
run analyze --no-such-option "$NOFUNC"
expect_rc "unknown option" 1

# Rules and --fail-on
run analyze -r "$TMP/site.rules" -f json "$IRQEV"
expect_rc "a warning rule does not fail under the default --fail-on critical" 0
echo "$out" >"$TMP/rules.json"
expect_jq "json: the record names the rule that fired" "$TMP/rules.json" \
	'.records[0].rules == ["fakeraid-held"] and .records[0].severity == "warning" and .records[0].accepted == false'
expect_jq "json: every loaded rule is listed, hits 0 included" "$TMP/rules.json" \
	'.rules == [{"id":"fakeraid-held","severity":"warning","hits":1,"worst_us":2007,"accepted":0,"unevaluated":0,"unevaluated_reason":null,"message":"fakeraid handler runs with IRQs off","gate_worst_us":2007,"gate_unevaluated":0},{"id":"camera-known","severity":"ignore","hits":0,"worst_us":0,"accepted":0,"unevaluated":0,"unevaluated_reason":null,"message":"camera BSP fix pending","gate_worst_us":0,"gate_unevaluated":0}]'
run analyze -r "$TMP/site.rules" --fail-on warning "$IRQEV"
expect_rc "--fail-on warning fails on a warning rule" 2
expect_in "rule violation text" "$out" "rule fakeraid-held (warning) hit by 1 record, worst 2007us"
run analyze -r "$TMP/site.rules" --fail-on none --max all=999ms "$IRQEV"
expect_rc "--fail-on none" 0

# An ignore rule accepts the camera section: it never fails --max, and is shown as accepted
run analyze -r "$TMP/site.rules" -f json --max irqsoff=1ms "$MULTI"
expect_rc "accepted offender does not fail --max" 0
echo "$out" >"$TMP/accepted.json"
expect_jq "json: accepted record kept and marked" "$TMP/accepted.json" \
	'[.records[] | select(.accepted)] | length == 1 and .[0].latency_us == 1999 and .[0].rules == ["fakeraid-held","camera-known"]'
expect_jq "json: tracer max still shows the accepted worst" "$TMP/accepted.json" \
	'.tracers.irqsoff.max_us == 1999 and .verdict == "pass"'
run analyze -r "$TMP/site.rules" --max irqsoff=500us --fail-on warning "$MULTI"
expect_rc "the next non-accepted section still fails --max" 2
expect_in "violation names the non-accepted worst" "$out" "irqsoff: worst 512us (irq_test-83 on CPU1)"
expect_not_in "accepted record is not a rule violation" "$out" "rule fakeraid-held"

# Broken rule file: every error as file:line:col, exit 1 before reading any trace
printf '[ok]\nmatch = ^x\n\n[bad]\nmatch = (unclosed\nseverity = critical\n\n[bad2]\nmatch = y\nseverity = urgent\n' \
	>"$TMP/bad.rules"
run analyze -r "$TMP/bad.rules" "$TMP/no-such.trace"
expect_rc "broken rule file" 1
check "broken rule: regex error as file:line:col" grep -qE "^lathound: error: $TMP/bad.rules:5:[0-9]+: " "$TMP/err"
check "broken rule: every error is listed" grep -qE "^lathound: error: $TMP/bad.rules:10:[0-9]+: .*urgent" "$TMP/err"
expect_not_in "broken rule: traces are not read" "$err" "cannot open trace"
run analyze -r "$TMP/missing.rules" "$NOFUNC"
expect_rc "missing rule file" 1
expect_in "missing rule file is named" "$err" "$TMP/missing.rules"

# Unreadable input
run analyze "${NORULES[@]}" "$TMP/nope.trace"
expect_rc "missing trace" 1
expect_in "missing trace message" "$err" \
	"lathound: error: cannot open trace '$TMP/nope.trace': No such file or directory"
run analyze "${NORULES[@]}" -f json "$TMP/nope.trace" "$NOFUNC"
expect_rc "one unreadable trace among several still exits 1" 1
echo "$out" >"$TMP/partial.json"
expect_jq "the report covers the traces that could be read" "$TMP/partial.json" \
	'.records_total == 1 and .tracers.irqsoff.max_us == 2002'
run analyze "${NORULES[@]}" "$TMP"
expect_rc "a directory is not a trace" 1
expect_in "directory message" "$err" "cannot read trace '$TMP': Is a directory"

# -o writes the report atomically
echo old >"$TMP/report.json"
run analyze "${NORULES[@]}" -f json -o "$TMP/report.json" "$NOFUNC"
expect_rc "-o FILE" 0
check "-o: nothing on stdout" test -z "$out"
expect_jq "-o: the file is the JSON report" "$TMP/report.json" '.records[0].latency_us == 2002'
check "-o: no temporary file left" test -z "$(ls -A "$TMP" | grep -e '\.tmp$' -e '\.lathound-')"
run analyze "${NORULES[@]}" -o "$TMP/report.txt" --max irqsoff=1ms "$NOFUNC"
expect_rc "-o with a failed gate" 2
check "-o: text report written" grep -q "Verdict: FAIL" "$TMP/report.txt"
expect_in "-o: violations on stderr" "$err" "gate failed: irqsoff"

# Write errors
if [ -c /dev/full ]; then
	run analyze "${NORULES[@]}" -f json -o /dev/full "$NOFUNC"
	expect_rc "-o /dev/full" 1
	expect_in "-o /dev/full: refused, a device is not a regular file" "$err" \
		"cannot write report '/dev/full': it is a character device, and only a regular file is replaced"
	check "-o /dev/full: still a device" test -c /dev/full
	"${LATHOUND_RUN[@]}" analyze "${NORULES[@]}" -f json "$NOFUNC" >/dev/full 2>"$TMP/err"
	rc=$?
	err=$(cat "$TMP/err")
	expect_rc "--format json > /dev/full" 1
	expect_in "stdout write error is reported" "$err" \
		"write error on standard output: No space left on device"
else
	skip "-o /dev/full" "no /dev/full here"
fi

full=$TMP/full
mkdir -p "$full"
if [ "$(id -u)" != 0 ]; then
	skip "-o to a full file system" "needs root to mount a small tmpfs"
elif ! mount -t tmpfs -o size=16k tmpfs "$full" 2>/dev/null; then
	skip "-o to a full file system" "cannot mount a tmpfs here"
else
	echo old >"$full/r.json"
	run analyze "${NORULES[@]}" -f json --keep 1000 -o "$full/r.json" "$DATA"/*.trace
	expect_rc "-o to a full file system" 1
	expect_in "full file system: clear message" "$err" \
		"cannot write report '$full/r.json': No space left on device"
	check "full file system: the old report is intact" grep -qx old "$full/r.json"
	check "full file system: no temporary file left" test "$(ls -A "$full")" = r.json
	umount "$full"
fi

# Standard input: '-', no FILE, and a pipe
run analyze "${NORULES[@]}" -f json - <"$NOFUNC"
expect_rc "'-' reads standard input" 0
echo "$out" >"$TMP/stdin.json"
expect_jq "stdin: record parsed, source <stdin>" "$TMP/stdin.json" \
	'.records[0].latency_us == 2002 and .records[0].source == "<stdin>:1"'
run analyze "${NORULES[@]}" -f json <"$NOFUNC"
expect_rc "no FILE reads standard input" 0
expect_in "no FILE: record parsed" "$out" '"latency_us": 2002'
"${LATHOUND_RUN[@]}" analyze "${NORULES[@]}" -f json < <(cat "$MULTI") >"$TMP/pipe.json" 2>"$TMP/err"
rc=$?
expect_rc "a pipe on standard input" 0
expect_jq "pipe: every snapshot read" "$TMP/pipe.json" '.records_total == 5'

# Concatenated snapshots in one file
cat "$NOFUNC" "$PREEMPT" "$NOFUNC" >"$TMP/cat.trace"
run analyze "${NORULES[@]}" -f json "$TMP/cat.trace"
expect_rc "concatenated snapshots" 0
echo "$out" >"$TMP/cat.json"
expect_jq "concatenated: every snapshot is a record" "$TMP/cat.json" \
	'.records_total == 3 and .input.snapshots == 3 and .tracers.irqsoff.count == 2 and .tracers.preemptoff.max_us == 3002'
expect_jq "concatenated: offenders grouped by signature" "$TMP/cat.json" \
	'[.offenders[] | select(.tracer == "irqsoff")][0].count == 2'
n1=$(wc -l <"$NOFUNC")
expect_jq "concatenated: sources name the line of each snapshot" "$TMP/cat.json" \
	"[.records[].source] | sort == ([\"$TMP/cat.trace:1\", \"$TMP/cat.trace:$((n1 + 1))\", \"$TMP/cat.trace:$((2 * n1 + 1))\"] | sort)"

# Malformed input: warnings with file:line, still a report that counts what was skipped
run analyze "${NORULES[@]}" -f json "$MALFORMED"
expect_rc "malformed trace: an error (snapshots skipped), still a report" 1
echo "$out" >"$TMP/malformed.json"
check "malformed: warning with file:line on stderr" \
	grep -qE "^lathound: warning: $MALFORMED:[0-9]+: " "$TMP/err"
expect_jq "malformed: skipped snapshots counted" "$TMP/malformed.json" \
	'.input.skipped >= 1 and .input.warnings_total >= 1 and (.input.warnings | length) == .input.warnings_total and .records_total >= 1'
expect_jq "malformed: the verdict is error, naming the file" "$TMP/malformed.json" \
	".verdict == \"error\" and (.error | startswith(\"trace '$MALFORMED': 4 of 6 snapshots skipped as malformed\"))"
nwarn=$(grep -c '^lathound: warning: ' "$TMP/err")
expect_jq "malformed: every warning printed is in the report" "$TMP/malformed.json" \
	".input.warnings_total == $nwarn"
run analyze "${NORULES[@]}" "$MALFORMED"
expect_in "text: skipped count shown" "$out" "skipped as malformed"
run analyze "${NORULES[@]}" -q "$MALFORMED"
expect_rc "-q: still an error" 1
check "-q: no warnings on stderr, only the error" \
	test "$(grep -vc "^lathound: error: trace '$MALFORMED': 4 of 6 snapshots skipped" "$TMP/err")" = 0
run analyze "${NORULES[@]}" -q --allow-unreadable "$MALFORMED"
expect_rc "-q --allow-unreadable: the gates decide" 0
check "-q --allow-unreadable: nothing on stderr" test -z "$err"

# Many malformed snapshots: the first warnings, then how many more
for i in $(seq 30); do cat "$DATA/handmade-truncated-header.trace"; done >"$TMP/many.trace"
run analyze "${NORULES[@]}" -f json "$TMP/many.trace"
echo "$out" >"$TMP/many.json"
nprinted=$(grep -c "^lathound: warning: $TMP/many.trace:" "$TMP/err")
check "many warnings: at most 20 printed ($nprinted)" test "$nprinted" -le 20
expect_in "many warnings: and N more" "$err" "more"
expect_jq "many warnings: all counted" "$TMP/many.json" '.input.warnings_total >= 30 and .input.skipped == 30'

# --keep bounds the records kept in full, not the totals
run analyze "${NORULES[@]}" -f json --keep 2 "$MULTI"
echo "$out" >"$TMP/keep.json"
expect_jq "--keep 2: two worst kept, totals count all" "$TMP/keep.json" \
	'.records_kept == 2 and .records_total == 5 and .records_dropped == 3 and [.records[].latency_us] == [1999, 512] and .tracers.irqsoff.count == 3'

# JUnit
run analyze -r "$TMP/site.rules" -f junit --max irqsoff=1ms --max all=999ms --fail-on warning "$IRQEV"
expect_rc "--format junit with failed gates" 2
echo "$out" >"$TMP/junit.xml"
expect_in "junit: a testcase per budget, named by its tracer" "$out" '<testcase classname="lathound.max" name="irqsoff" '
expect_in "junit: the budget in its text" "$out" '<system-out>budget --max irqsoff=1ms; irqsoff: 1 section, worst 2007us</system-out>'
expect_in "junit: an all budget that covers nothing read says so" "$out" \
	'<testcase classname="lathound.max" name="all" '
expect_in "junit: a testcase per rule" "$out" '<testcase classname="lathound.rules" name="camera-known" '
expect_in "junit: failure says what failed" "$out" \
	'<failure message="irqsoff: worst 2007us (irq_test-82 on CPU0) exceeds --max irqsoff=1ms by 1007us"'
check "junit: 4 testcases" test "$(grep -c '<testcase ' "$TMP/junit.xml")" = 4
check "junit: 2 failures" test "$(grep -c '<failure ' "$TMP/junit.xml")" = 2
expect_in "junit: suite counts" "$out" 'tests="4" failures="2"'
if command -v xmllint >/dev/null; then
	check "junit: well-formed XML (xmllint)" xmllint --noout "$TMP/junit.xml"
elif command -v python3 >/dev/null; then
	check "junit: well-formed XML (python3)" python3 -c \
		'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$TMP/junit.xml"
else
	skip "junit: well-formed XML" "neither xmllint nor python3 is installed"
fi
# --max all=: one testcase per tracer measured, named by the tracer alone (stable for CI
# histories when the budget changes), the budget in its text
run analyze "${NORULES[@]}" -f junit --max all=1ms "$MULTI"
expect_rc "junit, --max all= over three tracers" 2
echo "$out" >"$TMP/junit-all.xml"
check "junit --max all=: one testcase per tracer" \
	test "$(grep -o '<testcase [^>]*name="[^"]*"' "$TMP/junit-all.xml" | tr '\n' ' ')" = \
	'<testcase classname="lathound.max" name="irqsoff" <testcase classname="lathound.max" name="preemptoff" <testcase classname="lathound.max" name="wakeup_rt" '
expect_in "junit --max all=: the tracer over budget fails" "$out" \
	'<failure message="irqsoff: worst 1999us (camera_poll-145 on CPU0) exceeds --max all=1ms by 999us"'
check "junit --max all=: only that one" test "$(grep -c '<failure ' "$TMP/junit-all.xml")" = 1
expect_in "junit --max all=: a passing tracer says its budget and worst" "$out" \
	'<system-out>budget --max all=1ms; wakeup_rt: 1 section, worst 64us</system-out>'
run analyze "${NORULES[@]}" -f junit --max all=2ms "$MULTI"
expect_rc "junit, a looser --max all=" 0
check "junit: the testcase names do not change with the budget" \
	test "$(grep -o '<testcase [^>]*>' <<<"$out" | tr '\n' ' ')" = \
	"$(grep -o '<testcase [^>]*>' "$TMP/junit-all.xml" | tr '\n' ' ')"

run analyze -r "$TMP/site.rules" -f junit "$IRQEV"
expect_rc "--format junit, gates pass" 0
expect_not_in "junit: no failure" "$out" "<failure"
expect_in "junit: rule below --fail-on says its hits" "$out" "1 hit (0 accepted), worst 2007us; severity warning, --fail-on critical: below --fail-on"

# Every trace of the corpus at once
# (two hold a snapshot lathound skips as malformed, one a body cut short: an error unless
# accepted)
run analyze "${NORULES[@]}" -f json "$DATA"/*.trace
expect_rc "the whole corpus: files with a skipped snapshot or a cut body make it an error" 1
echo "$out" >"$TMP/all-data.json"
expect_jq "corpus: the files not read in full are named" "$TMP/all-data.json" \
	"[.input.files[] | select(.problem) | .name] == [\"$DATA/handmade-malformed.trace\", \"$DATA/handmade-truncated-body.trace\", \"$DATA/handmade-truncated-header.trace\"]"
run analyze "${NORULES[@]}" -f json --allow-unreadable "$DATA"/*.trace
expect_rc "the whole corpus, --allow-unreadable" 0
echo "$out" >"$TMP/all-data.json"
expect_jq "corpus: every tracer seen" "$TMP/all-data.json" \
	'[.tracers | keys[]] | contains(["irqsoff","preemptoff","preemptirqsoff","wakeup","wakeup_rt","wakeup_dl"])'
expect_jq "corpus: records sorted worst first" "$TMP/all-data.json" \
	'[.records[].latency_us] as $l | $l == ($l | sort | reverse)'
expect_jq "corpus: counts add up" "$TMP/all-data.json" \
	'.records_total == ([.tracers[].count] | add) and .records_total == .input.snapshots and .records_total == .records_kept + .records_dropped'

# The real snapshots of tests/vm under the shipped rules and the lhx driver's: each names it
run analyze -r "$TOP/rules" --add-rules "$LHX_RULES" -f json "$DATA"/vm-*.trace
expect_rc "vm snapshots under rules/: a critical rule fails the gate" 2
echo "$out" >"$TMP/vm.json"
expect_jq "vm: lhx-fakeraid-irq (critical) fires on the three fakeraid snapshots" "$TMP/vm.json" \
	'([.records[] | select(.rules | index("lhx-fakeraid-irq")) |
	  .source | sub("^.*/"; "")] | sort) ==
	 ["vm-irqsoff-fakeraid.trace:1", "vm-irqsoff-func.trace:1", "vm-irqsoff-kprobe.trace:1"]
	 and any(.violations[]; startswith("rule lhx-fakeraid-irq (critical) hit by 3 records"))'
expect_jq "vm: lhx-fakeraid-handler fires only where function-trace shows the handler" \
	"$TMP/vm.json" '[.records[] | select(.rules | index("lhx-fakeraid-handler")) |
	  .source | sub("^.*/"; "")] ==
	 ["vm-irqsoff-func.trace:1"]'
expect_jq "vm: lhx-preempt-hog fires on the preemptoff snapshot" "$TMP/vm.json" \
	'any(.records[]; .tracer == "preemptoff" and .started_at == "lhx_preempt_hog" and
	     (.rules | index("lhx-preempt-hog")))'
expect_jq "vm: lhx-wakeup-delay fires on wakeup_rt (lhx_rt) and wakeup_dl (lhx_dl)" "$TMP/vm.json" \
	'[.records[] | select(.rules | index("lhx-wakeup-delay")) | "\(.tracer) \(.woken.comm)"] |
	 sort == ["wakeup_dl lhx_dl", "wakeup_rt lhx_rt"]'

# A rule that could not be evaluated is not a pass: a PCRE2 limit on a rule the gate depends on
# (at or above --fail-on, record in its scope, not accepted) makes the verdict "error" (exit 1),
# as git grep and GNU grep stop; the record and the rule say so in every format. The impossible
# end is a lookahead, which the prefilter (Vectorscan) cannot rule out: PCRE2 runs and gives up.
FUNC=$DATA/pidt-preemptirqsoff-func.trace
cat >"$TMP/bt.rules" <<'EOF'
[bt]
match = ^(\w|[a-z])+(?=[^\w+]{2}$)
in = stack
severity = critical
[ok]
match = ^load_module$
in = stack
severity = info
EOF
run analyze -r "$TMP/bt.rules" -f json "$FUNC"
expect_rc "unevaluated critical rule: error" 1
printf '%s' "$out" >"$TMP/bt.json"
expect_jq "unevaluated: verdict error, the rule and the limit named" "$TMP/bt.json" \
	'.verdict == "error" and (.error | startswith("rule bt (critical) could not be evaluated on 1 record (pattern hit the PCRE2 match limit"))'
expect_jq "unevaluated: the record lists the rule apart from those that fired" "$TMP/bt.json" \
	'.records[0].rules == ["ok"] and .records[0].unevaluated_rules == ["bt"]'
expect_jq "unevaluated: counted per rule, with the reason" "$TMP/bt.json" \
	'.rules[0].unevaluated == 1 and (.rules[0].unevaluated_reason | test("match limit")) and .rules[1].unevaluated == 0'
expect_in "unevaluated: said on stderr" "$err" \
	"lathound: error: rule bt (critical) could not be evaluated on 1 record"
run analyze -r "$TMP/bt.rules" "$FUNC"
expect_rc "unevaluated, text" 1
expect_in "unevaluated, text: the verdict" "$out" "Verdict: ERROR: rule bt (critical) could not be evaluated"
expect_in "unevaluated, text: the record" "$out" "  unevaluated: bt"
run analyze -r "$TMP/bt.rules" -f junit "$FUNC"
expect_rc "unevaluated, junit" 1
expect_in "unevaluated, junit: the rule's testcase fails" "$out" \
	'<failure message="rule bt could not be evaluated on 1 record (pattern hit the PCRE2 match limit'
# no gate depends on it: below --fail-on, or the record accepted by an 'ignore' rule
run analyze -r "$TMP/bt.rules" -f json --fail-on none "$FUNC"
expect_rc "unevaluated rule, --fail-on none: pass" 0
sed 's/^severity = critical$/severity = warning/' "$TMP/bt.rules" >"$TMP/bt-warn.rules"
run analyze -r "$TMP/bt-warn.rules" -f json "$FUNC"
expect_rc "unevaluated warning rule under --fail-on critical: pass" 0
printf '%s' "$out" >"$TMP/bt-warn.json"
expect_jq "unevaluated warning rule: still shown" "$TMP/bt-warn.json" \
	'.verdict == "pass" and .records[0].unevaluated_rules == ["bt"]'
sed 's/^severity = info$/severity = ignore/' "$TMP/bt.rules" >"$TMP/bt-ign.rules"
run analyze -r "$TMP/bt-ign.rules" -f json "$FUNC"
expect_rc "unevaluated rule on an accepted record: pass" 0
# out of the rule's scope (tracer): not evaluated for that record, so not marked
sed '3a tracer = irqsoff' "$TMP/bt.rules" >"$TMP/bt-scope.rules"
run analyze -r "$TMP/bt-scope.rules" -f json "$FUNC"
expect_rc "unevaluated rule out of its tracer scope: pass" 0
printf '%s' "$out" >"$TMP/bt-scope.json"
expect_jq "out of scope: not marked" "$TMP/bt-scope.json" '.records[0].unevaluated_rules == []'

# A cut snapshot is an input not read in full; an elided one is read as published.
# head -n 47 keeps 26 of the 167 entries its header declares, and stops right before the
# fakeraid handler that fails the full trace's gate.
FULL=$DATA/vm-irqsoff-func.trace
head -n 47 "$FULL" >"$TMP/cut.trace"
cut_why="trace '$TMP/cut.trace': 1 of 1 snapshots cut, read in part (line 1: snapshot 'irqsoff' shows 26 of the 167 entries its header declares, and no elision marker)"
run analyze "$FULL"
expect_rc "the whole vm-irqsoff-func.trace fails its gate" 2
run analyze "$TMP/cut.trace"
expect_rc "its first 47 lines (a body cut after 26 of 167 entries): an error" 1
expect_in "cut body: stderr names the file and how it is cut" "$err" "error: $cut_why"
expect_in "cut body: the text report's verdict says so" "$out" "Verdict: ERROR"
run analyze -f json "$TMP/cut.trace"
printf '%s' "$out" >"$TMP/cut.json"
expect_jq "cut body: JSON names the input and why" "$TMP/cut.json" \
	".verdict == \"error\" and (.input.files[0].problem | startswith(\"trace '$TMP/cut.trace': 1 of 1 snapshots cut\")) and .records[0].body == \"cut\""
run analyze -f junit "$TMP/cut.trace"
expect_in "cut body: JUnit has an error testcase for the input" "$out" \
	'<testcase classname="lathound.input" name="'"$TMP"'/cut.trace"'
expect_in "cut body: JUnit says why" "$out" "1 of 1 snapshots cut, read in part"
run analyze -f html "$TMP/cut.trace"
expect_in "cut body: HTML says why" "$out" "1 of 1 snapshots cut, read in part"
run analyze --allow-unreadable -f json "$TMP/cut.trace"
expect_rc "cut body, --allow-unreadable: the gates judge what was read" 0
printf '%s' "$out" >"$TMP/cut-ok.json"
expect_jq "cut body, --allow-unreadable: listed as accepted" "$TMP/cut-ok.json" \
	'.input.files[0].accepted == true and (.input.files[0].problem | contains("cut"))'
# the input ends mid-line (head -c): every entry there, the last stack frame cut
head -c -8 "$FULL" >"$TMP/unended.trace"
run analyze "$TMP/unended.trace"
expect_rc "a body that ends mid-line (head -c): an error" 1
expect_in "ends mid-line: said so" "$err" \
	"(line 1: the input ends inside the body of snapshot 'irqsoff', mid-line)"
# an elision marker ('[...]', '...', '<snip>') where entries are left out: read in full
sed '60,150c\[...]' "$FULL" >"$TMP/elided.trace"
run analyze -f json "$TMP/elided.trace"
expect_rc "the same trace with entries elided ('[...]'): read, its gate fails" 2
printf '%s' "$out" >"$TMP/elided.json"
expect_jq "elided body: listed as elided, no problem" "$TMP/elided.json" \
	'.records[0].body == "elided" and (.input.files[0].problem == null)'

# A section longer than the ring buffer: the kernel lost its first entries (#N/M with N < M)
# and its body begins past the section's start. The same trace with its first 26 entries
# (0-14 us) gone and the header counting 4093 written: cut, an error, said where it begins.
sed -e '22,47d' -e 's|#167/167|#141/4093|' "$FULL" >"$TMP/lost.trace"
run analyze -f json "$TMP/lost.trace"
expect_rc "first entries lost in the ring buffer (#141/4093, body from 15 us): an error" 1
expect_in "lost start: stderr says where the body begins" "$err" \
	"(line 1: snapshot 'irqsoff' begins 15 us into its section: the ring buffer lost its first entries (#141/4093))"
printf '%s' "$out" >"$TMP/lost.json"
expect_jq "lost start: JSON body cut, start_lost_us 15, verdict error" "$TMP/lost.json" \
	'.verdict == "error" and .records[0].body == "cut" and .records[0].start_lost_us == 15'
run analyze --allow-unreadable -f json "$TMP/lost.trace"
expect_rc "lost start, --allow-unreadable: the fakeraid handler it kept fails the gate" 2
printf '%s' "$out" >"$TMP/lost-ok.json"
run report "$TMP/lost-ok.json"
expect_in "lost start, read back: the text report says where the body begins" "$out" \
	"body:        cut, 141 of 141 entries shown, from 15 us into the section (the ring buffer lost the first ones)"
expect_jq "a whole body: start_lost_us null" "$TMP/elided.json" '.records[0].start_lost_us == null'
jq '.records[0].start_lost_us = 5' "$TMP/elided.json" >"$TMP/forged-lost.json"
run report "$TMP/forged-lost.json"
expect_rc "a saved report with start_lost_us on a body not cut: refused" 1
expect_in "... said" "$err" "start_lost_us: set on a body that is not cut"

# Bash completion: options come from the command's --help, values from what they accept
comp() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _lathound
		 echo "${COMPREPLY[*]}"' comp "$TOP/doc/lathound.bash-completion" "$LATHOUND" "$@"
}
expect_in "completion: commands" "$(comp an)" "analyze"
expect_in "completion: analyze options from --help" "$(comp analyze --f)" "--fail-on= --format="
expect_in "completion: --format values" "$(comp analyze --format j)" "json junit"
expect_in "completion: --max tracers" "$(comp analyze --max wakeup_)" "wakeup_rt= wakeup_dl="
expect_in "completion: --fail-on values" "$(comp analyze --fail-on '')" "info warning critical none"

finish
