#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A large regular file is parsed by several threads (-j, chunks that start at a '# tracer:'
# line): the reports (text, JSON, JUnit), the warnings on stderr and the exit status must be
# the single thread's, byte for byte, on every layout of tests/data/ and tests/data/published/
# concatenated, on a Zipf corpus as bench/ builds it, and on damage at a chunk's seam (a
# snapshot cut mid-body, CR-only lines, NUL bytes, a line longer than the parser reads, a
# quoted-printable mail). The hidden --chunk makes the chunks small enough that every seam
# is tried; strace counts the threads, so that a silent fall-back to one thread cannot pass.
. "$(dirname "$0")/../lib.sh"

# The build's times and dates, the only bytes two runs may differ in.
norm() {
	sed -E 's/ time="[0-9.]+"/ time="T"/g; s/ timestamp="[^"]*"/ timestamp="T"/g' "$1"
}

# same DESC FILE CHUNK [ARGS...]: -j 1 and -j 2 --chunk CHUNK give the same reports, stderr
# and exit status in every format.
same() {
	local desc=$1 f=$2 chunk=$3 fmt rc1 bad=
	shift 3
	for fmt in text json junit; do
		"${LATHOUND_RUN[@]}" analyze -j 1 -f "$fmt" "$@" "$f" >"$TMP/s.out" 2>"$TMP/s.err"
		rc1=$?
		"${LATHOUND_RUN[@]}" analyze -j 2 --chunk "$chunk" -f "$fmt" "$@" "$f" \
			>"$TMP/p.out" 2>"$TMP/p.err"
		rc=$?
		[ "$rc" = "$rc1" ] || bad+=" $fmt:exit($rc1/$rc)"
		cmp -s <(norm "$TMP/s.out") <(norm "$TMP/p.out") || bad+=" $fmt:report"
		cmp -s "$TMP/s.err" "$TMP/p.err" || bad+=" $fmt:stderr"
	done
	if [ -z "$bad" ]; then ok "$desc: -j 2 gives -j 1's reports and warnings (exit $rc)"; else
		not_ok "$desc: -j 2 differs from -j 1:$bad"
		diff <(norm "$TMP/s.out") <(norm "$TMP/p.out") | head -10 | sed 's/^/#   /'
		diff "$TMP/s.err" "$TMP/p.err" | head -10 | sed 's/^/#   /'
	fi
}

# threads JOBS FILE CHUNK: how many threads 'analyze -j JOBS --chunk CHUNK FILE' started.
threads() {
	strace -f -qq -e trace=clone,clone3 -o "$TMP/strace" \
		"$LATHOUND" analyze -q -j "$1" --chunk "$3" "$2" >/dev/null 2>&1
	grep -c 'clone' "$TMP/strace"
}

# Every layout the parser reads, concatenated (trace.dat files are no text).
cat "$DATA"/*.trace >"$TMP/data.trace"
cat "$DATA"/published/*.trace \
	>"$TMP/published.trace"
cat "$TMP/data.trace" "$TMP/published.trace" "$TMP/data.trace" >"$TMP/all.trace"
n=$(grep -c '^# tracer:' "$TMP/all.trace")
echo "# tests/data and tests/data/published concatenated: $(stat -c %s "$TMP/all.trace") bytes, $n '# tracer:' lines at column 0"

if ! command -v strace >/dev/null; then
	skip "the parallel path is taken" "no strace (tests/deps.sh installs it)"
else
	# a sanitizer's runtime may start a thread of its own, with the first one (TSan)
	n1=$(threads 1 "$TMP/all.trace" 1)
	n2=$(threads 2 "$TMP/all.trace" 1)
	n3=$(threads 3 "$TMP/all.trace" 1)
	check "a file of many chunks is parsed by 2 threads (-j 2: $n2 started, -j 1: $n1)" \
		test "$n2" -ge $((n1 + 2)) -a "$n2" -le $((n1 + 3))
	check "... by one more with -j 3 ($n3 started)" test "$n3" = $((n2 + 1))
	if [ "$(nproc)" -ge 2 ]; then
		check "... by 2 by default on 2 CPUs ($(nproc) here)" test "$(strace -f -qq \
			-e trace=clone,clone3 -o "$TMP/strace" taskset -c 0,1 "$LATHOUND" analyze -q \
			--chunk 1 "$TMP/all.trace" >/dev/null 2>&1; grep -c clone "$TMP/strace")" = "$n2"
	else
		skip "... by 2 by default on 2 CPUs" "$(nproc) CPU here"
	fi
	check "... by none by default when it may run on one CPU (taskset -c 0)" \
		test "$(strace -f -qq -e trace=clone,clone3 -o "$TMP/strace" taskset -c 0 \
		"$LATHOUND" analyze -q --chunk 1 "$TMP/all.trace" >/dev/null 2>&1
		grep -c clone "$TMP/strace")" = "$n1"
	check "... and by none when it is smaller than two chunks" \
		test "$(threads 2 "$TMP/all.trace" 100000000)" = "$n1"
	check "... nor when it comes through a pipe (a stream, read by one thread)" \
		test "$(cat "$TMP/all.trace" | strace -f -qq -e trace=clone,clone3 \
		-o "$TMP/strace" "$LATHOUND" analyze -q -j 2 --chunk 1 - >/dev/null 2>&1
		grep -c clone "$TMP/strace")" = "$n1"
fi

for chunk in 1 4096 65536; do
	same "tests/data + published, chunks of $chunk bytes" "$TMP/all.trace" $chunk
done
same "... with the shipped rules and gates" "$TMP/all.trace" 1 -r "$TOP/rules" \
	--max irqsoff=100us --fail-on warning --allow-unreadable
same "... with --keep 3 (the same records kept)" "$TMP/all.trace" 1 --keep 3
# A rule that hits PCRE2's match limit is warned about once, among the parser's warnings.
printf '[bt]\nmatch = ^(\\w|[a-z])+[^\\w+]{2}$\nin = stack\nseverity = critical\n' >"$TMP/bt.rules"
{ sed $'23a\\\n\x01 some damage' "$DATA/pidt-preemptirqsoff-func.trace"; cat "$TMP/all.trace"; } \
	>"$TMP/bt.trace"
same "... with a rule that hits a PCRE2 limit (its warning after the parser's)" \
	"$TMP/bt.trace" 1 -r "$TMP/bt.rules"
# Two rules that hit PCRE2's limits: beta in the first record and again in the last, alpha
# in the one before: each thread matches its own chunks, and the warnings still come once
# per rule, at the first record in the input that hits it, in the input's order.
cat >"$TMP/limits.rules" <<'EOF'
[alpha]
match = ^(\w|[a-z])+_alpha(?=[^\w+]{2}$)
[beta]
match = ^(\w|[a-z])+_beta(?=[^\w+]{2}$)
EOF
hog() { sed "23a\\  insmod-96        0d....    1us : aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_$1 <-x" \
	"$DATA/pidt-preemptirqsoff-func.trace"; }
{ hog beta; cat "$TMP/all.trace"; hog alpha; hog beta; } >"$TMP/limits.trace"
same "two rules that hit PCRE2 limits in different chunks (their warnings in input order)" \
	"$TMP/limits.trace" 4096 -r "$TMP/limits.rules"
run analyze -j 2 --chunk 4096 -f json -r "$TMP/limits.rules" "$TMP/limits.trace"
expect_rc "rules that could not be evaluated: an error" 1
expect_in "... beta said first (the first record)" "$(sed -n '1,/rule .alpha/p' <<<"$err")" \
	"rule 'beta': pattern hit the PCRE2 match limit"

# A Zipf corpus as bench/zipf-corpus.sh builds it, on made-up kernel symbol names.
if cc -std=gnu11 -O2 -o "$TMP/zipf-corpus" "$TOP/bench/zipf-corpus.c" -lm 2>"$TMP/cc.err"; then
	awk 'BEGIN { for (i = 0; i < 30000; i++) printf "sym_%x_%s\n", i * 7919, (i % 3 ? "lock" : "irq") }' \
		>"$TMP/syms"
	"$TMP/zipf-corpus" "$TMP/syms" "$TMP/zipf.trace" 3 >/dev/null
	echo "# zipf corpus: $(stat -c %s "$TMP/zipf.trace") bytes, $(grep -c '^# tracer:' "$TMP/zipf.trace") snapshots"
	same "zipf corpus (3 MB), chunks of 64 KiB, shipped rules" "$TMP/zipf.trace" 65536 \
		-r "$TOP/rules"
	same "zipf corpus, chunks of 1 byte (a seam at every snapshot)" "$TMP/zipf.trace" 1

	# Damage at a seam: the parts are glued so that the damage sits right before a
	# '# tracer:' line that starts a chunk.
	head -c 700000 "$TMP/zipf.trace" >"$TMP/head"
	tail -c +700001 "$TMP/zipf.trace" | sed -n '/^# tracer:/,$p' >"$TMP/rest"
	{ head -c 300000 "$TMP/head"; echo; cat "$TMP/rest"; } >"$TMP/cut-body.trace"
	same "a snapshot cut mid-body right before a seam" "$TMP/cut-body.trace" 65536
	{ head -c 300000 "$TMP/head"; cat "$TMP/rest"; } >"$TMP/cut-line.trace"
	same "a line cut mid-way and joined to the next snapshot's '# tracer:' line" \
		"$TMP/cut-line.trace" 65536
	{ cat "$TMP/head"; tr '\n' '\r' <"$DATA/vm-irqsoff-func.trace"; cat "$TMP/rest"; } \
		>"$TMP/cr.trace"
	same "a CR-only snapshot between LF ones" "$TMP/cr.trace" 65536
	tr '\n' '\r' <"$TMP/zipf.trace" >"$TMP/cr-only.trace"
	same "a CR-only file" "$TMP/cr-only.trace" 65536
	{ cat "$TMP/head"; printf 'irq\0test-1 0d..1 3us : f\0oo <-bar\n\0\0\0\n'; cat "$TMP/rest"; } \
		>"$TMP/nul.trace"
	same "NUL bytes at the end of a chunk" "$TMP/nul.trace" 65536
	{ cat "$TMP/head"; head -c 70000 /dev/zero | tr '\0' 'x'; echo; cat "$TMP/rest"; } \
		>"$TMP/long.trace"
	same "a line longer than the parser reads (64 KiB) before a seam" "$TMP/long.trace" 65536
	{ cat "$TMP/head"; printf 'Content-Type: text/plain; format=flowed\nContent-Transfer-Encoding: quoted-printable\n\n'
	  cat "$DATA/vm-irqsoff-func.trace" "$TMP/rest"; } >"$TMP/qp.trace"
	same "a quoted-printable mail body from the middle on" "$TMP/qp.trace" 65536
	{ cat "$TMP/head"; sed 's/^/> /' "$DATA/vm-wakeup_rt.trace"; cat "$TMP/rest"; } \
		>"$TMP/quoted.trace"
	same "a quoted snapshot in the middle" "$TMP/quoted.trace" 65536
	{ head -c 300000 "$TMP/head"; echo '# tracer: irqsoff'; echo '#'; cat "$TMP/rest"; } \
		>"$TMP/empty-snap.trace"
	same "an empty snapshot (header only) before a seam" "$TMP/empty-snap.trace" 65536
else
	not_ok "cannot build bench/zipf-corpus.c: $(head -3 "$TMP/cc.err")"
fi
finish
