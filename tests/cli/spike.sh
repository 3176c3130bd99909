#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A timerlat/osnoise/hwlat spike as the structured part of its record: a saved report with
# spikes (tests/data/reports/spikes.json) reads back byte for byte, every format shows the
# breakdown, and a report whose spike contradicts itself is refused naming the field.
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

finish
