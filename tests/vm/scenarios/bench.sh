# SPDX-License-Identifier: GPL-2.0-only
# Guest side of tests/vm/bench.sh (icount, 1 CPU, default options).
# (a) inflation: ten runs of 'lathound record -t irqsoff' over one irqs-off section of exactly
#     2000 us (lhx_irqs_hog), and twenty such sections measured by the bare irqsoff tracer.
# (b) capture rate with -T 1ms: 100 fakeraid sections of 2000 + i us (i = 0..99: no two
#     snapshots alike) at 10/s and at 50/s; and 100 identical 2000 us sections at 10/s.
for i in 1 2 3 4 5 6 7 8 9 10; do
	rec inflation$i record -t irqsoff -o "$OUT/inflation$i" -r "$RULES" -- \
		lhx-inject irqs 2000
done
rec capture10 record -t irqsoff -T 1ms -o "$OUT/capture10" -r "$RULES" -- \
	lhx-inject fakeraid 2000 100 100000 -1 1
rec capture50 record -t irqsoff -T 1ms -o "$OUT/capture50" -r "$RULES" -- \
	lhx-inject fakeraid 2000 100 20000 -1 1
rec same10 record -t irqsoff -T 1ms -o "$OUT/same10" -r "$RULES" -- \
	lhx-inject fakeraid 2000 100 100000

echo 0 >$T/options/function-trace
echo irqsoff >$T/current_tracer
for i in $(seq 20); do
	echo 0 >$T/tracing_max_latency
	inject irqs 2000
	cat $T/tracing_max_latency
done >raw-irqsoff.txt
echo nop >$T/current_tracer
echo 1 >$T/options/function-trace
