#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lathound report as a user runs it: a saved JSON report read back gives the same report in
# every format and the same exit status, judged again by new gates; several reports merge;
# broken, inconsistent or foreign reports are errors that name the file and the field.
. "$(dirname "$0")/../lib.sh"

MULTI=$DATA/handmade-multi.trace
FUNC=$DATA/vm-irqsoff-func.trace
echo '# no rules' >"$TMP/none.rules"

# Every trace of tests/data and of the published corpus, with the shipped rules: analyze's
# JSON read back and written again is the same JSON (keys sorted), and the exit status is
# the same.
same=0 differ=
for f in "$DATA"/*.trace "$DATA"/published/*.trace; do
	"$LATHOUND" analyze -f json "$f" >"$TMP/a.json" 2>/dev/null
	rc_a=$?
	"${LATHOUND_RUN[@]}" report -f json "$TMP/a.json" >"$TMP/b.json" 2>"$TMP/err"
	rc_b=$?
	if [ $rc_a = $rc_b ] && cmp -s <(jq -S . "$TMP/a.json") <(jq -S . "$TMP/b.json"); then
		same=$((same + 1))
	else
		differ+=" $(basename "$f")($rc_a/$rc_b)"
	fi
done
check "json read back and written again is the same report, same exit ($same traces${differ:+; differ:$differ})" \
	test -z "$differ" -a $same -gt 20

# Text, JUnit: as analyze writes them from the traces.
for fmt in text junit; do
	"$LATHOUND" analyze -r "$TMP/none.rules" -f "$fmt" --max irqsoff=1ms "$MULTI" "$FUNC" \
		>"$TMP/direct.$fmt" 2>/dev/null
	"$LATHOUND" analyze -r "$TMP/none.rules" -f json --max irqsoff=1ms "$MULTI" "$FUNC" \
		>"$TMP/saved.json" 2>/dev/null
	run report -f "$fmt" "$TMP/saved.json"
	expect_rc "report -f $fmt: the saved gate fails again" 2
	# (JUnit's time and timestamp say when each was written)
	check "report -f $fmt: as analyze wrote it" cmp -s \
		<(sed -E 's/ (time|timestamp)="[^"]*"//g' "$TMP/direct.$fmt") \
		<(sed -E 's/ (time|timestamp)="[^"]*"//g' "$TMP/out")
done

# New gates replace the saved ones.
run report --max irqsoff=5ms "$TMP/saved.json"
expect_rc "--max replaces the saved budget" 0
expect_in "--max: the verdict names the new budget" "$out" "--max irqsoff=5ms"
run report --max all=40us -f json "$TMP/saved.json"
expect_rc "--max all=40us fails every tracer over it" 2
echo "$out" >"$TMP/new.json"
expect_jq "--max all=40us: violations of irqsoff, preemptoff, wakeup_rt" "$TMP/new.json" \
	'[.violations[] | split(":")[0]] == ["irqsoff", "preemptoff", "wakeup_rt"]'
run report -o "$TMP/out.txt" "$TMP/saved.json"
expect_rc "-o FILE" 2
check "-o FILE: the text report written" grep -q '^Verdict: FAIL' "$TMP/out.txt"
run report - <"$TMP/saved.json"
expect_rc "'-' reads standard input" 2

# Two reports merge: counts add up, the worst stays the worst.
"$LATHOUND" analyze -r "$TMP/none.rules" -f json "$MULTI" >"$TMP/m1.json" 2>/dev/null
"$LATHOUND" analyze -r "$TMP/none.rules" -f json "$FUNC" >"$TMP/m2.json" 2>/dev/null
run report -f json "$TMP/m1.json" "$TMP/m2.json"
expect_rc "two reports merged" 0
echo "$out" >"$TMP/merged.json"
expect_jq "merged: sections add up" "$TMP/merged.json" \
	"(.records_total == $(jq '.records_total' "$TMP/m1.json") + $(jq '.records_total' "$TMP/m2.json")) and .tracers.irqsoff.max_us == 2093"
expect_jq "merged: histograms add up" "$TMP/merged.json" \
	".tracers.irqsoff.histogram.count == $(jq '.tracers.irqsoff.histogram.count' "$TMP/m1.json") + $(jq '.tracers.irqsoff.histogram.count' "$TMP/m2.json")"
expect_jq "merged: merged_from names both" "$TMP/merged.json" \
	".merged_from == [\"$TMP/m1.json\", \"$TMP/m2.json\"]"
expect_in "merged analyze reports: the board cannot be checked, said" "$err" "does not say its host"

# The callers of the kernel's irqs-off histogram (record --hist) read back: the text report's
# table, the JSON as saved, and two reports merged (counts added, maxima kept); a caller's
# name with a control character is shown escaped.
with_callers "$TMP/m1.json" "$TMP/c1.json" 10 5000 $'evil\e[2J+0x1/0x2'
with_callers "$TMP/m1.json" "$TMP/c2.json" 4 5200 $'evil\e[2J+0x1/0x2'
run report "$TMP/c1.json"
expect_in "text: the callers' table" "$out" "longest sections by caller:"
expect_in "text: the longest caller first, with its max and count" "$out" \
	"  5000us          10  lhx_irqs_hog+0x1a/0x40 [lhx]"
check "text: no raw escape from a caller's name" test "$(grep -c $'\033' <<<"$out")" = 0
check "text: the callers' table fits 80 columns" \
	test "$(grep -A3 'longest sections by caller:' <<<"$out" | awk 'length > 80' | wc -l)" = 0
run report -f json "$TMP/c1.json"
echo "$out" >"$TMP/c1-back.json"
expect_jq "json: the callers read back as saved" "$TMP/c1-back.json" \
	'.histograms[0].callers[0] == {"symbol": "lhx_irqs_hog+0x1a/0x40 [lhx]", "count": 10, "max_us": 5000} and (.histograms[0].callers | length) == 2 and .histograms[0].callers_note == null'
run report -f json "$TMP/c1.json" "$TMP/c2.json"
echo "$out" >"$TMP/c-merged.json"
expect_jq "merged: a caller's counts add up, its max is the larger" "$TMP/c-merged.json" \
	'.histograms[0].callers[0] == {"symbol": "lhx_irqs_hog+0x1a/0x40 [lhx]", "count": 14, "max_us": 5200} and .histograms[0].callers[1].count == 6'

# Broken reports: exit 1, the file and the field named.
run report "$TMP/nothere.json"
expect_rc "missing file" 1
expect_in "missing file: named" "$err" "cannot open report '$TMP/nothere.json'"
printf '{"lathound": "0.1.0",' >"$TMP/cut.json"
run report "$TMP/cut.json"
expect_rc "cut JSON" 1
expect_in "cut JSON: not JSON" "$err" "report '$TMP/cut.json': not JSON"
jq '.tracers.irqsoff.count = "many"' "$TMP/saved.json" >"$TMP/bad.json"
run report "$TMP/bad.json"
expect_rc "a field of the wrong type" 1
expect_in "wrong type: the field named" "$err" "tracers.irqsoff.count"
jq '.report_version = 99' "$TMP/saved.json" >"$TMP/v99.json"
run report "$TMP/v99.json"
expect_rc "an unknown report_version" 1
expect_in "unknown report_version: said" "$err" "report_version"
jq '.verdict = "pass" | .violations = []' "$TMP/saved.json" >"$TMP/liar.json"
run report "$TMP/liar.json"
expect_rc "a verdict its own data contradict" 1
expect_in "inconsistent: said" "$err" "the report is inconsistent"
# A function a saved report names null (unknown) is read back and written again in every
# format, still null in JSON (a JSON writer once took its name's length and crashed).
jq '(.records[] | select((.function_counts | length) > 0) | .function_counts[0].name) = null' \
	"$TMP/saved.json" >"$TMP/nullname.json"
for f in text json junit; do
	run report -f $f "$TMP/nullname.json"
	expect_rc "-f $f: a function named null, the saved gate failing again" 2
done
run report -f json -o "$TMP/nullname-back.json" "$TMP/nullname.json"
expect_jq "json: the function named null stays null, its count kept" "$TMP/nullname-back.json" \
	'[.records[] | select((.function_counts | length) > 0) | .function_counts[0]]
	 | length > 0 and all(.name == null and .count > 0)'
# Several reports' counts that add up past 2^64 are an error naming the report and the
# field, not a sum gone round: four reports of 2^62 irqsoff sections each (one record, its
# counts made 2^62 everywhere they appear) read as 0 records and PASS. (jq's numbers are
# doubles: the counts are put in by sed.)
"$LATHOUND" analyze -q -f json "$DATA/ftrace-rst-irqsoff-func.trace" >"$TMP/pass.json"
jq '.records_total = 1234567 | .records_dropped = 7654321 | .offenders[0].count = 1234567
    | .tracers.irqsoff |= (.count = 1234567 | .histogram.count = 1234567
			    | .histogram.buckets[0].count = 1234567 | .cpus[0].count = 1234567
			    | .cpus[0].histogram.count = 1234567
			    | .cpus[0].histogram.buckets[0].count = 1234567)' "$TMP/pass.json" |
	sed 's/1234567/4611686018427387904/g; s/7654321/4611686018427387903/g' >"$TMP/huge.json"
run report -f json -o "$TMP/huge3.json" "$TMP/huge.json" "$TMP/huge.json" "$TMP/huge.json"
expect_rc "three reports of 2^62 sections: read (their sums fit)" 0
# (3 * 2^62 is past the largest JSON integer that readers take, 2^63 - 1: written as that)
check "... summed, written as the largest integer" \
	grep -q '"records_total": 9223372036854775807,' "$TMP/huge3.json"
run report -f json "$TMP/huge.json" "$TMP/huge.json" "$TMP/huge.json" "$TMP/huge.json"
expect_rc "four reports of 2^62 sections: their sums do not fit" 1
expect_in "... said, with the report and the field" "$err" \
	"report '$TMP/huge.json': tracers.irqsoff.count: the reports' counts add up past 2^64"
expect_in "... records_total too" "$err" \
	"report '$TMP/huge.json': records_total: the reports' counts add up past 2^64"
# One report whose records_total its tracers do not count is inconsistent (it passed, as a
# report of 2^62 records whose tracers counted 1).
jq '.records_total = 2' "$TMP/pass.json" >"$TMP/total.json"
run report "$TMP/total.json"
expect_rc "records_total its tracers contradict" 1
expect_in "... said" "$err" "records_total: 2, but its tracers count 1"
jq '.rules[0].unevaluated = 1234567 | .rules[0].gate_unevaluated = 1234567 |
    .verdict = "error" | .error = "unevaluated"' "$TMP/pass.json" |
	sed 's/1234567/4611686018427387904/g' >"$TMP/uneval.json"
run report -f json "$TMP/uneval.json" "$TMP/uneval.json" "$TMP/uneval.json" "$TMP/uneval.json"
expect_rc "four reports' unevaluated counts past 2^64" 1
expect_in "... said" "$err" "rules[0].gate_unevaluated: the reports' counts add up past 2^64"
# A tracer's records are counted in its histogram, each CPU's in the CPU's histogram, and
# no more in its CPUs than in all: a report that says otherwise is refused, in every format.
run report "$TMP/saved.json"
expect_rc "the saved report as written loads (its gate fails)" 2
jq '.tracers.irqsoff.count = 9223372036854775807' "$TMP/saved.json" >"$TMP/count.json"
jq '.tracers.irqsoff.cpus[0].count += 1' "$TMP/saved.json" >"$TMP/cpucount.json"
jq '.tracers.irqsoff.cpus += [.tracers.irqsoff.cpus[0] | .cpu = 7]' "$TMP/saved.json" \
	>"$TMP/cpusum.json"
for f in text json junit; do
	run report -f $f "$TMP/count.json"
	expect_rc "-f $f: a tracer count its histogram contradicts" 1
	expect_in "... said" "$err" \
		"report '$TMP/count.json': tracers.irqsoff.count: 9223372036854775807, but its histogram counts 4"
done
run report "$TMP/cpucount.json"
expect_rc "a CPU's count its histogram contradicts" 1
expect_in "... said" "$err" "tracers.irqsoff.cpus[0].count: 4, but its histogram counts 3"
run report "$TMP/cpusum.json"
expect_rc "CPUs that count more records than the tracer" 1
expect_in "... said" "$err" "tracers.irqsoff.count: 4, but its CPUs count 7"
run diff "$TMP/saved.json" "$TMP/count.json"
expect_rc "diff: an inconsistent new report is an error" 1
expect_in "... said" "$out" "Verdict: ERROR: a new report could not be read: report '$TMP/count.json'"
run merge --fail-on none "$TMP/saved.json" "$TMP/cpusum.json"
expect_rc "merge: an inconsistent report is an error" 1
run merge --fail-on none --allow-unreadable "$TMP/saved.json" "$TMP/cpusum.json"
expect_rc "merge --allow-unreadable: listed instead" 0
expect_in "... as accepted" "$out" "its CPUs count 7 (accepted: --allow-unreadable)"
jq '.verdict = "error" | .error = "the workload failed"' "$TMP/saved.json" >"$TMP/err.json"
run report "$TMP/err.json"
expect_rc "a run that failed stays an error" 1
expect_in "a run that failed: its error said" "$err" "the workload failed"
run report
expect_rc "no report given" 1

# Untrusted text in a report never reaches the terminal raw.
jq '.records[0].task.comm = "evil\u001b[2Jx"' "$TMP/m2.json" >"$TMP/esc.json"
run report "$TMP/esc.json"
check "control bytes of a report are not printed raw" \
	test "$(grep -c $'\033' "$TMP/out")" = 0
expect_in "... but shown escaped" "$out" 'evil\x1b[2Jx-75'

# Counts past 2^32 (a month of soak, a fleet's warnings) read back as they were written, on a
# 32-bit build too (tests/cross runs this script under qemu-arm), in JSON and in text.
"$LATHOUND" analyze -r "$TMP/none.rules" -f json "$MULTI" >"$TMP/small.json" 2>/dev/null
B=5000000000
jq ".input.bad_lines += $B | .input.warnings_total += $B | .input.incomplete += $B |
    .input.cut_lines += $B" "$TMP/small.json" >"$TMP/big.json"
run report -f json "$TMP/big.json"
expect_rc "a report whose counts pass 2^32 reads back" 0
echo "$out" >"$TMP/big-again.json"
expect_jq "... with the same counts" "$TMP/big-again.json" \
	"[.input | .bad_lines, .warnings_total, .incomplete, .cut_lines] == [$B, $B, $B, $B]"
run report -f text "$TMP/big.json"
expect_in "... and says them in text" "$out" "$B bad lines, $B warnings"

# The hardware floor: a timerlat/osnoise/hwlat run's report (the spikes fixture) with hwlat's
# samples per CPU shows them beside the software tracers' worst there; the claim a saved
# report makes of it is recomputed, never copied.
jq '.histograms = [{"source": "kernel", "kind": "hwlat", "cpu": 0, "unit": "us", "count": 10,
	"min": 12, "max": 3500, "mean": 360, "dropped": 0,
	"buckets": [{"lo": 12, "hi": 13, "count": 9}, {"lo": 3500, "hi": 3600, "count": 1}]}]' \
	"$DATA/reports/spikes.json" >"$TMP/floor.json"
run report "$TMP/floor.json"
expect_rc "hwlat beside timerlat and osnoise: report reads" 0
expect_in "... and states the floor of CPU 0 beside timerlat's worst there" "$out" \
	"  CPU0           10        3500us     <= 3500us  timerlat 4100us (600us over it)"
expect_not_in "... CPU 1, where hwlat counted nothing, has no floor" "$out" "timerlat 6301us ("
run report -f json "$TMP/floor.json"
echo "$out" >"$TMP/floor-out.json"
expect_jq "... in JSON" "$TMP/floor-out.json" \
	'.hardware_floor == [{"cpu": 0, "samples": 10, "worst_us": 3500, "p99_us": 3500,
	  "software": [{"tracer": "timerlat", "worst_us": 4100, "within_floor": false}]}]'
jq '.hardware_floor[0].software[0].within_floor = true | .hardware_floor[0].worst_us = 9999' \
	"$TMP/floor-out.json" >"$TMP/floor-forged.json"
run report -f json "$TMP/floor-forged.json"
echo "$out" >"$TMP/floor-again.json"
expect_jq "a saved report's floor is recomputed from its samples, not copied" \
	"$TMP/floor-again.json" '.hardware_floor[0] | .worst_us == 3500 and .software[0].within_floor == false'
run report "$DATA/reports/spikes.json"
expect_not_in "no floor without hwlat's samples" "$out" "Hardware floor"


# One board's osnoise figures fold as merge and diff fold them (lh_report_fold_noise_cpu()):
# periods that add up past 2^64 over three runs are an error, never a small sum.
for r in a b c; do
	jq --arg r "$r" '.run.run_id = $r | .tracers.osnoise.noise_cpus[0].periods = 9223372036854775807' \
		"$DATA/reports/spikes.json" >"$TMP/osn-$r.json"
done
run report "$TMP/osn-a.json" "$TMP/osn-b.json"
expect_rc "two runs whose osnoise periods add up to 2^64 - 2 load" 0
run report "$TMP/osn-a.json" "$TMP/osn-b.json" "$TMP/osn-c.json"
expect_rc "three runs whose osnoise periods add up past 2^64 are an error" 1
expect_in "... said, named as the fold names it" "$err" \
	"report '$TMP/osn-c.json': tracers.osnoise.noise_cpus.periods: the reports' counts add up past 2^64"
finish
