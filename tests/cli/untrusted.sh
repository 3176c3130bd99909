#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Saved reports from other boards are untrusted: their verdicts and other derived fields are
# checked against the data they summarize, a budget on a tracer never measured is an error
# in every command, a report's size and shape cannot exhaust memory or time. Each case is
# the attack of a board owner (or a damaged file) that made a FAIL read as a PASS.
. "$(dirname "$0")/../lib.sh"

FUNC=$DATA/vm-irqsoff-func.trace
HOG=$DATA/vm-preemptoff-hog.trace
"$LATHOUND" analyze -f json -o "$TMP/A.json" "$FUNC" 2>/dev/null
"$LATHOUND" analyze -f json -o "$TMP/P.json" "$HOG" 2>/dev/null

# rec ID IN OUT: IN made a 'record' report of run ID (what a board's report.json says).
rec() {
	jq --arg id "$1" '.mode = "record" | .run = {
		started_at: "2026-11-29T18:00:01Z", ended_at: "2026-11-29T18:00:11Z",
		duration_s: 10, threshold_us: 0, captures: 1, sections_lost: 0,
		snapshots_dropped: 0, wait_method: "poll", command: null, command_status: null,
		end_reason: "duration", kernel: "6.1.0", host: "board1", run_id: $id,
		not_measured: {}}' "$2" >"$3"
}

# ---- --max on a tracer never measured is an error, in every command ----
run report --fail-on none --max preemptoff=1us "$TMP/A.json"
expect_rc "report --max on a tracer the report never measured" 1
expect_in "... said" "$err" "preemptoff is gated by --max preemptoff but was not measured (the input holds no section of it)"
run analyze --fail-on none --max preemptoff=1us "$FUNC"
expect_rc "analyze --max on a tracer the trace never measured" 1
run analyze --fail-on none --max preemptoff=1us -f json "$FUNC"
echo "$out" >"$TMP/nm.json"
expect_jq "... its JSON verdict is error" "$TMP/nm.json" '.verdict == "error"'
run analyze --fail-on none --max all=900ms "$FUNC"
expect_rc "'all' judges the tracers that were measured" 0
rec 00000000000000000000000000000001 "$TMP/A.json" "$TMP/rec1.json"
jq '.run.not_measured = {preemptoff: "not available in this kernel"}' "$TMP/rec1.json" \
	>"$TMP/rec1nm.json"
run report --fail-on none --max preemptoff=1us "$TMP/rec1nm.json"
expect_rc "report --max on a tracer a record run says it did not measure" 1
expect_in "... with the run's reason" "$out" "not measured (not available in this kernel)"
run report --fail-on none --max all=900ms "$TMP/rec1nm.json"
expect_rc "... under --max all too" 1
run merge --fail-on none --max preemptoff=1us "$TMP/A.json"
expect_rc "merge --max on a tracer no report measured" 1

# ---- an error is told apart by what the data derive, never by its words ----
# U: A whose critical rule could not be evaluated on a record: the error its own gate derives,
# derived again (and gone) under --fail-on none. W: A with a run error worded as that one ends:
# it stays, whatever the gate (it read as derived once, and --fail-on none passed it).
jq '(.rules[] | select(.id == "raid-irq-held")) |= (.unevaluated = 1 | .gate_unevaluated = 1)
	| .verdict = "error" | .error = "rule raid-irq-held (critical) could not be evaluated on 1 record (PCRE2 error): the --fail-on critical gate cannot be decided"' \
	"$TMP/A.json" >"$TMP/U.json"
run report "$TMP/U.json"
expect_rc "an undecided report under its own gate stays undecided" 1
expect_in "... said" "$err" "the --fail-on critical gate cannot be decided"
run report --fail-on none "$TMP/U.json"
expect_rc "... and under --fail-on none it is judged again: nothing undecided" 0
jq '.verdict = "error" | .error = "the workload failed: rule x could not be evaluated on 1 record (y): the --fail-on critical gate cannot be decided"' \
	"$TMP/A.json" >"$TMP/W.json"
run report --fail-on none "$TMP/W.json"
expect_rc "a run error worded as an undecided gate stays an error under --fail-on none" 1
expect_in "... said" "$err" "the workload failed: rule x"

# ---- derived fields are checked against the data they summarize ----
# B: A with rule raid-irq-held's one critical hit said accepted, its verdict pass.
jq '(.rules[] | select(.id == "raid-irq-held")) |= (.hits = 0 | .accepted = 1) |
	.verdict = "pass" | .violations = []' "$TMP/A.json" >"$TMP/B.json"
run report "$TMP/A.json"
expect_rc "report A: its critical hit fails the gate" 2
run report "$TMP/A.json" "$TMP/B.json"
expect_rc "report A B: B's 'accepted' does not cancel A's hit" 1
i=$(jq '[.rules[].id] | index("raid-irq-held")' "$TMP/B.json")
expect_in "... the field named" "$err" "report '$TMP/B.json': rules[$i].accepted: 1, more than its 0 hits"
jq '(.rules[] | select(.id == "raid-irq-held")) |= (.hits = 0) | .verdict = "pass" |
	.violations = []' "$TMP/A.json" >"$TMP/B0.json"
run report "$TMP/B0.json"
expect_rc "a kept record's hit that the rule's counts deny" 1
expect_in "... said" "$err" "records[0].rules: rule 'raid-irq-held' hits more records than its hits and accepted say"
jq '.records[0].accepted = true' "$TMP/A.json" >"$TMP/acc.json"
run report "$TMP/acc.json"
expect_rc "a kept record said accepted that no 'ignore' rule hit" 1
for v in 10 null; do
	if [ $v = null ]; then
		jq '.tracers.preemptoff.worst_gated = null' "$TMP/P.json" >"$TMP/P$v.json"
	else
		jq ".tracers.preemptoff.worst_gated.latency_us = $v" "$TMP/P.json" >"$TMP/P$v.json"
	fi
	run report --max preemptoff=100us "$TMP/P.json"
	expect_rc "report --max: the hog's 3001us fails" 2
	run report --max preemptoff=100us "$TMP/P$v.json"
	expect_rc "report --max: worst_gated set to $v is refused" 1
	expect_in "... the field named" "$err" "tracers.preemptoff.worst_gated: "
	run merge --max all=100us "$TMP/P$v.json"
	expect_rc "merge --max: worst_gated set to $v is refused" 1
done
jq '.tracers.preemptoff.max_us = 10' "$TMP/P.json" >"$TMP/max.json"
run report "$TMP/max.json"
expect_rc "a max_us that is not the worst's latency" 1

# ---- diff: a rule's severity within a side, the same run on both sides or twice ----
cp "$TMP/A.json" "$TMP/n1.json"
jq '(.rules[] | select(.id == "raid-irq-held")).severity = "warning" | .verdict = "pass" |
	.violations = []' "$TMP/A.json" >"$TMP/n2.json"
run report "$TMP/n2.json"
expect_rc "n2 (raid-irq-held a warning there) passes alone" 0
for order in "n1 n2" "n2 n1"; do
	set -- $order
	run diff --fail-on-new critical --base "$TMP/P.json" --new "$TMP/$1.json" --new "$TMP/$2.json"
	expect_rc "diff: new reports $1, $2 disagree on a rule's severity" 1
	expect_in "... said" "$err" "rule 'raid-irq-held' is "
done
rec 00000000000000000000000000000002 "$TMP/P.json" "$TMP/recP.json"
run diff --base "$TMP/recP.json" --new "$TMP/rec1.json"
expect_rc "diff of two runs" 0
run diff --base "$TMP/recP.json" --base "$TMP/rec1.json" --new "$TMP/rec1.json"
expect_rc "diff: the candidate's run in the base too" 1
expect_in "... said" "$err" "new report '$TMP/rec1.json' is the same run (run_id 00000000000000000000000000000001) as base report '$TMP/rec1.json'"
run diff --base "$TMP/recP.json" --new "$TMP/rec1.json" --new "$TMP/rec1.json"
expect_rc "diff: one run twice in a side" 1

# ---- time linear in the report: 100,000 callers, 100,000 kernel histograms ----
# (quadratic before: 60,000 callers took 10.8 s, 60,000 histograms 82 s)
jq '.histograms = [{source: "kernel", kind: "irqsoff", cpu: null, unit: "us", buckets: [],
	count: 0, dropped: 0, callers_note: null,
	callers: [range(100000) | {symbol: "f\(.)+0x1/0x10", count: 1, max_us: 1}]}]' \
	"$TMP/A.json" >"$TMP/callers.json"
jq '.histograms = [range(100000) | {source: "kernel", kind: "irqsoff", cpu: ., unit: "us",
	buckets: [], count: 0, dropped: 0}]' "$TMP/A.json" >"$TMP/hists.json"
for f in callers hists; do
	SECONDS=0
	timeout 20 "$LATHOUND" report -f json -o "$TMP/$f.out" "$TMP/$f.json" 2>/dev/null
	rc=$? s=$SECONDS
	check "100,000 $f read in under 10 s (exit $rc, ${s} s)" test $rc = 2 -a $s -lt 10
done
expect_jq "... the 100,000 histograms all kept" "$TMP/hists.out" '.histograms | length == 100000'
expect_jq "... the callers, the 10 longest kept" "$TMP/callers.out" \
	'.histograms[0].callers | length == 10'

# ---- memory a small multiple of the input; an input cap real reports fit ----
# ("{}," is 3 bytes that json-c holds in about 800: 4 MiB of them took 1.09 GB)
{
	printf '{"lathound":"x","report_version":1,"junk":['
	head -c 1398000 /dev/zero | sed 's/\x0/{},/g'
	printf '{}]}'
} >"$TMP/junk.json"
if [ ! -x /usr/bin/time ]; then
	skip "a report of 4 MiB of {} is refused in bounded memory" "no /usr/bin/time (Debian package time)"
else
	/usr/bin/time -f %M -o "$TMP/rss" "$LATHOUND" report "$TMP/junk.json" >/dev/null 2>"$TMP/err"
	rc=$? kb=$(tail -1 "$TMP/rss")
	check "a report of 4 MiB of {} is refused (exit $rc) in under 64 MB ($kb kB)" \
		test $rc = 1 -a "$kb" -lt 65536
	expect_in "... said" "$(cat "$TMP/err")" "its structure would take more than 16 times its size in memory"
fi
head -c $((33 << 20)) /dev/zero | tr '\0' ' ' >"$TMP/big.json"
run report "$TMP/big.json"
expect_rc "a report over 32 MiB is refused" 1
expect_in "... said" "$err" "larger than 32 MiB"
run report - <"$TMP/big.json"
expect_rc "... from standard input too" 1
run merge --fail-on none "$TMP/big.json" "$TMP/A.json"
expect_rc "... by merge" 1

# ---- the mutation oracle, a short run (tests/fuzz/report-mutate.sh ROUNDS SEED for more) ----
"$TOP/tests/fuzz/report-mutate.sh" 40 1 || T_FAILED=1

finish
