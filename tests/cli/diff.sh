#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lathound diff as a user runs it, on reports that real 'lathound analyze' runs wrote from
# the traces of tests/data: growth found and gated, new offenders and new rule hits named,
# a pass when nothing changed, sets of reports, and every way it must be an error (exit 1):
# a corrupt report, a report whose own verdict is error, a gated tracer one side lacks.
. "$(dirname "$0")/../lib.sh"

# analyze TRACE... > OUT.json, as a board would save it; the report's own verdict is kept.
save() {
	local out=$1; shift
	"$LATHOUND" analyze -f json "$@" >"$TMP/$out" 2>/dev/null
	jq -e .verdict "$TMP/$out" >/dev/null || not_ok "analyze wrote no JSON report for $*"
}
save small.json "$DATA/ftrace-rst-irqsoff-func.trace"		# irqsoff 71us
save big.json "$DATA/ftrace-rst-irqsoff-format.trace"		# irqsoff 259us
save plain.json "$DATA/pidt-irqsoff-nofunc.trace"		# irqsoff 2002us, no rule hit
save raid.json "$DATA/vm-irqsoff-fakeraid.trace"		# irqsoff 2005us, critical hits
save pre1.json "$DATA/ftrace-rst-preemptoff.trace"		# preemptoff 46us
save pre2.json "$DATA/ftrace-rst-preemptoff-func.trace"	# preemptoff 83us
save broken.json "$DATA/handmade-truncated-header.trace"		# verdict error

# Equal: the same report on both sides passes every gate.
run diff --max-growth all=0 --max-new-offenders 0 --fail-on-new info "$TMP/big.json" "$TMP/big.json"
expect_rc "the same report on both sides passes" 0
expect_in "the tracer row: 259us on both sides, no change" "$out" "irqsoff         all  worst         259us        259us  ="
expect_in "no offender changed" "$out" "Offenders: 0 new, 0 changed in all"
expect_in "the verdict" "$out" "Verdict: PASS"

# Growth: 71us -> 259us is +264.8%, over 10%, within 300%.
run diff --max-growth irqsoff=10 "$TMP/small.json" "$TMP/big.json"
expect_rc "irqsoff grew over --max-growth irqsoff=10" 2
expect_in "the row says old, new, the change and that the worst was compared" "$out" \
	"irqsoff         all  worst          71us        259us  +188us (+264.8%)  FAIL"
expect_in "the violation" "$out" "irqsoff: worst grew +264.8% (71us -> 259us), over --max-growth irqsoff=10%"
expect_in "the new offender is named" "$out" "  new   0us -> 259us"
expect_in "the offender gone is named" "$out" "  gone  71us -> 0us"
run diff --max-growth all=300 "$TMP/small.json" "$TMP/big.json"
expect_rc "within --max-growth all=300" 0
run diff --max-growth irqsoff=10 "$TMP/big.json" "$TMP/small.json"
expect_rc "a shrinking worst case passes" 0
expect_in "shown as a fall" "$out" "-188us (-72.6%)"
run diff --max-new-offenders 0 "$TMP/small.json" "$TMP/big.json"
expect_rc "one new offender over --max-new-offenders 0" 2
expect_in "the violation names it" "$out" "1 new offender signature, over --max-new-offenders 0"
run diff --max-new-offenders 1 "$TMP/small.json" "$TMP/big.json"
expect_rc "one new offender within --max-new-offenders 1" 0

# New rule hits: the fakeraid rules fire on the new kernel only.
run diff --fail-on-new critical --max-growth irqsoff=1 "$TMP/plain.json" "$TMP/raid.json"
expect_rc "a critical rule hit new in the new report fails --fail-on-new critical" 2
expect_in "the rule is named" "$out" "rule 'raid-irq-held' (critical) hit 1 record, none in the base"
expect_in "2002us -> 2005us is within 1%" "$out" "+3us (+0.1%)"
run diff --fail-on-new critical "$TMP/raid.json" "$TMP/raid.json"
expect_rc "the same hits in the base pass --fail-on-new" 0

# JSON and JUnit.
run diff -f json --max-growth irqsoff=10 "$TMP/small.json" "$TMP/big.json"
expect_rc "-f json: the gate fails" 2
echo "$out" >"$TMP/d.json"
expect_jq "-f json: verdict, by, change and the violation" "$TMP/d.json" \
	'.verdict == "fail" and .rows[0].by == "worst" and .rows[0].change_pct > 264 and
	 .rows[0].base.worst_us == 71 and .rows[0].new.worst_us == 259 and (.violations | length) == 1'
expect_in "-f json: the violation on stderr" "$err" "gate failed: irqsoff: worst grew"
expect_in "-f json: µs as a report writes them, an integer when whole" "$out" \
	'"worst_us": 259,'
run diff -f json "$TMP/big.json" "$TMP/small.json"
expect_in "-f json: ... a fall signed" "$out" '"change_us": -188,'
run diff -f junit -o "$TMP/d.xml" --max-growth irqsoff=10 --max-new-offenders 0 \
	"$TMP/small.json" "$TMP/big.json"
expect_rc "-f junit -o FILE" 2
check "-f junit: well-formed XML (xmllint)" xmllint --noout "$TMP/d.xml"
check "-f junit: two failures, the growth and the new offender" \
	grep -q 'tests="5" failures="2" errors="0"' "$TMP/d.xml"

# Sets: every board of the old release against every board of the new one.
run diff --max-growth all=100 --base "$TMP/small.json" --base "$TMP/pre1.json" \
	--new "$TMP/small.json" --new "$TMP/pre2.json"
expect_rc "sets: preemptoff 46us -> 83us is within 100%" 0
expect_in "sets: both sides listed" "$out" "Base: 2 reports: $TMP/small.json $TMP/pre1.json"
expect_in "sets: the preemptoff row" "$out" "preemptoff      all  worst          46us         83us  +37us (+80.4%)"
run diff --max-growth preemptoff=50 --base "$TMP/small.json" --base "$TMP/pre1.json" \
	--new "$TMP/small.json" --new "$TMP/pre2.json"
expect_rc "sets: over --max-growth preemptoff=50" 2
run diff --base "$TMP/small.json" "$TMP/big.json"
expect_rc "operands mixed with --base" 1
run diff "$TMP/small.json"
expect_rc "one report only" 1

# Published traces from the wild: every report that analyze could judge, as a set, against
# itself passes.
set -- $(for f in "$DATA"/published/*.trace; do
	"$LATHOUND" analyze -f json "$f" >"$TMP/p-$(basename "$f").json" 2>/dev/null
	[ $? = 1 ] || echo "$TMP/p-$(basename "$f").json"; done)
sets=()
for f; do sets+=(--base "$f" --new "$f"); done
run diff --max-growth all=0 --max-new-offenders 0 "${sets[@]}"
expect_rc "published traces, $# reports, against themselves" 0
check "published traces: more than 15 reports compared" test $# -gt 15

# Errors: fail closed.
head -c 300 "$TMP/big.json" >"$TMP/corrupt.json"
run diff "$TMP/small.json" "$TMP/corrupt.json"
expect_rc "a corrupt report" 1
expect_in "the corrupt report is named" "$err" "corrupt.json"
run diff -f json "$TMP/small.json" "$TMP/corrupt.json"
expect_rc "-f json: a corrupt report" 1
echo "$out" >"$TMP/corrupt-diff.json"
expect_jq "-f json: the verdict is error, and says which report" "$TMP/corrupt-diff.json" \
	'.verdict == "error" and (.error | test("^a new report could not be read: .*corrupt.json"))'
run diff "$TMP/small.json" "$TMP/missing.json"
expect_rc "a missing report" 1
run diff "$TMP/small.json" "$TMP/broken.json"
expect_rc "a report whose own verdict is error" 1
expect_in "it is named, with --accept-error" "$err" "new report '$TMP/broken.json': its verdict is error"
run diff --accept-error "$TMP/small.json" "$TMP/broken.json"
expect_rc "--accept-error compares it" 0
run diff --max-growth preemptoff=10 "$TMP/small.json" "$TMP/big.json"
expect_rc "a gated tracer neither side measured" 1
run diff --max-growth all=10 --base "$TMP/small.json" --base "$TMP/pre1.json" --new "$TMP/small.json"
expect_rc "--max-growth all: preemptoff measured by the base only" 1
expect_in "the error says so" "$err" "preemptoff is gated by --max-growth but only the base reports measured it"
run diff -f junit --max-growth all=10 --base "$TMP/small.json" --base "$TMP/pre1.json" \
	--new "$TMP/small.json"
expect_rc "-f junit: the error" 1
expect_in "-f junit: the error is a testcase error" "$out" '<error message="preemptoff is gated'
run diff --max-growth irqsoff=ten "$TMP/small.json" "$TMP/big.json"
expect_rc "a growth that is not a number" 1
run diff -f html "$TMP/small.json" "$TMP/big.json"
expect_rc "-f html is refused" 1

# Percentiles from the kernel's histograms (record --hist), put into the reports as the
# recorder writes them: 2000 sections of N us and the run's worst, over all CPUs.
khist() {
	local in=$1 out=$2 us=$3 top=$4
	jq --argjson us "$us" --argjson top "$top" '.histograms = [{"source": "kernel",
		"kind": "irqsoff", "cpu": null, "unit": "us", "count": 2001, "min": $us,
		"max": $top, "mean": (($us * 2000 + $top) / 2001), "buckets": [
		{"lo": $us, "hi": ($us + 1), "count": 2000},
		{"lo": $top, "hi": ($top + 1), "count": 1}], "dropped": 0}]' "$TMP/$in" >"$TMP/$out"
}
khist plain.json kplain.json 10 2002
khist raid.json kraid.json 10 2005
khist raid.json kshift.json 40 2005
run diff --max-growth irqsoff=1 "$TMP/kplain.json" "$TMP/kraid.json"
expect_rc "the kernel's p99.9 is compared when both sides have its histogram" 0
expect_in "the row says p99.9, from the kernel's histograms" "$out" \
	"irqsoff         all  p99.9          11us         11us  =  from kernel"
expect_in "p99 beside it" "$out" "                     p99            11us         11us  ="
expect_in "and the worst" "$out" "                     worst        2002us       2005us  +3us (+0.1%)"
expect_in "the help line says which the gate judges" "$out" "--max-growth judges 'by'"
run diff --max-growth irqsoff=1 "$TMP/kplain.json" "$TMP/kshift.json"
expect_rc "a shifted kernel distribution fails --max-growth" 2
expect_in "the violation names p99.9" "$out" "irqsoff: p99.9 grew +272.7% (11us -> 41us)"
run diff -f json --max-growth irqsoff=1 "$TMP/kplain.json" "$TMP/kshift.json"
echo "$out" >"$TMP/k.json"
expect_jq "JSON: by, from, p99 of the kernel's histograms" "$TMP/k.json" \
	'.rows[0].by == "p99.9" and .rows[0].from == "kernel" and .rows[0].new.kernel_p99_us == 41'
run diff --max-growth irqsoff=0 "$TMP/kplain.json" "$TMP/kraid.json"
expect_rc "per-CPU rows are gated too (no per-CPU kernel histogram: worst 2002us -> 2005us)" 2
expect_in "the CPU's violation" "$out" "irqsoff on CPU 0: worst grew +0.1% (2002us -> 2005us)"

# IRQ handlers: analyze reports hold no IRQ statistics, so the gate cannot judge them.
run diff --max-irq-growth 10 "$TMP/small.json" "$TMP/big.json"
expect_rc "--max-irq-growth without IRQ statistics" 1
expect_in "the error says why" "$err" "--max-irq-growth cannot be judged: no base report collected IRQ statistics"
run diff --max-irq-growth lots "$TMP/small.json" "$TMP/big.json"
expect_rc "--max-irq-growth that is not a number" 1

# A side's counts are summed as one report would count them: a sum past 2^64 is an error, not
# a count gone round (rule hits that wrapped would read as none, and pass --fail-on-new).
# (Each report is consistent: its histogram counts the sections in one bucket; a mean of 0
# keeps the sum of latencies within 2^64.)
sections='.tracers.irqsoff |= (.count = $c | .histogram.count = $c | .histogram.mean = 0 |
	.histogram.buckets = [.histogram.buckets[0] | .count = $c]) | .records_total = $c'
jq --argjson c 9223372036854775807 "$sections" "$TMP/plain.json" >"$TMP/big1.json"
jq --argjson c 2 "$sections" "$TMP/plain.json" >"$TMP/two.json"
run diff --base "$TMP/big1.json" --base "$TMP/big1.json" --new "$TMP/plain.json"
expect_rc "two base reports of 2^63-1 sections each fit" 0
run diff --base "$TMP/big1.json" --base "$TMP/big1.json" --base "$TMP/two.json" \
	--new "$TMP/plain.json"
expect_rc "a base whose sections add up past 2^64 is an error" 1
expect_in "... naming the report and the count" "$out" \
	"base report '$TMP/two.json': tracers.irqsoff.count: the reports' counts add up past 2^64"

# timerlat's samples: the fixture of a record -t timerlat,osnoise,hwlat run, with the
# histograms of every sample the recorder writes (2000 samples of N us per context, CPU 0 and
# over all CPUs), each side another run.
SPIKES=$DATA/reports/spikes.json
samples() {
	local out=$1 id=$2 irq=$3 thread=$4
	jq --arg id "$id" --argjson irq "$irq" --argjson thread "$thread" '
	def h(k; c; lo): {"source": "kernel", "kind": k, "cpu": c, "unit": "us", "count": 2000,
		"min": lo, "max": (lo + 0.5), "mean": (lo + 0.25),
		"buckets": [{"lo": lo, "hi": (lo + 1), "count": 2000}], "dropped": 0};
	.run.run_id = $id | .histograms = [h("timerlat_irq"; null; $irq), h("timerlat_irq"; 0; $irq),
		h("timerlat_thread"; null; $thread), h("timerlat_thread"; 0; $thread)]' \
		"$SPIKES" >"$TMP/$out"
}
samples tl-base.json 11111111111111111111111111111111 5 10
samples tl-same.json 22222222222222222222222222222222 5 10
samples tl-slow.json 33333333333333333333333333333333 5 40
run diff --max-growth timerlat=10 "$TMP/tl-base.json" "$TMP/tl-same.json"
expect_rc "timerlat: the same samples pass --max-growth timerlat=10" 0
expect_in "timerlat: the IRQ context's row, p99.9 from the kernel's histogram" "$out" \
	"timerlat_irq    all  p99.9       5.500us      5.500us  =  from kernel"
expect_in "timerlat: the thread context's row of CPU 0" "$out" \
	"timerlat_thread 0    p99.9      10.500us     10.500us  =  from kernel"
expect_in "timerlat: the spike records' row beside them" "$out" \
	"timerlat        all  worst        6301us       6301us  ="
run diff --max-growth timerlat=10 "$TMP/tl-base.json" "$TMP/tl-slow.json"
expect_rc "timerlat: thread latencies 10us -> 40us fail --max-growth timerlat=10" 2
expect_in "timerlat: the violation names the context" "$out" \
	"timerlat_thread: p99.9 grew +285.7% (10.500us -> 40.500us), over --max-growth timerlat=10%"
expect_in "timerlat: ... and the CPU" "$out" \
	"timerlat_thread on CPU 0: p99.9 grew +285.7% (10.500us -> 40.500us), over --max-growth timerlat=10%"
expect_not_in "timerlat: the IRQ context passed" "$out" "timerlat_irq: p99.9 grew"
run diff --max-growth all=300 "$TMP/tl-base.json" "$TMP/tl-slow.json"
expect_rc "timerlat: within --max-growth all=300" 0
run diff -f json --max-growth timerlat=10 "$TMP/tl-base.json" "$TMP/tl-slow.json"
echo "$out" >"$TMP/tl.json"
expect_jq "timerlat JSON: the thread's row, its samples, failed" "$TMP/tl.json" \
	'any(.rows[]; .tracer == "timerlat" and .samples == "timerlat_thread" and .cpu == "all" and
	     .by == "p99.9" and .base.samples == 2000 and .new.kernel_p99_9_us == 40.5 and .failed)'
run diff -f junit --max-growth timerlat=10 "$TMP/tl-base.json" "$TMP/tl-slow.json"
expect_in "timerlat JUnit: a testcase per context" "$out" 'name="timerlat_thread p99.9 growth"'
expect_in "timerlat JUnit: the thread's fails" "$out" \
	'<failure message="timerlat_thread: p99.9 grew +285.7%'
jq '.histograms |= map(select(.kind != "timerlat_thread"))' "$TMP/tl-slow.json" >"$TMP/tl-nothread.json"
run diff --max-growth timerlat=10 "$TMP/tl-base.json" "$TMP/tl-nothread.json"
expect_rc "timerlat: the new run lacks the thread's samples: an error" 1
expect_in "timerlat: ... saying so" "$err" \
	"timerlat is gated by --max-growth but only the base reports counted its timerlat_thread samples"
run diff "$TMP/tl-base.json" "$TMP/tl-nothread.json"
expect_rc "timerlat: not gated, the same is shown" 0
expect_in "timerlat: ... as gone" "$out" "timerlat_thread all  worst      10.500us            -  gone"

# hwlat's samples (every gap of the hardware's, the kernel's "hwlat" histograms, 2000 of N us
# on CPU 0 and over all CPUs): rows named hwlat_samples beside its records' rows (hwlat).
hwsamples() {
	jq --arg id "$2" --argjson us "$3" '
	def h(c): {"source": "kernel", "kind": "hwlat", "cpu": c, "unit": "us", "count": 2000,
		"min": $us, "max": ($us + 0.5), "mean": ($us + 0.25),
		"buckets": [{"lo": $us, "hi": ($us + 1), "count": 2000}], "dropped": 0};
	.run.run_id = $id | .histograms = [h(null), h(0)]' "$SPIKES" >"$TMP/$1"
}
hwsamples hw-base.json 44444444444444444444444444444444 12
hwsamples hw-same.json 55555555555555555555555555555555 12
hwsamples hw-slow.json 66666666666666666666666666666666 30
run diff --max-growth hwlat=10 "$TMP/hw-base.json" "$TMP/hw-same.json"
expect_rc "hwlat: the same samples pass --max-growth hwlat=10" 0
expect_in "hwlat: the samples' row, p99.9 from the kernel's histogram" "$out" \
	"hwlat_samples   all  p99.9      12.500us     12.500us  =  from kernel"
expect_in "hwlat: ... and CPU 0's" "$out" \
	"hwlat_samples   0    p99.9      12.500us     12.500us  =  from kernel"
expect_in "hwlat: the records' row beside them" "$out" \
	"hwlat           all  worst        3500us       3500us  ="
run diff --max-growth hwlat=10 "$TMP/hw-base.json" "$TMP/hw-slow.json"
expect_rc "hwlat: gaps of 12us -> 30us fail --max-growth hwlat=10" 2
expect_in "hwlat: the violation names the samples" "$out" \
	"hwlat_samples: p99.9 grew +144.0% (12.500us -> 30.500us), over --max-growth hwlat=10%"
expect_in "hwlat: ... and the CPU" "$out" \
	"hwlat_samples on CPU 0: p99.9 grew +144.0% (12.500us -> 30.500us), over --max-growth hwlat=10%"
run diff --max-growth timerlat=10 "$TMP/hw-base.json" "$TMP/hw-slow.json"
expect_rc "hwlat: not judged by timerlat's gate" 0
run diff -f json --max-growth all=10 "$TMP/hw-base.json" "$TMP/hw-slow.json"
echo "$out" >"$TMP/hw.json"
expect_jq "hwlat JSON: the samples' row, failed" "$TMP/hw.json" \
	'any(.rows[]; .tracer == "hwlat" and .samples == "hwlat" and .cpu == "all" and
	     .by == "p99.9" and .base.samples == 2000 and .new.kernel_p99_9_us == 30.5 and .failed)'
run diff -f junit --max-growth hwlat=10 "$TMP/hw-base.json" "$TMP/hw-slow.json"
expect_in "hwlat JUnit: a testcase of the samples" "$out" 'name="hwlat_samples p99.9 growth"'
expect_in "hwlat JUnit: ... failed" "$out" '<failure message="hwlat_samples: p99.9 grew +144.0%'
jq '.histograms |= map(select(.kind != "hwlat"))' "$TMP/hw-slow.json" >"$TMP/hw-none.json"
run diff --max-growth hwlat=10 "$TMP/hw-base.json" "$TMP/hw-none.json"
expect_rc "hwlat: the new run counted no samples: an error" 1
expect_in "hwlat: ... saying so" "$err" \
	"hwlat is gated by --max-growth but only the base reports counted its hwlat samples"
jq '([.records[] | select(.tracer == "hwlat")] | length) as $n |
	.records |= map(select(.tracer != "hwlat")) | del(.tracers.hwlat) |
	.records_total -= $n | .records_kept -= $n |
	.histograms |= map(select(.kind != "hwlat"))' "$TMP/hw-slow.json" >"$TMP/hw-unmeasured.json"
run diff --max-growth hwlat=10 "$TMP/hw-base.json" "$TMP/hw-unmeasured.json"
expect_rc "hwlat: a new run without hwlat: an error, not a pass" 1
expect_in "hwlat: ... saying so" "$err" \
	"hwlat is gated by --max-growth but only the base reports measured it"

# osnoise's % CPU available per CPU (the fixture: CPU0 99.998 %, CPU1 99.198 %), and
# --max-available-drop in points.
noisy='.tracers.osnoise.noise_cpus[1] |= (.noise_us = $n | .available_percent = $a)'
jq --argjson n 100000 --argjson a 95 "$noisy" "$TMP/tl-same.json" >"$TMP/av-95.json"
run diff --max-available-drop osnoise=5 "$TMP/tl-base.json" "$TMP/av-95.json"
expect_rc "osnoise: CPU1 99.198 % -> 95 % is within --max-available-drop osnoise=5" 0
expect_in "osnoise: the rows, base and new" "$out" "osnoise: % CPU available
CPU          base          new  change (points)
0          99.998       99.998  =
1          99.198       95.000  -4.198"
run diff --max-available-drop osnoise=1 "$TMP/tl-base.json" "$TMP/av-95.json"
expect_rc "osnoise: 4.198 points down fails --max-available-drop osnoise=1" 2
expect_in "osnoise: the CPU's row fails" "$out" "1          99.198       95.000  -4.198  FAIL"
expect_in "osnoise: the violation" "$out" \
	"osnoise's CPU1: 95.000 % available, 4.198 points down from 99.198, over --max-available-drop osnoise=1.000"
expect_in "osnoise: the gate listed" "$out" "Gates: --max-available-drop osnoise=1.000"
run diff --max-available-drop osnoise=1 "$TMP/av-95.json" "$TMP/tl-base.json"
expect_rc "osnoise: more available passes" 0
expect_in "osnoise: ... shown as a rise" "$out" "1          95.000       99.198  +4.198"
run diff -f json --max-available-drop osnoise=1 "$TMP/tl-base.json" "$TMP/av-95.json"
echo "$out" >"$TMP/av.json"
expect_jq "osnoise JSON: each side's figures, the change in points, failed" "$TMP/av.json" \
	'.verdict == "fail" and .available[1].cpu == 1 and .available[1].base.available_percent == 99.198 and
	 .available[1].new.noise_us == 100000 and .available[1].change_points == -4.198 and
	 .available[1].max_drop_points == 1 and .available[1].failed and (.available[0].failed | not)'
run diff -f junit --max-available-drop osnoise=1 "$TMP/tl-base.json" "$TMP/av-95.json"
expect_in "osnoise JUnit: its testcase fails" "$out" \
	'<testcase classname="lathound.diff" name="osnoise available drop">
      <failure message="osnoise&#39;s CPU1: 95.000 % available'
# A forged availability is refused, never judged: the report's sums decide.
jq '.tracers.osnoise.noise_cpus[1].available_percent = 99.198' "$TMP/av-95.json" >"$TMP/av-forged.json"
run diff --max-available-drop osnoise=1 "$TMP/tl-base.json" "$TMP/av-forged.json"
expect_rc "osnoise: an availability its sums do not give is an error, not a pass" 1
expect_in "osnoise: ... naming the field" "$err" "available_percent"
jq '.tracers.osnoise.noise_cpus[1].available_percent = 95' "$TMP/tl-same.json" >"$TMP/av-forged2.json"
run diff --max-available-drop osnoise=1 "$TMP/tl-base.json" "$TMP/av-forged2.json"
expect_rc "osnoise: ... nor a fail" 1
# Fail closed: a CPU without a period, a CPU on one side only, a side without osnoise.
jq '.tracers.osnoise.noise_cpus[0] |= (.periods = 0 | .runtime_us = 0 | .noise_us = 0 |
	.available_percent = null | .max_single_us = 0)' "$TMP/tl-same.json" >"$TMP/av-none.json"
run diff --max-available-drop osnoise=5 "$TMP/tl-base.json" "$TMP/av-none.json"
expect_rc "osnoise: a CPU that measured no period cannot be compared" 1
expect_in "osnoise: ... saying which" "$err" \
	"osnoise is gated by --max-available-drop but CPU0 measured no period in the new reports"
run diff "$TMP/tl-base.json" "$TMP/av-none.json"
expect_rc "osnoise: not gated, it is shown" 0
expect_in "osnoise: ... as no period" "$out" "0          99.998    no period  -"
jq '.tracers.osnoise.noise_cpus |= .[:1]' "$TMP/tl-same.json" >"$TMP/av-one.json"
run diff --max-available-drop osnoise=5 "$TMP/tl-base.json" "$TMP/av-one.json"
expect_rc "osnoise: a CPU of the base only" 1
expect_in "osnoise: ... saying which" "$err" \
	"osnoise is gated by --max-available-drop but CPU1 is listed in the base reports only"
run diff --max-available-drop osnoise=5 "$TMP/tl-base.json" "$TMP/small.json"
expect_rc "osnoise: a new report without osnoise" 1
expect_in "osnoise: ... saying so" "$err" \
	"osnoise is gated by --max-available-drop but the new reports measured no period"
run diff --max-available-drop osnoise=lots "$TMP/tl-base.json" "$TMP/av-95.json"
expect_rc "osnoise: a drop that is not a percentage" 1
run diff --max-available-drop timerlat=5 "$TMP/tl-base.json" "$TMP/av-95.json"
expect_rc "osnoise: another tracer than osnoise" 1

exit $T_FAILED
