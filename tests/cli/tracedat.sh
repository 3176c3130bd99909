#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lathound analyze on trace-cmd's trace.dat files, read through libtracecmd: real files that
# 'trace-cmd record' wrote in the test guest (tests/data/README.md), known by their magic
# whatever their name, checked against what 'trace-cmd report' prints of them; a flyrecord
# (no latency data) and damaged copies, which must give a clear error, never a crash.
. "$(dirname "$0")/../lib.sh"

DAT=$DATA/vm-tracecmd-irqsoff.dat
FLY=$DATA/vm-tracecmd-flyrecord.dat
TEXT=$DATA/vm-irqsoff-fakeraid.trace
NORULES=(-r "$TMP/none.rules")
echo '# no rules' >"$TMP/none.rules"

# report_latency FILE: the '# latency: N us' that trace-cmd report prints for FILE.
report_latency() {
	trace-cmd report "$1" 2>/dev/null | sed -n 's/^# latency: \([0-9]*\) us.*/\1/p' | head -1
}

# json_ok DESC: the last run's standard output is one valid JSON document.
json_ok() {
	if jq -e . "$TMP/out" >/dev/null 2>&1; then ok "$1"; else
		not_ok "$1: stdout is not JSON:"; head -c 300 "$TMP/out" | sed 's/^/#   /'; fi
}

# ---- a latency trace.dat (trace-cmd 3.1's default: file version 7, zstd) ----
run analyze "${NORULES[@]}" -f json "$DAT"
expect_rc "a trace.dat of 'trace-cmd record -p irqsoff'" 0
echo "$out" >"$TMP/dat.json"
expect_jq "trace.dat: one irqsoff section, source named after the file" "$TMP/dat.json" \
	".tracers.irqsoff.count == 1 and (.records[0].source | startswith(\"$DAT:\"))"
expect_jq "trace.dat: the fakeraid handler named in the section's irqs" "$TMP/dat.json" \
	'.records[0].irqs | any(.name == "fakeraid" and .irq == 24)'
if command -v trace-cmd >/dev/null; then
	tc=$(report_latency "$DAT")
	expect_jq "trace.dat: latency is trace-cmd report's ($tc us)" "$TMP/dat.json" \
		".tracers.irqsoff.max_us == ${tc:-null}"
	# trace-cmd report prints "cpus=N", then the latency text: the same records from both
	trace-cmd report "$DAT" 2>/dev/null | sed 1d >"$TMP/report.trace"
	run analyze "${NORULES[@]}" -f json "$TMP/report.trace"
	echo "$out" >"$TMP/text.json"
	check "trace.dat: the same record as from trace-cmd report's text" \
		cmp -s <(jq -S '.records | map(del(.source))' "$TMP/dat.json") \
		<(jq -S '.records | map(del(.source))' "$TMP/text.json")
	# file version 6, uncompressed: what trace-cmd 2.x on a board writes
	if trace-cmd convert -i "$DAT" -o "$TMP/v6.dat" --file-version 6 >/dev/null 2>&1; then
		run analyze "${NORULES[@]}" -f json "$TMP/v6.dat"
		expect_rc "trace.dat version 6 (trace-cmd convert --file-version 6)" 0
		echo "$out" >"$TMP/v6.json"
		expect_jq "trace.dat version 6: latency is trace-cmd report's ($tc us)" \
			"$TMP/v6.json" ".tracers.irqsoff.max_us == ${tc:-null}"
	else
		not_ok "trace-cmd convert --file-version 6 of $DAT failed"
	fi
else
	skip "trace.dat against trace-cmd report" "no trace-cmd here (apt-get install trace-cmd)"
fi
run analyze -r "$TOP/rules" --add-rules "$LHX_RULES" "$DAT"
expect_rc "trace.dat with the shipped rules: fakeraid's rule fails the gate" 2
expect_in "trace.dat: rule lhx-fakeraid-irq fired" "$out" "lhx-fakeraid-irq"

# ---- the magic decides, not the name; standard input too ----
cp "$DAT" "$TMP/board42.trace"
run analyze "${NORULES[@]}" -f json "$TMP/board42.trace"
expect_rc "a trace.dat named *.trace is read as a trace.dat" 0
expect_in "a trace.dat named *.trace: its section" "$out" '"tracer": "irqsoff"'
cp "$TEXT" "$TMP/text.dat"
run analyze "${NORULES[@]}" -f json "$TMP/text.dat"
expect_rc "trace text named *.dat is read as text" 0
expect_in "trace text named *.dat: its section" "$out" '"tracer": "irqsoff"'
"${LATHOUND_RUN[@]}" analyze "${NORULES[@]}" -f json <"$DAT" >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_rc "a trace.dat on standard input (a file)" 0
json_ok "a trace.dat on standard input: JSON report"
cat "$DAT" | "${LATHOUND_RUN[@]}" analyze "${NORULES[@]}" -f json >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_rc "a trace.dat on standard input (a pipe)" 0
expect_in "a trace.dat through a pipe: its section" "$(cat "$TMP/out")" '"tracer": "irqsoff"'

# ---- a flyrecord of events: no latency data, an error ----
run analyze "${NORULES[@]}" "$FLY"
expect_rc "a flyrecord trace.dat (trace-cmd record -e irq) is an error" 1
expect_in "flyrecord: says it holds no latency data" "$err" \
	"cannot read trace.dat '$FLY': no latency data in it, only a flyrecord of events"
expect_in "flyrecord: says how to record latency data" "$err" "trace-cmd record -p irqsoff"
expect_in "flyrecord: the text report's verdict is an error" "$out" \
	"Verdict: ERROR: cannot read trace.dat '$FLY': no latency data in it"
run analyze "${NORULES[@]}" -f json "$TEXT" "$FLY"
expect_rc "a flyrecord beside a latency trace: still an error" 1
echo "$out" >"$TMP/mixed.json"
expect_jq "flyrecord beside a latency trace: the report covers the trace, verdict error" \
	"$TMP/mixed.json" '.verdict == "error" and .tracers.irqsoff.count == 1 and
	(.error | contains("1 of 2 inputs could not be read"))'

# ---- damaged files: a clear error, no crash, the report still whole ----
size=$(stat -c %s "$DAT")
cut_err="cannot read trace.dat '$TMP/cut.dat': libtracecmd"
for n in 10 16 100 4096 $((size / 2)) 21500; do
	head -c "$n" "$DAT" >"$TMP/cut.dat"
	run analyze "${NORULES[@]}" -f json "$TMP/cut.dat"
	expect_rc "trace.dat cut at $n of $size bytes" 1
	expect_in "trace.dat cut at $n bytes: a clear error" "$err" \
		"$cut_err cannot read it (truncated, corrupt"
	json_ok "trace.dat cut at $n bytes: JSON report still whole"
done
# libtracecmd 1.3 dies of a NULL pointer on a version 6 flyrecord cut inside its CPU data,
# after printing "File possibly truncated" on standard output: neither reaches lathound's.
head -c $(($(stat -c %s "$FLY") - 100)) "$FLY" >"$TMP/cut.dat"
run analyze "${NORULES[@]}" -f json "$TMP/cut.dat"
expect_rc "flyrecord cut inside its CPU data" 1
expect_in "flyrecord cut inside its CPU data: a clear error" "$err" "$cut_err"
json_ok "flyrecord cut inside its CPU data: JSON report still whole"
expect_not_in "flyrecord cut inside its CPU data: nothing of libtracecmd's on stdout" "$out" \
	"File possibly truncated"
# Bytes overwritten through the file (headers, event formats, the compressed latency data)
bad=0
for ((off = 10; off < size; off += size / 16)); do
	cp "$DAT" "$TMP/bad.dat"
	printf '\377\377\377\377\377\377\377\377' |
		dd of="$TMP/bad.dat" bs=1 seek=$off conv=notrunc status=none
	run analyze "${NORULES[@]}" -f json "$TMP/bad.dat"
	if [ "$rc" -gt 2 ] || ! jq -e . "$TMP/out" >/dev/null 2>&1; then
		bad=$((bad + 1))
		echo "#   overwritten at $off: exit $rc; $(head -c 200 "$TMP/err")"
	fi
done
check "trace.dat overwritten at 16 places: exit 0, 1 or 2 and a whole report each time" \
	test "$bad" = 0
# Single bit flips in the zstd chunks of the latency data (bytes 21400 on): the chunks carry
# no checksum, and a flip there can cut or garble the text libtracecmd returns so that the
# gate no longer sees the fakeraid section. That text is the kernel's, which never elides or
# cuts a body, nor prints a tracer lathound does not know, a header without '#N/M', an entry
# that is no function call or "name: args" event, or an irq event without its fields: such a
# flip is an error, never a pass. These flips gave exit 0 before those checks (found by a
# search of 6,000 random flips, of every bit from byte 21400 and of every 7th byte). A flip
# that only renames a name inside an intact line ("irq_hancler_entry:") cannot be told from
# the kernel's text without a checksum: every 7th byte's flip is run for crashes, and those
# passes counted.
# flip_bit OFF BIT: a copy of $DAT with that bit flipped, analyzed; sets rc.
flip_bit() {
	local byte
	cp "$DAT" "$TMP/flip.dat"
	byte=$(od -An -tu1 -j "$1" -N1 "$DAT" | tr -d ' ')
	printf "$(printf '\\%03o' $((byte ^ (1 << $2))))" |
		dd of="$TMP/flip.dat" bs=1 seek="$1" conv=notrunc status=none
	"${LATHOUND_RUN[@]}" analyze -q -r "$TOP/rules" --add-rules "$LHX_RULES" "$TMP/flip.dat" \
		>/dev/null 2>"$TMP/err"
	rc=$?
}
passed=0 nflips=0
for f in 21413:6 21521:3 21539:4 21554:2 21581:7 21589:6 21597:7 21599:1 21615:2 21615:3 \
	 21651:1 21736:0 21850:6 21915:2; do
	flip_bit "${f%:*}" "${f#*:}"
	nflips=$((nflips + 1))
	[ "$rc" = 1 ] || { passed=$((passed + 1)); echo "#   flip $f: exit $rc"; }
done
check "trace.dat, $nflips bit flips that cut or garble its body: an error each time (exit 1)" \
	test "$passed" = 0
passed=0 crashed=0 nflips=0
for ((off = 21400; off < size; off += 7)); do
	flip_bit "$off" $((off % 8))
	nflips=$((nflips + 1))
	[ "$rc" = 0 ] && { passed=$((passed + 1)); echo "#   flip $off: exit 0"; }
	[ "$rc" -gt 2 ] && { crashed=$((crashed + 1)); echo "#   flip $off: exit $rc"; }
done
check "trace.dat, $nflips bit flips of every 7th byte: exit 0, 1 or 2 each time" \
	test "$crashed" = 0
# The passes are known (two renames inside intact lines): more would be a new way to pass.
check "trace.dat, $nflips bit flips of every 7th byte: at most 2 pass ($passed did)" \
	test "$passed" -le 2
# ---- memory bounded whatever the file says ----
# A trace.dat through a pipe is held whole for libtracecmd, up to 64 MiB: 3 GB of it is an
# error said at once, not an "out of memory".
if [ -x /usr/bin/time ]; then
	{ printf '\027\010Dtracing6\0'; head -c 3G /dev/zero; } |
		/usr/bin/time -f '%M' -o "$TMP/rss" "${LATHOUND_RUN[@]}" analyze - \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	expect_rc "3 GB of trace.dat through a pipe: an error" 1
	expect_in "3 GB of trace.dat through a pipe: said so" "$(cat "$TMP/err")" \
		"cannot read trace.dat '<stdin>': more than 64 MiB through a pipe"
	rss=$(tail -1 "$TMP/rss")
	check "3 GB of trace.dat through a pipe: max RSS ${rss} kB < 100 MB" [ "$rss" -lt 102400 ]
else
	skip "3 GB of trace.dat through a pipe" "no /usr/bin/time (apt-get install time)"
fi
# Latency data of 64 MiB of newlines in zstd chunks (a file of 0.2 MB): read from the child a
# piece at a time into the parser, as a text input is, not held whole.
if command -v trace-cmd >/dev/null && [ -x /usr/bin/time ] &&
   trace-cmd convert -i "$DAT" -o "$TMP/v6.dat" --file-version 6 >/dev/null 2>&1; then
	at=$(grep -abo 'latency  ' "$TMP/v6.dat" | head -1 | cut -d: -f1)
	{ head -c $((at + 10)) "$TMP/v6.dat"; yes '' | head -c 64M; } >"$TMP/nl6.dat"
	trace-cmd convert -i "$TMP/nl6.dat" -o "$TMP/nl.dat" --file-version 7 \
		--compression zstd >/dev/null 2>&1
	rm -f "$TMP/nl6.dat"
	/usr/bin/time -f '%M' -o "$TMP/rss" "${LATHOUND_RUN[@]}" analyze "$TMP/nl.dat" \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	expect_rc "trace.dat of $(($(stat -c %s "$TMP/nl.dat") / 1024)) KiB holding 64 MiB of newlines: no snapshot, an error" 1
	rss=$(tail -1 "$TMP/rss")
	check "64 MiB of latency text: max RSS ${rss} kB < 40 MB" [ "$rss" -lt 40960 ]
else
	skip "64 MiB of latency text" "no trace-cmd or /usr/bin/time here"
fi

printf '\027\010Dtracing' >"$TMP/magic.dat"
run analyze "${NORULES[@]}" "$TMP/magic.dat"
expect_rc "nothing but trace-cmd's magic" 1
expect_in "nothing but the magic: a clear error" "$err" "cannot read trace.dat"

# As root, libtracecmd runs as nobody. Where root cannot become nobody (a user namespace that
# maps only root, as 'unshare -r' and rootless containers make, or no CAP_SETUID), the read
# is an error that says so and what to do; as an ordinary user it needs no privilege at all.
if [ "$(id -u)" = 0 ] && unshare -r true 2>/dev/null; then
	unshare -r "${LATHOUND_RUN[@]}" analyze "${NORULES[@]}" "$DAT" >"$TMP/out" 2>"$TMP/err"
	rc=$?; err=$(cat "$TMP/err")
	expect_rc "root that cannot become nobody (unshare -r)" 1
	expect_in "... says why and what to do" "$err" \
		"cannot run libtracecmd as user nobody (uid 65534), as lathound does when run as root: a user namespace that does not map that uid, or no CAP_SETUID/CAP_SETGID (a container); analyze needs no privilege: run it as an ordinary user"
	cp "$DAT" "$TMP/nobody.dat"
	chmod 755 "$TMP"
	setpriv --reuid=65534 --regid=65534 --clear-groups "${LATHOUND_RUN[@]}" analyze \
		"${NORULES[@]}" --max irqsoff=1ms "$TMP/nobody.dat" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	expect_rc "... as an ordinary user the same file is read and judged" 2
else
	skip "root that cannot become nobody" "needs root and user namespaces (unshare -r)"
fi

finish
