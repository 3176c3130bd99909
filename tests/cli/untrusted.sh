#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Saved reports from other boards are untrusted: their verdicts and other derived fields are
# checked against the data they summarize, a budget on a tracer never measured is an error
# in every command, a report's size and shape cannot exhaust memory or time. Each case is
# the attack of a board owner (or a damaged file) that made a FAIL read as a PASS.
. "$(dirname "$0")/../lib.sh"

FUNC=$DATA/vm-irqsoff-func.trace
HOG=$DATA/vm-preemptoff-hog.trace
"$LATHOUND" analyze -f json -o "$TMP/A.json" "$FUNC" 2>/dev/null
"$LATHOUND" analyze -f json -o "$TMP/P.json" "$HOG" 2>/dev/null

# rec ID IN OUT: IN made a 'record' report of run ID (what a board's report.json says).
rec() {
	jq --arg id "$1" '.mode = "record" | .run = {
		started_at: "2026-11-29T18:00:01Z", ended_at: "2026-11-29T18:00:11Z",
		duration_s: 10, threshold_us: 0, captures: 1, sections_lost: 0,
		snapshots_dropped: 0, wait_method: "poll", command: null, command_status: null,
		end_reason: "duration", kernel: "6.1.0", host: "board1", run_id: $id,
		not_measured: {}}' "$2" >"$3"
}

# ---- --max on a tracer never measured is an error, in every command ----
run report --fail-on none --max preemptoff=1us "$TMP/A.json"
expect_rc "report --max on a tracer the report never measured" 1
expect_in "... said" "$err" "preemptoff is gated by --max preemptoff but was not measured (the input holds no section of it)"
run analyze --fail-on none --max preemptoff=1us "$FUNC"
expect_rc "analyze --max on a tracer the trace never measured" 1
run analyze --fail-on none --max preemptoff=1us -f json "$FUNC"
echo "$out" >"$TMP/nm.json"
expect_jq "... its JSON verdict is error" "$TMP/nm.json" '.verdict == "error"'
run analyze --fail-on none --max all=900ms "$FUNC"
expect_rc "'all' judges the tracers that were measured" 0
rec 00000000000000000000000000000001 "$TMP/A.json" "$TMP/rec1.json"
jq '.run.not_measured = {preemptoff: "not available in this kernel"}' "$TMP/rec1.json" \
	>"$TMP/rec1nm.json"
run report --fail-on none --max preemptoff=1us "$TMP/rec1nm.json"
expect_rc "report --max on a tracer a record run says it did not measure" 1
expect_in "... with the run's reason" "$out" "not measured (not available in this kernel)"
run report --fail-on none --max all=900ms "$TMP/rec1nm.json"
expect_rc "... under --max all too" 1
run merge --fail-on none --max preemptoff=1us "$TMP/A.json"
expect_rc "merge --max on a tracer no report measured" 1

finish
