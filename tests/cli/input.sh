#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Inputs that must not pass a gate by carrying nothing, and where the rules come from:
# an empty trace, binary garbage, a lathound installed under another PREFIX than it was
# built for, and a lathound with no rule directory at all.
. "$(dirname "$0")/../lib.sh"

: >"$TMP/empty.trace"
run analyze "$TMP/empty.trace"
expect_rc "empty trace is an error" 1
expect_in "empty trace: names the file and why" "$err" \
	"no latency snapshot in trace '$TMP/empty.trace': the input is empty"

run analyze --format json -o "$TMP/empty.json" "$TMP/empty.trace"
expect_jq "empty trace: the report's verdict is error, not pass" "$TMP/empty.json" \
	'.verdict == "error" and (.error | startswith("no latency snapshot in trace"))'

run analyze --format json -o "$TMP/missing.json" "$TMP/nonexistent.trace" \
	"$DATA/pidt-irqsoff-nofunc.trace"
expect_rc "one unreadable input of two is an error" 1
expect_jq "unreadable input: verdict error, what was read still reported" "$TMP/missing.json" \
	'.verdict == "error" and (.error | startswith("1 of 2 inputs could not be read in full; first: cannot open trace")) and .records_total == 1'
run analyze --format junit "$TMP/nonexistent.trace" "$DATA/pidt-irqsoff-nofunc.trace"
expect_in "unreadable input: a JUnit error testcase names it" "$out" \
	"<testcase classname=\"lathound.input\" name=\"$TMP/nonexistent.trace\" "
expect_in "unreadable input: ... with the reason" "$out" \
	"<error message=\"cannot open trace &#39;$TMP/nonexistent.trace&#39;: No such file or directory\""

head -c 4096 /dev/urandom | tr -d '#' >"$TMP/random.trace"
run analyze --format json -o "$TMP/random.json" "$TMP/random.trace"
expect_rc "binary garbage is an error" 1
expect_jq "binary garbage: the report is still written, counting nothing parsed" \
	"$TMP/random.json" '.input.snapshots == 0 and .records_total == 0'
expect_in "binary garbage: said so" "$err" "binary data, not the text of a latency trace"

# Unread input is an error, not a warning: a good trace next to one lathound could not read
# (empty, binary, a header cut short, a snapshot skipped as malformed) must not pass a gate,
# with -q too, and every format says which file and why.
GOOD=$DATA/vm-irqsoff-fakeraid.trace
head -c 4096 /dev/urandom | tr -d '#' >"$TMP/binary.trace"
cp "$DATA/handmade-truncated-header.trace" "$TMP/cut-header.trace"
{ cat "$GOOD"; head -n 5 "$DATA/pidt-irqsoff-nofunc.trace"; cat "$GOOD"; } >"$TMP/one-bad.trace"
declare -A why=(
	[empty]="no latency snapshot in trace '$TMP/empty.trace': the input is empty"
	[binary]="no latency snapshot in trace '$TMP/binary.trace': binary data"
	[cut-header]="no latency snapshot read from trace '$TMP/cut-header.trace': 1 skipped as malformed (line 7: header cut before the column legend)"
	[one-bad]="trace '$TMP/one-bad.trace': 1 of 3 snapshots skipped as malformed (line"
)
for bad in empty binary cut-header one-bad; do
	f=$TMP/$bad.trace
	for q in "" -q; do
		run analyze $q "$GOOD" "$f" --max all=5ms --fail-on none
		expect_rc "good trace + $bad one${q:+ ($q)}: error, not PASS" 1
		expect_in "... $bad${q:+ ($q)}: stderr names the file and why" "$err" "${why[$bad]}"
	done
	expect_in "... $bad: the text report says it was not read" "$out" "NOT READ: ${why[$bad]}"
	expect_in "... $bad: the text verdict is ERROR" "$out" \
		"Verdict: ERROR: 1 of 2 inputs could not be read in full; first: ${why[$bad]}"
	run analyze -q -f json "$GOOD" "$f" --max all=5ms --fail-on none
	echo "$out" >"$TMP/$bad.json"
	expect_jq "... $bad: JSON verdict error, the file listed with its problem" "$TMP/$bad.json" \
		".verdict == \"error\" and .input.unread == 1 and ([.input.files[] | select(.problem != null) | .name] == [\"$f\"]) and .tracers.irqsoff.count >= 1"
	run analyze -q -f junit "$GOOD" "$f" --max all=5ms --fail-on none
	echo "$out" >"$TMP/$bad.xml"
	expect_in "... $bad: JUnit counts it in errors" "$out" 'errors="1"'
	expect_in "... $bad: JUnit <error> in the testcase of the file" "$out" \
		"<testcase classname=\"lathound.input\" name=\"$f\" "
	check "... $bad: the JUnit XML is well-formed (xmllint)" xmllint --noout "$TMP/$bad.xml"
	# Accepted explicitly: the gates decide, and the report still lists the file.
	run analyze -q -f json --allow-unreadable "$GOOD" "$f" --max all=5ms --fail-on none
	expect_rc "... $bad with --allow-unreadable: the gates decide" 0
	echo "$out" >"$TMP/$bad-allowed.json"
	expect_jq "... $bad with --allow-unreadable: listed as accepted" "$TMP/$bad-allowed.json" \
		".verdict == \"pass\" and .input.unread == 0 and .input.unread_accepted == 1 and ([.input.files[] | select(.accepted) | .name] == [\"$f\"])"
done
run analyze -f junit --allow-unreadable "$GOOD" "$TMP/empty.trace" --max all=5ms --fail-on none
expect_in "--allow-unreadable: JUnit lists the file as skipped" "$out" \
	"<skipped message=\"no latency snapshot in trace &#39;$TMP/empty.trace&#39;"
expect_in "--allow-unreadable: JUnit counts it in skipped, not errors" "$out" 'errors="0" skipped="1"'
expect_in "--allow-unreadable: warned" "$err" "(accepted: --allow-unreadable)"
run analyze --allow-unreadable "$TMP/empty.trace" "$TMP/binary.trace"
expect_rc "--allow-unreadable with nothing read at all: still an error" 1
expect_in "... says nothing was read" "$err" "no latency snapshot in the input"

# Installed under another PREFIX than the build's: rules are found next to the binary.
make -s -C "$TOP" install DESTDIR="$TMP/inst" PREFIX=/opt/lh >/dev/null 2>&1
if [ -x "$TMP/inst/opt/lh/bin/lathound" ]; then
	"$TMP/inst/opt/lh/bin/lathound" analyze --format json "$DATA/handmade-irq-events.trace" \
		>"$TMP/inst.json" 2>"$TMP/inst.err"
	rc=$?
	expect_rc "installed copy gates with its own rules" 2
	expect_jq "installed copy loaded the shipped rules" "$TMP/inst.json" \
		'(.rules | length) > 0 and any(.rules[]; .id == "raid-irq-held" and .hits > 0)'
else
	not_ok "make install DESTDIR=... PREFIX=/opt/lh installed no binary"
fi

# No rule directory anywhere: a warning says so, rather than a silent pass.
if [ -d /usr/local/share/lathound/rules ]; then
	skip "no rule directory: warned" "lathound is installed in /usr/local on this machine"
else
	cp "$LATHOUND" "$TMP/alone"
	(cd "$TMP" && ./alone analyze "$DATA/pidt-irqsoff-nofunc.trace" >/dev/null 2>"$TMP/alone.err")
	rc=$?
	expect_rc "no rule directory: still analyzes" 0
	expect_in "no rule directory: warned" "$(cat "$TMP/alone.err")" \
		"no default rules loaded: default rule directory"
fi

# A saved report that lists an unread input but counts none (edited by hand, or by a tool
# that dropped the count) is not read back as clean: 'lathound report' refuses it.
run report "$TMP/missing.json"
expect_rc "the saved report with an unread input, rendered again: still an error" 1
jq '.input.unread = 0' "$TMP/missing.json" >"$TMP/tampered.json"
run report "$TMP/tampered.json"
expect_rc "a report whose unread count disagrees with its files: error" 1
expect_in "... said so" "$err" "input.unread: 0, but 'files' lists 1 inputs not read"

finish
