# SPDX-License-Identifier: GPL-2.0-only
# Two CPUs (plain TCG): an irqs-off section of 200 ms on CPU 1 and one of 300 ms on CPU 0
# land in their own CPU's irqs-off histogram, each in its own power-of-two bucket, while the
# irqsoff tracer captures both. -T 100ms and the pauses between them as in percpu.sh: in
# running-maximum mode lathound would read snapshots of TCG's 2-70 ms phantom sections, and
# a read pauses tracing on every CPU, so the 300 ms section could begin inside a pause.
rec hist_percpu record -t irqsoff -T 100ms --hist irqsoff --fail-on none \
	-o "$OUT/hist_percpu" -r "$RULES" -- sh -c \
	'lhx-inject irqs 200000 1 0 1 && sleep 0.5 && lhx-inject irqs 300000 1 0 0 && sleep 0.5'
