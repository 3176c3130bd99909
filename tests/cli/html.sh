#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The HTML report as a browser shows it: rendered by a real headless Chromium (Debian's
# chromium, tests/deps.sh), the plots are there (histograms per tracer and CPU with the
# budget line, the progression of maxima), the page loads nothing from outside and logs no
# console error (its Content-Security-Policy turns any load or script into one), and trace
# text meant to break out of the markup stays text.
. "$(dirname "$0")/../lib.sh"

MULTI=$DATA/handmade-multi.trace
FUNC=$DATA/vm-irqsoff-func.trace
echo '# no rules' >"$TMP/none.rules"

# Without a browser, what the writer produced is still checked as text.
run analyze -f html --max irqsoff=1ms "$MULTI" "$FUNC"
expect_rc "analyze -f html: the gate fails" 2
echo "$out" >"$TMP/a.html"
expect_in "a page" "$out" "<!DOCTYPE html>"
expect_in "the verdict" "$out" '<span class="verdict fail">FAIL</span>'
expect_in "the violation" "$out" "irqsoff: worst 2093us (lhx/fakeraid-75 on CPU0) exceeds --max irqsoff=1ms by 1093us"
expect_in "loads nothing: a CSP of default-src 'none'" "$out" "content=\"default-src 'none'; style-src 'unsafe-inline'\""
expect_not_in "no script" "$out" "<script"
expect_in "rule hits listed" "$out" '<tr class="rule"><td><code>raid-irq-held</code>'

# A saved report whose trace text tries to break out of the markup, rendered again.
"$LATHOUND" analyze -r "$TMP/none.rules" -f json "$FUNC" >"$TMP/a.json" 2>/dev/null
jq '.records[0].task.comm = "</td><script>alert(1)</script>" |
    .records[0].stack[0] = "x\" onmouseover=\"alert(2)" | .records[0].stacks[0][0] = .records[0].stack[0] |
    .records[0].started_at = "\u001b[31m<b>" ' "$TMP/a.json" >"$TMP/evil.json"
run report -f html -o "$TMP/evil.html" "$TMP/evil.json"
expect_rc "report -f html -o of a hostile report" 0
evil=$(cat "$TMP/evil.html")
expect_not_in "hostile: no script element" "$evil" "<script"
expect_in "hostile: the comm shown as text" "$evil" "&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
expect_in "hostile: the quote cannot end an attribute" "$evil" "x&quot; onmouseover=&quot;alert(2)"
check "hostile: no raw control byte" test "$(grep -c $'\033' "$TMP/evil.html")" = 0

# The callers of the kernel's irqs-off histogram (record --hist), longest first as the text
# report lists them; a caller's name (from /proc/kallsyms or a saved report) and the note on
# names stay text.
with_callers "$TMP/a.json" "$TMP/callers.json" 10 5000 \
	'</code><script>alert(3)</script>"'"'"' onclick="alert(4)'
jq '.histograms[0].callers_note = "<b onclick=\"alert(5)\">no kallsyms</b>"' \
	"$TMP/callers.json" >"$TMP/callers-note.json"
run report -f html -o "$TMP/callers.html" "$TMP/callers-note.json"
expect_rc "report -f html of a report with the kernel's callers" 0
callers=$(cat "$TMP/callers.html")
CALLER1='<tr class="caller"><td class="n">5000us</td><td class="n">10</td><td><code>lhx_irqs_hog+0x1a/0x40 [lhx]</code></td></tr>'
expect_in "callers: the longest first, with its max and sections" "$callers" "$CALLER1"
n=$(grep -o '<tr class="caller">' <<<"$callers" | wc -l)
check "callers: both listed ($n of 2)" test "$n" = 2
expect_not_in "hostile caller: no script element" "$callers" "<script"
expect_in "hostile caller: the name is text, its quotes end no attribute" "$callers" \
	'<code>&lt;/code&gt;&lt;script&gt;alert(3)&lt;/script&gt;&quot;&#39; onclick=&quot;alert(4)</code>'
expect_in "hostile note: text" "$callers" \
	'(&lt;b onclick=&quot;alert(5)&quot;&gt;no kallsyms&lt;/b&gt;: offsets from _stext)'

# A record judged on part of its section says so beside it: here the kernel's ring buffer
# lost the first entries (#141/4093, the body from 15 us on); a whole one says nothing.
LOST_BODY='<tr><th>body</th><td>cut, 141 of 141 entries shown, from 15 us into the section (the ring buffer lost the first ones)</td></tr>'
sed -e '22,47d' -e 's|#167/167|#141/4093|' "$FUNC" >"$TMP/lost.trace"
run analyze --allow-unreadable -r "$TMP/none.rules" -f html -o "$TMP/lost.html" "$TMP/lost.trace"
expect_rc "analyze -f html of a body that lost its start, --allow-unreadable" 0
expect_in "lost start: the record's body row says where it begins" "$(cat "$TMP/lost.html")" \
	"$LOST_BODY"
expect_not_in "a whole body: no body row" "$(cat "$TMP/a.html")" "<tr><th>body</th>"

if ! command -v chromium >/dev/null; then
	skip "rendered in Chromium" "chromium is not installed (tests/deps.sh installs it as root)"
	finish
fi

# render NAME: loads $TMP/NAME.html in headless Chromium; the DOM it built in $TMP/NAME.dom,
# its log (console messages included) in $TMP/NAME.log, a screenshot in $TMP/NAME.png.
render() {
	local flags=(--headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars
		--user-data-dir="$TMP/chromium" --enable-logging=stderr --log-level=0)
	timeout 120 chromium "${flags[@]}" --dump-dom "file://$TMP/$1.html" \
		>"$TMP/$1.dom" 2>"$TMP/$1.log"
	timeout 120 chromium "${flags[@]}" --window-size=1150,3000 --screenshot="$TMP/$1.png" \
		"file://$TMP/$1.html" >/dev/null 2>>"$TMP/$1.log"
}

render a
dom=$(cat "$TMP/a.dom")
check "Chromium built the page" grep -q '<h1>lathound 0.1.0 analyze report</h1>' "$TMP/a.dom"
n=$(grep -o '<svg class="chart hist tracer"' "$TMP/a.dom" | wc -l)
check "one histogram per tracer ($n of 3)" test "$n" = 3
n=$(grep -o '<svg class="chart hist cpu"' "$TMP/a.dom" | wc -l)
check "irqsoff ran on two CPUs: a histogram for each ($n)" test "$n" = 2
n=$(grep -o '<svg class="chart progression"' "$TMP/a.dom" | wc -l)
check "a progression of maxima per tracer ($n of 3)" test "$n" = 3
n=$(grep -o '<path class="series s[0-9]*"' "$TMP/a.dom" | wc -l)
check "the histograms have outlines ($n)" test "$n" -ge 6
n=$(grep -o '<line class="budget"' "$TMP/a.dom" | wc -l)
check "the --max irqsoff budget line: on the irqsoff histograms and progression ($n of 4)" \
	test "$n" = 4
expect_in "a CPU's legend" "$dom" ">CPU1</text>"
n=$(grep -o '<tr class="offender">' "$TMP/a.dom" | wc -l)
check "top offenders listed ($n of 6)" test "$n" = 6
expect_in "offenders have their stacks" "$dom" "<pre>irq_exit_rcu"
check "no console message (errors, CSP violations)" \
	test "$(grep -c 'CONSOLE' "$TMP/a.log")" = 0
grep 'CONSOLE' "$TMP/a.log" | head -5 | sed 's/^/#   /'
check "a screenshot was rendered" test -s "$TMP/a.png"

render evil
check "hostile report: Chromium built the page" grep -q '<h1>' "$TMP/evil.dom"
check "hostile report: no script element in the DOM" test "$(grep -c '<script' "$TMP/evil.dom")" = 0
expect_in "hostile report: the comm is text in the DOM" "$(cat "$TMP/evil.dom")" \
	"&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
check "hostile report: no attribute injected" \
	test "$(grep -cE '<[a-z][^>]* onmouseover=' "$TMP/evil.dom")" = 0
expect_in "hostile report: the quote is text in the DOM" "$(cat "$TMP/evil.dom")" \
	'x" onmouseover="alert(2)'

check "hostile report: no console message" test "$(grep -c 'CONSOLE' "$TMP/evil.log")" = 0

render callers
dom=$(cat "$TMP/callers.dom")
first=$(grep -A1 '<table class="callers">' "$TMP/callers.dom" | sed -n 2p)
check "callers: the table in the DOM, the longest first" test "$first" = "$CALLER1"
n=$(grep -o '<tr class="caller">' "$TMP/callers.dom" | wc -l)
check "callers: both rows in the DOM ($n of 2)" test "$n" = 2
check "hostile caller: no script element in the DOM" \
	test "$(grep -c '<script' "$TMP/callers.dom")" = 0
check "hostile caller: no attribute injected" \
	test "$(grep -cE '<[a-z][^>]* onclick=' "$TMP/callers.dom")" = 0
expect_in "hostile caller: the name is text in the DOM" "$dom" \
	"<code>&lt;/code&gt;&lt;script&gt;alert(3)&lt;/script&gt;\"' onclick=\"alert(4)</code>"
expect_in "hostile note: text in the DOM" "$dom" \
	'(&lt;b onclick="alert(5)"&gt;no kallsyms&lt;/b&gt;: offsets from _stext)'
check "callers: no console message" test "$(grep -c 'CONSOLE' "$TMP/callers.log")" = 0

render lost
expect_in "lost start: the body row in the DOM" "$(cat "$TMP/lost.dom")" "$LOST_BODY"

finish
