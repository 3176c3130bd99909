# SPDX-License-Identifier: GPL-2.0-only
# Two CPUs (plain TCG): an irqs-off section of 200 ms on CPU 1 and one of 300 ms on CPU 0
# land in their own CPU's irqs-off histogram, each in its own power-of-two bucket.
rec hist_percpu record -t irqsoff --hist irqsoff --fail-on none -o "$OUT/hist_percpu" \
	-r "$RULES" -- sh -c \
	'echo "irqs 200000 1 0 1" >/sys/kernel/lhx/run && echo "irqs 300000 1 0 0" >/sys/kernel/lhx/run'
