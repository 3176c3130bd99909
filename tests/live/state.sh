#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The borrowed-state layer against this machine's REAL tracefs (root): doctor, the "tracer
# not available" refusals, reset of a killed run's state, the run lock, someone else's
# tracer, --kprobe without kprobe events. Every knob touched is put back, and the test
# asserts that tracefs is left exactly as it was found.
. "$(dirname "$0")/../lib.sh"

if [ ! -x "$LATHOUND" ]; then
	not_ok "no lathound binary at $LATHOUND (run make)"
	finish
fi
if [ "$(id -u)" != 0 ]; then
	skip "live state tests" "not root: the real tracefs is only writable by root"
	finish
fi
T=/sys/kernel/tracing
if [ ! -e $T/current_tracer ]; then
	# lathound mounts it too (through libtracefs); mounting changes no knob.
	mount -t tracefs nodev $T 2>/dev/null
fi
if [ ! -w $T/current_tracer ]; then
	skip "live state tests" "tracefs is not available at $T (mount -t tracefs nodev $T failed)"
	finish
fi

# The knobs lathound may touch in the top-level instance.
KNOBS=(current_tracer tracing_on tracing_thresh tracing_max_latency buffer_size_kb set_event
       events/irq/irq_handler_entry/enable events/irq/irq_handler_exit/enable
       events/irq/enable kprobe_events)
snapshot() {
	local f
	for f in "${KNOBS[@]}" options/*; do
		[ -e "$T/$f" ] && printf '%s=%s\n' "$f" "$(tracefs_knob "$T/$f")"
	done
}
snapshot >"$TMP/before"
ORIG_TRACER=$(cat $T/current_tracer)
ORIG_THRESH=$(cat $T/tracing_thresh)
ORIG_ENTRY=$(cat $T/events/irq/irq_handler_entry/enable)
ORIG_EXIT=$(cat $T/events/irq/irq_handler_exit/enable)
ORIG_STACK=$(cat $T/options/stacktrace)
HOLDER=
STALE=

# The flock(1) holding a lock, and the sleep it runs (which inherits the locked fd).
stop_holder() {
	[ -n "$HOLDER" ] || return
	kill $(pgrep -P "$HOLDER") "$HOLDER" 2>/dev/null
	wait "$HOLDER" 2>/dev/null
	HOLDER=
}

# Whatever happens, put back what this test changes by hand.
cleanup() {
	stop_holder
	[ -n "$STALE" ] && [ -d "$STALE" ] && rmdir "$STALE"
	echo "$ORIG_TRACER" >$T/current_tracer
	echo "$ORIG_THRESH" >$T/tracing_thresh
	echo "${ORIG_ENTRY%\*}" >$T/events/irq/irq_handler_entry/enable
	echo "${ORIG_EXIT%\*}" >$T/events/irq/irq_handler_exit/enable
	echo "$ORIG_STACK" >$T/options/stacktrace
	rm -rf "$TMP"
}
trap cleanup EXIT

if [ "$ORIG_TRACER" != nop ]; then
	skip "live state tests" "current_tracer is '$ORIG_TRACER': another tool is tracing here"
	finish
fi

HAS_LATENCY=
grep -qwE 'irqsoff|preemptoff|wakeup|wakeup_rt' $T/available_tracers && HAS_LATENCY=1

# ---- doctor ----
run doctor
if [ -z "$HAS_LATENCY" ]; then
	expect_rc "doctor on a kernel without latency tracers" 1
	for opt in CONFIG_IRQSOFF_TRACER CONFIG_PREEMPT_TRACER CONFIG_SCHED_TRACER; do
		expect_in "doctor names $opt" "$out" "$opt"
	done
	expect_in "doctor fails on the latency tracers" "$out" "FAIL  latency tracers"
	if [ -r /proc/config.gz ] || [ -r "/boot/config-$(uname -r)" ]; then
		expect_in "doctor reads the kernel config" "$out" "ok    kernel config"
		expect_in "doctor says the option is not set" "$out" "CONFIG_IRQSOFF_TRACER is not set"
	else
		expect_in "doctor says the config is missing" "$out" "kernel config not found (/proc/config.gz, /boot/config-"
	fi
	run doctor --format json
	expect_rc "doctor --format json on this kernel" 1
	echo "$out" >"$TMP/doctor.json"
	expect_jq "doctor json: cannot run, tracers FAIL" "$TMP/doctor.json" \
		'.can_run == false and ([.checks[] | select(.check == "latency tracers")][0].status == "fail")'
	expect_jq "doctor json: every missing tracer named with its option" "$TMP/doctor.json" \
		'[.checks[] | select(.check | startswith("tracer ")) | select(.status == "warn")] |
		 length == 9 and all(.detail | test("CONFIG_[A-Z]+_TRACER"))'
else
	skip "doctor without latency tracers" "this kernel has latency tracers"
fi
expect_in "doctor checks tracefs" "$out" "tracefs"

# ---- the "not available" refusals ----
if [ -z "$HAS_LATENCY" ]; then
	run record -t irqsoff -d 1s --state-dir "$TMP/state" -o "$TMP/rec"
	expect_rc "record -t irqsoff on a kernel without it" 1
	expect_in "record names the missing option" "$err" \
		"tracer 'irqsoff' is not available in this kernel (needs CONFIG_IRQSOFF_TRACER=y)"
	check "record left no state file" test ! -e "$TMP/state/state"
	run record -t irqsoff,wakeup_rt -d 1s --state-dir "$TMP/state" -o "$TMP/rec"
	expect_rc "record with two missing tracers" 1
	expect_in "record warns about each" "$err" \
		"tracer 'wakeup_rt' is not available in this kernel (needs CONFIG_SCHED_TRACER=y)"
	expect_in "record says none is left" "$err" "none of the requested latency tracers is available"
	if [ ! -e $T/kprobe_events ]; then
		run record -t irqsoff --kprobe do_sys_open -d 1s --state-dir "$TMP/state" -o "$TMP/rec"
		expect_rc "record --kprobe without kprobe events" 1
		expect_in "record --kprobe names the missing option" "$err" \
			"kprobe events are not available in this kernel (needs CONFIG_KPROBE_EVENTS=y)"
	else
		skip "--kprobe without kprobe events" "this kernel has kprobe events"
	fi
else
	skip "record refusals" "this kernel has latency tracers"
fi

# state_file PID TRACING_DIR KIND PATH VALUE...: a state file as lathound writes it (JSON).
state_file() {
	local pid=$1 dir=$2
	shift 2
	jq -n --argjson pid "$pid" --arg dir "$dir" \
		'$ARGS.positional as $a | {format: "lathound-state", version: 2, pid: $pid,
		 started_ns: (now * 1e9 | floor), tracing_dir: $dir,
		 entries: [range(0; $a | length; 3) as $i
			   | {kind: $a[$i], path: $a[$i + 1], value: $a[$i + 2]}]}' --args "$@"
}

# ---- reset: a killed run's state, planted, with the real knobs changed as it had ----
mkdir -p "$TMP/killed"
state_file 4242 "$T" \
	value tracing_on "$(cat $T/tracing_on)"$'\n' \
	value current_tracer "$ORIG_TRACER"$'\n' \
	value tracing_thresh "$ORIG_THRESH"$'\n' \
	value options/stacktrace "$ORIG_STACK"$'\n' \
	value events/irq/irq_handler_entry/enable "$ORIG_ENTRY"$'\n' \
	value events/irq/irq_handler_exit/enable "$ORIG_EXIT"$'\n' \
	kprobe lathound/gone "p:lathound/gone do_sys_open" >"$TMP/killed/state"
STALE=$T/instances/lathound-999999
mkdir "$STALE" 2>/dev/null || STALE=
echo 123 >$T/tracing_thresh
echo 1 >$T/events/irq/irq_handler_entry/enable
echo 1 >$T/events/irq/irq_handler_exit/enable
echo $((1 - ORIG_STACK)) >$T/options/stacktrace
check "the knobs really changed" test "$(cat $T/tracing_thresh)" = 123
run reset --state-dir "$TMP/killed"
expect_rc "reset restores a killed run's state" 0
expect_in "reset says whose state it restored" "$out" "restored tracefs state left by lathound pid 4242 (killed?)"
expect_in "reset lists the knobs" "$out" "tracing_thresh = $ORIG_THRESH"
snapshot >"$TMP/after-reset"
if cmp -s "$TMP/before" "$TMP/after-reset"; then ok "reset left every knob as it was before"; else
	not_ok "reset did not restore every knob:"; diff "$TMP/before" "$TMP/after-reset" | sed 's/^/#   /'; fi
check "reset removed the state file" test ! -e "$TMP/killed/state"
if [ -n "$STALE" ]; then
	expect_in "reset says it removed the killed run's instance" "$out" "removed 1 tracefs instance"
	check "reset removed the killed run's instance" test ! -e "$STALE"
else
	skip "reset removes the killed run's instance" "cannot create tracefs instances here"
fi
run reset --state-dir "$TMP/killed"
expect_rc "reset with nothing left" 0
expect_in "reset says so" "$out" "nothing to restore"

# A stale instance that cannot be removed (busy: a file in it is open) fails reset, but what
# was restored is still listed: the state file is gone, the user must see what it held.
BUSY=$T/instances/lathound-999998
if mkdir "$BUSY" 2>/dev/null; then
	STALE=$BUSY
	state_file 4244 "$T" value tracing_thresh "$ORIG_THRESH"$'\n' >"$TMP/killed/state"
	echo 77 >$T/tracing_thresh
	exec 9<"$BUSY/trace"
	run reset --state-dir "$TMP/killed"
	exec 9<&-
	expect_rc "reset with a busy stale instance" 1
	expect_in "busy instance: still says what it restored" "$out" \
		"restored tracefs state left by lathound pid 4244 (killed?)"
	expect_in "busy instance: still lists the knobs" "$out" "tracing_thresh = $ORIG_THRESH"
	expect_in "busy instance: says which instance stayed" "$err" "lathound-999998"
	check "busy instance: the knob was restored" test "$(cat $T/tracing_thresh)" = "$ORIG_THRESH"
	check "busy instance: the state file is gone" test ! -e "$TMP/killed/state"
	rmdir "$BUSY" && STALE=
else
	skip "reset with a busy stale instance" "cannot create tracefs instances here"
fi

# a corrupt state file is kept, and reset fails
state_file 12 "$T" value tracing_thresh 0$'\n' | head -c 150 >"$TMP/killed/state"
run reset --state-dir "$TMP/killed"
expect_rc "reset of a truncated state file" 1
expect_in "reset says it is corrupt" "$err" "corrupt state file '$TMP/killed/state': truncated (the JSON text ends early)"
check "the corrupt state file is kept" test -e "$TMP/killed/state"
rm -f "$TMP/killed/state"

# ---- a state file is given back only to the tracefs it was saved from ----
# One saved from a copy of the tree (a test run's) must not be restored into the real tracefs.
FAKE=$TMP/fake-tracefs
mkdir -p "$FAKE/options"
for f in current_tracer tracing_on tracing_thresh available_tracers trace; do
	cat "$T/$f" >"$FAKE/$f"
done
fake_tree() { (cd "$FAKE" && find . -type f | sort | xargs sha1sum); }
fake_tree >"$TMP/fake.before"
state_file 4245 "$FAKE" value tracing_thresh 4321$'\n' value current_tracer nop$'\n' \
	>"$TMP/killed/state"
run reset --state-dir "$TMP/killed"
expect_rc "reset of a state file saved from a copied tree" 1
expect_in "reset says which tracefs it was saved from" "$err" \
	"state file '$TMP/killed/state' was saved from the tracefs at '$FAKE', not from the one in use now ('$T'): not restoring it there"
snapshot >"$TMP/after-fake"
if cmp -s "$TMP/before" "$TMP/after-fake"; then ok "the real tracefs was not touched"; else
	not_ok "the real tracefs changed:"; diff "$TMP/before" "$TMP/after-fake" | sed 's/^/#   /'; fi
check "the state file is kept" test -e "$TMP/killed/state"
run record -t irqsoff -d 1s --state-dir "$TMP/killed" -o "$TMP/rec-fake"
expect_rc "record over a state file saved from a copied tree" 1
expect_in "record says so too" "$err" "was saved from the tracefs at '$FAKE'"
# ...and one saved from the real tracefs is not restored into a copy.
state_file 4246 "$T" value tracing_thresh 4321$'\n' >"$TMP/killed/state"
run reset --tracefs "$FAKE" --state-dir "$TMP/killed"
expect_rc "reset of the real tracefs's state file on a copied tree" 1
expect_in "reset says which tracefs it was saved from" "$err" \
	"was saved from the tracefs at '$T', not from the one in use now ('$FAKE')"
check "the copied tree was not touched" cmp -s "$TMP/fake.before" <(fake_tree)
# The copy's own state file goes back into the copy.
state_file 4247 "$FAKE" value tracing_thresh 4321$'\n' >"$TMP/killed/state"
run reset --tracefs "$FAKE" --state-dir "$TMP/killed"
expect_rc "reset of a copied tree's state file on that tree" 0
check "restored into the copy" test "$(cat "$FAKE/tracing_thresh")" = 4321
snapshot >"$TMP/after-fake"
check "the real tracefs was not touched" cmp -s "$TMP/before" "$TMP/after-fake"
rm -f "$TMP/killed/state"

# ---- the run lock, held by flock(1) as another lathound would ----
mkdir -p "$TMP/locked"
echo 4343 >"$TMP/locked/lock"
flock "$TMP/locked/lock" sleep 30 &
HOLDER=$!
for _ in $(seq 50); do flock -n "$TMP/locked/lock" true || break; sleep 0.1; done
run record -t irqsoff -d 1s --state-dir "$TMP/locked" -o "$TMP/rec"
expect_rc "record while another lathound holds the lock" 1
expect_in "record names the holder" "$err" "another lathound (pid 4343) is using the latency tracers"
state_file 4343 "$T" >"$TMP/locked/state"
run reset --state-dir "$TMP/locked"
expect_rc "reset while a lathound runs" 1
expect_in "reset does not take a live state for a leftover" "$err" "another lathound (pid 4343) is using the latency tracers"
check "reset kept the live state file" test -e "$TMP/locked/state"
run doctor --state-dir "$TMP/locked"
expect_in "doctor sees the running lathound" "$out" "lathound pid 4343 is running"
stop_holder

# ---- someone else's tracer (the first other tracer this kernel lets us set) ----
OTHER=
for t in function blk; do
	grep -qw "$t" $T/available_tracers || continue
	if echo "$t" 2>/dev/null >$T/current_tracer; then OTHER=$t; break; fi
done
if [ -n "$OTHER" ]; then
	run doctor
	expect_in "doctor sees another tool's tracer" "$out" "current_tracer is '$OTHER': another tool is using the tracer"
	run record -t irqsoff -d 1s --state-dir "$TMP/state" -o "$TMP/rec"
	expect_rc "record while current_tracer is in use" 1
	expect_in "record names the tracer in use" "$err" \
		"current_tracer is '$OTHER': another tool is using the tracer (use --force to take it over)"
	check "record left current_tracer alone" test "$(cat $T/current_tracer)" = "$OTHER"
	if [ -z "$HAS_LATENCY" ]; then
		run record -t irqsoff --force -d 1s --state-dir "$TMP/state" -o "$TMP/rec"
		expect_rc "record --force on a kernel without the tracer" 1
		expect_in "record --force says it takes the tracer over" "$err" "taking it over (--force)"
		check "record --force gave current_tracer back" test "$(cat $T/current_tracer)" = "$OTHER"
	fi
	echo nop >$T/current_tracer
else
	skip "another tool's tracer" "no other tracer can be set here to play the other tool"
fi

# ---- everything as found ----
snapshot >"$TMP/after"
if cmp -s "$TMP/before" "$TMP/after"; then ok "tracefs left exactly as found"; else
	not_ok "tracefs changed:"; diff "$TMP/before" "$TMP/after" | sed 's/^/#   /'; fi
finish
