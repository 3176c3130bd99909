#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 'lathound record --metrics' without root, on a fake tracefs (tests/cli/fake-tracefs.sh)
# fed real snapshots: the file is there from the start, rewritten at each checkpoint, holds
# what the report holds at the end, passes 'promtool check metrics' without a lint problem,
# and the real node_exporter serves its series through the textfile collector. A metrics
# file that cannot be written stops the run before it starts.
. "$(dirname "$0")/../lib.sh"

IRQSOFF=$DATA/pidt-irqsoff-nofunc.trace
. "$(dirname "$0")/fake-tracefs.sh"
sed 's/latency: 2002 us/latency: 3000 us/; s/ 2002us : / 3000us : /' "$IRQSOFF" \
	>"$TMP/irqsoff-3000.trace"
why=$(prom_missing)
P=$TMP/textfile/lathound.prom
mkdir -p "$TMP/textfile"

# ---- two sections under --max irqsoff=1ms, checkpoints every second ----
mkfake
(
	wait_armed irqsoff || exit 1
	# Written at the start, before any checkpoint.
	[ -s "$P" ] && cp "$P" "$TMP/at-start.prom"
	sleep 0.3; section "$IRQSOFF" 2002
	sleep 1.5; cp "$P" "$TMP/mid-run.prom"
	sleep 0.2; section "$TMP/irqsoff-3000.trace" 3000
) &
BG=$!
rec -t irqsoff -d 3s --checkpoint 1s -o "$TMP/o1" --max irqsoff=1ms --metrics "$P" "${NORULES[@]}"
wait $BG
expect_rc "record --metrics under --max irqsoff=1ms over 3000 us" 2
expect_tree "record --metrics"
check "the metrics file was there at the start of the run" test -s "$TMP/at-start.prom"
expect_prom "at the start: running, irqsoff armed" "$TMP/at-start.prom" \
	'lathound_tracer_armed{tracer="irqsoff"}' 1
expect_prom "at the start: nothing captured yet" "$TMP/at-start.prom" \
	'lathound_sections_captured_total{tracer="irqsoff"}' 0
expect_prom "mid-run checkpoint: the first section (2002 us) is in" "$TMP/mid-run.prom" \
	'lathound_section_max_latency_seconds{tracer="irqsoff",cpu="0"}' 0.002002
expect_prom "mid-run checkpoint: the run goes on" "$TMP/mid-run.prom" lathound_running 1
expect_prom "mid-run checkpoint: the verdict so far is fail" "$TMP/mid-run.prom" \
	'lathound_verdict{verdict="fail"}' 1
J=$TMP/o1/report.json
max_us=$(jq -r .tracers.irqsoff.max_us "$J")
check "the report's worst is 3000 us" test "$max_us" = 3000
expect_prom "the worst is the report's, in seconds" "$P" \
	'lathound_section_max_latency_seconds{tracer="irqsoff",cpu="0"}' 0.003
expect_prom "the histogram counts both sections" "$P" \
	'lathound_section_latency_seconds_count{tracer="irqsoff",cpu="0"}' 2
expect_prom "... 2002 us above the 2ms bucket" "$P" \
	'lathound_section_latency_seconds_bucket{tracer="irqsoff",cpu="0",le="0.002"}' 0
expect_prom "... both in the 5ms bucket" "$P" \
	'lathound_section_latency_seconds_bucket{tracer="irqsoff",cpu="0",le="0.005"}' 2
expect_prom "... their sum" "$P" 'lathound_section_latency_seconds_sum{tracer="irqsoff",cpu="0"}' \
	0.005002
expect_prom "captured as the report says" "$P" 'lathound_sections_captured_total{tracer="irqsoff"}' \
	"$(jq -r .run.captures "$J")"
expect_prom "lost as the report says" "$P" 'lathound_sections_lost_total{tracer="irqsoff"}' \
	"$(jq -r .run.sections_lost "$J")"
expect_prom "the final file: the run is over" "$P" lathound_running 0
expect_prom "the budget" "$P" 'lathound_budget_seconds{tracer="irqsoff"}' 0.001
expect_prom "the budget is exceeded" "$P" 'lathound_budget_exceeded{tracer="irqsoff"}' 1
expect_prom "the verdict is the report's: fail" "$P" 'lathound_verdict{verdict="fail"}' 1
expect_prom "irqsoff measured" "$P" 'lathound_tracer_measured{tracer="irqsoff"}' 1
check "the armed time is the report's" awk -v a="$(prom_value "$P" \
	'lathound_tracer_armed_seconds_total{tracer="irqsoff"}')" -v b="$(jq -r .tracers.irqsoff.armed_s "$J")" \
	'BEGIN { d = a - b; exit !(a > 2 && d < 0.01 && d > -0.01) }'
check "no temporary file left beside the metrics file" test "$(ls -A "$TMP/textfile")" = lathound.prom
check "the metrics file is readable by node_exporter's user (0644)" \
	test "$(stat -c %a "$P")" = 644

if [ -n "$why" ]; then
	skip "promtool and node_exporter on the metrics" "$why"
else
	expect_promtool "the final metrics" "$P"
	expect_promtool "the metrics at the start" "$TMP/at-start.prom"
	expect_promtool "a checkpoint's metrics" "$TMP/mid-run.prom"
	if node_exporter_scrape "$TMP/textfile" "$TMP/scrape"; then
		ok "node_exporter serves the textfile directory"
		expect_prom "node_exporter read the file without error" "$TMP/scrape" \
			node_textfile_scrape_error 0
		# node_exporter sorts labels by name (le last) and writes numbers its own way.
		expect_prom "it serves lathound's worst irqsoff section" "$TMP/scrape" \
			'lathound_section_max_latency_seconds{cpu="0",tracer="irqsoff"}' 0.003
		expect_prom "... the histogram" "$TMP/scrape" \
			'lathound_section_latency_seconds_bucket{cpu="0",tracer="irqsoff",le="0.005"}' 2
		expect_prom "... the verdict" "$TMP/scrape" 'lathound_verdict{verdict="fail"}' 1
		n=$(grep -c '^lathound_' "$TMP/scrape")
		check "every lathound series of the file is served ($n)" \
			test "$n" = "$(grep -c '^lathound_' "$P")"
		grep '^lathound_section_max\|^lathound_verdict\|^node_textfile_scrape_error' \
			"$TMP/scrape" | sed 's/^/# scraped: /'
	else
		not_ok "node_exporter serves the textfile directory"
	fi
fi

# ---- untrusted text: a task name with quotes, a backslash and bytes that are not UTF-8 ----
mkfake
sed 's/irq_test/ev"l\\x\xff/g' "$IRQSOFF" >"$TMP/evil.trace"
( wait_armed irqsoff && sleep 0.3 && section "$TMP/evil.trace" 2002 ) &
BG=$!
rec -t irqsoff -d 1500ms -o "$TMP/o2" --metrics "$P" "${NORULES[@]}"
wait $BG
expect_rc "a task name that is not text" 0
check "it is escaped in the worst section's labels" \
	grep -qF 'comm="ev\"l\\x\\xff"' "$P"
if [ -n "$why" ]; then
	skip "promtool on escaped labels" "$why"
else
	expect_promtool "escaped labels" "$P"
	if node_exporter_scrape "$TMP/textfile" "$TMP/scrape2"; then
		expect_prom "node_exporter reads escaped labels without error" "$TMP/scrape2" \
			node_textfile_scrape_error 0
	else
		not_ok "node_exporter serves the textfile directory"
	fi
fi

# ---- a metrics file that cannot be written: refused before the run ----
mkfake
rec -t irqsoff -d 2s -o "$TMP/o3" --metrics "$TMP/no/such/dir/lathound.prom" "${NORULES[@]}"
expect_rc "--metrics in a directory that does not exist" 1
expect_in "the error names the metrics file" "$err" \
	"cannot write metrics file '$TMP/no/such/dir/lathound.prom'"
check "no report: the run never started" test ! -e "$TMP/o3/report.json"
expect_tree "--metrics that cannot be written"
ln -s /etc/passwd "$TMP/textfile/link.prom"
mkfake
rec -t irqsoff -d 2s -o "$TMP/o4" --metrics "$TMP/textfile/link.prom" "${NORULES[@]}"
expect_rc "--metrics at a symbolic link" 1
check "nothing was written through the link" test "$(readlink "$TMP/textfile/link.prom")" = /etc/passwd
expect_tree "--metrics at a symbolic link"

finish
