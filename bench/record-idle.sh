#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What a long 'lathound record' costs on an idle machine: runs 'lathound record --irq-only'
# (the IRQ event instance, the checkpoints and the wait loop; no latency tracer is needed)
# for DURATION seconds and samples its CPU time (/proc/PID/schedstat, in ns; utime+stime of
# /proc/PID/stat where schedstat is missing) and RSS (VmRSS) after the first minute and at
# the end.
# Targets: <= 0.5 % of one CPU; RSS flat (the same at 1 min and at the end).
# Usage (root): bench/record-idle.sh [DURATION_S]   (default 600)
set -e
cd "$(dirname "$0")/.."
D=${1:-600}
if [ "$(id -u)" != 0 ]; then
	echo "record-idle: needs root (tracefs)" >&2
	exit 1
fi
[ -x ./lathound ] || make -s lathound
OUT=$(mktemp -d /tmp/lathound-bench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
HZ=$(getconf CLK_TCK)
# The first sample after a minute, or halfway through a shorter run.
T1=60
[ "$D" -lt 120 ] && T1=$((D / 2))

# CPU time in ns.
cpu_ns() {
	if [ -r "/proc/$1/schedstat" ]; then awk '{ print $1 }' "/proc/$1/schedstat"
	else awk -v hz="$HZ" '{ printf "%.0f\n", ($14 + $15) * 1e9 / hz }' "/proc/$1/stat"; fi
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
now() { date +%s.%N; }

./lathound record --irq-only -q -d "${D}s" -o "$OUT/run" >/dev/null &
pid=$!
start=$(now)
sleep "$T1"
c1=$(cpu_ns $pid); r1=$(rss_kb $pid); t1=$(now)
sleep $((D - T1 - 1))
c2=$(cpu_ns $pid); r2=$(rss_kb $pid); t2=$(now)
wait $pid
events=$(jq .irq_stats.events "$OUT/run/report.json")
lost=$(jq .irq_stats.lost "$OUT/run/report.json")

pct() { echo "scale=4; 100 * $1 / 1000000000 / $2" | bc -l; }
echo "lathound record --irq-only, ${D}s on $(nproc) CPUs, kernel $(uname -r)"
printf 'CPU, first %3ss          : %6.3f %% of one CPU\n' "$T1" "$(pct "$c1" "$(echo "$t1 - $start" | bc -l)")"
printf 'CPU, %3ss to the end     : %6.3f %% of one CPU   (target <= 0.5 %%)\n' "$T1" \
	"$(pct $((c2 - c1)) "$(echo "$t2 - $t1" | bc -l)")"
printf 'CPU, whole run           : %6.3f %% of one CPU\n' "$(pct "$c2" "$(echo "$t2 - $start" | bc -l)")"
printf 'RSS at %3ss / at the end : %s kB / %s kB  (target: flat)\n' "$T1" "$r1" "$r2"
printf 'IRQ handler runs seen    : %s (%s lost)\n' "$events" "$lost"
