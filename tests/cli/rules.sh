#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lathound rules check: good, broken and missing rule files, the shipped library, usage.
. "$(dirname "$0")/../lib.sh"

cd "$DATA/rules" || exit 1

# A good directory: every *.rules file, sorted, summed up on stdout, nothing on stderr.
run rules check good
expect_rc "good directory" 0
check "good directory: exact summary" [ "$out" = "good/a-storage.rules: 3 rules ok
good/b-misc.rules: 2 rules ok
total: 5 rules in 2 files ok" ]
check "good directory: nothing on stderr" [ -z "$err" ]

run rules check good/b-misc.rules
expect_rc "one good file" 0
check "one good file: exact summary" [ "$out" = "good/b-misc.rules: 2 rules ok
total: 2 rules in 1 file ok" ]

run rules check -q good
expect_rc "-q on good rules" 0
check "-q prints nothing" [ -z "$out$err" ]

# The shipped library must always pass, and holds the rules other tests rely on.
run rules check "$TOP/rules"
expect_rc "shipped rules/" 0
expect_in "shipped rules/: summary" "$out" "total: "
n=$(sed -n 's/^total: \([0-9]*\) rules in \([0-9]*\) files ok$/\1 \2/p' <<<"$out")
nr=${n% *} nf=${n#* }
check "shipped rules/: at least 20 rules in 5 files ($nr in $nf)" \
	[ "${nr:-0}" -ge 20 -a "${nf:-0}" -ge 5 ]
for id in raid-irq-held preemptirq-delay-test console-serial8250; do
	check "shipped rules/ define [$id]" grep -q "^\[$id\]" "$TOP"/rules/*.rules
done
# The lhx test driver's rules are the tests', not a user's: not in rules/, not installed.
check "no lhx- test-driver rule in the shipped rules/" \
	test -z "$(grep -l '^\[lhx-' "$TOP"/rules/*.rules)"
run rules check "$LHX_RULES"
expect_rc "the lhx test-driver rules are valid" 0
for id in lhx-fakeraid-irq lhx-preempt-hog lhx-wakeup-delay; do
	check "the lhx test-driver rules define [$id]" grep -q "^\[$id\]" "$LHX_RULES"
done
make -s -C "$TOP" install DESTDIR="$TMP/inst" PREFIX=/usr >/dev/null 2>&1
check "make install installs the shipped rules" test -s "$TMP/inst/usr/share/lathound/rules/kernel.rules"
check "make install installs no test-driver rule" \
	test -z "$(grep -rl '^\[lhx-' "$TMP/inst/usr/share/lathound/rules")"

# rules list: what analyze and record load, from where; --add-rules joins the library.
run rules list -r "$TOP/rules"
expect_rc "rules list -r rules/" 0
expect_in "rules list: id, severity, file:line" "$out" "raid-irq-held"
check "rules list: each rule's line names its file and line" \
	grep -qE "^raid-irq-held +critical +$TOP/rules/storage.rules:[0-9]+$" <<<"$out"
nlist=$(sed -n 's/^\([0-9]*\) rules from \([0-9]*\) files$/\1 \2/p' <<<"$out")
check "rules list counts as rules check does ($nlist)" [ "$nlist" = "$nr $nf" ]
run rules list -r "$TOP/rules" --add-rules "$LHX_RULES"
expect_in "rules list --add-rules: the added file's rules, after the library's" "$out" \
	"lhx-fakeraid-irq"
check "... one more file" grep -q "rules from $((nf + 1)) files" <<<"$out"
check "... listed last" test "$(grep -v ' rules from ' <<<"$out" | tail -1 | grep -c "$LHX_RULES")" = 1
run rules list --add-rules "$LHX_RULES"
expect_rc "rules list --add-rules alone: the default directory and the file" 0
check "... both loaded (this tree's rules/ is the default)" \
	grep -q "rules from $((nf + 1)) files" <<<"$out"
run analyze --add-rules "$LHX_RULES" -f json "$DATA/vm-irqsoff-fakeraid.trace"
echo "$out" >"$TMP/add.json"
expect_jq "analyze --add-rules: the default library and the added rules both fire" "$TMP/add.json" \
	'any(.rules[]; .id == "raid-irq-held" and .hits == 1) and any(.rules[]; .id == "lhx-fakeraid-irq" and .hits == 1)'
run analyze -f json "$DATA/vm-irqsoff-fakeraid.trace"
echo "$out" >"$TMP/noadd.json"
expect_jq "analyze without it: no test-driver rule is loaded" "$TMP/noadd.json" \
	'any(.rules[]; .id == "raid-irq-held") and all(.rules[]; .id | startswith("lhx-") | not)'
printf '[broken\n' >"$TMP/broken-add.rules"
run analyze --add-rules "$TMP/broken-add.rules" "$DATA/vm-irqsoff-fakeraid.trace"
expect_rc "analyze --add-rules with a broken file" 1
expect_in "... file:line:column" "$err" "$TMP/broken-add.rules:1:"
check "every shipped rule is preceded by a comment naming its source" \
	awk '/^\[/ { if (prev !~ /^#/) { print FILENAME ": " $0; bad = 1 } } { prev = $0 }
	     END { exit bad }' "$TOP"/rules/*.rules "$LHX_RULES"

# A broken regex: file:line:column with PCRE2's message; no summary.
run rules check broken/regex.rules
expect_rc "broken regex" 1
check "broken regex: exact stderr" [ "$err" = "lathound: error: broken/regex.rules:3:13: missing closing parenthesis
lathound: error: rule check failed: 1 error" ]
check "broken regex: nothing on stdout" [ -z "$out" ]

# Every error of a file is listed, in order.
run rules check broken/many.rules
expect_rc "many errors" 1
expect_in "outside a section" "$err" \
	"lathound: error: broken/many.rules:2:1: 'severity' outside a rule section (start one with '[id]')"
expect_in "bad id" "$err" \
	"lathound: error: broken/many.rules:5:5: invalid character ' ' in rule id 'bad id' (use letters, digits, '-', '_' and '.')"
expect_in "unknown subject" "$err" \
	"lathound: error: broken/many.rules:9:16: unknown subject 'stacks' (use stack, functions, irq, task, blocking, start or end)"
expect_in "unknown tracer" "$err" \
	"lathound: error: broken/many.rules:10:20: unknown tracer 'preemptof' (use irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt or wakeup_dl)"
expect_in "bad duration" "$err" \
	"lathound: error: broken/many.rules:11:12: invalid duration '5 parsecs' for 'min': unknown duration unit (use ns, us, ms, s, m or h)"
expect_in "unknown severity" "$err" \
	"lathound: error: broken/many.rules:12:12: unknown severity 'fatal' (use info, warning, critical or ignore)"
expect_in "unknown key" "$err" \
	"lathound: error: broken/many.rules:13:1: unknown key 'colour' (use match, in, tracer, min, severity, span or message)"
expect_in "missing match" "$err" \
	"lathound: error: broken/many.rules:15:1: rule 'no-match' has no 'match' pattern"
expect_in "duplicate id in one file" "$err" \
	"lathound: error: broken/many.rules:17:2: duplicate rule id 'ok-rule' (first defined at broken/many.rules:3)"
expect_in "regex error column" "$err" \
	"lathound: error: broken/many.rules:26:17: missing terminating ] for character class"
expect_in "error count" "$err" "lathound: error: rule check failed: 14 errors"
check "14 located errors, in line order" \
	[ "$(grep -o '^lathound: error: broken/many.rules:[0-9]*' <<<"$err" | cut -d: -f4 | tr '\n' ' ')" = \
	  "2 5 9 10 11 12 13 14 15 17 19 21 23 26 " ]

# Duplicate ids across files loaded together, naming the first definition.
run rules check dup
expect_rc "duplicate across files" 1
check "duplicate across files: exact stderr" [ "$err" = "lathound: error: dup/b.rules:5:2: duplicate rule id 'shared-id' (first defined at dup/a.rules:1)
lathound: error: rule check failed: 1 error" ]
run rules check good/b-misc.rules good/b-misc.rules
expect_rc "same file twice" 1
expect_in "same file twice: names the first" "$err" \
	"good/b-misc.rules:2:2: duplicate rule id 'fixture-selftest' (first defined at good/b-misc.rules:2)"

# A broken file among good ones: errors only, no summary.
run rules check good broken/regex.rules
expect_rc "good and broken together" 1
check "good and broken: no summary on stdout" [ -z "$out" ]

# Missing paths and directories without rules.
run rules check x.rules
expect_rc "missing file" 1
check "missing file: exact stderr" [ "$err" = "lathound: error: cannot open rule file 'x.rules': No such file or directory
lathound: error: rule check failed: 1 error" ]
run rules check norules
expect_rc "directory without rules" 1
check "directory without rules: exact stderr, said once" [ "$err" = "lathound: error: no rule files (*.rules) in 'norules'
lathound: error: rule check failed: 1 error" ]
check "directory without rules: nothing on stdout" [ -z "$out" ]

# analyze refuses it too, instead of passing every gate with no rules.
run analyze -r norules "$DATA/pidt-irqsoff-nofunc.trace"
expect_rc "analyze -r directory without rules" 1
expect_in "analyze -r directory without rules: says so" "$err" \
	"lathound: error: no rule files (*.rules) in 'norules'"

# A binary file: its bytes are quoted escaped, never sent raw to the terminal.
printf '\177ELF\002\001\033[2J = x\n[r]\nmatch = a\nin = st\033]0;x\007ack\n' >"$TMP/bin.rules"
run rules check "$TMP/bin.rules"
expect_rc "binary rule file" 1
expect_in "binary rule file: bytes escaped" "$err" \
	"bin.rules:1:1: '\x7fELF\x02\x01\x1b[2J' outside a rule section"
expect_in "binary rule file: escaped in a subject" "$err" "unknown subject 'st\x1b]0;x\x07ack'"
check "binary rule file: no control byte on stderr" \
	[ -z "$(tr -d '\n' <<<"$err" | LC_ALL=C tr -d '\040-\176')" ]

# A pattern matches each line of a subject, as grep does; 'span = lines' matches it across
# a subject's consecutive lines (the stack of this trace holds 'kthread' then
# 'ret_from_fork'). No guessing from the pattern: the same patterns without it never span.
cat >"$TMP/span.rules" <<'EOF'
[s]
match = kthread\sret_from_fork
in = stack
span = lines
[n]
match = kthread[^_]ret_from_fork
in = stack
span = lines
[a]
match = ^kthread$\n^ret_from_fork$
in = stack
span = lines
[f]
match = kthread\sret_from_fork
in = functions
span = lines
[line-s]
match = kthread\sret_from_fork
in = stack
[line-n]
match = kthread[^_]ret_from_fork
in = stack
[line-a]
match = ^kthread$\n^ret_from_fork$
in = stack
EOF
run analyze -f json --fail-on warning -r "$TMP/span.rules" "$DATA/pidt-irqsoff-nofunc.trace"
expect_rc "patterns across lines" 2
printf '%s' "$out" >"$TMP/span.json"
expect_jq "patterns across lines: \\s, [^_] and \\n fire, on the stack only" "$TMP/span.json" \
	'[.rules[] | select(.hits > 0) | .id] == ["s", "n", "a"]'
expect_in "patterns across lines: a line rule holding a line break is pointed at" "$err" \
	"span.rules:24:9: rule 'line-a': the pattern holds a line break, which a line never does; add 'span = lines' to match across lines"

# A FIFO (or device) named *.rules is refused at once, never waited on: rule files are opened
# non-blocking and must be regular files; in a directory a symbolic link is refused too.
mkdir "$TMP/fifodir"
cp good/b-misc.rules "$TMP/fifodir/a.rules"
mkfifo "$TMP/fifodir/b.rules"
ln -s "$PWD/good/a-storage.rules" "$TMP/fifodir/c.rules"
saved=("${LATHOUND_RUN[@]}")
LATHOUND_RUN=(timeout 20 "${saved[@]}")
run rules check "$TMP/fifodir"
expect_rc "rules check: a FIFO in the directory" 1
expect_in "rules check: the FIFO is named" "$err" \
	"lathound: error: cannot read rule file '$TMP/fifodir/b.rules': not a regular file"
expect_in "rules check: the link is named" "$err" \
	"lathound: error: cannot open rule file '$TMP/fifodir/c.rules': a symbolic link in a rule directory"
run analyze -r "$TMP/fifodir" "$DATA/pidt-irqsoff-nofunc.trace"
expect_rc "analyze -r: a FIFO in the rule directory" 1
expect_in "analyze -r: the FIFO is named" "$err" \
	"cannot read rule file '$TMP/fifodir/b.rules': not a regular file"
run rules check "$TMP/fifodir/b.rules"
expect_rc "rules check: a FIFO named on the command line" 1
LATHOUND_RUN=("${saved[@]}")

# 1000 generated rules (the benchmark's) are valid.
if "$TOP/bench/rules-gen.sh" 1000 >"$TMP/gen.rules"; then
	run rules check "$TMP/gen.rules"
	expect_rc "1000 generated rules" 0
	expect_in "1000 generated rules: counted" "$out" "$TMP/gen.rules: 1000 rules ok"
else
	not_ok "bench/rules-gen.sh 1000 failed"
fi

# Usage errors exit 1 with the usage on stderr; --help exits 0 with it on stdout.
run rules
expect_rc "'rules' without subcommand" 1
expect_in "'rules' alone: usage" "$err" "usage: lathound rules check [-q] PATH..."
run rules frob
expect_rc "unknown subcommand" 1
expect_in "unknown subcommand: named" "$err" \
	"lathound: error: 'frob' is not a rules subcommand ('check' or 'list')"
run rules check
expect_rc "'rules check' without PATH" 1
expect_in "'rules check' without PATH: says so" "$err" \
	"lathound: error: 'rules check' needs at least one rule file or directory"
run rules check --bogus good
expect_rc "unknown option" 1
expect_in "unknown option: named" "$err" "unknown option '--bogus'"
run rules --help
expect_rc "rules --help" 0
expect_in "rules --help: usage on stdout" "$out" "usage: lathound rules check [-q] PATH..."
run rules check --help
expect_rc "rules check --help" 0
expect_in "rules check --help: options" "$out" "-q, --quiet"

# The prefilter: --version names the engine; 'rules list' says how the line rules are matched
# and names those PCRE2 alone runs; the compiled database is cached, reused, and a cache
# directory others may write is not used.
run --version
expect_rc "--version" 0
hs=no
objdump -p "$LATHOUND_ELF" 2>/dev/null | grep -q 'NEEDED *libhs\.' && hs=yes
if [ $hs = yes ]; then
	expect_in "--version: the prefilter" "$out" "rules prefilter: Vectorscan "
else
	expect_in "--version: no prefilter" "$out" \
		"rules prefilter: none (built without Vectorscan: PCRE2 alone)"
fi
printf '[sub]\nmatch = (a)(?1)\n[lit]\nmatch = ^rcu_do_batch$\n[sp]\nmatch = x\\ny\nspan = lines\n' \
	>"$TMP/pf.rules"
export LATHOUND_CACHE_DIR=$TMP/cache
run rules list -r "$TMP/pf.rules"
expect_rc "rules list, prefilter" 0
if [ $hs = yes ]; then
	expect_in "rules list: the prefilter and its counts" "$out" \
		"prefilter: Vectorscan "
	expect_in "rules list: counts" "$out" ": 1 line rule, 1 run by PCRE2 on every new line"
	expect_in "rules list: the rule Vectorscan refuses, named" "$out" \
		"  not prefiltered: sub ($TMP/pf.rules:1)"
	expect_not_in "rules list: a span rule is not a line rule" "$out" "not prefiltered: sp"
	expect_in "rules list: a record's lines in one scan" "$out" \
		"on every new line; a record's lines scanned at once"
	check "the compiled databases are cached (a line, a record's lines)" \
		[ "$(ls "$TMP/cache" | grep -c '\.hsdb$')" = 2 ]
	run analyze -q -f json -r "$TMP/pf.rules" "$DATA/pidt-preemptirqsoff-func.trace"
	first=$out
	run analyze -q -f json -r "$TMP/pf.rules" "$DATA/pidt-preemptirqsoff-func.trace"
	check "from the cache: the same report" [ "$first" = "$out" ]
	chmod 777 "$TMP/cache"
	run rules list -r "$TMP/pf.rules"
	expect_rc "a cache directory others may write: not used, no error" 0
	expect_in "untrusted cache: still prefiltered (compiled)" "$out" ": 1 line rule, 1 run by"
	chmod 700 "$TMP/cache"
	LATHOUND_CACHE_DIR= run rules list -r "$TMP/pf.rules"
	expect_in "no cache: still prefiltered" "$out" ": 1 line rule, 1 run by"
	for i in $(seq 10); do
		printf '[r%s]\nmatch = ^rcu_%s$\n' "$i" "$i" >"$TMP/set$i.rules"
		"$LATHOUND" rules list -r "$TMP/set$i.rules" >/dev/null
	done
	check "the cache keeps the 16 most recently used databases (10 rule sets, 2 each)" \
		[ "$(ls "$TMP/cache" | grep -c '\.hsdb$')" = 16 ]
	printf '[a]\nmatch = \\Arcu\n[b]\nmatch = ^tick\n' >"$TMP/anchored.rules"
	run rules list -r "$TMP/anchored.rules"
	expect_in "rules list: a pattern anchored to the subject's start: a line at a time" \
		"$out" "; a line at a time (a pattern anchors to the subject's ends or may match empty)"
else
	expect_in "rules list: no prefilter" "$out" "prefilter: none (built without Vectorscan)"
fi
unset LATHOUND_CACHE_DIR
# Under 'sudo -E' HOME is the user's: root never creates ~/.cache there (root-owned 0700, it
# breaks the user's own programs) but uses its own, /var/cache/lathound.
if [ $hs = no ]; then
	skip "root's cache" "built without Vectorscan: no cache"
elif [ "$(id -u)" != 0 ]; then
	skip "root's cache is not in HOME" "not root"
else
	mkdir -p "$TMP/home"
	chown 65534:65534 "$TMP/home"
	HOME=$TMP/home XDG_CACHE_HOME= run rules list -r "$TMP/pf.rules"
	expect_rc "as root, HOME another user's (sudo -E): rules list" 0
	check "as root: nothing created in the other user's HOME" \
		[ -z "$(ls -A "$TMP/home")" ]
	check "as root: the cache is /var/cache/lathound, root's, 0700" \
		[ "$(stat -c '%u %a' /var/cache/lathound 2>&1)" = "0 700" ]
	HOME=$TMP/home XDG_CACHE_HOME=$TMP/home/xdg run rules list -r "$TMP/pf.rules"
	check "as root: not in the user's XDG_CACHE_HOME either" [ -z "$(ls -A "$TMP/home")" ]
fi

# A failed write of the summary is an error.
if [ -w /dev/full ]; then
	"${LATHOUND_RUN[@]}" rules check good >/dev/full 2>"$TMP/err"
	rc=$?
	expect_rc "summary to a full disk" 1
	expect_in "full disk: reported" "$(cat "$TMP/err")" "write error on standard output"
else
	skip "summary to a full disk" "/dev/full is not writable here"
fi

finish
