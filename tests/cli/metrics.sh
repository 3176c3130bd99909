#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 'lathound record --metrics' without root, on a fake tracefs (tests/cli/fake-tracefs.sh)
# fed real snapshots: the file is there from the start, rewritten at each checkpoint, holds
# what the report holds at the end, passes 'promtool check metrics' without a lint problem,
# and the real node_exporter serves its series through the textfile collector. A metrics
# file that cannot be written stops the run before it starts. The queries of doc/metrics.md
# and examples/prometheus/lathound-alerts.yml pass 'promtool check rules', and the alerts
# fire as documented under 'promtool test rules'.
. "$(dirname "$0")/../lib.sh"

IRQSOFF=$DATA/pidt-irqsoff-nofunc.trace
. "$(dirname "$0")/fake-tracefs.sh"
for us in 2000 3000; do
	sed "s/latency: 2002 us/latency: $us us/; s/ 2002us : / ${us}us : /" "$IRQSOFF" \
		>"$TMP/irqsoff-$us.trace"
done
why=$(prom_missing)
P=$TMP/textfile/lathound.prom
mkdir -p "$TMP/textfile"

# ---- two sections under --max irqsoff=1ms, checkpoints every second ----
mkfake
(
	wait_armed irqsoff || exit 1
	# Written at the start, right after arming: looked for until half the first checkpoint
	# interval is gone (lathound may be slowed down, e.g. under valgrind).
	for i in $(seq 10); do [ -s "$P" ] && break; sleep 0.05; done
	[ -s "$P" ] && cp "$P" "$TMP/at-start.prom"
	sleep 0.3; section "$TMP/irqsoff-2000.trace" 2000
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
expect_prom "mid-run checkpoint: the first section (2000 us) is in" "$TMP/mid-run.prom" \
	'lathound_section_max_latency_seconds{tracer="irqsoff",cpu="0"}' 0.002
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
# The kernel truncates a section to the us it shows: 2000 us lasted up to 2000.999 us.
expect_prom "... 2000 us above the 2ms bucket" "$P" \
	'lathound_section_latency_seconds_bucket{tracer="irqsoff",cpu="0",le="0.002"}' 0
expect_prom "... both in the 5ms bucket" "$P" \
	'lathound_section_latency_seconds_bucket{tracer="irqsoff",cpu="0",le="0.005"}' 2
expect_prom "... their sum" "$P" 'lathound_section_latency_seconds_sum{tracer="irqsoff",cpu="0"}' \
	0.005
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
rec -t irqsoff -d 3s -o "$TMP/o2" --metrics "$P" "${NORULES[@]}"
wait $BG
expect_rc "a task name that is not text" 0
if grep -qF 'comm="ev\"l\\x\\xff"' "$P"; then ok "it is escaped in the worst section's labels"
else
	not_ok "it is escaped in the worst section's labels"
	grep '^lathound_worst_section_info\|^lathound_sections_captured' "$P" | sed 's/^/#   /'
fi
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

# ---- doc/metrics.md's queries and examples/prometheus/lathound-alerts.yml, by promtool ----
if [ -n "$why" ]; then
	skip "promtool on the documented queries and alerts" "$why"
else
	# Every query of the Grafana tables, Grafana's variables given values, as recording rules.
	{
		echo 'groups: [{name: doc, rules: ['
		sed -n '/^## Grafana-ready queries/,/^## How it is tested/p' "$TOP/doc/metrics.md" |
			grep '^| ' | grep -o '`[^`]*lathound_[^`]*`' | tr -d '`' |
			sed 's/\$instance/x/g; s/\$__rate_interval/5m/g; s/\$__range/1d/g' |
			awk '{ gsub(/\047/, "\047\047"); printf "{record: doc:q%d, expr: \047%s\047},\n", NR, $0 }'
		echo ']}]'
	} >"$TMP/doc-queries.yml"
	n=$(grep -c '^{record' "$TMP/doc-queries.yml")
	o=$(promtool check rules "$TMP/doc-queries.yml" 2>&1)
	check "doc/metrics.md: its $n Grafana queries are valid PromQL (promtool check rules)" \
		test $? = 0 -a "$n" -gt 0
	[ "$o" = "${o#*SUCCESS}" ] && sed 's/^/#   /' <<<"$o" | head -10
	A=$TOP/examples/prometheus/lathound-alerts.yml
	o=$(promtool check rules "$A" 2>&1)
	check "examples/prometheus/lathound-alerts.yml: promtool check rules" test $? = 0
	[ "$o" = "${o#*SUCCESS}" ] && sed 's/^/#   /' <<<"$o" | head -10
	# The alert table of doc/metrics.md says what the file does.
	o=$(python3 - "$A" "$TOP/doc/metrics.md" <<-'PYEOF' 2>&1
	import re, sys, yaml
	rules = {r["alert"]: r["expr"] for g in yaml.safe_load(open(sys.argv[1]))["groups"]
	         for r in g["rules"]}
	doc = dict(re.findall(r"^\| `(Lathound\w+)` \| `([^`]*)` \|", open(sys.argv[2]).read(), re.M))
	for a in sorted(set(rules) | set(doc)):
	    if rules.get(a) != doc.get(a):
	        print("%s: file '%s', doc '%s'" % (a, rules.get(a), doc.get(a)))
	PYEOF
	)
	check "doc/metrics.md's alert table is the alerts file, alert by alert" test -z "$o"
	[ -n "$o" ] && sed 's/^/#   /' <<<"$o" | head -10
	# The alerts on series as lathound writes them (node_exporter adds instance and job).
	cat >"$TMP/alerts.test.yml" <<-EOF2
	rule_files: ['$A']
	evaluation_interval: 1m
	tests:
	  - interval: 1m
	    input_series:
	      - series: 'lathound_verdict{verdict="fail",instance="b1",job="node"}'
	        values: '0 0 1 1 1'
	      - series: 'lathound_verdict{verdict="fail",instance="b2",job="node"}'
	        values: '0 0 0 0 0'
	      - series: 'lathound_running{instance="b1",job="node"}'
	        values: '1x9'
	      - series: 'lathound_last_checkpoint_timestamp_seconds{instance="b1",job="node"}'
	        values: '0+60x4 240x5'
	      - series: 'lathound_running{instance="b2",job="node"}'
	        values: '0x9'
	      - series: 'lathound_last_checkpoint_timestamp_seconds{instance="b2",job="node"}'
	        values: '0x9'
	      - series: 'lathound_sections_lost_total{tracer="irqsoff",instance="b1",job="node"}'
	        values: '0 0 0 2 2 0 0'
	    alert_rule_test:
	      - eval_time: 1m
	        alertname: LathoundGateFailed
	        exp_alerts: []
	      - eval_time: 3m
	        alertname: LathoundGateFailed
	        exp_alerts:
	          - exp_labels: {severity: critical, verdict: fail, instance: b1, job: node}
	            exp_annotations:
	              summary: "b1: a latency gate failed (--max or a rule)"
	      - eval_time: 6m
	        alertname: LathoundStale
	        exp_alerts: []
	      - eval_time: 8m
	        alertname: LathoundStale
	        exp_alerts:
	          - exp_labels: {severity: warning, instance: b1, job: node}
	            exp_annotations:
	              summary: "b1: lathound has not written its metrics for 3 minutes"
	      - eval_time: 4m
	        alertname: LathoundSectionsLost
	        exp_alerts:
	          - exp_labels: {severity: warning, tracer: irqsoff, instance: b1, job: node}
	            exp_annotations:
	              summary: "b1: irqsoff sections were lost unread"
	EOF2
	o=$(promtool test rules "$TMP/alerts.test.yml" 2>&1)
	check "the alerts fire as documented: a failed gate, a stale run (not an ended one), lost sections (promtool test rules)" \
		test $? = 0
	[ "$o" = "${o#*SUCCESS}" ] && sed 's/^/#   /' <<<"$o" | head -20
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
