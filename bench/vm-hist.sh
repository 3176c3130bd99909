#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What lathound's in-kernel histograms (src/kernel/hist.c) cost, on the real test kernel under QEMU
# (icount, 1 CPU: guest time counts instructions, so figures repeat run after run):
#   inflation  an irqs-off section of exactly 2000 us as the irqsoff tracer measures it
#              (smallest of ten readings), without histograms and with each kind
#              (budget: <= 2 %)
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

# low FILE: the smallest reading. Under icount the injected section reads the same every
# time; a larger maximum is another section in the window (on the SLOB kernel the suite used
# before, its allocator when lhx started its kthread), so the smallest is the section
# itself. high FILE: the largest, shown beside it.
low() { sort -n "$1" | awk 'NF { print; exit }'; }
high() { sort -n "$1" | awk 'NF { v = $1 } END { print v }'; }

base=$(low "$d/infl-off.txt")
cpu0=$(cat "$d/cpu-off.txt")
printf '%-28s %14s %10s %18s %10s\n' histograms "2000us reads" inflation "cpu (s)" sections
printf '%-28s %14s %10s %18s %10s\n' none "$base (max $(high "$d/infl-off.txt"))" - "$cpu0" -
fail=0
for name in irqsoff preemptoff wakeup irqsoff+preemptoff+wakeup; do
	m=$(low "$d/infl-$name.txt")
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
	printf '%-28s %14s %10s %18s %10s\n' "$name" "$m (max $(high "$d/infl-$name.txt"))" "$infl" \
		"$cpu" "$n"
done
exit $fail
