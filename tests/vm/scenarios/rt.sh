# SPDX-License-Identifier: GPL-2.0-only
# Debian's own PREEMPT_RT kernel (linux-image-rt-*, no lhx driver): doctor, then 'lathound
# record -t wakeup_rt' around cyclictest (SCHED_FIFO 90, a 1 ms timer) while stress-ng loads
# both CPUs, cyclictest's wakeups counted in the kernel's histogram; a SIGKILLed run and
# 'lathound reset'. knobs-*.txt are compared on the host.
# lhvm-program: /usr/bin/cyclictest
# lhvm-program: /usr/bin/stress-ng
for p in cyclictest stress-ng; do
	command -v $p >/dev/null || fact missing "$p"
done
user_state
knobs knobs-before.txt
rec doctor doctor
# 1 on a PREEMPT_RT kernel (Debian's has no /proc/config.gz)
fact realtime "$(cat /sys/kernel/realtime 2>/dev/null)"

stress-ng --cpu 2 --timeout 30s >stress.out 2>&1 &
stress=$!
rec rt record -t wakeup_rt --hist wakeup --hist-comm cyclictest -o "$OUT/rt" -r "$RULES" -- \
	cyclictest -m -p 90 -i 1000 -t 1 -D 10s -q
wait $stress
fact stress.rc $?
knobs knobs-after.txt

"$LH" record -t wakeup_rt -o "$OUT/kill" -r "$RULES" >kill.out 2>&1 &
pid=$!
wait_armed
fact kill.armed "$(cat $T/current_tracer)"
kill -KILL $pid
wait $pid
knobs knobs-killed.txt
rec reset reset
knobs knobs-reset.txt
