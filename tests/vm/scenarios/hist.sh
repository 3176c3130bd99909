# SPDX-License-Identifier: GPL-2.0-only
# Histograms counted in the kernel (lathound hist, the engine's harness): injected sections
# of known length land exactly in their bucket, the tail agrees with what the irqsoff
# tracer records above tracing_thresh over the same window, a SCHED_FIFO wakeup delayed by
# a known time lands in the wakeup histogram, and nothing is left behind (normal end, and
# SIGKILL then 'lathound reset').
user_state
knobs knobs-before.txt

# The oracle: the irqsoff tracer, armed inside the histograms' window, records the worst
# section (tracing_max_latency); the histogram's highest bucket must hold it. Injected
# sections are longer than anything else here (creating an instance allocates enough for
# this tinyconfig kernel's SLOB allocator to keep interrupts off up to ~4 ms, in
# slob_alloc: real sections, which the tracer records too).
cat >/tmp/hist-cmd.sh <<'EOS'
T=/sys/kernel/tracing
echo 0 >$T/tracing_max_latency
echo irqsoff >$T/current_tracer
echo "irqs 5000 10 20000" >/sys/kernel/lhx/run
echo "fakeraid 4500 5 20000" >/sys/kernel/lhx/run
echo "preempt 6000 4 20000" >/sys/kernel/lhx/run
echo "wakeup_rt 1500 5 20000" >/sys/kernel/lhx/run
echo nop >$T/current_tracer
for k in irqsoff preemptoff wakeup; do
	cat $T/instances/lathound-hist-*/events/synthetic/lathound_*_$k/hist >$OUT/raw-$k.hist
done
EOS
rec hist hist -- sh /tmp/hist-cmd.sh
cp hist.out hist.txt
fact tracer_max_us "$(cat $T/tracing_max_latency)"
echo 0 >$T/tracing_max_latency
rec hist_comm hist --kinds wakeup --comm lhx_rt -- sh -c 'echo "wakeup_rt 1200 3 20000" >/sys/kernel/lhx/run'
knobs knobs-after.txt
cat $T/synthetic_events >synthetic-after.txt
ls $T/instances >instances-after.txt

# SIGKILL: the instance, its triggers and the synthetic events stay; 'lathound reset' removes them.
"$LH" hist -- sleep 60 >kill.out 2>&1 &
pid=$!
i=0
while ! grep -q "lathound_${pid}_wakeup" $T/synthetic_events && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.5
kill -KILL $pid
wait $pid
ls $T/instances >instances-killed.txt
cat $T/synthetic_events >synthetic-killed.txt
rec hist_reset reset
knobs knobs-reset.txt
