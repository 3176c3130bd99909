# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the scenarios (tests/vm/scenarios/*.sh), sourced in the guest before each one.
# A scenario runs in its output directory $OUT; everything it leaves there comes back to the
# host, where tests/vm/run asserts on it.
LH=/opt/lathound/lathound
RULES=/opt/lathound/rules
T=/sys/kernel/tracing
LHX=/sys/kernel/lhx

# inject KIND USEC [COUNT [PERIOD_US [CPU [STEP_US]]]]: runs lhx sections (see lhx.c);
# returns when they are done.
inject() {
	echo "$*" >$LHX/run
}

# wait_armed: returns once lathound has armed a tracer (current_tracer is not nop), or after
# 20 s.
wait_armed() {
	local i=0
	while [ "$(cat $T/current_tracer)" = nop ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# fact KEY VALUE: a result line for the host ($OUT/facts, KEY=VALUE).
fact() {
	echo "$1=$2" >>"$OUT/facts"
}

# rec NAME ARGS...: lathound ARGS with stdout/stderr in NAME.out/NAME.err, the exit code as
# fact NAME.rc and the guest time it took as NAME.s. Returns 0: the scenario goes on, the
# host judges the exit code.
rec() {
	local name=$1 rc t0 t1
	shift
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$LH" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	fact "$name.rc" "$rc"
	fact "$name.s" "$(echo "$t1 $t0" | awk '{printf "%.2f", $1 - $2}')"
}

# knobs FILE: every tracefs setting lathound may touch, as text, to compare before/after.
knobs() {
	{
		for f in current_tracer tracing_on tracing_thresh tracing_max_latency tracing_cpumask \
			trace_clock buffer_size_kb set_event set_ftrace_filter set_ftrace_notrace \
			set_graph_function set_graph_notrace set_event_pid set_ftrace_pid \
			kprobe_events synthetic_events saved_cmdlines_size max_graph_depth \
			trace_options; do
			[ -r "$T/$f" ] && { echo "== $f"; cat "$T/$f"; }
		done
		# global, not per instance: timerlat, osnoise and hwlat (Debian's RT kernel)
		for f in "$T"/osnoise/* "$T"/hwlat_detector/*; do
			[ -r "$f" ] && { echo "== ${f#$T/}"; cat "$f"; }
		done
		echo "== instances"
		ls "$T/instances"
		echo "== events"
		find "$T/events" \( -name enable -o -name filter -o -name trigger \) | sort |
			xargs grep -H ''
	} >"$1" 2>&1
}

# A state a user might have left: not the defaults, so a restore to defaults is caught.
user_state() {
	echo nop >$T/current_tracer
	echo 0 >$T/options/function-trace
	echo 1408 >$T/buffer_size_kb
	echo 1 >$T/events/sched/sched_switch/enable
	echo 0 >$T/tracing_max_latency
	echo 0 >$T/tracing_thresh
	echo 1 >$T/tracing_on
}
