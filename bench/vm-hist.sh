#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What lathound's in-kernel histograms (src/hist.c) cost, on the real test kernel under QEMU
# (icount, 1 CPU: guest time counts instructions, so figures repeat run after run):
#   inflation  an irqs-off section of exactly 2000 us as the irqsoff tracer measures it,
#              without histograms and with each kind (budget: <= 2 %, then on by default)
#   cpu        guest time of 200,000 read+write syscall pairs, each disabling interrupts
#              on its way back to user space, without and with histograms
# The guest side is tests/vm/scenarios/hist_bench.sh. usage: bench/vm-hist.sh
. "$(dirname "$0")/../tests/lib.sh"
. "$TOP/tests/vm/lib-vm.sh"

why=$(vm_prereqs)
[ -z "$why" ] || { echo "bench: cannot run here: $why" >&2; exit 1; }
vm_kernel && vm_lhx && vm_initramfs "$TMP/initrd.gz" hist_bench || exit 1
vm_boot bench icount "$TMP/initrd.gz" 420 hist_bench || exit 1
d=$TMP/bench/hist_bench

mean() { awk 'NF { n++; s += $1 } END { if (n) printf "%.1f", s / n }' "$1"; }

base=$(mean "$d/infl-off.txt")
cpu0=$(cat "$d/cpu-off.txt")
printf '%-28s %12s %10s %10s %14s\n' histograms "2000us reads" inflation "cpu (s)" "sections"
printf '%-28s %12s %10s %10s %14s\n' none "$base" - "$cpu0" -
fail=0
for name in irqsoff preemptoff wakeup irqsoff+preemptoff+wakeup; do
	m=$(mean "$d/infl-$name.txt")
	c=$(cat "$d/cpu-$name.txt" 2>/dev/null)
	n=$(awk '$1 == "summary" && $3 == "all" { s += $5 } END { print s + 0 }' \
		"$d/hist-$name.out" 2>/dev/null)
	if [ -z "$m" ] || [ "$(vm_fact "$d" "$name.rc")" != 0 ]; then
		echo "bench: the $name run failed: $(head -3 "$d/hist-$name.err")" >&2
		fail=1
		continue
	fi
	infl=$(awk -v m="$m" -v b="$base" 'BEGIN { printf "%+.2f %%", (m - b) / b * 100 }')
	cpu=$(awk -v c="$c" -v b="$cpu0" 'BEGIN { printf "%s (%+.0f %%)", c, (c - b) / b * 100 }')
	printf '%-28s %12s %10s %10s %14s\n' "$name" "$m" "$infl" "$cpu" "$n"
done
exit $fail
