#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The command line every subcommand shares (src/cmd/opts.c, main.c): option errors name the
# option and what is wrong, usage comes from the option table, stray operands are refused,
# and a failed write to standard output is an error.
. "$(dirname "$0")/../lib.sh"

# The commands, as the top-level usage lists them.
run --help
expect_rc "--help" 0
cmds=$(sed -n 's/^    \([a-z]*\)  .*/\1/p' <<<"$out" | sort | tr '\n' ' ')
check "--help lists the eight commands ($cmds)" [ "$cmds" = "analyze diff doctor merge record report reset rules " ]
run --version
expect_rc "--version" 0
version=$(sed -n 's/^VERSION[[:space:]]*:= *//p' "$TOP/Makefile")
check "--version prints the Makefile's version ($version)" \
	[ "$(head -1 <<<"$out")" = "lathound $version" ]
expect_in "--version: then how rules are matched" "$out" "rules prefilter: "
run frobnicate
expect_rc "unknown command" 1
expect_in "unknown command: named" "$err" "'frobnicate' is not a lathound command"
run
expect_rc "no command" 1
expect_in "no command: usage on stderr" "$err" "usage: lathound"

# A flag given a value says so, not that it needs one.
run analyze --quiet=yes "$DATA/ftrace-rst-irqsoff.trace"
expect_rc "--quiet=yes" 1
expect_in "--quiet=yes: takes no value" "$err" "option '--quiet' takes no value"
expect_not_in "--quiet=yes: not 'requires'" "$err" "requires a value"
run analyze --max
expect_rc "--max without its value" 1
expect_in "--max without its value: says so" "$err" "option '--max' requires a value"
run analyze -f
expect_rc "-f without its value" 1
expect_in "-f without its value: says so" "$err" "option '-f' requires a value"
run analyze -Z
expect_rc "unknown short option" 1
expect_in "unknown short option: named" "$err" "unknown option '-Z'"
run doctor --no-such-option
expect_rc "doctor: unknown option" 1
expect_in "doctor: unknown option named" "$err" "unknown option '--no-such-option'"
expect_in "doctor: usage follows the error" "$err" "usage: lathound doctor [<options>]"

# Usage: the usage line, one blank line, then the table (a first group heading included).
for c in analyze record doctor reset; do
	run "$c" --help
	expect_rc "$c --help" 0
	check "$c --help: one blank line after the usage line" \
		[ "$(sed -n 2p <<<"$out")" = "" -a -n "$(sed -n 3p <<<"$out")" ]
	expect_in "$c --help: ends the table with --help" "$out" "-h, --help            show this help and exit"
	expect_in "$c --help: exit status explained" "$out" "exit status:"
done

# Commands that take no operand refuse one.
for c in doctor reset; do
	run "$c" stray
	expect_rc "$c with an operand" 1
	expect_in "$c with an operand: named" "$err" "unexpected argument 'stray'"
done

# Output that cannot be written is an error, whatever the command.
if [ -c /dev/full ]; then
	for c in "analyze --help" "doctor --help" "reset --help" "rules --help" "--version"; do
		# shellcheck disable=SC2086
		"${LATHOUND_RUN[@]}" $c >/dev/full 2>"$TMP/err"
		rc=$?
		expect_rc "'$c' > /dev/full" 1
		expect_in "'$c' > /dev/full: says why" "$(cat "$TMP/err")" \
			"write error on standard output: No space left on device"
	done
else
	skip "writes to /dev/full" "no /dev/full here"
fi

finish
