# SPDX-License-Identifier: GPL-2.0-only
# --function-trace: the functions that ran inside the section, the driver's among them.
# Two sections 0.5 s apart, after a second: with function tracing on, creating lhx's worker
# kthread is itself a 1.1 ms irqs-off section whose 2000-line snapshot lathound reads (and
# tracing pauses) just when the first section comes. races.sh covers that case.
rec functrace record -t irqsoff --function-trace -o "$OUT/functrace" -r "$RULES" -- \
	sh -c 'sleep 1 && lhx-inject fakeraid 2000 2 500000 && sleep 0.5'
rec functrace_preempt record -t preemptoff --function-trace -o "$OUT/functrace_preempt" \
	-r "$RULES" -- sh -c 'sleep 1 && lhx-inject preempt 2000 2 500000 && sleep 0.5'
