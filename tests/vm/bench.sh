#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lathound's live-capture figures, measured on the real test kernel under QEMU (icount,
# 1 CPU: guest time counts instructions, so sections have exact lengths):
#   (a) latency inflation: one irqs-off section of exactly 2000 us (lhx_irqs_hog) per
#       'lathound record -t irqsoff' run with default options, ten runs: mean/max measured us
#       vs 2000 (target <= 2 %), next to what the bare irqsoff tracer measures;
#   (b) capture rate: 100 fakeraid sections above -T 1ms at 10/s (target >= 99 %), and at
#       50/s; section i lasts 2000 + i us, as real sections differ; and 100 identical ones.
# usage: tests/vm/bench.sh     (exit 1 when a figure misses its target)
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/vm/lib-vm.sh"

why=$(vm_prereqs)
[ -z "$why" ] || { echo "bench: cannot run here: $why" >&2; exit 1; }
vm_kernel && vm_lhx && vm_initramfs "$TMP/initrd.gz" bench || exit 1
vm_boot bench icount "$TMP/initrd.gz" 420 bench || exit 1
d=$TMP/bench/bench
jqv() { jq -r "$2 // empty" "$1" 2>/dev/null; }

# stats FILE: "n mean min max" of the numbers in FILE, one a line.
stats() {
	awk 'NF { n++; s += $1; if (n == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
	     END { if (n) printf "%d %.1f %d %d\n", n, s / n, lo, hi; else print "0 0 0 0" }' "$1"
}

for i in $(seq 10); do
	jq -r '.tracers.irqsoff.max_us // empty' "$d/inflation$i/report.json" 2>/dev/null
done >"$TMP/lh.txt"
read -r n mean lo hi < <(stats "$TMP/lh.txt")
read -r rn rmean rlo rhi < <(stats "$d/raw-irqsoff.txt")
infl=$(awk -v m="$mean" 'BEGIN { printf "%.2f", (m - 2000) / 20 }')
rinfl=$(awk -v m="$rmean" 'BEGIN { printf "%.2f", (m - 2000) / 20 }')
echo "kernel $(cat "$KDIR/release"), QEMU TCG -icount shift=0,sleep=off, 1 CPU"
echo "(a) one 2000 us irqs-off section (lhx_irqs_hog), default options:"
printf '    lathound record : %d runs, mean %s us (min %s, max %s): inflation %s %%\n' \
	"$n" "$mean" "$lo" "$hi" "$infl"
printf '    bare tracer     : %d sections, mean %s us (min %s, max %s): %s %%\n' \
	"$rn" "$rmean" "$rlo" "$rhi" "$rinfl"
fail=0
awk -v i="$infl" -v n="$n" 'BEGIN { exit !(n >= 10 && i <= 2) }' || fail=1

# captured RUN: fakeraid records of at least 1900 us in a -T 1ms run.
captured() {
	jq '[.records[] | select(.tracer == "irqsoff" and .latency_us >= 1900 and
		any(.irqs[]; .name == "fakeraid"))] | length' "$d/$1/report.json" 2>/dev/null
}
echo "(b) 100 fakeraid sections above -T 1ms:"
for run in capture10 capture50 same10; do
	case $run in
	capture10) what="2000+i us, 10/s" ;;
	capture50) what="2000+i us, 50/s" ;;
	same10) what="2000 us,   10/s" ;;
	esac
	c=$(captured $run)
	printf '    %s: %3s/100 captured (run.captures %s, sections_lost %s, records_dropped %s)\n' \
		"$what" "${c:-0}" "$(jqv "$d/$run/report.json" .run.captures)" \
		"$(jqv "$d/$run/report.json" .run.sections_lost)" \
		"$(jqv "$d/$run/report.json" .records_dropped)"
	[ $run = capture10 ] && [ "${c:-0}" -lt 99 ] && fail=1
done
echo "    (identical sections give identical snapshots under -icount: see same10)"
for f in inflation1 capture10 capture50 same10; do
	echo "    $f: lathound exit $(vm_fact "$d" "$f.rc"), $(vm_fact "$d" "$f.s") s guest time"
done
exit $fail
