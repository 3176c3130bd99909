# SPDX-License-Identifier: GPL-2.0-only
# A tracefs tree made of plain files, as a kernel with irqsoff and wakeup_rt shows it, for
# 'lathound record --tracefs' without root (sourced by tests/cli/*.sh after tests/lib.sh):
# the test plays the kernel, writing real snapshots into 'trace' and the latency into
# tracing_max_latency (which inotify reports exactly as the kernel's own notification).
# rec ARGS... runs 'lathound record' on it; expect_tree DESC checks it is left as found.
# Sourced, not run (no execute bit: tests/run-all skips it).
F=$TMP/tracefs
ST=$TMP/state
NORULES=(-r "$TMP/none.rules")
echo '# no rules' >"$TMP/none.rules"
BG=

cleanup_bg() { [ -n "$BG" ] && kill -9 "$BG" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup_bg EXIT

# mkfake [TRACERS]: a tracefs tree as a kernel with TRACERS (default: irqsoff and wakeup_rt)
# shows it, in plain files.
mkfake() {
	local e o
	rm -rf "$F" "$ST"
	mkdir -p "$F/options" "$F/instances" "$F/events/irq"
	echo nop >"$F/current_tracer"
	echo "${1:-irqsoff wakeup_rt} function nop" >"$F/available_tracers"
	echo 1 >"$F/tracing_on"
	echo 0 >"$F/tracing_thresh"
	echo 0 >"$F/tracing_max_latency"
	echo 1408 >"$F/buffer_size_kb"
	printf '# tracer: nop\n#\n' >"$F/trace"
	echo 0 >"$F/events/enable"
	echo 0 >"$F/events/irq/enable"
	for e in irq_handler_entry irq_handler_exit; do
		mkdir -p "$F/events/irq/$e"
		echo 0 >"$F/events/irq/$e/enable"
		printf 'name: %s\nID: %d\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n' \
			"$e" $((${#e} + 200)) >"$F/events/irq/$e/format"
	done
	for o in function-trace irq-info context-info print-parent record-cmd; do
		echo 1 >"$F/options/$o"
	done
	for o in sym-offset sym-addr raw hex bin verbose stacktrace userstacktrace display-graph; do
		echo 0 >"$F/options/$o"
	done
	echo 0 >"$F/options/pause-on-trace"
	tree >"$TMP/tree.before"
}

# Every file of the fake tree but 'trace' (which the "kernel" writes), with its content.
tree() {
	(cd "$F" && find . -type f ! -name trace | sort | while read -r f; do
		printf '%s=%s\n' "$f" "$(cat "$f")"; done; find . -type d | sort)
}

expect_tree() {
	tree >"$TMP/tree.now"
	if cmp -s "$TMP/tree.before" "$TMP/tree.now"; then ok "$1: tracefs tree left as found"; else
		not_ok "$1: tracefs tree changed"; diff "$TMP/tree.before" "$TMP/tree.now" | head | sed 's/^/#   /'
	fi
}

rec() { run record --tracefs "$F" --state-dir "$ST" "$@"; }

# The kernel's side: wait until TRACER is armed, then record sections.
wait_armed() {
	local i
	for i in $(seq 100); do
		[ "$(cat "$F/current_tracer")" = "$1" ] && [ "$(cat "$F/tracing_on")" = 1 ] && return 0
		sleep 0.05
	done
	return 1
}
# notify LATENCY_US: one write, so one IN_MODIFY, as the kernel sends one per section ('>' would
# truncate first: two events).
notify() { printf '%-7s\n' "$1" 1<>"$F/tracing_max_latency"; }
# section FILE LATENCY_US: a new snapshot and its notification.
section() { cp "$1" "$F/trace.new" && mv "$F/trace.new" "$F/trace" && notify "$2"; }
