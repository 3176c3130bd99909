#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lathound analyze on latency traces as people published them (tests/data/published: mail
# archives, blogs, documentation, a book): every fact of expected.tsv, read by eye from each
# snapshot, is asserted on the JSON report (tracer, latency, CPU, task, sites with and without
# their offset, kernel, #P, woken task and waker, entries declared and whether the body is
# complete, elided or cut). A file reads right when every one of its snapshots does and no
# other record came out of it; the last line gives the score.
# Elided and cut are not the same: an elision ('...', '[...]', '<snip>', prose between
# entries) is the author's choice and reads in full (exit 0); a body with fewer entries than
# its header declares and no elision marker was cut (a mail that pasted the first lines): an
# input not read in full, exit 1 unless --allow-unreadable, which then reads its facts.
. "$(dirname "$0")/../lib.sh"

PUB=$DATA/published
echo '# no rules' >"$TMP/none.rules"

# The fields of one record, in expected.tsv's terms, as a tab-separated line.
FIELDS='
def s: if . == null then "null" else tostring end;
def who: if . == null or .comm == null then "null" else "\(.comm):\(.pid)" end;
def raw(n; o): if o == null then "null" else n + o end;
[.records[]] | sort_by(.source | split(":") | last | tonumber) | .[]
| [.tracer, .latency_us, .cpu, .task.comm, .task.pid, .started_at, .ended_at,
   raw(.started_at; .started_at_offset), raw(.ended_at; .ended_at_offset), .kernel, .nr_cpus,
   (.woken | who), (.waker | who), .entries, .body] | map(s) | @tsv'
NAMES=(tracer latency_us cpu comm pid started_at ended_at started_at_raw ended_at_raw kernel
       nr_cpus woken waker entries body)

files=0 files_right=0 snaps=0 snaps_right=0
while IFS= read -r file; do
	files=$((files + 1))
	grep -P "^\Q$file\E\t" "$PUB/expected.tsv" | cut -f 3-17 >"$TMP/want"
	ncut=$(cut -f 15 "$TMP/want" | grep -c '^cut$')
	allow=()
	if [ "$ncut" != 0 ]; then
		run analyze -q -r "$TMP/none.rules" -f json "$PUB/$file"
		if [ "$rc" = 1 ] && grep -qF "$ncut of $(wc -l <"$TMP/want") snapshots cut" "$TMP/err"
		then
			ok "$file: $ncut cut body (no elision marker): not read in full (exit 1)"
		else
			not_ok "$file: $ncut cut body: exit $rc, expected 1 naming the cut"
			sed 's/^/#   /' "$TMP/err" | head -5
		fi
		allow=(--allow-unreadable)
	fi
	run analyze -q -r "$TMP/none.rules" -f json "${allow[@]}" "$PUB/$file"
	if [ "$rc" != 0 ]; then
		not_ok "$file: exit $rc ${allow[*]}"; sed 's/^/#   /' "$TMP/err" | head -5
	fi
	jq -r "$FIELDS" "$TMP/out" >"$TMP/got" 2>&1 || echo "jq failed" >"$TMP/got"
	file_ok=1
	nwant=$(wc -l <"$TMP/want")
	ngot=$(wc -l <"$TMP/got")
	if [ "$nwant" != "$ngot" ]; then
		not_ok "$file: $ngot records, $nwant snapshots expected"
		file_ok=0
	fi
	# the report's counters agree with its records: every snapshot read, none skipped, and
	# as many incomplete as the elided or cut bodies expected
	nincomplete=$(cut -f 15 "$TMP/want" | grep -cv '^complete$')
	counts=$(jq -r '.input | "\(.snapshots) \(.skipped) \(.incomplete)"' "$TMP/out" 2>&1)
	if [ "$counts" != "$nwant 0 $nincomplete" ]; then
		not_ok "$file: input counters (snapshots skipped incomplete) '$counts'," \
		       "expected '$nwant 0 $nincomplete'"
		file_ok=0
	fi
	i=0
	while IFS= read -r want; do
		snaps=$((snaps + 1))
		got=$(sed -n "$((i + 1))p" "$TMP/got")
		IFS=$'\t' read -r -a w <<<"$want"
		IFS=$'\t' read -r -a g <<<"$got"
		bad=
		for k in "${!NAMES[@]}"; do
			# the TSV's "entries" is the first number of #N/M, null where none is printed
			[ "${w[$k]}" = "${g[$k]}" ] || bad="$bad ${NAMES[$k]}='${g[$k]}' (expected '${w[$k]}')"
		done
		if [ -z "$bad" ]; then
			ok "$file #$i: ${w[0]} ${w[1]} us, ${w[3]}-${w[4]}, body ${w[14]}"
			snaps_right=$((snaps_right + 1))
		else
			not_ok "$file #$i:$bad"
			file_ok=0
		fi
		i=$((i + 1))
	done <"$TMP/want"
	files_right=$((files_right + file_ok))
done < <(cut -f 1 "$PUB/expected.tsv" | tail -n +2 | uniq)

if [ "$files" = "$(find "$PUB" -name '*.trace' | wc -l)" ]; then
	ok "expected.tsv covers every published trace ($files files)"
else
	not_ok "expected.tsv covers $files files, tests/data/published has $(find "$PUB" -name '*.trace' | wc -l)"
fi
echo "# published corpus: $files_right of $files files, $snaps_right of $snaps snapshots read right"
finish
