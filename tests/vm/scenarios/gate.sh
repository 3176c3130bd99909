# SPDX-License-Identifier: GPL-2.0-only
# A release gate: --max irqsoff=1ms over a 2000 us irqs-off section must fail (exit 2) and
# name the violation. The same section under a 5ms budget passes (no rule names lhx_irqs_hog
# as critical).
rec gate record -t irqsoff --max irqsoff=1ms -o "$OUT/gate" -r "$RULES" -- lhx-inject irqs 2000
rec gate_pass record -t irqsoff --max irqsoff=5ms -o "$OUT/gate_pass" -r "$RULES" -- \
	lhx-inject irqs 2000
