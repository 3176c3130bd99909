#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 'lathound record' end to end without root and without a kernel that has latency tracers:
# --tracefs points it at a copy of a tracefs tree made of plain files, and this script plays
# the kernel, writing real snapshots into 'trace' and the latency into tracing_max_latency
# (which inotify reports exactly as the kernel's own notification). Covers options, rules
# checked before tracefs is touched, capture, lost-section counting, the poll fallback,
# tracer slices, gates, the disk budget, the lock, SIGKILL recovery, and that every file of
# the tree is given back as it was.
. "$(dirname "$0")/../lib.sh"

IRQSOFF=$DATA/pidt-irqsoff-nofunc.trace
WAKEUP=$DATA/handmade-wakeup_rt-6.1.trace
. "$(dirname "$0")/fake-tracefs.sh"
irqsoff_3000() { sed 's/latency: 2002 us/latency: 3000 us/; s/ 2002us : / 3000us : /' "$IRQSOFF"; }
irqsoff_3000 >"$TMP/irqsoff-3000.trace"

# ---- options, checked before anything is touched ----
mkfake
rec -t irqsoff,bogus -d 1s
expect_rc "unknown tracer" 1
expect_in "it is named" "$err" "unknown tracer 'bogus'"
rec --irq-only -t irqsoff -d 1s
expect_rc "--irq-only with --tracer" 1
rec -t irqsoff --slice 1ms -d 1s
expect_rc "a slice too short" 1
rec -t irqsoff -d 1s stray
expect_rc "an argument not after --" 1
expect_in "it says where a command goes" "$err" "a command to run goes after '--'"
# A stray word before '--' is refused and never run (GNU getopt used to move it after '--'),
# nor is an operand after an option's value that reads '--'.
printf '#!/bin/sh\ntouch "%s"\n' "$TMP/stray-ran" >"$TMP/stray"
chmod +x "$TMP/stray"
rec -t irqsoff -d 1s "$TMP/stray" -- echo hello
expect_rc "a stray operand before --" 1
expect_in "the stray operand is named" "$err" "unexpected argument '$TMP/stray'; a command to run goes after '--'"
check "the stray operand was not run" test ! -e "$TMP/stray-ran"
rec -t irqsoff -d 1s --output -- "$TMP/stray"
expect_rc "an operand after a value that reads --" 1
check "that operand was not run either" test ! -e "$TMP/stray-ran"
rec -t irqsoff -T 1m -d 1s -o "$TMP/o-refused"
expect_rc "-T 1m (a minute)" 1
expect_in "-T 1m: did you mean" "$err" \
	"invalid duration '1m' for --threshold: 'm' is minutes, and a latency budget is under 1s: did you mean 'ms'?"
rec -t irqsoff -d 1s --max all=1m -o "$TMP/o-refused"
expect_rc "record --max all=1m" 1
expect_in "record --max all=1m: did you mean" "$err" "did you mean 'ms'?"
rec -t irqsoff --disk-budget 12Q -d 1s
expect_rc "a bad size" 1
expect_in "the size error names the option" "$err" "invalid size '12Q' for --disk-budget"
rec -t irqsoff --max irqsoff -d 1s
expect_rc "a bad --max" 1
rec -t irqsoff --max irqsoff=1ms --max irqsoff=3ms -d 1s
expect_rc "two --max for one tracer" 1
expect_in "the second one is refused, not silently kept" "$err" \
	"invalid --max 'irqsoff=3ms': a budget for this tracer was already given"
printf '[broken]\nmatch = (unclosed\n\n[no-match]\nseverity = warning\n' >"$TMP/broken.rules"
rec -t irqsoff -r "$TMP/broken.rules" -d 1s -o "$TMP/o-broken"
expect_rc "a broken rule file" 1
expect_in "its error says file:line:column" "$err" "$TMP/broken.rules:2:"
expect_in "every error is printed" "$err" "$TMP/broken.rules:4"
check "no state directory: tracefs was not touched" test ! -e "$ST"
check "no output directory" test ! -e "$TMP/o-broken"
expect_tree "refused options"
# Run lengths: a bare number is seconds, as rtla's -d and cyclictest's -D ("-d 1" ran 1 us)
rec -t irqsoff -d 1 --slice 1 --checkpoint 1 -o "$TMP/o-bare" -f json "${NORULES[@]}"
expect_rc "-d 1 --slice 1 --checkpoint 1" 0
echo "$out" >"$TMP/o-bare.json"
expect_jq "-d 1 ran one second" "$TMP/o-bare.json" \
	'.run.end_reason == "duration" and .run.duration_s >= 0.9 and .run.duration_s < 3'
expect_tree "a bare -d"
run record --help
expect_rc "record --help" 0
expect_in "help says the default tracers and why" "$out" "Default tracers: irqsoff,wakeup_rt"
expect_in "help lists the tracefs options" "$out" "--poll"
expect_not_in "help hides the test-only --tracefs" "$out" "--tracefs"
expect_not_in "help hides the test-only --state-dir" "$out" "--state-dir"

# ---- capture: two sections, then a notification whose snapshot was already read ----
mkfake
(
	wait_armed irqsoff || exit 1
	sleep 0.3; section "$IRQSOFF" 2002
	sleep 0.4; section "$TMP/irqsoff-3000.trace" 3000
	sleep 0.4; notify 3000
) &
BG=$!
rec -t irqsoff -d 2500ms -o "$TMP/o1" -f json "${NORULES[@]}"
wait $BG
expect_rc "record -t irqsoff" 0
echo "$out" >"$TMP/o1.json"
J=$TMP/o1/report.json
check "report.json matches what was printed" cmp -s <(jq -S . "$J") <(jq -S . "$TMP/o1.json")
expect_jq "two distinct sections captured" "$J" '.run.captures == 2 and .records_total == 2'
expect_jq "the notification of a snapshot already read counts one section lost" "$J" \
	'.run.sections_lost == 1'
expect_jq "inotify was used" "$J" '.run.wait_method == "inotify"'
expect_jq "worst irqsoff 3000us, progression 2002 then 3000 on CPU 0" "$J" \
	'.tracers.irqsoff.max_us == 3000 and ([.tracers.irqsoff.progression[].latency_us] == [2002, 3000]) and ([.tracers.irqsoff.progression[].cpu] == [0, 0])'
expect_jq "every capture has a time and a source" "$J" \
	'[.records[] | (.captured_at | test("^20[0-9-]+T")) and (.source | test("^capture-00000[12]"))] | all'
expect_jq "armed_s is the run's length" "$J" \
	'.tracers.irqsoff.armed_s > 2 and .tracers.irqsoff.armed_s < 3.5'
expect_jq "the run is described" "$J" \
	'.mode == "record" and .run.end_reason == "duration" and .run.threshold_us == 0'
expect_jq "no IRQ statistics without a real instance" "$J" '.irq_stats == null'
expect_in "it says why there are no IRQ statistics" "$err" "IRQ handler statistics are not collected"
# IRQ statistics as a real instance writes them (a handler's runs of 2 and 3 us), then with
# a count that its histogram or distribution contradicts: refused by lathound report.
jq '.irq_stats = {events: 2, lost: 0, dropped: 0, handlers: [{irq: 24, name: "fakeraid",
	cpu: 0, count: 2, max_us: 3, mean_us: 2.5, p99_us: 3,
	histogram: [{le_us: 2.048, count: 1}, {le_us: 4.096, count: 1}],
	distribution: {unit: "us", count: 2, min: 2, max: 3, mean: 2.5,
		buckets: [{lo: 2, hi: 3, count: 1}, {lo: 3, hi: 4, count: 1}], dropped: 0}}]}' \
	"$J" >"$TMP/irq.json"
run report -f json "$TMP/irq.json"
expect_rc "a report with consistent IRQ statistics loads" 0
expect_jq "... and says them again" "$TMP/out" \
	'.irq_stats.events == 2 and .irq_stats.handlers[0].distribution.count == 2'
expect_in "... a run kept to the ns written exactly, an integer when whole" "$out" \
	'"max_us": 3,'
jq '.irq_stats.handlers[0].histogram[1].count = 9223372036854775807' "$TMP/irq.json" \
	>"$TMP/irq-hist.json"
run report "$TMP/irq-hist.json"
expect_rc "a handler count its histogram contradicts" 1
expect_in "... said" "$err" \
	"irq_stats.handlers[0].count: 2, but its histogram counts 9223372036854775808"
jq '.irq_stats.handlers[0].histogram += [{le_us: 8.192, count: 9223372036854775807},
	{le_us: 16.384, count: 9223372036854775807}]' "$TMP/irq.json" >"$TMP/irq-wrap.json"
run report "$TMP/irq-wrap.json"
expect_rc "a handler histogram whose counts wrap past 2^64" 1
expect_in "... said" "$err" "irq_stats.handlers[0].count: 2, but its histogram counts 18446744073709551615"
jq '.irq_stats.events = 3 | .irq_stats.handlers[0].count = 3 |
	.irq_stats.handlers[0].histogram[0].count = 2' "$TMP/irq.json" >"$TMP/irq-dist.json"
run report "$TMP/irq-dist.json"
expect_rc "a handler count its distribution contradicts" 1
expect_in "... said" "$err" "irq_stats.handlers[0].count: 3, but its distribution counts 2"
check "raw snapshot 1 kept, byte for byte" cmp -s "$IRQSOFF" "$TMP/o1/snapshots/capture-000001-irqsoff-2002us.trace"
check "raw snapshot 2 kept" test -s "$TMP/o1/snapshots/capture-000002-irqsoff-3000us.trace"
check "report.txt written" grep -q "irqsoff" "$TMP/o1/report.txt"
check "report.html written, with the irqsoff histogram and progression" \
	grep -q '<svg class="chart progression"' "$TMP/o1/report.html"
expect_in "report.html: the progression is over the time of capture" \
	"$(cat "$TMP/o1/report.html")" "time into the run (s)"
check "the state file is gone" test ! -e "$ST/state"
expect_tree "record -t irqsoff"

# ---- gates ----
for gate in "--max irqsoff=1ms" "--max all=2500us"; do
	mkfake
	( wait_armed irqsoff && sleep 0.3 && section "$TMP/irqsoff-3000.trace" 3000 ) &
	BG=$!
	rec -t irqsoff -d 1500ms -o "$TMP/o-gate$RANDOM" "${NORULES[@]}" $gate
	wait $BG
	expect_rc "gate $gate fails" 2
	expect_in "the violation is said" "$out" "exceeds --max ${gate#--max }"
done
# A capture whose body is cut (2 of the 4 entries its header declares) was judged in part:
# an error in every format, never a PASS, although its latency is under the budget.
head -n 23 "$IRQSOFF" >"$TMP/cut.trace"
mkfake
( wait_armed irqsoff && sleep 0.3 && section "$TMP/cut.trace" 2002 ) &
BG=$!
rec -t irqsoff -d 1500ms -o "$TMP/o-cut" "${NORULES[@]}" --max irqsoff=5ms -f junit
wait $BG
expect_rc "a cut capture under the budget" 1
cut_why="capture 'capture-000001': snapshot cut, read in part (line 1: snapshot 'irqsoff' shows 2 of the 4 entries its header declares, and no elision marker)"
expect_in "it is said as it happens" "$err" "error: $cut_why"
expect_in "JUnit: an error testcase names the capture" "$out" \
	"<testcase classname=\"lathound.input\" name=\"capture-000001\""
expect_jq "JSON: verdict error, the capture listed as not read in full, its body counted" \
	"$TMP/o-cut/report.json" '.verdict == "error" and .error == "'"$cut_why"'" and
	.input.unread == 1 and .input.files[0].name == "capture-000001" and
	.input.incomplete == 1 and .run.captures == 1'
expect_in "text: the verdict says why" "$(cat "$TMP/o-cut/report.txt")" "Verdict: ERROR: $cut_why"
expect_in "HTML: the error is said" "$(cat "$TMP/o-cut/report.html")" "snapshot cut, read in part"
run report "$TMP/o-cut/report.json"
expect_rc "lathound report on it is an error too" 1
expect_tree "a cut capture"
# A section longer than the buffer: the kernel kept its body from 15 us on (#141/4093, its
# first 26 entries lost): judged in part too.
sed -e '22,47d' -e 's|#167/167|#141/4093|' "$DATA/vm-irqsoff-func.trace" >"$TMP/lost.trace"
mkfake
( wait_armed irqsoff && sleep 0.3 && section "$TMP/lost.trace" 2093 ) &
BG=$!
rec -t irqsoff -d 1500ms -o "$TMP/o-lost" "${NORULES[@]}" --max irqsoff=5ms
wait $BG
expect_rc "a capture whose first entries the ring buffer lost, under the budget" 1
expect_in "it is said, with where its body begins and the option that keeps it" "$err" \
	"error: capture 'capture-000001': snapshot cut, read in part (line 1: snapshot 'irqsoff' begins 15 us into its section: the ring buffer lost its first entries (#141/4093)); a larger --buffer-size keeps such a section whole"
expect_jq "JSON: verdict error, its record cut from 15 us" "$TMP/o-lost/report.json" \
	'.verdict == "error" and .records[0].body == "cut" and .records[0].start_lost_us == 15'
expect_tree "a capture that lost its first entries"

cat >"$TMP/hit.rules" <<'EOF'
[self-test]
match    = ^execute_preemptirqtest$
in       = start
severity = critical
message  = the latency self-test
EOF
for failon in critical none; do
	mkfake
	( wait_armed irqsoff && sleep 0.3 && section "$IRQSOFF" 2002 ) &
	BG=$!
	rec -t irqsoff -d 1500ms -o "$TMP/o-rule-$failon" -r "$TMP/hit.rules" --fail-on $failon -f json
	wait $BG
	echo "$out" >"$TMP/rule.json"
	expect_jq "the rule fired (--fail-on $failon)" "$TMP/rule.json" \
		'.rules[0].id == "self-test" and .rules[0].hits == 1'
	if [ $failon = critical ]; then
		expect_rc "a critical rule hit fails the gate" 2
	else
		expect_rc "--fail-on none passes" 0
	fi
done

# ---- the poll fallback ----
mkfake
(
	wait_armed irqsoff || exit 1
	sleep 0.4; section "$IRQSOFF" 2002
	sleep 0.4; section "$TMP/irqsoff-3000.trace" 3000
) &
BG=$!
rec -t irqsoff --poll -d 2s -o "$TMP/o-poll" -q "${NORULES[@]}"
wait $BG
expect_rc "record --poll" 0
expect_jq "poll: both sections captured, the method said" "$TMP/o-poll/report.json" \
	'.run.wait_method == "poll" and .run.captures == 2 and .run.sections_lost == 0'
expect_tree "record --poll"

# ---- several tracers share the run in slices ----
mkfake
(
	seen=
	for i in $(seq 90); do
		t=$(cat "$F/current_tracer")
		case " $seen " in *" $t "*) ;; *) seen="$seen $t" ;; esac
		if [ "$t" = wakeup_rt ] && [ ! -e "$TMP/woke" ]; then
			touch "$TMP/woke"; section "$WAKEUP" 64
		fi
		sleep 0.05
	done
	echo "$seen" >"$TMP/seen"
) &
BG=$!
rec -t irqsoff,wakeup_rt --slice 1s -d 4s -o "$TMP/o-slices" -q "${NORULES[@]}"
wait $BG
expect_rc "two tracers in slices" 0
expect_in "the 'kernel' saw irqsoff armed" "$(cat "$TMP/seen")" "irqsoff"
expect_in "the 'kernel' saw wakeup_rt armed" "$(cat "$TMP/seen")" "wakeup_rt"
expect_jq "each tracer armed about half of the run" "$TMP/o-slices/report.json" \
	'(.tracers.irqsoff.armed_s > 1.2) and (.tracers.wakeup_rt.armed_s > 1.2) and ((.tracers.irqsoff.armed_s + .tracers.wakeup_rt.armed_s) < 4.8)'
expect_jq "the wakeup_rt section was captured while wakeup_rt was armed" "$TMP/o-slices/report.json" \
	'.tracers.wakeup_rt.max_us == 64 and .run.captures == 1'
expect_tree "slices"

# ---- threshold: tracing_thresh set while armed, given back after ----
mkfake
( wait_armed irqsoff && cat "$F/tracing_thresh" >"$TMP/thresh" ) &
BG=$!
rec -t irqsoff -T 50us -d 1s -o "$TMP/o-thresh" -q "${NORULES[@]}"
wait $BG
expect_rc "record -T 50us" 0
expect_in "tracing_thresh was 50 while armed" "$(cat "$TMP/thresh")" "50"
expect_jq "threshold_us in the report" "$TMP/o-thresh/report.json" '.run.threshold_us == 50'
expect_tree "record -T 50us"

# ---- tracers the kernel lacks: warn and run the rest, or refuse naming the CONFIG_ options ----
mkfake
rec -t irqsoff,preemptoff -d 500ms -o "$TMP/o-lack" "${NORULES[@]}"
expect_rc "irqsoff,preemptoff on a kernel with irqsoff only: runs" 0
expect_in "the missing one is named with its option" "$err" \
	"lathound: warning: tracer 'preemptoff' is not available in this kernel (needs CONFIG_PREEMPT_TRACER=y)"
expect_in "the run says it records irqsoff" "$err" "recording irqsoff for 500ms"
expect_jq "the run went on with irqsoff alone, the warning in the report" "$TMP/o-lack/report.json" \
	'(.tracers.irqsoff.armed_s > 0.3) and (.tracers | has("preemptoff") | not) and (.input.warnings | any(test("preemptoff.*CONFIG_PREEMPT_TRACER")))'
expect_tree "a tracer the kernel lacks"
rec -t preemptirqsoff -d 500ms -o "$TMP/o-pis" -q "${NORULES[@]}"
expect_rc "preemptirqsoff alone, which the kernel lacks" 1
expect_in "it needs both options" "$err" \
	"tracer 'preemptirqsoff' is not available in this kernel (needs CONFIG_IRQSOFF_TRACER=y and CONFIG_PREEMPT_TRACER=y)"
expect_in "and nothing is left to record" "$err" "none of the requested latency tracers is available"
check "no output directory for a run that did not start" test ! -e "$TMP/o-pis"
expect_tree "preemptirqsoff refused"
mkfake
echo "irqsoff function nop" >"$F/available_tracers"
tree >"$TMP/tree.before"
rec -t wakeup_rt -d 500ms -o "$TMP/o-wrt" -q "${NORULES[@]}"
expect_rc "wakeup_rt on a kernel without it" 1
expect_in "wakeup_rt needs CONFIG_SCHED_TRACER" "$err" \
	"tracer 'wakeup_rt' is not available in this kernel (needs CONFIG_SCHED_TRACER=y)"
check "no state file after a refused run" test ! -e "$ST/state"
expect_tree "wakeup_rt refused"

# ---- histograms: counted where the kernel can; this tree has no synthetic events ----
mkfake
rec -t irqsoff --hist all -d 300ms -o "$TMP/o-nohist" "${NORULES[@]}"
expect_rc "--hist all on a kernel without synthetic events: the run goes on" 0
expect_in "the run says none are counted" "$err" "no histograms counted in the kernel"
expect_jq "report.json says why, for each kind, and has no histogram" "$TMP/o-nohist/report.json" \
	'.histograms == [] and [.input.warnings[] | select(test("histogram"))] ==
	 ["the irqsoff histogram is not counted: no synthetic events (CONFIG_SYNTH_EVENTS)",
	  "the preemptoff histogram is not counted: no synthetic events (CONFIG_SYNTH_EVENTS)",
	  "the wakeup histogram is not counted: no synthetic events (CONFIG_SYNTH_EVENTS)"]'
check "report.txt says it too" \
	grep -q "the wakeup histogram is not counted: no synthetic events (CONFIG_SYNTH_EVENTS)" \
	"$TMP/o-nohist/report.txt"
expect_tree "histograms the kernel lacks"
rec -t irqsoff --hist irqsoff,wakeup -d 300ms -o "$TMP/o-hist1" -q "${NORULES[@]}"
expect_rc "--hist irqsoff,wakeup on a kernel without synthetic events" 1
expect_in "the error names what is missing" "$err" \
	"this kernel cannot count the irqsoff histogram: no synthetic events (CONFIG_SYNTH_EVENTS)"
check "no output directory for a run that did not start" test ! -e "$TMP/o-hist1"
expect_tree "--hist refused"
rec -t irqsoff -d 300ms -o "$TMP/o-hist0" "${NORULES[@]}"
expect_rc "no --hist: the default kinds, where the kernel can" 0
expect_jq "no --hist: no histogram, and no word of them (doctor says why)" \
	"$TMP/o-hist0/report.json" \
	'.histograms == [] and [.input.warnings[] | select(test("histogram"))] == []'
check "no --hist: and the run does not speak of them" \
	bash -c "! grep -q histogram <<<'$err'"
rec -t irqsoff --no-hist -d 300ms -o "$TMP/o-hist4" -q "${NORULES[@]}"
expect_rc "--no-hist" 0
mkfake
rec -t irqsoff --no-hist --hist wakeup -d 300ms -o "$TMP/o-hist5"
expect_rc "--no-hist with --hist" 1
expect_in "it says they exclude each other" "$err" "--no-hist and --hist exclude each other"
rec -t irqsoff --no-hist --hist-comm rt -d 300ms -o "$TMP/o-hist5"
expect_rc "--hist-comm with --no-hist" 1
expect_in "it says why" "$err" "--hist-comm and --hist-pid filter the wakeup histogram"
rec -t irqsoff --hist irq -d 300ms -o "$TMP/o-hist2"
expect_rc "--hist irq" 1
expect_in "an unknown kind is named with the choices" "$err" \
	"unknown histogram: expected irqsoff, preemptoff, wakeup (comma-separated), all or none in --hist 'irq'"
rec -t irqsoff --hist irqsoff --hist-comm rt -d 300ms -o "$TMP/o-hist3"
expect_rc "--hist-comm without the wakeup histogram" 1
expect_in "it says why" "$err" "--hist-comm and --hist-pid filter the wakeup histogram"
check "no state directory after refused options" test ! -e "$ST"

# ---- --filter, --notrace, --buffer-size: set while recording, given back byte for byte ----
mkfake
# libtracefs writes matches as indexes into available_filter_functions (1-based).
printf 'do_idle\nschedule\nraid_irq_handler\nraid_poll\n' >"$F/available_filter_functions"
printf 'schedule\n' >"$F/set_ftrace_filter"
printf 'raid_poll\n' >"$F/set_ftrace_notrace"
tree >"$TMP/tree.before"
(
	wait_armed irqsoff || exit 1
	for k in set_ftrace_filter set_ftrace_notrace buffer_size_kb; do
		tr -s ' \n' '\n\n' <"$F/$k" | grep . | sort -n | tr '\n' ' ' >"$TMP/during-$k"
	done
) &
BG=$!
rec -t irqsoff -d 1s -o "$TMP/o-filter" -q "${NORULES[@]}" --filter 'raid_irq*' \
	--filter do_idle --notrace schedule --buffer-size 4M
wait $BG
BG=
expect_rc "record --filter --notrace --buffer-size" 0
check "set_ftrace_filter held do_idle and raid_irq_handler while armed" \
	test "$(cat "$TMP/during-set_ftrace_filter")" = "1 3 "
check "set_ftrace_notrace held schedule while armed" \
	test "$(cat "$TMP/during-set_ftrace_notrace")" = "2 "
check "buffer_size_kb was 4096 while armed" test "$(cat "$TMP/during-buffer_size_kb")" = "4096 "
check "set_ftrace_filter given back byte for byte" test "$(od -c "$F/set_ftrace_filter")" = \
	"$(printf 'schedule\n' | od -c)"
check "set_ftrace_notrace given back byte for byte" test "$(od -c "$F/set_ftrace_notrace")" = \
	"$(printf 'raid_poll\n' | od -c)"
check "buffer_size_kb given back" test "$(cat "$F/buffer_size_kb")" = 1408
expect_tree "--filter --notrace --buffer-size"

# ---- no --buffer-size: the latency tracers' small buffer (doc/lathound-record.1) ----------
for mode in -T1000us max; do
	mkfake
	(
		wait_armed irqsoff || exit 1
		cat "$F/buffer_size_kb" >"$TMP/during-buffer-$mode"
	) &
	BG=$!
	rec -t irqsoff $([ $mode = max ] || echo $mode) -d 1s -o "$TMP/o-buffer-$mode" -q \
		"${NORULES[@]}"
	wait $BG
	BG=
	expect_rc "record ($mode)" 0
	check "buffer_size_kb was 8 while armed ($mode; got '$(cat "$TMP/during-buffer-$mode")')" \
		test "$(cat "$TMP/during-buffer-$mode")" = 8
	check "buffer_size_kb given back ($mode)" test "$(cat "$F/buffer_size_kb")" = 1408
done

# ---- a live buffer that cannot be drained: the run goes on, and the report says so ----
# The drain reads each CPU's live buffer from a thread bound to it (src/kernel/drain.c); a
# pids cgroup of one task makes every thread's creation fail (EAGAIN), as a tight task limit
# would. Said once as it happens and once in the report, however many times irqsoff is
# armed (three slices here).
pids_cg=
if [ -w /sys/fs/cgroup/pids/cgroup.procs ]; then
	pids_cg=/sys/fs/cgroup/pids/lathound-test-$$
elif grep -qw pids /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
	pids_cg=/sys/fs/cgroup/lathound-test-$$
fi
if [ "$(nproc)" -lt 2 ]; then
	skip "a drain thread that cannot start" "one CPU: lathound drains it itself, with no thread"
elif [ -z "$pids_cg" ] || ! mkdir "$pids_cg" 2>/dev/null; then
	skip "a drain thread that cannot start" "no pids cgroup to create (cgroup v1 pids, or v2 with pids in subtree_control)"
else
	mkfake
	echo 1 >"$pids_cg/pids.max"
	( echo $BASHPID >"$pids_cg/cgroup.procs" &&
	  exec "$LATHOUND" record --tracefs "$F" --state-dir "$ST" -t irqsoff,wakeup_rt --slice 250ms \
		-d 1200ms -o "$TMP/o-nodrain" "${NORULES[@]}" ) >/dev/null 2>"$TMP/err"
	rc=$?
	refused=$(awk '$1 == "max" { print $2 }' "$pids_cg/pids.events")
	rmdir "$pids_cg"
	expect_rc "no drain thread could start (the kernel refused $refused): the run goes on" 0
	why="cannot start the thread draining CPU 0 (Resource temporarily unavailable); snapshots take longer to read, and paused reads leave the tracer blind longer"
	n=$(grep -cxF "lathound: warning: $why" "$TMP/err")
	check "said as it happened, once ($n)" test "$n" = 1
	expect_jq "the report warns, once" "$TMP/o-nodrain/report.json" \
		"[.input.warnings[] | select(. == \"$why\")] | length == 1"
	expect_in "the text report says it" "$(cat "$TMP/o-nodrain/report.txt")" "$why"
	expect_tree "a drain that cannot start"
fi

# ---- no tracefs where it is looked for ----
mkfake
run record --tracefs "$TMP/nowhere" --state-dir "$ST" -t irqsoff -d 500ms -o "$TMP/o-nomount"
expect_rc "--tracefs pointing nowhere" 1
expect_in "it names the mount command" "$err" \
	"no tracefs at '$TMP/nowhere': No such file or directory; mount it as root with 'mount -t tracefs nodev /sys/kernel/tracing'"
mkdir "$TMP/plain"
run record --tracefs "$TMP/plain" --state-dir "$ST" -t irqsoff -d 500ms -o "$TMP/o-nomount"
expect_rc "--tracefs pointing at a directory that is not tracefs" 1
expect_in "it says so and names the mount command" "$err" \
	"'$TMP/plain' is not a tracefs (no 'trace' file); mount tracefs as root with 'mount -t tracefs nodev /sys/kernel/tracing'"
check "no output directory, no state" test ! -e "$TMP/o-nomount" -a ! -e "$ST"

# ---- the disk budget and the count cap ----
for budget in "--disk-budget 2k" "--max-snapshots 1"; do
	mkfake
	(
		wait_armed irqsoff || exit 1
		sleep 0.3; section "$IRQSOFF" 2002
		sleep 0.4; section "$TMP/irqsoff-3000.trace" 3000
	) &
	BG=$!
	rec -t irqsoff -d 1500ms -o "$TMP/o-budget" -q "${NORULES[@]}" $budget
	wait $BG
	expect_jq "$budget: one snapshot dropped and counted" "$TMP/o-budget/report.json" \
		'.run.captures == 2 and .run.snapshots_dropped == 1'
	check "$budget: the longer one is kept" test "$(ls "$TMP/o-budget/snapshots")" = \
		capture-000002-irqsoff-3000us.trace
	rm -rf "$TMP/o-budget"
done

# ---- the lock, and a run killed with SIGKILL ----
mkfake
"$LATHOUND" record --tracefs "$F" --state-dir "$ST" -t irqsoff -o "$TMP/o-first" -q \
	"${NORULES[@]}" >/dev/null 2>&1 &
BG=$!
wait_armed irqsoff
rec -t irqsoff -d 1s -o "$TMP/o-second"
expect_rc "a second run on the same state dir is refused" 1
expect_in "naming the first one's pid" "$err" "pid $BG"
kill -KILL $BG
wait $BG 2>/dev/null
check "after SIGKILL, the state file is left" test -s "$ST/state"
check "after SIGKILL, irqsoff is still armed" test "$(cat "$F/current_tracer")" = irqsoff
rec -t irqsoff -d 500ms -o "$TMP/o-after" -q "${NORULES[@]}"
expect_rc "the next run after a SIGKILL" 0
expect_tree "SIGKILL, then the next run"
BG=

# ---- the default output directory ----
mkfake
mkdir "$TMP/cwd"
(cd "$TMP/cwd" && "$LATHOUND" record --tracefs "$F" --state-dir "$ST" -t irqsoff -d 300ms -q \
	"${NORULES[@]}" >/dev/null 2>&1)
check "a timestamped directory in the current one" \
	bash -c "ls '$TMP/cwd' | grep -qE '^lathound-[0-9]{8}-[0-9]{6}\$'"
check "holding the report" bash -c "jq -e .run '$TMP'/cwd/lathound-*/report.json >/dev/null"
rec -t irqsoff -d 300ms -q -o "$(echo "$TMP"/cwd/lathound-*)" "${NORULES[@]}"
expect_rc "a directory that already holds a report is refused" 1
expect_in "it says so" "$err" "already holds a report"

# ---- fail closed: a failed workload fails the run ----
mkfake
rec -t irqsoff -o "$TMP/o-cmd3" "${NORULES[@]}" -- sh -c 'exit 3'
expect_rc "a COMMAND that exits 3 makes the run an error" 1
expect_in "it says why" "$err" "error: the command exited with status 3"
J=$TMP/o-cmd3/report.json
expect_jq "report.json: verdict error, naming the status; the status recorded" "$J" \
	'.verdict == "error" and .error == "the command exited with status 3" and
	 .run.command_status == 3 and .run.end_reason == "command"'
check "report.txt: Verdict: ERROR with the reason" \
	grep -q '^Verdict: ERROR: the command exited with status 3' "$TMP/o-cmd3/report.txt"
expect_tree "a failed COMMAND"
mkfake
rec -t irqsoff -o "$TMP/o-segv" -f junit "${NORULES[@]}" -- sh -c 'kill -SEGV $$'
expect_rc "a COMMAND killed by SIGSEGV makes the run an error" 1
expect_in "it names the signal" "$err" "the command was killed by signal 11 (Segmentation fault)"
expect_in "JUnit: the run testcase is an <error> with the reason" "$out" \
	'<error message="the command was killed by signal 11 (Segmentation fault)"'
check "JUnit: the XML is well-formed" python3 -c \
	'import sys, xml.dom.minidom; xml.dom.minidom.parseString(sys.stdin.read())' <<<"$out"
expect_jq "report.json: command_status 139 (128 + 11)" "$TMP/o-segv/report.json" \
	'.verdict == "error" and .run.command_status == 139'
mkfake
rec -t irqsoff -o "$TMP/o-allow" -q "${NORULES[@]}" --allow-command-failure -- sh -c 'exit 3'
expect_rc "--allow-command-failure accepts it" 0
expect_jq "the status is still in the report, the verdict pass" "$TMP/o-allow/report.json" \
	'.verdict == "pass" and .run.command_status == 3'
mkfake
rec -t irqsoff -o "$TMP/o-true" -q "${NORULES[@]}" -- true
expect_rc "a COMMAND that succeeds" 0
mkfake
rec -t irqsoff -d 1s -o "$TMP/o-stopped" -q "${NORULES[@]}" -- sleep 30
expect_rc "a COMMAND that lathound stops at the end of -d is not judged" 0
expect_jq "it was stopped by SIGTERM (143)" "$TMP/o-stopped/report.json" \
	'.run.command_status == 143 and .run.end_reason == "duration" and .verdict == "pass"'
expect_tree "stopped COMMAND"
# Ctrl-C: SIGINT to the whole process group, COMMAND included. The run ended by SIGINT.
# (Job control on: a job of its own, whose SIGINT is not ignored as a script's '&' would;
# env resets it where this script itself started with SIGINT ignored, a background job of a
# shell without job control: lathound gives COMMAND what it got, and an ignored SIGINT
# left COMMAND to be stopped with SIGTERM, 143.)
# COMMAND starts once the tracers have settled: Ctrl-C before that ends the run without it
# (command_status null), so the signal waits until COMMAND runs, however loaded the machine.
# command_running PARENT COMM: a child of PARENT has exec'd COMM (a scan of /proc/PID/stat).
command_running() {
	local s pid comm state ppid rest
	for s in /proc/[0-9]*/stat; do
		read -r pid comm state ppid rest 2>/dev/null <"$s" || continue
		[ "$ppid" = "$1" ] && [ "$comm" = "($2)" ] && return 0
	done
	return 1
}
mkfake
set -m
env --default-signal=INT "$LATHOUND" record --tracefs "$F" --state-dir "$ST" -t irqsoff -o "$TMP/o-ctrlc" -q \
	"${NORULES[@]}" -- sleep 30 >/dev/null 2>&1 &
BG=$!
set +m
wait_armed irqsoff
for i in $(seq 200); do command_running $BG sleep && break; sleep 0.05; done
check "COMMAND runs under the armed tracer before Ctrl-C" command_running $BG sleep
kill -INT -- -$BG
wait $BG
rc=$?
BG=
expect_rc "Ctrl-C (SIGINT to lathound and COMMAND) ends the run cleanly" 0
expect_jq "COMMAND died of that SIGINT (130): recorded, not judged" "$TMP/o-ctrlc/report.json" \
	'[.run.end_reason, .run.command_status, .verdict] |
	 if . == ["SIGINT", 130, "pass"] then true else tojson end'
expect_tree "Ctrl-C"

# ---- fail closed: a run that measured nothing says so, and cannot pass a gate ----
mkfake
rec -t irqsoff,wakeup_rt -d 1s -o "$TMP/o-short" "${NORULES[@]}"
expect_rc "a short run without a gate passes" 0
expect_in "it warns that wakeup_rt was never armed" "$err" \
	"warning: wakeup_rt was not measured (never armed: the run ended before its turn)"
expect_jq "report.json: run.not_measured says why, for both" "$TMP/o-short/report.json" \
	'.run.not_measured == {"irqsoff": "armed less than one --slice, without a capture",
	 "wakeup_rt": "never armed: the run ended before its turn"}'
check "report.txt: a 'not measured' line" \
	grep -qx '  not measured: wakeup_rt (never armed: the run ended before its turn)' \
	"$TMP/o-short/report.txt"
for gate in "--max all=1ms" "--max wakeup_rt=1ms"; do
	mkfake
	rec -t irqsoff,wakeup_rt -d 1s -o "$TMP/o-nm$RANDOM" -f json "${NORULES[@]}" $gate
	expect_rc "$gate over a tracer never armed is an error" 1
	expect_in "the error names the tracer and why" "$err" \
		"wakeup_rt was not measured (never armed: the run ended before its turn)"
	echo "$out" >"$TMP/nm.json"
	expect_jq "verdict error, the reason in the report" "$TMP/nm.json" \
		'.verdict == "error" and (.error | contains("--max budget cannot be judged"))'
	expect_tree "$gate, not measured"
done
mkfake
rec -t irqsoff -d 1s -o "$TMP/o-nottraced" -q "${NORULES[@]}" --max wakeup_dl=1ms
expect_rc "--max for a tracer not in --tracer is an error" 1
expect_jq "not_measured says so" "$TMP/o-nottraced/report.json" \
	'.run.not_measured.wakeup_dl == "not in --tracer" and .verdict == "error"'
mkfake
( wait_armed irqsoff && sleep 0.3 && section "$IRQSOFF" 2002 ) &
BG=$!
rec -t irqsoff -d 1500ms -o "$TMP/o-measured" -q "${NORULES[@]}" --max irqsoff=5ms
wait $BG
expect_rc "a short run with a capture under its budget passes" 0
expect_jq "nothing unmeasured" "$TMP/o-measured/report.json" '.run.not_measured == {}'
rec --irq-only --max all=1ms -d 1s -o "$TMP/o-irqmax"
expect_rc "--irq-only with --max is refused" 1
expect_in "it says why" "$err" "--max has nothing to judge"

# ---- a second signal during the shutdown: exit 0/1/2, report written, tracefs restored ----
# The issue's case: SIGINT, then SIGTERM 1-50 ms later, with 1000 rules, many random delays.
"$TOP/bench/rules-gen.sh" 1000 >"$TMP/1000.rules"
sig2_start() {
	mkfake
	"$LATHOUND" record --tracefs "$F" --state-dir "$ST" -t irqsoff -o "$TMP/sig2-$1" -q \
		-r "$TMP/1000.rules" >/dev/null 2>&1 &
	pid=$!
	BG=$pid
	wait_armed irqsoff
}
sig2_state_ok() {
	tree >"$TMP/tree.now"
	cmp -s "$TMP/tree.before" "$TMP/tree.now"
}
second_signal 25
BG=

# A second signal does not wait for a COMMAND that ignores SIGTERM (5 s grace otherwise).
mkfake
"$LATHOUND" record --tracefs "$F" --state-dir "$ST" -t irqsoff -o "$TMP/o-sig2cmd" -q \
	"${NORULES[@]}" -- sh -c 'trap "" TERM; sleep 30' >/dev/null 2>&1 &
BG=$!
wait_armed irqsoff
sleep 0.3
t0=$(date +%s%N)
kill -INT $BG
sleep 0.2
kill -INT $BG
wait $BG
rc=$?
t1=$(date +%s%N)
BG=
expect_rc "a second SIGINT with a COMMAND that ignores SIGTERM" 0
check "it stopped at once: the COMMAND was killed without its grace period ($(((t1 - t0) / 1000000)) ms)" \
	test $(((t1 - t0) / 1000000)) -lt 2500
expect_jq "the COMMAND, killed by lathound, is recorded, not judged" \
	"$TMP/o-sig2cmd/report.json" '.run.command_status == 137 and .verdict == "pass"'
expect_tree "second SIGINT with a COMMAND"

finish
