# SPDX-License-Identifier: GPL-2.0-only
# A kthread holds preemption off for 3000 us in lhx_preempt_hog; --max preemptoff=1ms fails
# the gate (exit 2).
rec preemptoff record -t preemptoff --max preemptoff=1ms -o "$OUT/preemptoff" -r "$RULES" -- \
	lhx-inject preempt 3000
