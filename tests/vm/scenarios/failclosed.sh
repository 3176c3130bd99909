# SPDX-License-Identifier: GPL-2.0-only
# Verdicts that fail closed, on the real tracers: a workload that fails makes the run an error
# (its section still captured); a --max budget over a tracer the run never armed is an error;
# and a second signal during the shutdown (SIGINT, then SIGTERM 1-50 ms later, 1000 rules)
# never kills lathound: exit 0, report written, every knob restored, run after run.
user_state
knobs knobs-before.txt

rec cmdfail record -t irqsoff -o "$OUT/cmdfail" -r "$RULES" -- \
	sh -c 'lhx-inject irqs 2000; exit 3'
rec notmeasured record -t irqsoff,wakeup_rt --max all=5ms -o "$OUT/notmeasured" -r "$RULES" -- \
	lhx-inject irqs 2000
knobs knobs-failclosed.txt

# 1000 rules that match nothing: every one is compiled, tried and reported.
i=0
while [ $i -lt 1000 ]; do
	printf '[gen-%04d]\nmatch = ^gen%04d_(irq|poll)_handler$\nin = irq stack\n\n' $i $i
	i=$((i + 1))
done >/tmp/1000.rules

i=1
while [ $i -le 8 ]; do
	"$LH" record -t irqsoff,wakeup_rt -o "$OUT/sig2-$i" -r /tmp/1000.rules \
		>"$OUT/sig2-$i.out" 2>"$OUT/sig2-$i.err" &
	pid=$!
	n=0
	while [ "$(cat $T/current_tracer)" = nop ] && [ $n -lt 200 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	inject fakeraid 1500
	sleep 0.3
	ms=$(($(od -An -N2 -tu2 /dev/urandom) % 50 + 1))
	kill -INT $pid
	sleep "$(printf '0.%03d' $ms)"
	kill -TERM $pid
	wait $pid
	fact "sig2-$i.rc" $?
	fact "sig2-$i.delay_ms" $ms
	knobs "knobs-sig2-$i.txt"
	i=$((i + 1))
done
