#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The IRQ event rate lathound's own instance sustains without loss: runs
# 'lathound record --irq-only' while JOBS parallel direct-I/O writers (4 KiB each, so about
# one disk interrupt per write) hammer the disk, then reports handler runs per second, the
# events the kernel lost, and how many of the interrupts /proc/interrupts counted on the
# same lines were seen.
# Usage (root): bench/irq-rate.sh [DURATION_S] [JOBS]   (default 30 s, 4 writers)
set -e
cd "$(dirname "$0")/.."
D=${1:-30}
JOBS=${2:-4}
if [ "$(id -u)" != 0 ]; then
	echo "irq-rate: needs root (tracefs)" >&2
	exit 1
fi
[ -x ./lathound ] || make -s lathound
OUT=$(mktemp -d /tmp/lathound-bench.XXXXXX)
# Direct I/O needs a real disk (not tmpfs): the load files go under bench/out (not committed).
mkdir -p "${BENCH_DIR:-$PWD/bench/out}"
WORK=$(mktemp -d "${BENCH_DIR:-$PWD/bench/out}/io.XXXXXX")
pids=()
# The writers are waited for before their files go: a dd still running would write again.
cleanup() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null && wait "${pids[@]}" 2>/dev/null
	[ -n "${lh:-}" ] && kill "$lh" 2>/dev/null && wait "$lh" 2>/dev/null
	rm -rf "$OUT" "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP	# so that the EXIT trap cleans up after a timeout or ^C too

# Sum of the per-CPU counts of every numbered IRQ line.
irq_total() { awk '$1 ~ /^[0-9]+:$/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s }' /proc/interrupts; }

./lathound record --irq-only -q -d "${D}s" -o "$OUT/run" >/dev/null &
lh=$!
t0=$(date +%s.%N)
sleep 1
before=$(irq_total)
for ((j = 0; j < JOBS; j++)); do
	( trap 'exit 0' TERM
	  while :; do dd if=/dev/zero of="$WORK/f$j" bs=4k count=2000 oflag=direct 2>/dev/null ||
		exit 1; done ) &
	pids+=($!)
done
sleep $((D - 3))
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null || true
pids=()
after=$(irq_total)
cpu=$(awk '{ print $1 }' "/proc/$lh/schedstat")
t1=$(date +%s.%N)
wait $lh
R=$OUT/run/report.json
events=$(jq .irq_stats.events "$R")
secs=$(jq .run.duration_s "$R")
echo "lathound record --irq-only, ${D}s, $JOBS direct-I/O writers, $(nproc) CPUs, kernel $(uname -r)"
printf 'handler runs accounted : %s (%.0f per second over the run)\n' "$events" \
	"$(echo "$events / $secs" | bc -l)"
printf 'events lost (kernel)   : %s\n' "$(jq .irq_stats.lost "$R")"
printf 'lathound CPU under load: %.2f %% of one CPU\n' "$(echo "100 * $cpu / 1000000000 / ($t1 - $t0)" | bc -l)"
printf 'runs dropped (pairing) : %s\n' "$(jq .irq_stats.dropped "$R")"
printf 'device interrupts      : %s in /proc/interrupts during the load (%.0f per second)\n' \
	"$((after - before))" "$(echo "($after - $before) / ($D - 4)" | bc -l)"
jq -r '.irq_stats.handlers | sort_by(-.count) | .[:3][] |
	"  \(.name) cpu\(.cpu): \(.count) runs, max \(.max_us) us, p99 <= \(.p99_us) us"' "$R"
