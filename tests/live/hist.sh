#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The histogram engine ('lathound hist', src/kernel/hist.c) against this machine's REAL tracefs
# (root). Where the kernel has no hist triggers or synthetic events (this project's hosts),
# it must say so and exit 1 having created nothing; where it has them, a short run must
# count and leave nothing behind. The real proof is the VM suite (scenarios hist*).
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "live hist tests" "not root: the real tracefs is only writable by root"
	finish
fi
T=/sys/kernel/tracing
[ -e $T/current_tracer ] || mount -t tracefs nodev $T 2>/dev/null
if [ ! -w $T/current_tracer ]; then
	skip "live hist tests" "tracefs is not available at $T (mount -t tracefs nodev $T failed)"
	finish
fi

snapshot() {
	{ ls $T/instances; cat $T/synthetic_events 2>/dev/null
	  cat $T/events/sched/sched_waking/trigger $T/events/sched/sched_switch/trigger; } 2>&1
}
before=$(snapshot)
run hist --kinds wakeup --state-dir "$TMP/state" -- sleep 0.2
if [ -e $T/synthetic_events ] && [ -e $T/events/sched/sched_switch/hist ]; then
	expect_rc "hist: a wakeup histogram over 'sleep 0.2'" 0
	expect_in "hist: prints the wakeup table" "$out" "hist wakeup hits"
else
	expect_rc "hist: a kernel without hist triggers or synthetic events is an error" 1
	expect_in "hist: says what the kernel lacks" "$err" "this kernel cannot count latency histograms"
fi
after=$(snapshot)
check "hist: instances, synthetic events and triggers as before" test "$before" = "$after"
finish
