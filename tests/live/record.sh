#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 'lathound record' against this machine's REAL tracefs (root). The host kernel has no latency
# tracer, so this covers: the "tracer not available" refusals, the IRQ statistics from real
# interrupts (--irq-only), the restore of every knob on every way a run can end (duration,
# error, SIGINT, SIGTERM, SIGHUP, a second SIGINT, a SIGTERM during the shutdown, SIGKILL then
# the next run or 'reset'), the run lock, checkpoints, '-- COMMAND' and its failure, a full
# output disk, the status line, and the --metrics file (promtool, node_exporter). After each
# run the knobs must be byte-identical to what they were before it.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "live record tests" "not root: the real tracefs is only writable by root"
	finish
fi
T=/sys/kernel/tracing
[ -e $T/current_tracer ] || mount -t tracefs nodev $T 2>/dev/null
if [ ! -w $T/current_tracer ]; then
	skip "live record tests" "tracefs is not available at $T (mount -t tracefs nodev $T failed)"
	finish
fi
if [ "$(cat $T/current_tracer)" != nop ]; then
	skip "live record tests" "current_tracer is '$(cat $T/current_tracer)': another tool is tracing here"
	finish
fi
if [ ! -e $T/events/irq/irq_handler_entry ]; then
	skip "live record tests" "this kernel has no irq:irq_handler_entry event"
	finish
fi

TINY=$TMP/tiny
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
		# A run killed on purpose whose instance nothing removed (a failed test).
		[ -d "$T/instances/lathound-$p" ] && rmdir "$T/instances/lathound-$p"
	done
	mountpoint -q "$TINY" && umount "$TINY"
	rm -rf "$TMP"
}
trap cleanup EXIT

# Every knob of the top-level instance lathound may touch, and the instances that exist.
KNOBS=(current_tracer tracing_on tracing_thresh tracing_max_latency buffer_size_kb trace_clock
       tracing_cpumask set_event set_ftrace_filter set_ftrace_notrace set_ftrace_pid
       events/enable events/irq/enable events/irq/irq_handler_entry/enable
       events/irq/irq_handler_exit/enable kprobe_events trace_options)
knobs() {
	local f
	for f in "${KNOBS[@]}" options/*; do
		[ -e "$T/$f" ] && printf '%s=%s\n' "$f" "$(tracefs_knob "$T/$f")"
	done
	printf 'instances=%s\n' "$(ls $T/instances | tr '\n' ' ')"
}
knobs >"$TMP/found"

# expect_knobs DESC: the knobs are byte-identical to what the test found.
expect_knobs() {
	knobs >"$TMP/now"
	if cmp -s "$TMP/found" "$TMP/now"; then ok "$1: tracefs left exactly as found"; else
		not_ok "$1: tracefs changed"; diff "$TMP/found" "$TMP/now" | head -10 | sed 's/^/#   /'
	fi
}

# Another lathound (someone else's test) holds the lock: wait for it, up to a minute.
wait_lock() {
	local i
	for i in $(seq 600); do
		[ -e /run/lathound/lock ] || return 0
		flock -n /run/lathound/lock true && return 0
		sleep 0.1
	done
}

# start ARGS...: lathound record in the background; sets $pid, output in $TMP/bg.{out,err}.
start() {
	wait_lock
	"$LATHOUND" record "$@" >"$TMP/bg.out" 2>"$TMP/bg.err" &
	pid=$!
	PIDS+=("$pid")
}

# wait_instance PID: until lathound PID's own instance exists (its session is set up).
wait_instance() {
	local i
	for i in $(seq 100); do
		[ -d "$T/instances/lathound-$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# finish_bg: waits for $pid; sets $rc.
finish_bg() {
	{ wait "$pid"; } 2>/dev/null
	rc=$?
	err=$(cat "$TMP/bg.err")
}

# Interrupts from the virtio (or any) disk: direct writes that each complete with an IRQ.
disk_io() {
	dd if=/dev/zero of="$TMP/io" bs=64k count="${1:-200}" oflag=direct 2>/dev/null ||
		dd if=/dev/zero of="$TMP/io" bs=64k count="${1:-200}" conv=fsync 2>/dev/null
	rm -f "$TMP/io"
}

# ---- (a) tracers this kernel lacks ----
has() { grep -qw "$1" $T/available_tracers; }
if has irqsoff; then
	skip "record -t irqsoff refused" "this kernel has irqsoff"
else
	wait_lock
	run record -t irqsoff -d 2s -o "$TMP/a1"
	expect_rc "record -t irqsoff without the tracer" 1
	expect_in "names CONFIG_IRQSOFF_TRACER" "$err" "CONFIG_IRQSOFF_TRACER"
	check "no output directory left behind" test ! -e "$TMP/a1"
	expect_knobs "refused run"
fi
if has irqsoff || has wakeup_rt; then
	skip "record -t irqsoff,wakeup_rt refused" "this kernel has one of them"
else
	wait_lock
	run record -t irqsoff,wakeup_rt -d 2s -o "$TMP/a2"
	expect_rc "record -t irqsoff,wakeup_rt without either tracer" 1
	expect_in "names CONFIG_IRQSOFF_TRACER" "$err" "CONFIG_IRQSOFF_TRACER"
	expect_in "names CONFIG_SCHED_TRACER for wakeup_rt" "$err" "CONFIG_SCHED_TRACER"
	expect_in "both tracers named" "$err" "'wakeup_rt'"
	expect_knobs "refused run with two tracers"
fi

# ---- (b) IRQ statistics from real interrupts; the instance lives as long as the run ----
start --irq-only -d 4s -o "$TMP/b" --checkpoint 1s
if wait_instance $pid; then ok "instance lathound-$pid exists during the run"; else
	not_ok "instance lathound-$pid never appeared"; fi
knobs >"$TMP/during"
if cmp -s "$TMP/found" "$TMP/during"; then
	not_ok "the run changed no knob (the restore tests below would prove nothing)"
else
	ok "the run borrows knobs (tracing_on, options) while it runs"
fi
disk_io 300
finish_bg
expect_rc "record --irq-only -d 4s" 0
check "instance lathound-$pid removed at the end" test ! -e "$T/instances/lathound-$pid"
expect_knobs "record --irq-only -d 4s"
J=$TMP/b/report.json
expect_jq "report.json: mode record, ended by duration" "$J" \
	'.mode == "record" and .run.end_reason == "duration"'
expect_jq "report.json: irq_stats.handlers is not empty" "$J" '(.irq_stats.handlers | length) > 0'
expect_jq "report.json: every handler ran at least once" "$J" \
	'[.irq_stats.handlers[].count > 0] | all'
expect_jq "report.json: events and lost are counted" "$J" \
	'(.irq_stats.events > 0) and (.irq_stats.lost | type == "number") and (.irq_stats.dropped | type == "number")'
expect_jq "report.json: max >= mean, p99 set, histogram sums to count" "$J" \
	'[.irq_stats.handlers[] | (.max_us >= .mean_us) and (.p99_us > 0) and (([.histogram[].count] | add) == .count)] | all'
bad=0
while read -r irq name; do
	grep -qE "^ *$irq:.*[ ,]$(printf '%s' "$name" | sed 's/[.[\*^$]/\\&/g')(,|\$| )" /proc/interrupts || {
		echo "#   irq $irq '$name' is not in /proc/interrupts"; bad=1; }
done < <(jq -r '.irq_stats.handlers[] | "\(.irq) \(.name)"' "$J")
if [ "$bad" = 0 ]; then ok "every handler is a real one: its irq and name are in /proc/interrupts"; else
	not_ok "handlers not found in /proc/interrupts"; fi
expect_jq "report.json: no latency tracer armed, no captures" "$J" \
	'.run.captures == 0 and .run.wait_method == null'
check "report.txt written" grep -q "IRQ handlers" "$TMP/b/report.txt"
expect_in "report.txt says no latency tracer was armed" "$(cat "$TMP/b/report.txt")" \
	"  no latency tracer armed (IRQ statistics only)"
expect_not_in "report.txt: no capture count for --irq-only" "$(cat "$TMP/b/report.txt")" "captures ("

# A ring buffer too small to keep up (shrunk under the running lathound): losses are counted.
start --irq-only -d 4s -o "$TMP/b-lost" -q
wait_instance $pid
if echo 4 >"$T/instances/lathound-$pid/buffer_size_kb" 2>/dev/null; then
	disk_io 3000
	finish_bg
	expect_rc "run with a tiny IRQ ring buffer" 0
	expect_jq "events the kernel lost are counted" "$TMP/b-lost/report.json" \
		'.irq_stats.lost > 0 and .irq_stats.events > 0'
	expect_knobs "tiny IRQ ring buffer"
else
	finish_bg
	skip "IRQ events lost are counted" "cannot shrink the instance's ring buffer"
fi

# ---- (c) every way a run ends gives the knobs back ----
for sig in INT TERM HUP; do
	start --irq-only -o "$TMP/c-$sig" -q
	wait_instance $pid
	kill -$sig $pid
	finish_bg
	expect_rc "SIG$sig ends the run cleanly" 0
	expect_knobs "SIG$sig"
	expect_jq "SIG$sig: end_reason is SIG$sig" "$TMP/c-$sig/report.json" ".run.end_reason == \"SIG$sig\""
	check "SIG$sig: instance removed" test ! -e "$T/instances/lathound-$pid"
done

start --irq-only -o "$TMP/c-int2" -q -- sleep 30
wait_instance $pid
kill -INT $pid
sleep 0.2
kill -INT $pid 2>/dev/null
t0=$(date +%s)
finish_bg
expect_rc "a second SIGINT stops at once" 0
check "a second SIGINT does not wait for the command's grace period" test $(($(date +%s) - t0)) -lt 4
expect_knobs "second SIGINT"

wait_lock
run record --irq-only -o "$TMP/c-err" -- /nonexistent/command
expect_rc "a command that cannot run is an error" 1
expect_in "the error names the command" "$err" "cannot run '/nonexistent/command'"
expect_knobs "error exit after the session was set up"
check "error exit: instance removed" test -z "$(ls $T/instances | grep '^lathound-')"

start --irq-only -o "$TMP/c-kill" -q
wait_instance $pid
kill -KILL $pid
finish_bg
knobs >"$TMP/killed"
if cmp -s "$TMP/found" "$TMP/killed"; then not_ok "SIGKILL left the knobs as found?"; else
	ok "after SIGKILL the knobs are still borrowed"; fi
check "after SIGKILL the instance lathound-$pid is left" test -d "$T/instances/lathound-$pid"
check "after SIGKILL the state file is left" test -e /run/lathound/state
killed=$pid
wait_lock
run record --irq-only -d 1s -o "$TMP/c-next"
expect_rc "the next run after a SIGKILL" 0
expect_in "the next run says it restored the killed run's state" "$err" "pid $killed"
expect_knobs "SIGKILL then the next run"
check "the next run removed the leftover instance lathound-$killed" \
	test ! -e "$T/instances/lathound-$killed"

start --irq-only -o "$TMP/c-kill2" -q
wait_instance $pid
kill -KILL $pid
finish_bg
killed=$pid
wait_lock
run reset
expect_rc "lathound reset after a SIGKILL" 0
expect_knobs "SIGKILL then reset"
check "reset removed the leftover instance lathound-$killed" \
	test ! -e "$T/instances/lathound-$killed"

# ---- (d) a second concurrent run is refused, naming the first ----
start --irq-only -d 20s -o "$TMP/d1" -q
first=$pid
wait_instance $first
run record --irq-only -d 1s -o "$TMP/d2"
expect_rc "a second concurrent run is refused" 1
expect_in "the refusal names the running lathound's pid" "$err" "pid $first"
check "the refused run created no output directory" test ! -e "$TMP/d2"
# reset holds the run lock while it judges instances: with a run live it refuses outright.
run reset
expect_rc "reset while a run is live is refused" 1
expect_in "reset names the running lathound" "$err" "another lathound (pid $first)"
check "reset left the live run's instance alone" test -d "$T/instances/lathound-$first"
kill -INT $first
finish_bg
expect_rc "the first run still ends cleanly" 0
expect_knobs "concurrent runs"

# ---- (e) checkpoints: report.json parses mid-run and after ----
start --irq-only -d 5s --checkpoint 1s -o "$TMP/e" -q
sleep 2.5
if jq -e '.mode == "record" and .run.end_reason == null' "$TMP/e/report.json" >/dev/null 2>&1; then
	ok "mid-run checkpoint: report.json parses, the run is not over"
else
	not_ok "mid-run checkpoint: report.json missing or wrong"
fi
check "no temporary file is left next to the checkpoint" test -z "$(ls -A "$TMP/e" | grep tmp)"
finish_bg
expect_rc "checkpointed run" 0
expect_jq "after the run: end_reason duration, duration ~5s" "$TMP/e/report.json" \
	'.run.end_reason == "duration" and .run.duration_s >= 4.5 and .run.duration_s < 8'

# ---- (f) -- COMMAND ends the run; a COMMAND that fails fails the run ----
wait_lock
t0=$(date +%s%N)
run record --irq-only -o "$TMP/f" -q -f json -- sh -c 'sleep 1; exit 3'
t1=$(date +%s%N)
expect_rc "the run ends with the command, which failed: an error" 1
check "it ended when the command did (< 4s)" test $(((t1 - t0) / 1000000)) -lt 4000
echo "$out" >"$TMP/f.json"
expect_jq "command and its status recorded" "$TMP/f.json" \
	'.run.command == "sh -c '"'"'sleep 1; exit 3'"'"'" and .run.command_status == 3 and .run.end_reason == "command"'
expect_jq "verdict error, naming the status" "$TMP/f.json" \
	'.verdict == "error" and .error == "the command exited with status 3"'
expect_knobs "-- COMMAND"
wait_lock
run record --irq-only -o "$TMP/f-segv" -q -- sh -c 'kill -SEGV $$'
expect_rc "a COMMAND killed by SIGSEGV: an error" 1
expect_in "it names the signal" "$err" "the command was killed by signal 11"
wait_lock
run record --irq-only -o "$TMP/f-allow" -q --allow-command-failure -- sh -c 'exit 3'
expect_rc "--allow-command-failure accepts a failed COMMAND" 0
expect_knobs "failed COMMANDs"

# ---- (h) a second signal during the shutdown never kills lathound ----
# SIGINT, then SIGTERM 1-50 ms later, with 1000 rules (it killed lathound with exit 143).
"$TOP/bench/rules-gen.sh" 1000 >"$TMP/1000.rules"
sig2_start() {
	start --irq-only -o "$TMP/sig2-$1" -q -r "$TMP/1000.rules"
	wait_instance $pid
}
sig2_state_ok() {
	knobs >"$TMP/now"
	cmp -s "$TMP/found" "$TMP/now"
}
second_signal 10

# ---- (g) a full output disk ----
mkdir -p "$TINY"
if mount -t tmpfs -o size=64k lathound-test "$TINY"; then
	dd if=/dev/zero of="$TINY/filler" bs=4k count=64 2>/dev/null
	wait_lock
	run record --irq-only -d 3s --checkpoint 1s -o "$TINY"
	expect_rc "final report on a full disk" 1
	expect_in "the checkpoint failure is a warning" "$err" \
		"warning: cannot write '$TINY/report.json': No space left on device; the report is kept in memory"
	expect_in "the final failure says where" "$err" \
		"error: cannot write '$TINY/report.json': No space left on device"
	expect_knobs "full disk"
	# Space comes back mid-run: the next checkpoint and the final report are written.
	rm -f "$TINY/filler"
	dd if=/dev/zero of="$TINY/filler" bs=4k count=64 2>/dev/null
	start --irq-only -d 4s --checkpoint 1s -o "$TINY"
	sleep 1.8
	rm -f "$TINY/filler"
	finish_bg
	expect_rc "space back mid-run" 0
	expect_in "it says the checkpoint works again" "$err" "checkpoint written again"
	expect_jq "the final report is there" "$TINY/report.json" '.run.end_reason == "duration"'
	umount "$TINY"
	check "nothing left mounted" bash -c "! mountpoint -q '$TINY'"
else
	skip "full output disk" "cannot mount a tmpfs"
fi

# ---- (i) --metrics: IRQ handler statistics of real interrupts, judged by promtool and served
# by node_exporter's textfile collector ----
P=$TMP/textfile/lathound.prom
mkdir -p "$TMP/textfile"
start --irq-only -d 4s --checkpoint 1s -o "$TMP/i" -q --metrics "$P"
wait_instance $pid
disk_io 200
sleep 1.5
cp "$P" "$TMP/i-mid.prom" 2>/dev/null
finish_bg
expect_rc "record --irq-only --metrics" 0
expect_knobs "record --irq-only --metrics"
expect_prom "mid-run: the metrics say the run goes on" "$TMP/i-mid.prom" lathound_running 1
expect_prom "at the end: the run is over" "$P" lathound_running 0
expect_prom "the verdict is pass" "$P" 'lathound_verdict{verdict="pass"}' 1
J=$TMP/i/report.json
bad=0 n=0
while IFS=$'\t' read -r irq name cpu count max_us; do
	n=$((n + 1))
	l="irq=\"$irq\",name=\"$name\",cpu=\"$cpu\""
	c=$(prom_value "$P" "lathound_irq_handler_duration_seconds_count{$l}")
	m=$(prom_value "$P" "lathound_irq_handler_max_seconds{$l}")
	awk -v c="$c" -v m="$m" -v rc="$count" -v rm="$max_us" \
		'BEGIN { d = m * 1e6 - rm; exit !(c == rc && d < 0.001 && d > -0.001) }' || {
		echo "#   irq $irq '$name' CPU $cpu: report count $count max $max_us us," \
			"metrics count '$c' max '$m' s"; bad=1; }
done < <(jq -r '.irq_stats.handlers[] | [.irq, .name, .cpu, .count, .max_us] | @tsv' "$J")
check "every handler of report.json has its count and max in the metrics ($n handlers)" \
	test $bad = 0 -a $n -gt 0
expect_prom "IRQ events lost as the report says" "$P" lathound_irq_events_lost_total \
	"$(jq -r .irq_stats.lost "$J")"
why=$(prom_missing)
if [ -n "$why" ]; then
	skip "promtool and node_exporter on real IRQ metrics" "$why"
else
	expect_promtool "record --irq-only metrics" "$P"
	expect_promtool "record --irq-only metrics at a checkpoint" "$TMP/i-mid.prom"
	if node_exporter_scrape "$TMP/textfile" "$TMP/i.scrape"; then
		expect_prom "node_exporter read lathound's file without error" "$TMP/i.scrape" \
			node_textfile_scrape_error 0
		IFS=$'\t' read -r irq name cpu < <(jq -r '.irq_stats.handlers | max_by(.count) |
			[.irq, .name, .cpu] | @tsv' "$J")
		s="lathound_irq_handler_duration_seconds_count{cpu=\"$cpu\",irq=\"$irq\",name=\"$name\"}"
		expect_prom "node_exporter serves the busiest handler's count ($irq $name)" \
			"$TMP/i.scrape" "$s" "$(jq -r ".irq_stats.handlers | max_by(.count) | .count" "$J")"
		grep -F "$s" "$TMP/i.scrape" | sed 's/^/# scraped: /'
		grep '^node_textfile_scrape_error' "$TMP/i.scrape" | sed 's/^/# scraped: /'
	else
		not_ok "node_exporter serves the textfile directory"
	fi
fi

# ---- the status line: on a terminal only ----
wait_lock
script -qec "$LATHOUND record --irq-only -d 2500ms -o $TMP/s1 >/dev/null" /dev/null >"$TMP/tty" 2>&1
if grep -q $'\r\e\[Klathound: 00:00:0' "$TMP/tty" && grep -q "irq statistics only" "$TMP/tty"; then
	ok "status line on a terminal, updated in place"
else
	not_ok "no status line on a terminal"; sed 's/^/#   /' "$TMP/tty" | head -5
fi
wait_lock
run record --irq-only -d 1500ms -o "$TMP/s2"
if grep -q $'\e\[K' <<<"$err"; then not_ok "status line written to a non-terminal"; else
	ok "no status line when stderr is not a terminal"; fi
expect_knobs "status line runs"

finish
