# SPDX-License-Identifier: GPL-2.0-only
# A kthread holds preemption off for 3000 us in lhx_preempt_hog.
rec preemptoff record -t preemptoff -o "$OUT/preemptoff" -r "$RULES" -- lhx-inject preempt 3000
