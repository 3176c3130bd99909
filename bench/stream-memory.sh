#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Memory of `lathound analyze -` on what a pipe can bring (issue 8): a 2 GB stream of real
# snapshots (tests/data/published and tests/data, repeated) and a 1 GiB line between two
# snapshots. Prints the maximum RSS of each run (GNU time), its wall-clock time and what the
# report counted. Target: each under 100 MB.
# Usage: bench/stream-memory.sh [STREAM_MB] [LINE_MB]   (defaults 2000 and 1024)
set -e
cd "$(dirname "$0")/.."
STREAM_MB=${1:-2000}
LINE_MB=${2:-1024}
OUT=bench/out
mkdir -p "$OUT"
LATHOUND=${LATHOUND:-./lathound}
[ "$LATHOUND" != ./lathound ] || [ -x ./lathound ] || make -s lathound
if [ ! -x /usr/bin/time ]; then
	echo "bench/stream-memory.sh: needs /usr/bin/time (Debian package time)"
	exit 1
fi
echo '# no rules' >"$OUT/none.rules"
mix=$OUT/stream-mix.trace
cat tests/data/published/*.trace tests/data/*.trace >"$mix"
reps=$((STREAM_MB * 1000000 / $(stat -c %s "$mix") + 1))

# measure NAME: runs analyze on standard input (the caller's pipe); prints its figures.
measure() {
	local s e
	s=$(date +%s.%N)
	/usr/bin/time -f '%M' -o "$OUT/rss" "$LATHOUND" analyze -q -r "$OUT/none.rules" \
		-f json - >"$OUT/stream.json" || [ $? -eq 1 ]
	e=$(date +%s.%N)
	printf '%-28s: max RSS %6d kB  %6.1f s  %s snapshots, %s cut lines\n' "$1" \
		"$(tail -1 "$OUT/rss")" "$(echo "$e - $s" | bc -l)" \
		"$(jq .input.snapshots "$OUT/stream.json")" "$(jq .input.cut_lines "$OUT/stream.json")"
}

mb=$((reps * $(stat -c %s "$mix") / 1000000))
for ((i = 0; i < reps; i++)); do cat "$mix"; done | measure "$mb MB stream of snapshots"
{ cat tests/data/pidt-irqsoff-nofunc.trace; head -c "${LINE_MB}M" /dev/zero | tr '\0' a; echo
  cat tests/data/pidt-irqsoff-nofunc.trace; } | measure "a $LINE_MB MiB line"
echo "target: each run under 100 MB (102400 kB)"
