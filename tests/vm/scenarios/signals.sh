# SPDX-License-Identifier: GPL-2.0-only
# Kernel state is borrowed: a run ended by SIGTERM, and one killed by SIGKILL then followed by
# 'lathound reset' or by a new run, must leave every tracefs knob as it found it. knobs
# snapshots (knobs-*.txt) are compared on the host.

# start NAME: a background record run of two tracers; waits until a tracer is armed.
start() {
	"$LH" record -t irqsoff,wakeup_rt -o "$OUT/$1" -r "$RULES" >"$OUT/$1.out" 2>"$OUT/$1.err" &
	pid=$!
	wait_armed
	fact "$1.armed" "$(cat $T/current_tracer)"
	inject fakeraid 1500
	inject wakeup_rt 1500
	sleep 0.5
	knobs "knobs-$1-running.txt"
}

user_state
knobs knobs-before.txt

start term
kill -TERM $pid
wait $pid
fact term.rc $?
knobs knobs-term.txt

start int
kill -INT $pid
wait $pid
fact int.rc $?
knobs knobs-int.txt

start kill
kill -KILL $pid
wait $pid
knobs knobs-killed.txt
ls /run/lathound >run-lathound.txt 2>&1
rec reset reset
knobs knobs-reset.txt

start kill2
kill -KILL $pid
wait $pid
rec restart record -t irqsoff -d 1s -o "$OUT/restart" -r "$RULES"
knobs knobs-restart.txt

# With -T on this guest of one CPU the live buffer is drained (src/kernel/drain.c): lathound holds
# per_cpu/cpu0/trace_pipe_raw open, and the kernel refuses a tracer change (EBUSY) while it
# is. SIGTERM, and SIGKILL + reset, must give every knob back all the same.
start_drained() {
	"$LH" record -t irqsoff -T 1ms -o "$OUT/$1" -r "$RULES" >"$OUT/$1.out" 2>"$OUT/$1.err" &
	pid=$!
	wait_armed
	inject fakeraid 1500
	sleep 0.5
	fact "$1.drained" "$(ls -l /proc/$pid/fd 2>/dev/null | grep -c "$T/per_cpu/cpu0/trace_pipe_raw")"
}

start_drained dterm
kill -TERM $pid
wait $pid
fact dterm.rc $?
knobs knobs-dterm.txt

start_drained dkill
kill -KILL $pid
wait $pid
rec dreset reset
knobs knobs-dreset.txt
