# SPDX-License-Identifier: GPL-2.0-only
# The seed's story: the fakeraid interrupt handler holds interrupts off for 2000 us. Default
# options; the shipped rules name it (lhx-fakeraid-irq, critical: the gate fails, exit 2).
rec irqsoff record -t irqsoff -o "$OUT/irqsoff" -r "$RULES" -- lhx-inject fakeraid 2000
fact irq "$(cat $LHX/irq)"
