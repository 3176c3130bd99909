# SPDX-License-Identifier: GPL-2.0-only
# The harness itself, without lathound: each lhx section, and the kernel's own
# preemptirq_delay_test, caught by the raw latency tracers. If these fail, the kernel or the
# driver is at fault, not lathound. Leaves <case>.trace files for the host to check.

# capture CASE TRACER COMMAND...: arms TRACER alone, runs the command, saves the snapshot.
capture() {
	local name=$1 tracer=$2
	shift 2
	echo "$tracer" >$T/current_tracer
	echo 0 >$T/tracing_max_latency
	"$@"
	fact "$name.cmd_rc" $?
	sleep 0.1
	cat $T/trace >"$name.trace"
	echo nop >$T/current_tracer
}

echo 0 >$T/options/function-trace
echo 1 >$T/events/irq/irq_handler_entry/enable
echo 1 >$T/events/irq/irq_handler_exit/enable
grep -o '[a-z_]*' $T/available_tracers >tracers
fact irq "$(cat $LHX/irq)"

capture fakeraid irqsoff inject fakeraid 2000
capture preempt preemptoff inject preempt 3000
capture irqs preemptirqsoff inject irqs 2500
capture wakeup_rt wakeup_rt inject wakeup_rt 2000
capture wakeup wakeup inject wakeup_rt 2000
capture wakeup_dl wakeup_dl inject wakeup_dl 2000
capture pidt irqsoff insmod /modules/preemptirq_delay_test.ko test_mode=irq delay=2000
rmmod preemptirq_delay_test

echo 1 >$T/options/function-trace
capture func irqsoff inject fakeraid 2000
echo 0 >$T/options/function-trace

echo 'p:lhx/fakeraid lhx_fakeraid_irq' >>$T/kprobe_events
echo 1 >$T/events/lhx/fakeraid/enable
capture kprobe irqsoff inject fakeraid 2000
echo 0 >$T/events/lhx/fakeraid/enable
echo '-:lhx/fakeraid' >>$T/kprobe_events

echo 0 >$T/events/irq/irq_handler_entry/enable
echo 0 >$T/events/irq/irq_handler_exit/enable
cat /sys/kernel/lhx/sections >sections
