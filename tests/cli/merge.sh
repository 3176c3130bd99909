#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lathound merge as a user runs it, on reports that real 'lathound analyze' and 'lathound
# record' runs wrote: boards told apart by --board, the fleet's worst and its host, the same
# culprit found on two boards, rule hits across hosts, histograms summed; the --max gate in
# text, JSON and JUnit; every way it must be an error (exit 1), named in every format; and
# memory bounded by hosts and signatures, not reports (1,000 generated reports against 100).
. "$(dirname "$0")/../lib.sh"

IRQSOFF=$DATA/pidt-irqsoff-nofunc.trace
. "$(dirname "$0")/fake-tracefs.sh"

# analyze --board B TRACE... > OUT.json, as a board would save it.
save() {
	local out=$1 board=$2; shift 2
	"$LATHOUND" analyze -q --board "$board" -f json "$@" >"$TMP/$out" 2>/dev/null
	jq -e .verdict "$TMP/$out" >/dev/null || not_ok "analyze wrote no JSON report for $*"
}
save a.json rig-a "$DATA/vm-irqsoff-fakeraid.trace"		# irqsoff 2005us, raid-irq-held
save b.json rig-b "$DATA/vm-irqsoff-func.trace" "$DATA/vm-wakeup_rt.trace"	# 2093us, raid too
save c.json rig-c "$DATA/ftrace-rst-irqsoff-func.trace"		# irqsoff 71us
save broken.json rig-x "$DATA/handmade-truncated-header.trace"	# its verdict is error
expect_jq "--board is written into the report" "$TMP/a.json" '.board == "rig-a"'
run analyze --board 'two words' "$DATA/ftrace-rst-irqsoff-func.trace"
expect_rc "a --board id with a space is refused" 1
expect_in "... saying what an id may hold" "$err" "invalid --board 'two words'"

# ---- three boards, one view ----
run merge --fail-on none "$TMP/a.json" "$TMP/b.json" "$TMP/c.json"
expect_rc "three boards merge, no gate" 0
expect_in "the count of reports and hosts" "$out" "lathound merge: 3 reports folded, 3 hosts"
expect_in "the fleet's worst irqsoff and its board" "$out" \
	"  irqsoff                  3     2093us     2093us  rig-b"
expect_in "a host row: board, kernel, reports, its worst" "$out" \
	"  rig-c                  3.8.0-test+              1  irqsoff              71us"
expect_in "the culprit both RAID boards hit, on 2 hosts" "$out" \
	"  2 hosts, 2 sections, worst 2093us on rig-b"
expect_in "rule hits across hosts" "$out" "  raid-irq-held                  critical           2      2"
expect_in "the summed histogram of irqsoff" "$out" "  irqsoff          all           3"
expect_in "no gate" "$out" "Gates: none"
over=$(awk 'length > 80' <<<"$out")
check "the text fits 80 columns" test -z "$over"

# The rule gate, by default as analyze's: a critical rule hit on any board fails the fleet.
run merge "$TMP/a.json" "$TMP/b.json" "$TMP/c.json"
expect_rc "a critical rule hit on two boards: the fleet fails (--fail-on critical by default)" 2
expect_in "... the violation names the rule, hosts and worst" "$out" \
	"  rule raid-irq-held (critical) hit 2 times on 2 hosts, worst 2093us"
expect_in "... the gate is stated" "$out" "Gates: --fail-on critical"
over=$(awk 'length > 80' <<<"$out")
check "... the text fits 80 columns" test -z "$over"
run merge --max all=3ms -f junit "$TMP/a.json" "$TMP/b.json" "$TMP/c.json"
expect_rc "--max all=3ms and the rule gate, JUnit" 2
expect_in "... a rules testcase that fails" "$out" \
	'<testcase classname="lathound.merge" name="rules --fail-on critical"'
jq '(.rules[] | select(.id == "console-serial8250")) |= (.hits = 1 | .worst_us = 2005
	| .gate_worst_us = 2005)' "$TMP/a.json" >"$TMP/two-rules.json"
run merge -f junit "$TMP/two-rules.json"
expect_rc "JUnit: two critical rules hit" 2
expect_in "... the suite counts the testcases that failed" "$out" \
	'<testsuite name="lathound merge" tests="3" failures="1" errors="0">'
expect_in "... the rules testcase names both" "$out" \
	'rule console-serial8250 (critical) hit 1 time on 1 host, worst 2005us; rule raid-irq-held'
run merge -f json "$TMP/c.json"
expect_rc "a board without a critical hit passes the rule gate" 0
expect_jq "... JSON: the gate says fail_on" <(echo "$out") '.gate.fail_on == "critical" and .verdict == "pass"'

run merge --fail-on none -f json -o "$TMP/fleet.json" "$TMP/a.json" "$TMP/b.json" "$TMP/c.json"
expect_rc "-f json -o FILE" 0
J=$TMP/fleet.json
expect_jq "JSON: verdict, reports, hosts" "$J" \
	'.verdict == "pass" and .reports == 3 and (.hosts | length) == 3 and .error == null'
expect_jq "JSON: the fleet's worst irqsoff is on rig-b" "$J" \
	'.tracers.irqsoff.worst_us == 2093 and .tracers.irqsoff.worst_host.board == "rig-b"'
expect_jq "JSON: the summed histogram counts every section of every board" "$J" \
	".tracers.irqsoff.histogram.count == $(jq -s 'map(.tracers.irqsoff.histogram.count) | add' \
		"$TMP/a.json" "$TMP/b.json" "$TMP/c.json")"
expect_jq "JSON: the shared signature lists both RAID boards (indices into hosts)" "$J" \
	'[.offenders[0].hosts[] as $i | .hosts[$i].board] == ["rig-a", "rig-b"]'
expect_jq "JSON: the rule's hits and hosts" "$J" \
	'.rules[] | select(.id == "raid-irq-held") | .hits == 2 and (.hosts | length) == 2'

# ---- the gate on the fleet's worst ----
run merge --fail-on none --max irqsoff=2ms "$TMP/a.json" "$TMP/b.json" "$TMP/c.json"
expect_rc "--max irqsoff=2ms fails on 2093us" 2
expect_in "the violation names the board" "$out" \
	"irqsoff: the fleet's worst 2093us on rig-b is over --max irqsoff=2000us"
run merge --fail-on none --max all=3ms "$TMP/a.json" "$TMP/b.json" "$TMP/c.json"
expect_rc "--max all=3ms passes" 0
run merge --fail-on none -f junit --max irqsoff=2ms "$TMP/a.json" "$TMP/b.json" "$TMP/c.json"
expect_rc "-f junit: the gate fails" 2
echo "$out" >"$TMP/j.xml"
check "JUnit is well-formed XML" xmllint --noout "$TMP/j.xml"
expect_in "JUnit: the failure" "$out" '<testsuite name="lathound merge" tests="3" failures="1" errors="0">'
run merge --fail-on none --max preemptoff=1ms "$TMP/a.json" "$TMP/c.json"
expect_rc "a gated tracer no report measured is an error" 1
expect_in "... saying so" "$out" "Verdict: ERROR: preemptoff is gated by --max but no report measured it"

# ---- fail closed ----
echo '{"lathound": "0.1.0", "report_version": 1}' >"$TMP/cut.json"
for f in text json junit; do
	run merge --fail-on none -f $f "$TMP/a.json" "$TMP/cut.json"
	expect_rc "$f: an inconsistent report is an error" 1
	expect_in "$f: named in the output" "$(sed 's/&#39;/'"'"'/g' <<<"$out")" \
		"report '$TMP/cut.json': mode: missing"
done
run merge --fail-on none "$TMP/a.json" "$TMP/missing.json"
expect_rc "a report that does not exist is an error" 1
expect_in "... named" "$out" "cannot open report '$TMP/missing.json'"
run merge --fail-on none --allow-unreadable "$TMP/a.json" "$TMP/cut.json"
expect_rc "--allow-unreadable lists it instead" 0
expect_in "... listed as accepted" "$out" "(accepted: --allow-unreadable)"
expect_in "... and counted" "$out" "1 report folded, 1 host, 1 unreadable"
run merge --fail-on none "$TMP/a.json" "$TMP/broken.json"
expect_rc "a report whose own verdict is error is an error" 1
expect_in "... saying why" "$out" "its verdict is error"
run merge --fail-on none --accept-error "$TMP/a.json" "$TMP/broken.json"
expect_rc "--accept-error merges it" 0
# A file name or a JSON key is untrusted too: never raw on a terminal, in any format.
EVIL=$TMP/$'ev\e]0;x\ail'
cp "$TMP/a.json" "$EVIL.json"
echo '{}' >"$EVIL-cut.json"
jq '.tracers["x\u001b[2J"] = {}' "$TMP/c.json" >"$TMP/key.json"
for f in text json junit; do
	run merge --fail-on none -f $f "$EVIL.json" "$EVIL-cut.json" "$EVIL-missing.json" \
		"$TMP/key.json"
	expect_rc "$f: reports named with control bytes, unreadable: an error" 1
	expect_not_in "$f: no control byte reaches the output raw" "$out$err" $'\e'
	expect_not_in "$f: ... nor a BEL" "$out$err" $'\a'
done
expect_in "JUnit: the file name shown inert" "$out" "report &#39;$TMP/ev\x1b]0;x\x07il-cut.json&#39;"
echo "$out" >"$TMP/evil.xml"
check "JUnit: well-formed XML" xmllint --noout "$TMP/evil.xml"
run merge --fail-on none "$EVIL-missing.json" "$TMP/key.json"
expect_in "text: a report that does not exist, named inert" "$out" \
	"cannot open report '$TMP/ev\x1b]0;x\x07il-missing.json'"
expect_in "text: a tracer key, inert" "$out" "tracers.x\x1b[2J: unknown tracer"
cp "$TMP/broken.json" "$EVIL-error.json"
run merge --fail-on none -f json "$TMP/a.json" "$EVIL-error.json"
echo "$out" >"$TMP/evil-name.json"
expect_jq "JSON: a report whose verdict is error, named inert" "$TMP/evil-name.json" \
	".error | startswith(\"report '$TMP/ev\\\\x1b]0;x\\\\x07il-error.json': its verdict is error\")"
run diff "$TMP/c.json" "$EVIL.json"
expect_not_in "diff: a report's file name never reaches the terminal raw" "$out$err" $'\e'
expect_in "diff: ... shown inert" "$out" "New:  1 report: $TMP/ev\x1b]0;x\x07il.json"

jq '.histograms = [{"source": "kernel", "kind": "irqsoff", "cpu": null, "unit": "us",
	"count": 1, "min": 1, "max": 3, "mean": 2, "buckets": [{"lo": 1, "hi": 3, "count": 1}],
	"dropped": 0}]' "$TMP/a.json" >"$TMP/h1.json"
jq '.histograms[0].buckets[0].lo = 2 | .histograms[0].buckets[0].hi = 4 | .histograms[0].min = 2
	| .histograms[0].max = 4 | .histograms[0].mean = 3' "$TMP/h1.json" >"$TMP/h2.json"
run merge --fail-on none "$TMP/h1.json" "$TMP/h1.json"
expect_rc "kernel histograms of one layout add up" 0
expect_in "... summed" "$out" "  kernel irqsoff   all           2"
run merge --fail-on none "$TMP/h1.json" "$TMP/h2.json"
expect_rc "kernel histograms whose buckets do not fit are an error" 1
expect_in "... saying the layouts must agree" "$out" "their layouts must agree"
# Counts from reports are untrusted: a sum that would wrap round 2^64 is an error, not a
# fleet that measured nothing (which 'all' does not judge) and passes.
# (Each report is consistent: its histogram counts the sections in one bucket; a mean of 0
# keeps the sum of latencies within 2^64.)
MAXI=9223372036854775807
sections='.tracers.irqsoff |= (.count = $c | .histogram.count = $c | .histogram.mean = 0 |
	.histogram.buckets = [.histogram.buckets[0] | .count = $c]) | .records_total = $c |
	.board = $b'
for n in 1 2; do
	jq --argjson c $MAXI --arg b big$n "$sections" "$TMP/a.json" >"$TMP/big$n.json"
done
jq --argjson c 2 --arg b two "$sections" "$TMP/a.json" >"$TMP/two.json"
run merge --fail-on none --max all=5ms "$TMP/big1.json"
expect_rc "a report counting 2^63-1 irqsoff sections alone is read" 0
for f in text json junit; do
	run merge --fail-on none --max all=1ms -f $f "$TMP/big1.json" "$TMP/big2.json" "$TMP/two.json"
	expect_rc "$f: irqsoff sections that add up past 2^64 are an error" 1
	expect_in "$f: ... saying so" "$(sed 's/&#39;/'"'"'/g' <<<"$out")" \
		"report '$TMP/two.json': the irqsoff sections add up past 2^64"
done
for n in 1 2 3; do
	jq --argjson c $MAXI '.histograms[0].count = $c | .histograms[0].buckets[0].count = $c' \
		"$TMP/h1.json" >"$TMP/hmax$n.json"
done
run merge --fail-on none -f json "$TMP/hmax1.json" "$TMP/hmax2.json" "$TMP/hmax3.json"
expect_rc "kernel histogram counts that add up past 2^64 are an error" 1
expect_in "... saying so" "$out" "the counts of the kernel histogram 'irqsoff' add up past 2^64"

# Names are cut to their column or sentence between UTF-8 characters, never within one.
jq --arg b "$(printf 'é%.0s' {1..100})" '.board = $b' "$TMP/a.json" >"$TMP/utf8.json"
jq '.histograms[0].kind = "ééééééééé"' "$TMP/h1.json" >"$TMP/utf8-h.json"
for f in text json junit; do
	run merge --fail-on none --max all=1ms -f $f "$TMP/utf8.json" "$TMP/utf8-h.json"
	expect_rc "$f: a board of 100 two-byte characters over --max" 2
	check "$f: the output is valid UTF-8" iconv -f UTF-8 -t UTF-8 "$TMP/out" -o /dev/null
done
expect_in "... the violation names it, cut" "$out" "on éééééééééé"

printf '%s\n' "$TMP/a.json" "$TMP/b.json" >"$TMP/list"
run merge --fail-on none --from "$TMP/list" "$TMP/c.json"
expect_rc "--from LIST with operands" 0
expect_in "... reads all three" "$out" "3 reports folded"
run merge
expect_rc "no report given" 1
# A list that cannot be read leaves reports unread: the fleet report says so, in every format.
for f in text json junit; do
	run merge --fail-on none -f $f -o "$TMP/fleet-nolist.$f" --from "$TMP/no-list" "$TMP/c.json"
	expect_rc "$f: a --from list that does not exist is an error" 1
	expect_in "$f: ... and the fleet report is written, saying so" \
		"$(sed 's/&#39;/'"'"'/g' "$TMP/fleet-nolist.$f" 2>&1)" "cannot open list '$TMP/no-list'"
done
run merge --fail-on none -f json --from "$TMP" "$TMP/c.json"
echo "$out" >"$TMP/fleet-dir.json"
expect_jq "a --from list that cannot be read (a directory): the verdict is error" \
	"$TMP/fleet-dir.json" ".verdict == \"error\" and .error == \"cannot read list '$TMP': Is a directory\""
run merge --fail-on none --allow-unreadable --from "$TMP/no-list" "$TMP/c.json"
expect_rc "--allow-unreadable does not allow a list that cannot be read" 1

# ---- record reports: --board, hosts, the same run twice ----
mkfake irqsoff
(wait_armed irqsoff && sleep 0.3 && section "$IRQSOFF" 2002) &
BG=$!
rec -t irqsoff -d 1500ms --board rack1-slot3 -o "$TMP/o1" "${NORULES[@]}"
wait $BG
expect_rc "record --board" 0
R=$TMP/o1/report.json
expect_jq "record writes the board id" "$R" '.board == "rack1-slot3" and .mode == "record"'
jq '.run.run_id = "0123456789abcdef0123456789abcdef" | .board = "rack1-slot4"' "$R" >"$TMP/r2.json"
run merge --fail-on none "$R" "$TMP/r2.json" "$TMP/a.json"
expect_rc "record and analyze reports merge" 0
expect_in "a record board shows its hostname" "$out" "rack1-slot3 ($(uname -n | cut -c1-10)"
jq '.run.host = "evil\u001b[2Jhost"' "$TMP/r2.json" >"$TMP/r3.json"
run merge --fail-on none "$R" "$TMP/r3.json"
expect_rc "a hostname with a control byte merges" 0
expect_not_in "it never reaches the terminal raw" "$out" $'\e'
expect_in "it is shown inert, cut to its column" "$out" 'rack1-slot4 (evil\x... '
run merge --fail-on none -f json "$R" "$TMP/r3.json"
echo "$out" >"$TMP/evil.json"
expect_jq "JSON: the hostname inert" "$TMP/evil.json" '.hosts[1].host == "evil\\x1b[2Jhost"'
run report "$R" "$TMP/r2.json"
expect_rc "'lathound report' refuses to merge two boards" 1
expect_in "... naming both" "$err" "board 'rack1-slot4', but '$R' is of board 'rack1-slot3'"
run merge --fail-on none "$R" "$TMP/r2.json" "$R"
expect_rc "the same run twice is an error" 1
expect_in "... named by its run_id" "$out" "the same run (run_id $(jq -r .run.run_id "$R"))"

# ---- memory: 1,000 reports take what 100 take (50 boards, the same templates) ----
if [ ! -x /usr/bin/time ]; then
	skip "merge memory is bounded" "no /usr/bin/time (Debian package time)"
else
	LATHOUND=$LATHOUND "$TOP/bench/fleet-gen.sh" 1000 "$TMP/fleet" 50 >/dev/null
	rss() {
		ls "$TMP"/fleet/r*.json | head -n "$1" |
			/usr/bin/time -f %M -o "$TMP/rss" "$LATHOUND" merge -q --fail-on none --from - >"$TMP/m$1.txt"
		echo "$? $(tail -1 "$TMP/rss")"
	}
	read -r rc100 kb100 < <(rss 100)
	read -r rc1000 kb1000 < <(rss 1000)
	check "100 and 1,000 generated reports merge (exit 0)" test "$rc100$rc1000" = 00
	expect_in "1,000 reports folded" "$(head -1 "$TMP/m1000.txt")" "1000 reports folded"
	check "1,000 reports take at most 10% + 1 MB more than 100 (${kb1000} kB vs ${kb100} kB)" \
		test "$kb1000" -le $((kb100 * 11 / 10 + 1024))
fi

# ---- osnoise's % CPU available per host, --min-available on each host's CPUs ----
# The fixture of a record -t timerlat,osnoise,hwlat run on board1 (CPU0 99.998 %, CPU1
# 99.198 %), and board2's run whose CPU1 was at 95 %.
SPIKES=$DATA/reports/spikes.json
jq '.run.run_id = "11111111111111111111111111111111"' "$SPIKES" >"$TMP/n1.json"
jq '.run.run_id = "22222222222222222222222222222222" | .run.host = "board2" |
	.tracers.osnoise.noise_cpus[1] |= (.noise_us = 100000 | .available_percent = 95)' \
	"$SPIKES" >"$TMP/n2.json"
run merge --min-available osnoise=90 "$TMP/n1.json" "$TMP/n2.json"
expect_rc "--min-available osnoise=90: every host's CPUs above it" 0
expect_in "the availability of each host's CPUs, and their noisiest sources" "$out" "osnoise: % CPU available per host
  board (host)            cpu    periods    available
  board1                    0          2       99.998
                              noisiest: irq local_timer 30.000 us (2000)
                            1          2       99.198
                              noisiest: thread lhspin 16000.000 us (2), irq local_timer 28.000 us (2000), softirq TIMER 9.500 us (20)
  board2                    0          2       99.998
                              noisiest: irq local_timer 30.000 us (2000)
                            1          2       95.000
                              noisiest: thread lhspin 16000.000 us (2), irq local_timer 28.000 us (2000), softirq TIMER 9.500 us (20)
"
expect_in "the gate listed" "$out" "--min-available osnoise=90.000 (on each host's CPUs)"
run merge --min-available osnoise=99 "$TMP/n1.json" "$TMP/n2.json"
expect_rc "--min-available osnoise=99: board2's CPU1 is below" 2
expect_in "the violation names the host and the CPU" "$out" \
	"host board2: osnoise: CPU1 has 95.000 % available, below --min-available osnoise=99.000"
expect_not_in "board1 passes" "$out" "host board1:"
run merge -f json --min-available osnoise=99 "$TMP/n1.json" "$TMP/n2.json"
echo "$out" >"$TMP/nm.json"
expect_jq "JSON: each host's noise_cpus, the gate, the violation" "$TMP/nm.json" \
	'.verdict == "fail" and .gate.min_available_percent.osnoise == 99 and
	 ([.hosts[] | [.host, [.noise_cpus[] | .available_percent]]] ==
	  [["board1", [99.998, 99.198]], ["board2", [99.998, 95]]]) and
	 (.violations | length) == 1'
run merge -f junit --min-available osnoise=99 "$TMP/n1.json" "$TMP/n2.json"
expect_rc "JUnit: --min-available fails" 2
expect_in "JUnit: a testcase per host, board2's failed" "$out" \
	'<testcase classname="lathound.merge.min_available" name="board2 min available">
      <failure message="osnoise: CPU1 has 95.000 % available, below --min-available osnoise=99.000"/>'
expect_in "JUnit: the counts" "$out" 'failures="1" errors="0"'
# Two runs of one host: its CPUs over every period of both.
jq '.run.run_id = "33333333333333333333333333333333" |
	.tracers.osnoise.noise_cpus[1] |= (.noise_us = 40 | .available_percent = 99.998 |
	.max_single_us = 40)' "$SPIKES" >"$TMP/n3.json"
run merge -f json --min-available osnoise=99.5 "$TMP/n1.json" "$TMP/n3.json"
expect_rc "two runs of board1: CPU1 at 99.598 % over both passes 99.5" 0
echo "$out" >"$TMP/nm3.json"
expect_jq "... one host, 4 periods" "$TMP/nm3.json" \
	'(.hosts | length) == 1 and .hosts[0].noise_cpus[1].periods == 4 and
	 .hosts[0].noise_cpus[1].available_percent == 99.598'
expect_jq "... its noise sources summed over both runs, as a report has them" "$TMP/nm3.json" \
	'.hosts[0].noise_cpus[1] | .max_single_us == 8000 and .hw_count == 2 and
	 .sources == [{"kind": "thread", "name": "lhspin", "count": 4, "noise_us": 32000},
	              {"kind": "irq", "name": "local_timer", "count": 4000, "noise_us": 56},
	              {"kind": "softirq", "name": "TIMER", "count": 40, "noise_us": 19}] and
	 .sources_other.sources == 0'
run merge "$TMP/n1.json" "$TMP/n3.json"
expect_in "... and in the text, noisiest first" "$out" "
                            1          4       99.598
                              noisiest: thread lhspin 32000.000 us (4), irq local_timer 56.000 us (4000), softirq TIMER 19.000 us (40)
"
# A forged availability is refused, never judged.
jq '.tracers.osnoise.noise_cpus[1].available_percent = 99.998' "$TMP/n2.json" >"$TMP/n2-forged.json"
run merge --min-available osnoise=99 "$TMP/n1.json" "$TMP/n2-forged.json"
expect_rc "a forged availability is an error, not a pass" 1
expect_in "... naming the field" "$err" "available_percent"
# Fail closed: a host without osnoise, a CPU without a period.
run merge --min-available osnoise=90 "$TMP/n1.json" "$TMP/c.json"
expect_rc "--min-available and a host without osnoise" 1
expect_in "... naming the host" "$err" \
	"host rig-c: osnoise is gated by --min-available but no period was measured (no report of the host lists one)"
run merge -f junit --min-available osnoise=90 "$TMP/n1.json" "$TMP/c.json"
expect_in "JUnit: that host's testcase is an error" "$out" \
	'<testcase classname="lathound.merge.min_available" name="rig-c min available">
      <error message="osnoise is gated by --min-available but no period was measured'
jq '.tracers.osnoise.noise_cpus[0] |= (.periods = 0 | .runtime_us = 0 | .noise_us = 0 |
	.available_percent = null | .max_single_us = 0)' "$TMP/n2.json" >"$TMP/n2-none.json"
run merge --min-available osnoise=90 "$TMP/n1.json" "$TMP/n2-none.json"
expect_rc "--min-available and a CPU that measured no period" 1
expect_in "... naming the host and the CPU" "$err" \
	"host board2: osnoise is gated by --min-available but CPU0 measured no period"
run merge "$TMP/n1.json" "$TMP/c.json"
expect_rc "not gated: a fleet with and without osnoise merges" 0
run merge --min-available osnoise=101 "$TMP/n1.json"
expect_rc "--min-available over 100 is refused" 1

finish
