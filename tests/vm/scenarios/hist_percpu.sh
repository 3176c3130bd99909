# SPDX-License-Identifier: GPL-2.0-only
# Two CPUs (plain TCG): an irqs-off section of 200 ms on CPU 1 and one of 300 ms on CPU 0
# land in their own CPU's histogram, each in its own power-of-two bucket.
rec hist_percpu hist --kinds irqsoff -- sh -c \
	'echo "irqs 200000 1 0 1" >/sys/kernel/lhx/run && echo "irqs 300000 1 0 0" >/sys/kernel/lhx/run &&
	 cat /sys/kernel/tracing/instances/lathound-hist-*/events/synthetic/*/hist >$OUT/raw-irqsoff.hist'
cp hist_percpu.out hist.txt
