#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# doc/lathound.bash-completion: every command, every option each command's --help lists
# (so that the two cannot drift), and the values of the options that take a known set.
. "$(dirname "$0")/../lib.sh"

COMPLETION=$TOP/doc/lathound.bash-completion

# comp WORD...: what completing the last word of 'lathound WORD...' offers, one per line.
comp() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _lathound
		 printf "%s\n" "${COMPREPLY[@]}"' comp "$COMPLETION" "$LATHOUND" "$@" | sort
}

# The options of a command as its --help prints them: "--name" or "--name=" with a value
# (the option table ends with -h, --help; what follows is prose and examples).
help_options() {
	"$LATHOUND" "$@" --help | sed -n -e '/^    -h, --help/q' \
		-e 's/^    \(-[a-zA-Z0-9], \|    \)\(--[a-z0-9-]*\)\(=\{0,1\}\).*/\2\3/p' | sort -u
}

check "completion file loads in bash" bash -n "$COMPLETION"

# Commands: exactly those of the top-level usage.
want=$("$LATHOUND" --help | sed -n 's/^    \([a-z]*\)  .*/\1/p' | sort | tr '\n' ' ')
got=$(comp '' | grep -v '^-' | tr '\n' ' ')
check "every command completes ($got)" [ "$got" = "$want" ]
check "--help and --version complete" [ "$(comp --| tr '\n' ' ')" = "--help --version " ]

# Every option of every command, as its --help declares it.
for c in analyze record report diff doctor reset; do
	want=$(help_options "$c")
	n=$(wc -l <<<"$want")
	check "$c: --help lists options ($n)" [ -n "$want" ]
	got=$(comp "$c" --)
	missing=$(comm -23 <(echo "$want") <(echo "$got") | tr '\n' ' ')
	check "$c: every option completes${missing:+ (missing: $missing)}" [ -z "$missing" ]
done
got=$(comp rules check -)
expect_in "rules check: -q completes" "$got" "--quiet"
check "rules: 'check' completes" [ "$(comp rules c)" = "check" ]

# The options the brief names, one by one (they must exist in --help too).
for o in --format= --state-dir= --kernel-config=; do
	expect_in "doctor $o" "$(comp doctor --)" "$o"
done
expect_in "reset --state-dir=" "$(comp reset --)" "--state-dir="
for o in --tracer= --threshold= --slice= --function-trace --filter= --notrace= --kprobe= \
	--buffer-size= --irq-only --duration= --output= --checkpoint= --disk-budget= \
	--max-snapshots= --format= --keep= --quiet --rules= --max= --fail-on= --force --poll; do
	expect_in "record $o" "$(comp record --)" "$o"
done
# record's test-only options work but are hidden from --help, so not offered either.
for o in --tracefs= --state-dir=; do
	expect_not_in "record $o: hidden, not offered" "$(comp record --)" "$o"
done

# Values.
check "doctor --format: text json (no junit)" [ "$(comp doctor --format '' | tr '\n' ' ')" = "json text " ]
check "analyze --format: text json junit html" \
	[ "$(comp analyze --format '' | tr '\n' ' ')" = "html json junit text " ]
check "doctor --format=j (bash splits at '=')" [ "$(comp doctor --format = j)" = "json" ]
check "doctor --format= (bash splits at '=')" [ "$(comp doctor --format = | tr '\n' ' ')" = "json text " ]
check "record -f: text json junit html" \
	[ "$(comp record -f '' | tr '\n' ' ')" = "html json junit text " ]
check "report -f: text json junit html" \
	[ "$(comp report -f '' | tr '\n' ' ')" = "html json junit text " ]
check "diff -f: text json junit" [ "$(comp diff -f '' | tr '\n' ' ')" = "json junit text " ]
check "diff --fail-on-new: the severities" \
	[ "$(comp diff --fail-on-new '' | tr '\n' ' ')" = "critical info none warning " ]
check "--fail-on values" [ "$(comp record --fail-on '' | tr '\n' ' ')" = "critical info none warning " ]
expect_in "record --tracer: a list, last element" "$(comp record --tracer irqsoff,wake)" \
	"irqsoff,wakeup_rt"
expect_in "record --max: tracer=" "$(comp record --max pre)" "preemptirqsoff="
mkdir -p "$TMP/dir.d" && touch "$TMP/file.f"
got=$(comp reset --state-dir "$TMP/")
check "reset --state-dir: directories only ($got)" [ "$got" = "$TMP/dir.d" ]
got=$(comp doctor --kernel-config "$TMP/f")
check "doctor --kernel-config: files" [ "$got" = "$TMP/file.f" ]
got=$(comp analyze "$TMP/f")
check "analyze FILE: files" [ "$got" = "$TMP/file.f" ]
check "--duration takes free text: nothing offered" [ -z "$(comp record --duration '')" ]

# record ... -- COMMAND: the workload completes as a command.
expect_in "record -- COMMAND completes commands" "$(comp record -t irqsoff -- bas)" "bash"

finish
