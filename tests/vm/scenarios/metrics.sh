# SPDX-License-Identifier: GPL-2.0-only
# record --metrics on the real kernel: both default tracers in 1 s slices, a checkpoint every
# second, the fakeraid handler (2000 us with interrupts off) and a 1500 us delayed SCHED_FIFO
# wakeup in turn, half a second each, four times; the file is copied while the run goes on.
# The host lints both files with promtool and compares them with report.json.
mkdir -p "$OUT/textfile"
P=$OUT/textfile/lathound.prom
rec metrics record -t irqsoff,wakeup_rt --slice 1s --checkpoint 1s -o "$OUT/metrics" \
	-r "$RULES" --metrics "$P" -- sh -c "
	for i in 1 2 3 4; do
		lhx-inject fakeraid 2000 5 100000 && lhx-inject wakeup_rt 1500 5 100000 || exit 1
	done
	cp '$P' '$OUT/mid-run.prom'"
