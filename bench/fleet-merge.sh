#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Memory and time of 'lathound merge' on a generated fleet (bench/fleet-gen.sh: real
# 'analyze' reports of tests/data with the board, kernel and values varied): 10,000 reports of
# HOSTS boards, against the first 1,000 of them measured in the same run as the baseline, and
# 'cat' of the same files as the floor of reading them. Prints max RSS (GNU time), wall-clock
# time and the ratios; fails (exit 1) when 10,000 reports take more than 10 % + 1 MB over the
# RSS of 1,000: memory is bounded by hosts and signatures, not by reports.
# Usage: bench/fleet-merge.sh [N] [HOSTS]   (defaults 10000 and 100)
set -e
cd "$(dirname "$0")/.."
N=${1:-10000}
HOSTS=${2:-100}
OUT=bench/out/fleet
LATHOUND=${LATHOUND:-./lathound}
[ "$LATHOUND" != ./lathound ] || [ -x ./lathound ] || make -s lathound
if [ ! -x /usr/bin/time ]; then
	echo "bench/fleet-merge.sh: needs /usr/bin/time (Debian package time)"
	exit 1
fi
rm -rf "$OUT"
LATHOUND=$LATHOUND bench/fleet-gen.sh "$N" "$OUT" "$HOSTS"
ls "$OUT"/r*.json >"$OUT/all.list"
head -n $((N / 10)) "$OUT/all.list" >"$OUT/tenth.list"
echo "$(du -sh "$OUT" | cut -f1) of reports"

# measure LIST: prints "RSS_KB SECONDS" of merging the reports LIST names.
measure() {
	local s e
	s=$(date +%s.%N)
	/usr/bin/time -f %M -o "$OUT/rss" "$LATHOUND" merge -q --fail-on none --from "$1" >"$OUT/merge.txt"
	e=$(date +%s.%N)
	echo "$(tail -1 "$OUT/rss") $(echo "$e - $s" | bc -l)"
}
cat_time() {
	local s e
	s=$(date +%s.%N)
	xargs cat <"$1" >/dev/null
	e=$(date +%s.%N)
	echo "$e - $s" | bc -l
}
cat_time "$OUT/all.list" >/dev/null	# the page cache warm for both
read -r kb1 s1 < <(measure "$OUT/tenth.list")
read -r kbn sn < <(measure "$OUT/all.list")
head -1 "$OUT/merge.txt"
cn=$(cat_time "$OUT/all.list")
printf '%6d reports: max RSS %6d kB  %6.2f s\n' $((N / 10)) "$kb1" "$s1"
printf '%6d reports: max RSS %6d kB  %6.2f s  (cat of the files: %.2f s)\n' "$N" "$kbn" "$sn" "$cn"
printf 'ratios %d vs %d reports: RSS %.3fx, time %.2fx (per report %.2fx)\n' "$N" $((N / 10)) \
	"$(echo "$kbn / $kb1" | bc -l)" "$(echo "$sn / $s1" | bc -l)" \
	"$(echo "$sn / $s1 / 10" | bc -l)"
if [ "$kbn" -gt $((kb1 * 11 / 10 + 1024)) ]; then
	echo "FAIL: $N reports took more than 10 % + 1 MB over the RSS of $((N / 10))"
	exit 1
fi
echo "target met: RSS of $N reports within 10 % + 1 MB of $((N / 10))"
