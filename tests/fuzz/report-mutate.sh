#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The saved-report oracle: a mutation of only the derived fields of a report whose data fail a
# gate (its verdict, violations, worst_gated, accepted counts, gate_worst_us, max_us, the
# unread counts...) must never make 'lathound report', 'merge' or 'diff' exit 0. A board owner
# can write any of them; the loader must recompute or check each against the data.
#
# Each round takes a failing report (analyze of tests/data traces, some made 'record'
# reports), sets one to three derived fields to 0, 1, 10, a large number, null, true or
# false (and always verdict "pass", violations []), and runs each command on it that fails on
# the original. Prints TAP; a failure names the command and keeps the mutated report
# (MUTATE_KEEP, default /tmp) to replay.
#   tests/fuzz/report-mutate.sh [ROUNDS [SEED]]     (default 200 rounds, seed from the clock)
. "$(dirname "$0")/../lib.sh"

ROUNDS=${1:-200}
SEED=${2:-$(date +%s)}
KEEP=${MUTATE_KEEP:-/tmp}
RANDOM=$SEED

# The failing reports: a rule's critical hit, a --max over, both, several tracers; and one of
# them as a 'record' report of a run.
fail_reports=()
mk() {	# mk NAME ANALYZE-ARGS...: keeps the report when analyze says fail (exit 2)
	local name=$1; shift
	"$LATHOUND" analyze -q -f json -o "$TMP/$name.json" "$@" 2>/dev/null
	[ $? = 2 ] && fail_reports+=("$TMP/$name.json")
}
mk rule "$DATA/vm-irqsoff-func.trace"
mk max --max preemptoff=100us "$DATA/vm-preemptoff-hog.trace"
mk multi --max irqsoff=1ms --fail-on warning "$DATA/handmade-multi.trace" \
	"$DATA/vm-irqsoff-func.trace"
mk fakeraid --max all=500us "$DATA/vm-irqsoff-fakeraid.trace"
mk wakeup --max wakeup_rt=50us "$DATA/vm-wakeup_rt.trace"
jq '.mode = "record" | .run = {started_at: "2026-11-29T18:00:01Z",
	ended_at: "2026-11-29T18:00:11Z", duration_s: 10, threshold_us: 0, captures: 1,
	sections_lost: 0, snapshots_dropped: 0, wait_method: "poll", command: null,
	command_status: null, end_reason: "duration", kernel: "6.1.0", host: "board1",
	run_id: "00000000000000000000000000000001", not_measured: {}}' \
	"$TMP/rule.json" >"$TMP/record.json" && fail_reports+=("$TMP/record.json")
"$LATHOUND" analyze -q -f json -o "$TMP/base.json" "$DATA/vm-preemptoff-hog.trace"
check "failing reports to mutate (${#fail_reports[@]})" test ${#fail_reports[@]} -ge 5

# The commands, each run on the report as \$R (\$F: the original it is a mutant of); the
# oracle holds where the original fails.
cmds=(
	'report "$R"'
	'report --max all=100us --fail-on warning "$F" "$R"'
	'report --max all=100us --fail-on warning "$R"'
	'merge --max all=100us --fail-on warning "$R"'
	'diff --fail-on-new warning --base "$TMP/base.json" --new "$R"'
)

# The derived fields of a report: paths of the JSON whose value its data determine.
# (of the rules, those that hit: the others' fields would dilute the rounds)
derived='. as $r | [paths(scalars, nulls, arrays, objects)
	| select(.[0] != "rules" or (length > 2 and (. as $p | $r | getpath($p[0:2] + ["hits"])) > 0))
	| select(.[0] != "gate" and .[0] != "records_total" or length == 1)
	| select(
		(length == 1 and (.[0] | IN("verdict", "violations", "records_kept"))) or
		(.[-1] | IN("worst_gated", "accepted", "gate_worst_us", "gate_unevaluated",
			    "max_us", "unread", "unread_accepted")) or
		(length > 1 and .[-2] == "worst_gated" and .[-1] == "latency_us"))
	| select((.[0] == "input" and .[1] == "files") | not)]'
values=(0 1 10 2093 3001 9223372036854775807 null true false)

declare -A base_rc
fail=0 runs=0
for f in "${fail_reports[@]}"; do
	for i in "${!cmds[@]}"; do
		R=$f F=$f eval "\"\$LATHOUND\" ${cmds[$i]}" >/dev/null 2>&1
		base_rc["$(basename "$f")$i"]=$?
	done
	jq -c "$derived | .[]" "$f" >"$f.paths"
done
for ((round = 0; round < ROUNDS; round++)); do
	f=${fail_reports[RANDOM % ${#fail_reports[@]}]}
	mapfile -t paths <"$f.paths"
	prog='.verdict = "pass" | .violations = []'
	for ((k = RANDOM % 3; k >= 0; k--)); do
		p=${paths[RANDOM % ${#paths[@]}]}
		prog+=" | setpath($p; ${values[RANDOM % ${#values[@]}]})"
	done
	R=$TMP/m.json F=$f
	jq "$prog" "$f" >"$R" 2>/dev/null || continue
	for i in "${!cmds[@]}"; do
		[ "${base_rc["$(basename "$f")$i"]}" != 0 ] || continue
		runs=$((runs + 1))
		eval "\"\$LATHOUND\" ${cmds[$i]}" >/dev/null 2>&1
		if [ $? = 0 ]; then
			fail=$((fail + 1))
			cp "$R" "$KEEP/lathound-mutant-$SEED-$round.json"
			not_ok "seed $SEED round $round: '${cmds[$i]}' passed a mutant of $(basename "$f"): $prog (kept: $KEEP/lathound-mutant-$SEED-$round.json)"
		fi
	done
done
check "$ROUNDS rounds (seed $SEED): no mutation of derived fields turned a FAIL into exit 0 ($runs runs, $fail passed)" \
	test $fail = 0 -a $runs -gt 0
finish
