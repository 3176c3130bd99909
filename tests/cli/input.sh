#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Inputs that must not pass a gate by carrying nothing, and where the rules come from:
# an empty trace, binary garbage, a lathound installed under another PREFIX than it was
# built for, and a lathound with no rule directory at all.
. "$(dirname "$0")/../lib.sh"

: >"$TMP/empty.trace"
run analyze "$TMP/empty.trace"
expect_rc "empty trace is an error" 1
expect_in "empty trace: says nothing was found" "$err" "no latency snapshot in the input"
expect_in "empty trace: names the file" "$err" "$TMP/empty.trace: no latency snapshot found"

run analyze --format json -o "$TMP/empty.json" "$TMP/empty.trace"
expect_jq "empty trace: the report's verdict is error, not pass" "$TMP/empty.json" \
	'.verdict == "error" and .error == "no latency snapshot in the input"'

run analyze --format json -o "$TMP/missing.json" "$TMP/nonexistent.trace" \
	"$DATA/pidt-irqsoff-nofunc.trace"
expect_rc "one unreadable input of two is an error" 1
expect_jq "unreadable input: verdict error, what was read still reported" "$TMP/missing.json" \
	'.verdict == "error" and .error == "1 of 2 inputs could not be read" and .records_total == 1'
run analyze --format junit "$TMP/nonexistent.trace" "$DATA/pidt-irqsoff-nofunc.trace"
expect_in "unreadable input: a failed JUnit testcase says so" "$out" \
	'<failure message="1 of 2 inputs could not be read"'

head -c 4096 /dev/urandom >"$TMP/random.trace"
run analyze --format json -o "$TMP/random.json" "$TMP/random.trace"
expect_rc "binary garbage is an error" 1
expect_jq "binary garbage: the report is still written, counting nothing parsed" \
	"$TMP/random.json" '.input.snapshots == 0 and .records_total == 0'

# One good file next to an empty one: the good one is gated, the empty one warned about.
run analyze "$TMP/empty.trace" "$DATA/pidt-irqsoff-nofunc.trace"
expect_rc "a good trace next to an empty one passes" 0
expect_in "the empty one is named" "$err" "$TMP/empty.trace: no latency snapshot found"

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
		"no rules loaded: default rule directory"
fi

finish
