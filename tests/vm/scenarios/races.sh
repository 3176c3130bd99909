# SPDX-License-Identifier: GPL-2.0-only
# Sections at the edges of a run. Reading a latency snapshot pauses tracing (the kernel
# forces pause-on-trace), so while lathound reads one, new sections go unseen.
# race_start: COMMAND's section comes at once, while lathound may still be reading the
#   section that arming itself caused (with function tracing on, a snapshot of thousands of
#   lines to read).
# race_end: COMMAND exits right after its section; the kernel notifies it from a workqueue
#   a moment later, and the run must still take it.
rec race_start record -t irqsoff --function-trace -o "$OUT/race_start" -r "$RULES" -- \
	sh -c 'lhx-inject fakeraid 2000 && sleep 1'
rec race_end record -t irqsoff -o "$OUT/race_end" -r "$RULES" -- \
	sh -c 'sleep 1 && lhx-inject fakeraid 2000'
