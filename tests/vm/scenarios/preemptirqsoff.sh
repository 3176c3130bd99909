# SPDX-License-Identifier: GPL-2.0-only
# preemptirqsoff sees both kinds: 2500 us with interrupts off (lhx_irqs_hog), then a longer
# 3500 us with preemption off (lhx_preempt_hog): two successive maxima. --max
# preemptirqsoff=1ms fails the gate (exit 2).
rec preemptirqsoff record -t preemptirqsoff --max preemptirqsoff=1ms \
	-o "$OUT/preemptirqsoff" -r "$RULES" -- \
	sh -c 'lhx-inject irqs 2500 && sleep 0.2 && lhx-inject preempt 3500'
