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
