# SPDX-License-Identifier: GPL-2.0-only
# timerlat on the test kernel, where the culprits are known (issue 19): every spike broken
# into its parts and its cause named. lhx's fakeraid handler holds interrupts off 2000 us, 10
# times 103 ms apart (its phase walks against timerlat's 1 ms period), under
# 'record -t timerlat -T 1000us': each section delays a timer by 1-2 ms, and the spike's
# parts name the interrupt (osnoise:irq_noise "fakeraid"). Then lhx's preempt-off hog, a
# kthread, the same way: the timer's interrupt comes in time, its thread cannot run; the
# spike charges the hog, with the stack of what ran when the timer fired (print_stack).
user_state
knobs knobs-before.txt

rec tlx record -t timerlat -T 1000us --hist all --keep 100 -o "$OUT/tlx" -r "$RULES" -- \
	lhx-inject fakeraid 2000 10 103000
knobs knobs-tlx.txt

rec tlp record -t timerlat -T 1000us --hist all --keep 100 -o "$OUT/tlp" -r "$RULES" -- \
	lhx-inject preempt 2000 10 103000
knobs knobs-tlp.txt
