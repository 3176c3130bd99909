# SPDX-License-Identifier: GPL-2.0-only
# wakeup_rt with a threshold on Debian's own PREEMPT_RT kernel (issue 21: what lathound chose
# for capturing without going blind must hold there), booted by tests/vm/rt/run on one CPU
# under -icount, where guest time counts instructions. The sections are the kernel's own:
# its ktimers/0 thread (SCHED_FIFO 1) woken from idle takes 27-28 us there, a few hundred
# times a second. 'record -T 10us' reads each one while tracing goes on; the host asserts on
# the counts, and on wk.whole: how many of the raw snapshots kept are one section whole
# (tests/vm/rt/wakeup-whole.awk, shipped as a data file).
# The top-level buffer expanded, as any first use of tracing leaves it (the kernel cannot be
# given back one never used: that reads '7 (expanded: 1408)').
echo 1408 >$T/buffer_size_kb
knobs knobs-before.txt

rec wk record -t wakeup_rt -T 10us -d 5s --fail-on none --keep 10 -o "$OUT/wk" -r "$RULES"
if [ -n "$(ls "$OUT/wk/snapshots" 2>/dev/null)" ]; then
	fact wk.whole "$(awk -f /opt/lathound/data/wakeup-whole.awk "$OUT"/wk/snapshots/*)"
else
	fact wk.whole 0/0
fi
knobs knobs-wk.txt
# The console carries the outputs back (the report keeps 10 records; the counts are whole).
rm -rf "$OUT/wk/snapshots" "$OUT/wk/report.html" "$OUT/wk/report.txt"
