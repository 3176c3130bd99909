#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The live-capture figures on x86-64 and arm64 side by side: the same test kernel source and
# lhx driver built for each (tests/vm/build-kernel.sh --arch), the same guest scenarios, under
# QEMU TCG (x86-64: the pc machine; arm64: virt, a Cortex-A57), lathound cross-built for arm64.
# Two boots per architecture, beside each other (each holds one host CPU; under icount guest
# time counts instructions, so the figures do not depend on the host's load):
#   bench  (-icount shift=0, tests/vm/scenarios/bench.sh) latency inflation of a 2000 us
#          irqs-off section with default options, ten runs; captures of 100 fakeraid sections
#          over -T 1ms at 10/s and at 50/s
#   soak   (-icount shift=1, tests/vm/scenarios/soak.sh) SECONDS (1800) guest seconds of
#          'record -t irqsoff,preemptoff,wakeup_rt --slice 60s', a fakeraid section every
#          29 s: injections captured, blind time per tracer, lathound's CPU share
# Exit 1 when a boot did not run to its end.
#
# usage: bench/vm-arch.sh [SECONDS [ARCH...]]    (default: 1800 x86_64 arm64)
. "$(dirname "$0")/../tests/lib.sh"

soak_s=${1:-1800}
archs=("${@:2}")
[ ${#archs[@]} -gt 0 ] || archs=(x86_64 arm64)

# figures ARCH: runs both boots for ARCH; prints "KEY VALUE" lines. Return: non-zero when
# something could not be built or booted (said on stderr).
figures() (
	VM_ARCH=$1
	QEMU=
	. "$TOP/tests/vm/lib-vm.sh"
	local d s rc=0 f i
	why=$(vm_prereqs)
	[ -z "$why" ] || { echo "vm-arch: $VM_ARCH: cannot run here: $why" >&2; return 1; }
	if [ "$VM_ARCH" = arm64 ]; then
		vm_arm64_root && vm_cross_lathound || return 1
	fi
	vm_kernel && vm_lhx && vm_initramfs "$TMP/initrd-$VM_ARCH.gz" bench soak || return 1
	VM_SCENARIO_TIMEOUT=$((soak_s + 600)) VM_APPEND="lhvm_soak=$soak_s:29:20:max" \
		vm_boot "soak-$VM_ARCH" soak "$TMP/initrd-$VM_ARCH.gz" $((600 + soak_s / 2)) soak &
	s=$!
	vm_boot "bench-$VM_ARCH" icount "$TMP/initrd-$VM_ARCH.gz" 900 bench ||
		{ echo "vm-arch: $VM_ARCH: the bench boot did not run to its end" >&2; rc=1; }
	echo "bench_boot_s $BOOT_S"
	wait $s || { echo "vm-arch: $VM_ARCH: the soak boot did not run to its end" >&2; rc=1; }
	[ -s "$TMP/soak-$VM_ARCH/soak/soak/report.json" ] ||
		echo "vm-arch: $VM_ARCH: the soak left no report (console: $TMP/soak-$VM_ARCH.log)" >&2
	echo "release $(cat "$KDIR/release")"
	d=$TMP/bench-$VM_ARCH/bench
	for i in $(seq 10); do
		jq -r '.tracers.irqsoff.max_us // empty' "$d/inflation$i/report.json" 2>/dev/null
	done | awk 'NF { n++; s += $1 } END { if (n) printf "inflation %.2f\nruns %d\n", (s / n - 2000) / 20, n }'
	awk 'NF { n++; s += $1 } END { if (n) printf "raw_inflation %.2f\n", (s / n - 2000) / 20 }' \
		"$d/raw-irqsoff.txt" 2>/dev/null
	for i in capture10 capture50; do
		echo "$i $(jq '[.records[] | select(.tracer == "irqsoff" and .latency_us >= 1900 and
			any(.irqs[]; .name == "fakeraid"))] | length' "$d/$i/report.json" 2>/dev/null)"
	done
	f=$(vm_soak_figures "$TMP/soak-$VM_ARCH/soak")
	for i in settled settled_captured captures lost blind_s.irqsoff blind_s.preemptoff \
		 blind_s.wakeup_rt cpu_pct guest_s; do
		echo "$i $(soak_fig "$f" "$i")"
	done
	return $rc
)

fail=0
for a in x86_64 arm64; do
	: >"$TMP/$a.fig"
done
for a in "${archs[@]}"; do
	figures "$a" >"$TMP/$a.fig" || fail=1
done

# fig ARCH KEY: one figure.
fig() { sed -n "s/^$2 //p" "$TMP/$1.fig" | tail -1; }

row() { printf '%-46s %-16s %-16s\n' "$1" "$2" "$3"; }
row "" x86_64 arm64
row "kernel" "$(fig x86_64 release)" "$(fig arm64 release)"
row "(bench, -icount shift=0, 1 CPU)"
row "latency inflation, 2000 us (%)" "$(fig x86_64 inflation)" "$(fig arm64 inflation)"
row "  over runs of record" "$(fig x86_64 runs)" "$(fig arm64 runs)"
row "  the bare irqsoff tracer's (%)" "$(fig x86_64 raw_inflation)" "$(fig arm64 raw_inflation)"
row "captured of 100 over -T 1ms, 10/s" "$(fig x86_64 capture10)" "$(fig arm64 capture10)"
row "captured of 100 over -T 1ms, 50/s" "$(fig x86_64 capture50)" "$(fig arm64 capture50)"
row "bench boot (wall s)" "$(fig x86_64 bench_boot_s)" "$(fig arm64 bench_boot_s)"
row "(soak $soak_s guest s, -icount shift=1, 1 CPU)"
for k in settled settled_captured captures lost blind_s.irqsoff blind_s.preemptoff \
	 blind_s.wakeup_rt cpu_pct; do
	case $k in
	settled) what="injections while irqsoff armed" ;;
	settled_captured) what="  of them captured" ;;
	captures) what="captures" ;;
	lost) what="sections lost" ;;
	blind_s.*) what="blind time, ${k#blind_s.} (s)" ;;
	cpu_pct) what="lathound's CPU (% of the guest's)" ;;
	esac
	row "$what" "$(fig x86_64 "$k")" "$(fig arm64 "$k")"
done
exit $fail
