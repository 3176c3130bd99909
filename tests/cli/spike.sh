#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A timerlat/osnoise/hwlat spike as the structured part of its record: a saved report with
# spikes (tests/data/reports/spikes.json) reads back byte for byte, every format shows the
# breakdown, and a report whose spike contradicts itself is refused naming the field.
# osnoise's % CPU available per CPU in every format, and --min-available judging it; its
# noise by source, shown, folded and checked.
. "$(dirname "$0")/../lib.sh"

R=$DATA/reports/spikes.json

# (the "lathound" member names the version that wrote it)
run report -f json "$R"
expect_rc "a saved report with spikes reads back" 0
check "report -f json: the spikes written again byte for byte" cmp -s \
	<(grep -v '^  "lathound": ' "$R") <(grep -v '^  "lathound": ' "$TMP/out")
expect_jq "the fixture has a timerlat spike blocked by lhspin" "$R" \
	'any(.records[]; .tracer == "timerlat" and .spike.blocking.comm == "lhspin" and
	     .spike.parts[0].kind == "thread" and .spike.explained_permille == 1000)'
expect_jq "the fixture's rule on the blocking task fired" "$R" \
	'any(.rules[]; .id == "lhspin-blocks-timer" and .hits == 3)'

run report -f text "$R"
expect_rc "report -f text" 0
expect_in "text: the osnoise period" "$out" "period:      noise 8020.000 us of 1000000.000 us runtime"
expect_in "text: the culprit and its share" "$out" "culprit:     lhspin-4242, ran 8000.000 us of it (100.0 %)"
expect_in "text: each part with its kind and share" "$out" "irq      local_timer"
run report -f html "$R"
expect_rc "report -f html" 0
expect_in "html: the blocking task's row" "$out" "<tr><th>blocking</th><td>lhspin-4242</td>"
expect_in "html: a part's row" "$out" "<tr><td>softirq</td><td>?</td><td>1</td>"

# refused JQ MESSAGE: the fixture edited by JQ is refused (exit 1), stderr saying MESSAGE.
refused() {
	jq "$1" "$R" >"$TMP/bad.json"
	run report -f json "$TMP/bad.json"
	expect_rc "refused: $1" 1
	expect_in "refused: $1: says why" "$err" "$2"
}
refused '.records[0].spike.parts[0].share_permille = 1200' \
	"records[0].spike.parts[0].share_permille: 1200, a share over 100 %"
refused '.records[0].spike.explained_us = 7000' \
	"records[0].spike.explained_us: 7000000 ns, more than the latency of 6300017 ns"
refused '.records[1].spike.parts[1].duration_us = -3' \
	"records[1].spike.parts[1].duration_us: -3 is not a duration"
refused '.records[1].spike.parts[1].kind = "smi"' \
	"records[1].spike.parts[1].kind: 'smi' is not a kind of noise"
refused '.records[3].spike.noise_us = 2000000' \
	"records[3].spike.noise_us: 2000000000 ns, more than the period's runtime of 1000000000 ns"
refused '.records[0].tracer = "irqsoff"' "a record of irqsoff has no spike"

# Text from the file is made inert: an escape in a part's name never reaches the terminal.
jq '.records[3].spike.parts[1].name = "timer\u001b[2J"' "$R" >"$TMP/esc.json"
run report -f text "$TMP/esc.json"
expect_rc "an escape in a part's name is no error" 0
expect_in "text: the escape made inert" "$out" 'timer\x1b[2J'
expect_not_in "text: no raw escape byte" "$out" $'\e'

# ---- osnoise: % CPU available per CPU, and --min-available ----
expect_jq "osnoise's figures per CPU, the availability as rtla prints it" "$R" \
	'[.tracers.osnoise.noise_cpus[] | [.cpu, .periods, .available_percent]] ==
	 [[0, 2, 99.998], [1, 2, 99.198]]'
run report "$R"
expect_in "text: CPU1's availability" "$out" "CPU1            2      2000000.000 us     16040.000 us    99.198 %"
run report -f html "$R"
expect_in "html: CPU1's availability" "$out" "<td class=\"n\">99.198 %</td>"
run report --min-available osnoise=99.1 "$R"
expect_rc "report --min-available osnoise=99.1: every CPU above it" 0
run report --min-available osnoise=99.5% -f json "$R"
expect_rc "report --min-available osnoise=99.5%: CPU1 is below" 2
echo "$out" >"$TMP/min.json"
expect_jq "the violation names the CPU, its availability and the minimum" "$TMP/min.json" \
	'.violations == ["osnoise: CPU1 has 99.198 % available, below --min-available osnoise=99.500"]
	 and .gate.min_available_percent.osnoise == 99.5'
run report -f json "$TMP/min.json"
expect_rc "the saved minimum judges the saved report again" 2
check "a report gated by --min-available reads back byte for byte" cmp -s \
	<(grep -v '^  "lathound": ' "$TMP/min.json") <(grep -v '^  "lathound": ' "$TMP/out")
run report --min-available osnoise=99.5 -f junit "$R"
expect_rc "junit: --min-available fails" 2
expect_in "junit: CPU1's testcase fails" "$out" '<failure message="osnoise: CPU1 has 99.198 % available, below --min-available osnoise=99.500"'
expect_in "junit: CPU0's testcase passes" "$out" "<system-out>99.998 % available over 2 periods; --min-available osnoise=99.500</system-out>"
# fail closed: a CPU of osnoise's set without a period, a report without osnoise
jq '.tracers.osnoise.noise_cpus[0] |= (.periods = 0 | .runtime_us = 0 | .noise_us = 0 |
	.available_percent = null | .max_single_us = 0)' "$R" >"$TMP/none.json"
run report "$TMP/none.json"
expect_rc "a CPU without a period, ungated, is no error" 0
run report --min-available osnoise=90 "$TMP/none.json"
expect_rc "--min-available with a CPU that measured no period is an error" 1
expect_in "... saying which CPU" "$err" "osnoise is gated by --min-available but CPU0 measured no period"
"$LATHOUND" analyze -f json "$DATA/pidt-irqsoff-nofunc.trace" >"$TMP/irqsoff.json" 2>/dev/null
run report --min-available osnoise=90 "$TMP/irqsoff.json"
expect_rc "--min-available on a report without osnoise is an error" 1
expect_in "... saying no period was measured" "$err" "but no period was measured"
run report --min-available osnoise=90 -f junit "$TMP/irqsoff.json"
expect_rc "junit: --min-available without osnoise" 1
expect_in "junit: an error testcase says so" "$out" "osnoise measured no period: --min-available osnoise=90.000 cannot be judged"

run analyze --min-available osnoise=90 "$DATA/pidt-irqsoff-nofunc.trace"
expect_rc "analyze --min-available: a trace holds no osnoise period" 1
run report --min-available osnoise=100.5 "$R"
expect_rc "--min-available over 100 % is refused" 1
expect_in "... saying why" "$err" "invalid --min-available 'osnoise=100.5': a percentage is at most 100"
run report --min-available timerlat=99 "$R"
expect_rc "--min-available of another tracer is refused" 1
# a saved availability is checked against its sums, never trusted
refused '.tracers.osnoise.noise_cpus[1].available_percent = 99.9' \
	"tracers.osnoise.noise_cpus[1].available_percent: 99.9, but its noise and runtime give 99.198"
refused '.tracers.osnoise.noise_cpus[1].noise_us = 3000000' \
	"tracers.osnoise.noise_cpus[1].noise_us: 3000000000 ns, more than its runtime of 2000000000 ns"

# ---- osnoise: noise by source, as the kernel counted it ----
run report "$R"
expect_in "text: CPU1's noisiest sources named, noisiest first" "$out" \
	"noisiest: thread lhspin 16000.000 us (2), irq local_timer 28.000 us (2000), softirq TIMER 9.500 us (20)"
expect_in "text: CPU1's longest single noise and hardware noise" "$out" \
	"longest single noise 8000.000 us, hardware noise 1"
run report -f html "$R"
expect_in "html: CPU1's noisiest source" "$out" "thread lhspin 16000.000 us (2)<br>irq local_timer"
# two runs of one board: sources add by CPU, kind and name
jq '.run.run_id = "fedcba9876543210fedcba9876543210" |
    .tracers.osnoise.noise_cpus[1].sources[2] = {kind: "softirq", name: "NET_RX", count: 3,
						   noise_us: 9} |
    .tracers.osnoise.sources_dropped = 4' "$R" >"$TMP/second.json"
run report -f json "$R" "$TMP/second.json"
expect_rc "report of two runs with sources" 0
expect_jq "... CPU1's sources folded by kind and name, noisiest first, the drops added" "$TMP/out" \
	'.tracers.osnoise.sources_dropped == 4 and
	 ([.tracers.osnoise.noise_cpus[1].sources[] | [.kind, .name, .count, .noise_us]] ==
	  [["thread", "lhspin", 4, 32000], ["irq", "local_timer", 4000, 56],
	   ["softirq", "TIMER", 20, 9.5], ["softirq", "NET_RX", 3, 9]])'
# a saved report's sources are checked, never trusted
refused '.tracers.osnoise.noise_cpus[1].sources[1].noise_us = 20000' \
	"tracers.osnoise.noise_cpus[1].sources[1]: not noisier than the source before it, yet listed after it"
refused '.tracers.osnoise.noise_cpus[1].sources_other = {sources: 1, count: 1, noise_us: 5}' \
	"tracers.osnoise.noise_cpus[1].sources_other.sources: 1 summed while only 3 are kept"
refused '.tracers.osnoise.noise_cpus[1].sources[0].kind = "hw"' \
	"tracers.osnoise.noise_cpus[1].sources[0].kind: 'hw' is not a kind of noise"
refused '.tracers.osnoise.noise_cpus[1].max_single_us = 20000' \
	"tracers.osnoise.noise_cpus[1].max_single_us: 20000000 ns, more than the CPU's noise of 16040000 ns"
refused 'del(.tracers.osnoise.noise_cpus[1].sources_other)' \
	"tracers.osnoise.noise_cpus[1].sources_other"

finish
