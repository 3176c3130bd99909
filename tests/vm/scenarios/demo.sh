# SPDX-License-Identifier: GPL-2.0-only
# The demo's hunt (tests/vm/demo): a real 'lathound record' over three tracers, armed in turn
# for 1 s slices, while the misbehaving driver does its worst, over and over - the fakeraid
# interrupt handler holding interrupts off, a kthread hogging the CPU with preemption off, a
# delayed SCHED_FIFO wakeup - with the shipped rules naming each culprit.
cat >/tmp/culprits <<'SH'
i=0
while [ $i -lt 40 ]; do
	echo "fakeraid $((1500 + i * 10))" >/sys/kernel/lhx/run
	echo "preempt $((2500 + i * 10))" >/sys/kernel/lhx/run
	echo "wakeup_rt $((1000 + i * 10))" >/sys/kernel/lhx/run
	sleep 0.1
	i=$((i + 1))
done
SH
rec hunt record -t irqsoff,preemptoff,wakeup_rt --slice 1s -T 500us -o "$OUT/hunt" \
	-r "$RULES" -- sh /tmp/culprits
