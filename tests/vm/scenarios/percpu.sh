# SPDX-License-Identifier: GPL-2.0-only
# Two CPUs under plain TCG (random 2-70 ms phantom sections): sections well above that noise,
# pinned to a CPU, must be captured with that CPU. -T 100ms keeps the noise out: lathound then
# never reads a snapshot (which pauses tracing on every CPU) while an injected section runs.
# 200 ms with interrupts off on CPU 1, then 300 ms on CPU 0; a 200 ms delayed SCHED_FIFO
# wakeup on CPU 1. The irqsoff run's --metrics file has a series per CPU. percpu.read_events:
# each CPU's 'read events' (per_cpu/cpuN/stats) at the end of the irqsoff run, while armed:
# the events lathound's drain consumed from that CPU's live buffer since its last swap.
rec percpu record -t irqsoff -T 100ms -o "$OUT/percpu" -r "$RULES" --metrics "$OUT/percpu.prom" -- \
	sh -c 'lhx-inject irqs 200000 1 0 1 && sleep 0.5 && lhx-inject irqs 300000 1 0 0 &&
	       sleep 0.5 && for c in 0 1; do
			echo "cpu$c $(sed -n "s/^read events: //p" /sys/kernel/tracing/per_cpu/cpu$c/stats)"
	       done >"$OUT/percpu.read_events"'
rec percpu_wakeup record -t wakeup_rt -T 100ms -o "$OUT/percpu_wakeup" -r "$RULES" -- \
	sh -c 'lhx-inject wakeup_rt 200000 1 0 1 && sleep 0.5'
