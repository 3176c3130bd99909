# SPDX-License-Identifier: GPL-2.0-only
# The wakeup tracers: lhx_wakeup_delay wakes a SCHED_FIFO (or SCHED_DEADLINE) kthread on its
# CPU, then keeps preemption off for 2000 us before it may run. A 1ms --max budget on each
# tracer fails its gate (exit 2).
rec wakeup_rt record -t wakeup_rt --max wakeup_rt=1ms -o "$OUT/wakeup_rt" -r "$RULES" -- \
	lhx-inject wakeup_rt 2000
rec wakeup record -t wakeup --max wakeup=1ms -o "$OUT/wakeup" -r "$RULES" -- \
	lhx-inject wakeup_rt 2000
rec wakeup_dl record -t wakeup_dl --max wakeup_dl=1ms -o "$OUT/wakeup_dl" -r "$RULES" -- \
	lhx-inject wakeup_dl 2000
