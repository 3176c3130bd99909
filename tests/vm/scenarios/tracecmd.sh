# SPDX-License-Identifier: GPL-2.0-only
# lhvm-program: /usr/bin/trace-cmd
# trace-cmd interop: trace.dat files made on the "board" as users make them, carried home and
# read by 'lathound analyze' on the host (tests/vm/run), each with what 'trace-cmd report'
# prints of it here (NAME.report). trace-cmd 3.1 writes file version 7, zstd-compressed:
#   irqsoff     trace-cmd record -p irqsoff with the irq events, function-trace on (its
#               default), while the fakeraid handler holds interrupts off 2000 us
#   wakeup_rt   trace-cmd record -p wakeup_rt over a 2000 us delayed real-time wakeup
# and small ones for tests/data (see its README), with /proc/kallsyms hidden, which is
# most of a file's size (1.5 MB here) and none of its latency data:
#   small-v7    irqsoff with the irq events, function-trace off
#   small-fly   trace-cmd record -e irq in file version 6, as trace-cmd 2.x writes: a
#               flyrecord, no latency data
# Each trace-cmd record takes 1-2 s of guest time (5-8 s here under icount): the host's
# tests/cli/tracedat.sh covers file version 6 through 'trace-cmd convert' instead.
if ! command -v trace-cmd >/dev/null; then
	fact tracecmd missing
	return 0
fi
fact irq "$(cat $LHX/irq)"
irq_events="-e irq:irq_handler_entry -e irq:irq_handler_exit"

# tc NAME ARGS...: trace-cmd record -o NAME.dat ARGS, then trace-cmd report of the file.
tc() {
	local name=$1
	shift
	trace-cmd record -o "$name.dat" "$@" >"$name.record.out" 2>&1
	fact "$name.rc" $?
	trace-cmd report "$name.dat" >"$name.report" 2>"$name.report.err"
	fact "$name.report_rc" $?
}

tc irqsoff -p irqsoff $irq_events lhx-inject fakeraid 2000
tc wakeup_rt -p wakeup_rt lhx-inject wakeup_rt 2000

: >/tmp/no-kallsyms
mount --bind /tmp/no-kallsyms /proc/kallsyms
tc small-v7 -p irqsoff -O nofunction-trace $irq_events lhx-inject fakeraid 2000
tc small-fly $irq_events --file-version 6 lhx-inject fakeraid 500
umount /proc/kallsyms
