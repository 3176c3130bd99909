# SPDX-License-Identifier: GPL-2.0-only
# --kprobe on the driver's interrupt handler: its hit lands inside the captured section.
knobs before
rec kprobe record -t irqsoff --kprobe "p:lhx_hit lhx_fakeraid_irq" -o "$OUT/kprobe" \
	-r "$RULES" -- \
	lhx-inject fakeraid 2000
knobs after
