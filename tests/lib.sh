#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for shell tests (tests/cli, tests/live, tests/vm). Each test script prints
# TAP lines ("ok - ...", "not ok - ...", "ok - ... # SKIP why") that tests/run-all counts.
# Source it: . "$(dirname "$0")/../lib.sh"

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LATHOUND=${LATHOUND:-$TOP/lathound}
DATA=$TOP/tests/data
# The rules of the lhx test driver (tests/vm/lhx): not shipped, added where a test needs them.
LHX_RULES=$TOP/tests/vm/lhx/lhx.rules
if [ -n "$LH_VALGRIND" ]; then
	LATHOUND_RUN=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
		--suppressions="$TOP/tests/valgrind.supp" "$LATHOUND")
else
	LATHOUND_RUN=("$LATHOUND")
fi
T_FAILED=0
TMP=$(mktemp -d /tmp/lathound-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; T_FAILED=1; }
skip() { echo "ok - $1 # SKIP $2"; }

# check DESC COMMAND...: passes when the command succeeds.
check() {
	local desc=$1; shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# run ARGS...: runs lathound; sets $rc, $out (stdout) and $err (stderr).
run() {
	"${LATHOUND_RUN[@]}" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

# expect_rc DESC CODE: checks the exit code of the last run, showing stderr on failure.
expect_rc() {
	if [ "$rc" = "$2" ]; then ok "$1 (exit $2)"; else
		not_ok "$1: expected exit $2, got $rc"; sed 's/^/#   /' "$TMP/err" | head -20; fi
}

# expect_in DESC HAYSTACK NEEDLE: fixed-string containment.
expect_in() {
	if grep -qF -- "$3" <<<"$2"; then ok "$1"; else
		not_ok "$1: '$3' not found in:"; head -30 <<<"$2" | sed 's/^/#   /'; fi
}

expect_not_in() {
	if ! grep -qF -- "$3" <<<"$2"; then ok "$1"; else not_ok "$1: '$3' unexpectedly found"; fi
}

# expect_jq DESC FILE FILTER: the jq filter must print true.
expect_jq() {
	local v
	v=$(jq -r "$3" "$2" 2>&1)
	if [ "$v" = true ]; then ok "$1"; else not_ok "$1: jq '$3' gave '$v'"; fi
}

# tracefs_knob FILE: the text of a tracefs knob, as the tests compare it before and after a
# run. One kernel state cannot be given back by anyone: a ring buffer not yet expanded since
# boot reads "7 (expanded: 1408)", and the first use of tracing (an event, a tracer, an
# instance: lathound's, trace-cmd's or a user's) expands it for good, to the size it names
# rounded up to whole ring-buffer pages (4080 data bytes each on 64-bit), which then reads
# "1410". Both name the buffer any tracing session gets, so both read as that size.
tracefs_knob() {
	local v
	v=$(cat "$1" 2>&1)
	if [[ $1 == */buffer_size_kb && $v =~ ^[0-9]+\ \(expanded:\ ([0-9]+)\)$ ]]; then
		v=$(( (BASH_REMATCH[1] * 1024 + 4079) / 4080 * 4080 / 1024 ))
	fi
	printf '%s' "$v"
}

# second_signal N: the shutdown under a second signal, N times. Each time sig2_start I starts
# 'lathound record' in the background with -o $TMP/sig2-I and sets $pid once tracing is armed;
# it gets SIGINT, then SIGTERM 1-50 ms later. Then sig2_state_ok must say tracefs is as found.
# Prints the delays and exit statuses, then three TAP lines: exit 0 every time, report.json
# written with end_reason SIGINT every time, tracefs as found every time.
second_signal() {
	local n=$1 i ms rcs= delays= bad_report=0 bad_state=0
	for i in $(seq "$n"); do
		sig2_start "$i"
		ms=$((1 + RANDOM % 50))
		delays+=" $ms"
		kill -INT "$pid"
		sleep "$(printf '0.%03d' $ms)"
		kill -TERM "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		rcs+=" $?"
		jq -e '.run.end_reason == "SIGINT"' "$TMP/sig2-$i/report.json" >/dev/null 2>&1 ||
			bad_report=$((bad_report + 1))
		sig2_state_ok || bad_state=$((bad_state + 1))
		rm -rf "$TMP/sig2-$i"
	done
	echo "# SIGTERM after SIGINT, delays (ms):$delays; exit statuses:$rcs"
	check "SIGINT then SIGTERM 1-50 ms later, $n random delays: exit 0 every time" \
		test -z "$(tr ' ' '\n' <<<"$rcs" | grep -v '^0$' | grep .)"
	check "... report.json written, end_reason SIGINT, every time ($bad_report missing)" \
		test $bad_report = 0
	check "... tracefs left as found every time ($bad_state changed)" test $bad_state = 0
}

finish() { exit $T_FAILED; }
