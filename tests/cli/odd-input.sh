#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Untrusted input stays inert and bounded: a task name holding terminal escapes, invalid
# UTF-8 and a NUL reaches no terminal raw and breaks no report (JSON is UTF-8, JUnit is
# well-formed XML); a latency beyond what a kernel prints is refused the same way everywhere;
# standard input, CR-only line endings and endless input are read as a stream, in bounded
# memory.
. "$(dirname "$0")/../lib.sh"

echo '# no rules' >"$TMP/none.rules"
NORULES=(-r "$TMP/none.rules")
BASE=$DATA/pidt-irqsoff-nofunc.trace

# The real snapshot with its task renamed: OSC "set window title" (ESC ] 0 ; ... BEL), a CSI
# clear-screen, invalid UTF-8 and a NUL.
hostile=$TMP/hostile.trace
sed 's/irq_test-82/\x1b]0;pwned\x07\x1b[2J\xff\xfeirq\x00test-82/' "$BASE" >"$hostile"
grep -q $'\x1b' "$hostile" || not_ok "the hostile trace holds no ESC byte"

# no_raw DESC FILE: FILE holds no ESC, BEL, NUL or other control byte but tab and newline.
no_raw() {
	if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$2"; then
		not_ok "$1: raw control bytes:"; LC_ALL=C grep -naP '[\x00-\x08\x0b-\x1f\x7f]' "$2" |
			od -c | head -5 | sed 's/^/#   /'
	else
		ok "$1"
	fi
}

# xml_ok WHAT FILE: FILE is well-formed XML for libxml2's strict parser (xmllint).
xml_ok() {
	if ! command -v xmllint >/dev/null; then
		skip "$1: JUnit checked by xmllint" "xmllint is not installed (libxml2-utils)"
	elif xmllint --noout "$2" 2>"$TMP/xmllint.err"; then
		ok "$1: the JUnit report is well-formed XML (xmllint)"
	else
		not_ok "$1: xmllint refuses the JUnit report"; sed 's/^/#   /' "$TMP/xmllint.err"
	fi
}

"$LATHOUND" analyze "${NORULES[@]}" --max irqsoff=1ms "$hostile" >"$TMP/text" 2>"$TMP/text.err"
rc=$?
expect_rc "hostile comm: the gate fails on it" 2
no_raw "hostile comm: the text report holds no raw control byte" "$TMP/text"
expect_in "hostile comm: the text report shows it escaped" "$(cat "$TMP/text")" \
	'\x1b]0;pwned\x07\x1b[2J\xff\xfeirq\x00test-82'

"$LATHOUND" analyze "${NORULES[@]}" --max irqsoff=1ms -f json -o "$TMP/h.json" "$hostile" \
	2>"$TMP/gate.err"
rc=$?
expect_rc "hostile comm: json report, gate failed" 2
no_raw "hostile comm: stderr ('gate failed:' line) holds no raw control byte" "$TMP/gate.err"
expect_in "hostile comm: the 'gate failed:' line names it escaped" "$(cat "$TMP/gate.err")" \
	'gate failed: irqsoff: worst 2002us (\x1b]0;pwned\x07'
if iconv -f UTF-8 -t UTF-8 "$TMP/h.json" >/dev/null 2>&1; then
	ok "hostile comm: the JSON report is valid UTF-8"
else
	not_ok "hostile comm: the JSON report is not valid UTF-8"
fi
expect_jq "hostile comm: the JSON report parses, the comm escaped" "$TMP/h.json" \
	'.records[0].task.comm == "\\x1b]0;pwned\\x07\\x1b[2J\\xff\\xfeirq\\x00test"'

"$LATHOUND" analyze "${NORULES[@]}" --max irqsoff=1ms -f junit -o "$TMP/h.xml" "$hostile" \
	2>/dev/null
xml_ok "hostile comm" "$TMP/h.xml"

# Every byte value in a comm, a site and a frame (one snapshot per byte, LF and CR aside: they
# end lines): every report stays valid, nothing reaches the terminal raw.
for ((b = 0; b < 256; b++)); do
	[ $b = 10 ] || [ $b = 13 ] || printf -v "c" '\\x%02x' "$b"
	[ $b = 10 ] || [ $b = 13 ] ||
		sed "s/irq_test-82/x${c}x-82/; s/execute_preemptirqtest/f${c}g/; s/=> kthread/=> k${c}t/" \
		"$BASE"
done >"$TMP/bytes.trace"
"$LATHOUND" analyze "${NORULES[@]}" --keep 300 -f json "$TMP/bytes.trace" >"$TMP/bytes.json" \
	2>"$TMP/bytes.err"
no_raw "every byte: stderr holds no raw control byte" "$TMP/bytes.err"
if iconv -f UTF-8 -t UTF-8 "$TMP/bytes.json" >/dev/null 2>&1; then
	ok "every byte: the JSON report is valid UTF-8"
else
	not_ok "every byte: the JSON report is not valid UTF-8"
fi
expect_jq "every byte: JSON parses, 254 records, each comm escaped or kept" "$TMP/bytes.json" \
	'(.records | length) == 254 and
	 ([.records[].task.comm | select(test("^x(\\\\x[0-9a-f]{2}|[ -~]|[^\\u0000-\\u007f])x$"))]
	  | length) == 254'
"$LATHOUND" analyze "${NORULES[@]}" --keep 300 "$TMP/bytes.trace" >"$TMP/bytes.text" 2>&1
no_raw "every byte: the text report holds no raw control byte" "$TMP/bytes.text"
"$LATHOUND" analyze "${NORULES[@]}" --keep 300 -f junit --max irqsoff=1ms "$TMP/bytes.trace" \
	>"$TMP/bytes.xml" 2>/dev/null
xml_ok "every byte" "$TMP/bytes.xml"

# A latency no kernel prints (more than 2^64 ns): refused, the same way in every format.
for lat in 9223372036854775808 18446744073709552; do
	sed "s/latency: 2002 us/latency: $lat us/" "$BASE" >"$TMP/huge.trace"
	run analyze "${NORULES[@]}" --max all=1ms "$TMP/huge.trace"
	expect_rc "latency $lat us: nothing to gate (error)" 1
	expect_in "latency $lat us: refused, saying why" "$err" \
		"latency beyond what a kernel prints (more than 2^64 ns), skipping snapshot"
	expect_not_in "latency $lat us: no text report prints it" "$out" "$lat"
	run analyze "${NORULES[@]}" --max all=1ms -f json "$TMP/huge.trace"
	echo "$out" >"$TMP/huge.json"
	expect_jq "latency $lat us: JSON has no record, one snapshot skipped" "$TMP/huge.json" \
		'.records_total == 0 and .input.skipped == 1 and .verdict == "error"'
	run analyze "${NORULES[@]}" --max all=1ms -f junit "$TMP/huge.trace"
	expect_not_in "latency $lat us: nor does JUnit" "$out" "$lat"
done
# The largest a kernel prints reads as the same number in the text, JSON and gate message.
lat=18446744073709551
sed "s/latency: 2002 us/latency: $lat us/" "$BASE" >"$TMP/max.trace"
run analyze "${NORULES[@]}" --max irqsoff=1ms "$TMP/max.trace"
expect_rc "latency $lat us: read, gate failed" 2
expect_in "latency $lat us: text report" "$out" "$lat us"
run analyze "${NORULES[@]}" --max irqsoff=1ms -f json -o "$TMP/max.json" "$TMP/max.trace"
expect_in "latency $lat us: gate message" "$err" "worst ${lat}us"
expect_jq "latency $lat us: JSON" "$TMP/max.json" ".records[0].latency_us == $lat"

# Standard input, and CR-only line endings, read as the file is.
ref=$("$LATHOUND" analyze "${NORULES[@]}" -f json "$DATA/handmade-multi.trace" |
	jq -c '[.records[] | del(.source)]')
got=$(cat "$DATA/handmade-multi.trace" | "$LATHOUND" analyze "${NORULES[@]}" -f json - |
	jq -c '[.records[] | del(.source)]')
check "standard input (a pipe) reads as the file" [ "$ref" = "$got" ]
tr '\n' '\r' <"$DATA/handmade-multi.trace" >"$TMP/cr.trace"
got=$("$LATHOUND" analyze "${NORULES[@]}" -f json "$TMP/cr.trace" |
	jq -c '[.records[] | del(.source)]')
check "CR-only line endings read as LF" [ "$ref" = "$got" ]
# CR-only text that is no trace: said so, one line, no raw CR on the terminal
printf 'line one\rline two\r\x1b[2Jline three\r' >"$TMP/cr-prose.trace"
run analyze "${NORULES[@]}" "$TMP/cr-prose.trace"
expect_rc "CR-only prose: nothing to analyze (error)" 1
printf '%s' "$err" >"$TMP/cr-prose.err"
no_raw "CR-only prose: the messages hold no raw CR or ESC" "$TMP/cr-prose.err"
expect_in "CR-only prose: the message points at one line" "$err" "cr-prose.trace:3: expected"
expect_not_in "CR-only prose: no message quotes the whole file" "$err" "line one"

# Endless or huge input: memory bounded (a line is read up to 64 KiB, the rest skipped).
if [ -x /usr/bin/time ]; then
	{ cat "$BASE"; head -c 200M /dev/zero | tr '\0' a; echo; cat "$BASE"; } |
		/usr/bin/time -f '%M' -o "$TMP/rss" "$LATHOUND" analyze "${NORULES[@]}" - \
		>"$TMP/long.out" 2>"$TMP/long.err"
	rc=$?
	expect_rc "a 200 MB line between two snapshots" 0
	expect_in "a 200 MB line: both snapshots read" "$(cat "$TMP/long.out")" \
		"Input: 2 snapshots parsed"
	expect_in "a 200 MB line: said so" "$(cat "$TMP/long.err")" "line longer than 64 KiB"
	rss=$(cat "$TMP/rss")
	check "a 200 MB line costs no 200 MB (max RSS ${rss} kB < 50 MB)" [ "$rss" -lt 51200 ]
	timeout -s INT 2 /usr/bin/time -f '%M' -o "$TMP/rss" "$LATHOUND" analyze /dev/zero \
		>/dev/null 2>&1
	rss=$(tail -1 "$TMP/rss")
	check "analyze /dev/zero runs in bounded memory (max RSS ${rss} kB < 50 MB)" \
		[ "$rss" -lt 51200 ]
	# about 110 MB of real snapshots (every published and test trace, 200 times) through a
	# pipe: read as a stream, every snapshot counted, memory that does not grow with it
	cat "$DATA"/published/*.trace "$DATA"/*.trace >"$TMP/mix.trace"
	"$LATHOUND" analyze "${NORULES[@]}" -f json "$TMP/mix.trace" >"$TMP/mix1.json" 2>/dev/null
	n1=$(jq .input.snapshots "$TMP/mix1.json")
	for ((i = 0; i < 200; i++)); do cat "$TMP/mix.trace"; done |
		/usr/bin/time -f '%M' -o "$TMP/rss" "$LATHOUND" analyze "${NORULES[@]}" -f json - \
		>"$TMP/mix.json" 2>/dev/null
	rss=$(tail -1 "$TMP/rss")
	expect_jq "a 110 MB stream of snapshots: all $((n1 * 200)) read" "$TMP/mix.json" \
		".input.snapshots == $((n1 * 200)) and $n1 > 40"
	check "a 110 MB stream of snapshots in bounded memory (max RSS ${rss} kB < 50 MB)" \
		[ "$rss" -lt 51200 ]
else
	skip "memory bounds" "/usr/bin/time is not installed (Debian package time)"
fi

finish
