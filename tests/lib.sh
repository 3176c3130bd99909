#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for shell tests (tests/cli, tests/live, tests/vm). Each test script prints
# TAP lines ("ok - ...", "not ok - ...", "ok - ... # SKIP why") that tests/run-all counts.
# Source it: . "$(dirname "$0")/../lib.sh"

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LATHOUND=${LATHOUND:-$TOP/lathound}
# the ELF file itself, where LATHOUND is a wrapper that runs it (tests/cross: under qemu-user)
LATHOUND_ELF=${LATHOUND_ELF:-$LATHOUND}
DATA=$TOP/tests/data
# The rules of the lhx test driver (tests/vm/lhx): not shipped, added where a test needs them.
LHX_RULES=$TOP/tests/vm/lhx/lhx.rules
if [ -n "$LH_VALGRIND" ]; then
	LATHOUND_RUN=("$TOP/tests/valgrind" "$LATHOUND")
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

# expect_in DESC TEXT NEEDLE: NEEDLE, lines and all, is a substring of TEXT (grep -F would take
# each line of a NEEDLE of several for a pattern of its own, and pass on any one of them).
expect_in() {
	if [[ "$2" == *"$3"* ]]; then ok "$1"; else
		not_ok "$1: '$3' not found in:"; head -30 <<<"$2" | sed 's/^/#   /'; fi
}

expect_not_in() {
	if [[ "$2" != *"$3"* ]]; then ok "$1"; else not_ok "$1: '$3' unexpectedly found"; fi
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

# with_callers IN OUT COUNT MAX SYMBOL: the saved report IN with the kernel's irqs-off
# histogram and its callers as record --hist saves them (doc/report-json.md), written to OUT:
# 'lhx_irqs_hog+0x1a/0x40 [lhx]' began COUNT sections, the longest MAX us; SYMBOL began 3,
# the longest 5.5 us.
with_callers() {
	jq --argjson n "$3" --argjson max "$4" --arg sym "$5" '.histograms = [{"source": "kernel",
		"kind": "irqsoff", "cpu": null, "unit": "us", "count": ($n + 3), "min": 5,
		"max": 6, "mean": 5.5, "buckets": [{"lo": 5, "hi": 6, "count": ($n + 3)}],
		"dropped": 0, "callers": [
		{"symbol": "lhx_irqs_hog+0x1a/0x40 [lhx]", "count": $n, "max_us": $max},
		{"symbol": $sym, "count": 3, "max_us": 5.5}],
		"callers_note": null}]' "$1" >"$2"
}

finish() { exit $T_FAILED; }

# ---- Prometheus: the real promtool and node_exporter (Debian's prometheus and
# prometheus-node-exporter packages, installed by tests/deps.sh) ----

# prom_missing: why the Prometheus checks cannot run here (empty when they can).
prom_missing() {
	local p
	for p in promtool prometheus-node-exporter curl; do
		command -v $p >/dev/null || { echo "no $p (tests/deps.sh installs prometheus, prometheus-node-exporter, curl)"; return; }
	done
}

# expect_promtool DESC FILE: 'promtool check metrics' accepts FILE with no lint problem
# (it prints nothing and exits 0 then; a lint problem or a parse error is printed).
expect_promtool() {
	local o
	o=$(promtool check metrics <"$2" 2>&1)
	if [ $? = 0 ] && [ -z "$o" ]; then ok "$1: promtool check metrics finds no problem"; else
		not_ok "$1: promtool check metrics:"; head -10 <<<"$o" | sed 's/^/#   /'; fi
}

# node_exporter_scrape DIR OUT: starts node_exporter with only the textfile collector on DIR,
# on a free port of 127.0.0.1 (tried until one is), scrapes it once with curl into OUT and
# stops it. Return: 0 when the scrape worked.
node_exporter_scrape() {
	local dir=$1 scrape=$2 try port pid i rc=1
	for try in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 40000))
		prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
			--collector.disable-defaults --collector.textfile \
			--collector.textfile.directory="$dir" >"$TMP/node_exporter.log" 2>&1 &
		pid=$!
		for i in $(seq 50); do
			kill -0 $pid 2>/dev/null || break
			if curl -sf "http://127.0.0.1:$port/metrics" >"$scrape" 2>/dev/null; then
				rc=0
				break
			fi
			sleep 0.1
		done
		kill $pid 2>/dev/null
		wait $pid 2>/dev/null
		[ $rc = 0 ] && return 0
		# The port was taken (node_exporter exited): another one.
	done
	sed 's/^/#   node_exporter: /' "$TMP/node_exporter.log" | tail -5
	return 1
}

# prom_value FILE SERIES: the value of one series as Prometheus writes it, e.g.
# 'lathound_running' or 'lathound_verdict{verdict="fail"}' (labels in the file's order).
prom_value() {
	awk -v s="$2" 'index($0, s " ") == 1 { print $2; exit }' "$1"
}

# expect_prom DESC FILE SERIES VALUE: the series has that value (compared as numbers).
expect_prom() {
	local v
	v=$(prom_value "$2" "$3")
	if [ -n "$v" ] && awk -v a="$v" -v b="$4" 'BEGIN { exit !(a + 0 == b + 0) }'; then
		ok "$1"; else not_ok "$1: $3 is '$v', expected $4"; fi
}
