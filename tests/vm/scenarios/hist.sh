# SPDX-License-Identifier: GPL-2.0-only
# Histograms counted in the kernel by 'lathound record --hist': injected sections of
# known length land exactly in their bucket while the irqsoff tracer captures the worst with
# its call chain; a SCHED_FIFO wakeup delayed by a known time lands in the wakeup histogram;
# a soak killed by SIGKILL still has them in its last checkpoint; nothing is left behind
# after a normal end, SIGTERM, and SIGKILL then 'lathound reset'.
user_state
knobs knobs-before.txt

# Injected sections are longer than anything else here (on the SLOB kernel the suite used
# before, creating the histograms kept interrupts off up to ~4 ms in slob_alloc).
cat >/tmp/hist-cmd.sh <<'EOS'
echo "irqs 5000 10 20000" >/sys/kernel/lhx/run
echo "fakeraid 4500 5 20000" >/sys/kernel/lhx/run
echo "preempt 6000 4 20000" >/sys/kernel/lhx/run
echo "wakeup_rt 1500 5 20000" >/sys/kernel/lhx/run
EOS
rec hist record -t irqsoff --hist all --fail-on none -o "$OUT/hist" -r "$RULES" -- sh /tmp/hist-cmd.sh
rec hist_comm record -t irqsoff --hist wakeup --hist-comm lhx_rt --fail-on none \
	-o "$OUT/hist_comm" -r "$RULES" -- sh -c 'echo "wakeup_rt 1200 3 20000" >/sys/kernel/lhx/run'
knobs knobs-after.txt

# bg NAME ARGS...: lathound record in the background; returns once its histograms exist.
bg() {
	local name=$1 i=0
	shift
	"$LH" record -t irqsoff --hist all -o "$OUT/$name" -r "$RULES" "$@" >"$OUT/$name.out" 2>&1 &
	pid=$!
	while ! grep -q "lathound_${pid}_wakeup" $T/synthetic_events && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.5
}

bg term
ls $T/instances >instances-term-running.txt
kill -TERM $pid
wait $pid
fact hist_term.rc $?
knobs knobs-term.txt

# A soak killed by SIGKILL: its last checkpoint (every second here) has the histograms.
bg kill --checkpoint 1s
inject irqs 3000 3 20000
sleep 2
kill -KILL $pid
wait $pid
ls $T/instances >instances-killed.txt
cat $T/synthetic_events >synthetic-killed.txt
rec hist_reset reset
knobs knobs-reset.txt
