# SPDX-License-Identifier: GPL-2.0-only
# The kernel's own injector: preemptirq_delay_test holds interrupts off 2000 us at load time.
# Unloaded only after the run: its frames would print as raw addresses once it is gone.
rec pidt record -t irqsoff -o "$OUT/pidt" -r "$RULES" -- \
	insmod /modules/preemptirq_delay_test.ko test_mode=irq delay=2000
rmmod preemptirq_delay_test
