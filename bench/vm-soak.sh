#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An overnight soak in minutes: HOURS (12) guest hours of 'lathound record -d' on the test
# kernel under QEMU with -icount shift=1,sleep=off (idle guest time is skipped: 12 guest hours
# take about half an hour of wall time on 2 busy cores), idle but for the lhx driver's fakeraid
# interrupt handler holding interrupts off every 607 s (71 injections in 12 h; 607 s rather
# than 600 so that they sweep every phase of the 60 s slices), injection k for 2500 + 10 k us
# (tests/vm/scenarios/soak.sh says why, and how the guest records which tracer was armed).
# One boot per mode:
#   max     -t irqsoff,preemptoff,wakeup_rt --slice 60s   (running maxima, rotation)
#   thresh  -t irqsoff,preemptoff,wakeup_rt -T 1ms --slice 60s
#   single  -t irqsoff                                     (running maxima, no rotation)
# Per mode: injections made while irqsoff was armed and how many were captured, captures,
# sections lost, blind time, lathound's CPU and RSS at 1 h / 6 h / 12 h, output size.
# Exit 1 when an injection made while irqsoff was armed (away from a slice's switch) was not
# captured, or a soak did not run.
#
# usage: bench/vm-soak.sh [-H HOURS] [MODE...]      (default: all three modes)
#   Each soak holds one host CPU for half an hour. Its figures are guest figures (icount), the
#   same whatever the host's load: it may run beside other work, niced, one process per mode
#   (nice -n 10 bench/vm-soak.sh max & nice -n 10 bench/vm-soak.sh thresh & ...).
#   LATHOUND_BIN=PATH soaks another build (main's, for a baseline); LABEL=NAME names the
#   output directory: bench/out/soak-MODE[-NAME]/ (report.json, injections, facts, log).
. "$(dirname "$0")/../tests/lib.sh"
. "$TOP/tests/vm/lib-vm.sh"

hours=12
while getopts H: opt; do
	case $opt in
	H) hours=$OPTARG ;;
	*) echo "usage: bench/vm-soak.sh [-H HOURS] [max|thresh|single]..." >&2; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(max thresh single)
dur=$((hours * 3600))

why=$(vm_prereqs)
[ -z "$why" ] || { echo "vm-soak: cannot run here: $why" >&2; exit 1; }
vm_kernel && vm_lhx && vm_initramfs "$TMP/initrd.gz" soak || exit 1
echo "kernel $(cat "$KDIR/release"), QEMU TCG -icount shift=1,sleep=off, 1 CPU;" \
	"lathound $LATHOUND_BIN ($("$LATHOUND_BIN" --version 2>/dev/null | head -1))"

fail=0
for mode in "${modes[@]}"; do
	out=$TOP/bench/out/soak-$mode${LABEL:+-$LABEL}
	if ! VM_SCENARIO_TIMEOUT=$((dur + 600)) VM_APPEND="lhvm_soak=$dur:607:300:$mode" \
	     vm_boot "soak-$mode" soak "$TMP/initrd.gz" $((600 + dur / 4)) soak; then
		echo "$mode: the soak did not run to its end (console: $TMP/soak-$mode.log)"
		fail=1
		continue
	fi
	rm -rf "$out"
	mkdir -p "$out"
	cp -r "$TMP/soak-$mode/soak/." "$out/"
	cp "$TMP/soak-$mode.log" "$out/console.log"
	f=$(vm_soak_figures "$out")
	fig() { soak_fig "$f" "$1"; }
	blind=
	for t in irqsoff preemptoff wakeup_rt; do
		b=$(fig "blind_s.$t")
		[ -n "$(fig "armed_s.$t")" ] &&
			blind+=$(printf ' %s %.0f s / %s s,' $t "$(fig "armed_s.$t")" "${b:-?}")
	done
	echo "$mode: lathound record $(vm_fact "$out" soak.args) -d ${dur}s" \
		"(exit $(fig rc), $(fig guest_s) s guest time in $BOOT_S s wall)"
	printf '  injections     %s; made while irqsoff was armed %s, captured %s;' \
		"$(fig injections)" "$(fig armed)" "$(fig armed_captured)"
	printf ' away from a switch (1 s) %s, captured %s\n' "$(fig settled)" \
		"$(fig settled_captured)"
	[ -n "$(fig missed)" ] && echo "  missed        $(fig missed)  (k:us)"
	[ "$(fig paused)" != 0 ] &&
		echo "  blind         $(fig paused) armed ones began while tracing was paused (a read)"
	printf '  captures       %s (%s not an injection), %s sections lost, %s %s\n' \
		"$(fig captures)" "$(fig other)" "$(fig lost)" "$(fig dropped)" "snapshots dropped"
	echo "  armed / blind ${blind%,}"
	printf '  lathound       %s %% of the guest CPU; RSS %s / %s / %s kB at 1 h / 6 h / end\n' \
		"$(fig cpu_pct)" "$(fig rss_kb.h1)" "$(fig rss_kb.h6)" "$(fig rss_kb.end)"
	printf '  output         %s kB (%s raw snapshots)\n' "$(fig out_kb)" "$(fig snapshots)"
	if [ "$(fig settled)" = 0 ] || [ "$(fig settled_captured)" != "$(fig settled)" ]; then
		fail=1
	fi
done
exit $fail
