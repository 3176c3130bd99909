#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lathound's timerlat beside its peer (issue 19): Debian's own linux-image-rt-amd64 (6.1
# PREEMPT_RT, tests/vm/get-rt-kernel.sh) under QEMU, plain TCG, 2 CPUs, timerlat at its
# default 1 ms period for SECONDS each by 'rtla timerlat hist' (Debian's rtla: its 1 us
# histograms, -E 100000) and by 'lathound record -t timerlat', alternated rtla, lathound,
# rtla, lathound in one boot (tests/vm/scenarios/rtla.sh), so that the host's noise shows
# between two runs of one tool. Per CPU and context (IRQ, thread), each cell
# "rtla 1/rtla 2 | lathound 1/lathound 2":
#   samples      timerlat samples counted
#   p50, p99     in us: lathound's as its report says (the upper bound of the bucket of
#                lathound's scheme holding the nearest-rank sample, narrowed to max); rtla's
#                from its 1 us histogram put in the same buckets, read the same way
#   max          in us (rtla's as it prints it, lathound's rounded down alike)
# Then, unless EXTRA=0, what lathound asks of the kernel that rtla's defaults do not, one
# at a time: lathound --no-hist, rtla -s 1000000 (print_stack set), rtla -e osnoise.
# Per run: each tool's CPU time in the guest (user + system, of its process) as a share of
# one CPU while timerlat ran (the guest's poller read it every half second while an
# instance ran timerlat: from its first to its last look, and over the second half of that
# window) and over its whole run (its shell's cutime + cstime: start and end included);
# what the kernel's ring buffer of the instance running timerlat lost while it ran
# (overrun + commit overrun + dropped events of per_cpu/cpuN/stats, the last look), beside
# what lathound says it lost (run.sections_lost, warnings). Guest time runs at wall-clock
# speed under TCG while guest code runs far slower than on hardware: the CPU shares are
# this guest's, on this host.
# usage: bench/vm-rtla.sh [SECONDS]   (default 30)
#   LH_VM_KEEP=1 keeps the work directory (outputs, reports, console log); EXTRA=0 runs the
#   four runs only; RTLA=PATH another rtla.
#   Exit 1 when a run failed, when lathound lost samples without saying so (the kernel's
#   buffer dropped some, or IRQ and thread samples of a CPU differ by more than one, and
#   the report says none lost), or when its CPU share while timerlat ran is above 1 % of one
#   CPU in one of its two default runs.
. "$(dirname "$0")/../tests/lib.sh"
. "$TOP/tests/vm/lib-vm.sh"

S=${1:-30}
RTLA=${RTLA:-/usr/bin/rtla}
case $S in
'' | *[!0-9]*) echo "usage: bench/vm-rtla.sh [SECONDS]" >&2; exit 1 ;;
esac
if [ -n "$LH_VM_KEEP" ]; then
	trap - EXIT
	echo "work directory (kept): $TMP"
fi
die() { echo "vm-rtla: $*" >&2; exit 1; }
[ -x "$LATHOUND_BIN" ] || die "no $LATHOUND_BIN (run make)"
command -v "$QEMU" >/dev/null || die "no $QEMU (apt-get install qemu-system-x86)"
[ -x "$BUSYBOX" ] || die "no $BUSYBOX (apt-get install busybox-static)"
command -v jq >/dev/null || die "no jq (apt-get install jq)"
[ -x "$RTLA" ] || die "no $RTLA, the peer this compares with (apt-get install rtla; tests/deps.sh installs it)"
RTDIR=$("$VM/get-rt-kernel.sh" 2>"$TMP/get-rt.err") ||
	die "Debian's RT kernel is not available: $(tail -1 "$TMP/get-rt.err")"

"$VM/mkinitramfs.sh" -o "$TMP/initrd.gz" -l "$LATHOUND_BIN" -r "$TOP/rules" \
	-s "$VM/scenarios/rtla.sh" -b "$RTLA" || die "cannot build the guest's initramfs"
mkdir -p "$TMP/kernel"
ln -s "$RTDIR/vmlinuz" "$TMP/kernel/bzImage"
KDIR=$TMP/kernel
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# Four runs of S seconds (seven with EXTRA) and the tools' start and end; the protocol through
# the kernel log (tests/vm/guest/init says why).
runs=4
[ "${EXTRA:-1}" = 1 ] && runs=7
append="lhvm_kmsg=1 printk.time=0 printk.devkmsg=on"
VM_MEM=512M VM_SCENARIO_TIMEOUT=$((runs * (S + 60) + 60)) \
	VM_APPEND="$append lhvm_rtla_s=$S lhvm_rtla_extra=${EXTRA:-1}" \
	vm_boot rtla smp2 "$TMP/initrd.gz" $((runs * (S + 60) + 360)) rtla ||
	die "the guest did not run its scenario (console: $TMP/rtla.log)"
load1=$(cut -d' ' -f1-3 /proc/loadavg)
d=$TMP/rtla/rtla
[ "$(cat "$d/rc" 2>/dev/null)" = 0 ] ||
	die "the scenario exited '$(cat "$d/rc" 2>/dev/null)': $(tail -5 "$d/log" 2>/dev/null)"
fact() { vm_fact "$d" "$1"; }

# rtla_cell RUN CPU CTX: "samples p50 p99 max" of rtla's histogram of CPU and CTX (IRQ or
# Thr), the percentiles read as lathound reads its own (src/util/histogram.c): the 1 us buckets
# put in lathound's scheme (1 us wide below 100 us, 10 us below 1 ms, 100 us below 10 ms,
# then [2^k, 2^(k+1)) ns from 10 ms), the nearest rank's bucket, its upper bound narrowed to
# max. Samples past the last bucket (rtla's "over:") count at max. "- - - -" when rtla has
# no such column.
rtla_cell() {
	awk -v col="$(printf '%s-%03d' "$3" "$2")" '
		function bucket_hi(us,	ns, lo) {
			ns = us * 1000
			if (ns < 100000) return ns - ns % 1000 + 1000
			if (ns < 1000000) return ns - ns % 10000 + 10000
			if (ns < 10000000) return ns - ns % 100000 + 100000
			lo = 1
			while (lo * 2 <= ns) lo *= 2
			return lo * 2
		}
		function pct(num, den,	want, seen, i, hi) {
			want = int((n * num + den - 1) / den)
			if (want < 1) want = 1
			for (i = 1; i <= nb; i++) {
				seen += cnt[i]
				if (seen >= want) break
			}
			hi = hib[i] < max * 1000 ? hib[i] : max * 1000
			return int(hi / 1000)
		}
		$1 == "Index" { for (i = 2; i <= NF; i++) if ($i == col) c = i; next }
		!c { next }
		$1 ~ /^[0-9]+$/ {
			if ($c == 0) next
			h = bucket_hi($1)
			if (!nb || hib[nb] != h) { nb++; hib[nb] = h }
			cnt[nb] += $c
			next
		}
		$1 == "over:" { over = $c }
		$1 == "count:" { n = $c }
		$1 == "max:" { max = $c }
		END {
			if (!c || !n) { print "- - - -"; exit }
			if (over) { nb++; hib[nb] = max * 1000; cnt[nb] = over }
			print n, pct(1, 2), pct(99, 100), max
		}' "$d/$1.out"
}

# lh_cell RUN CPU KIND: "samples p50 p99 max" of lathound's histogram KIND of CPU.
lh_cell() {
	jq -r --argjson cpu "$2" --arg kind "$3" '
		[.histograms[]? | select(.kind == $kind and .cpu == $cpu)][0] //
		{count: "-", percentiles: {p50: "-", p99: "-"}, max: "-"} |
		def us: if type == "number" then floor else . end;
		"\(.count) \(.percentiles.p50 | us) \(.percentiles.p99 | us) \(.max | us)"' \
		"$d/$1/report.json" 2>/dev/null || echo "- - - -"
}

# share RUN: the tool's CPU time as a share of one CPU over its whole run, in % (USER_HZ
# 100).
share() {
	awk -v t="$(fact "$1.cpu_ticks")" -v s="$(fact "$1.s")" \
		'BEGIN { if (s > 0 && t != "") printf "%.2f", t / s; else print "-" }'
}

# armed RUN [FROM]: "SECONDS SHARE" of the poller's looks while timerlat ran (from the
# first look, or the first at FROM of the window, 0.5 for its second half, to the last):
# how long that was, and the tool's CPU time then as a share of one CPU, in %; "- -" when
# it saw too little.
armed() {
	awk -v from="${2:-0}" '{ t[NR] = $1; c[NR] = $2 }
		END {
			if (NR < 2 || t[NR] - t[1] < 1) { print "- -"; exit }
			for (i = 1; i < NR && t[i] < t[1] + from * (t[NR] - t[1]); i++)
				;
			if (i == NR) i = NR - 1
			printf "%.1f %.2f\n", t[NR] - t[i], (c[NR] - c[i]) / (t[NR] - t[i])
		}' "$d/$1.cpu" 2>/dev/null || echo "- -"
}

# kernel_lost RUN: what the kernel's ring buffer of the timerlat instance lost (overrun +
# commit overrun + dropped events over the CPUs), "-" when it was never read.
kernel_lost() {
	[ -s "$d/$1.rb" ] || { echo -; return; }
	awk '{ n += $2 + $3 + $4 } END { print n }' "$d/$1.rb"
}

# cell RUN CPU CTX: "samples p50 p99 max" of run RUN (rtla* or lh*), CTX irq or thread.
cell() {
	case $1 in
	rtla*) rtla_cell "$1" "$2" "$([ "$3" = irq ] && echo IRQ || echo Thr)" ;;
	*) lh_cell "$1" "$2" "timerlat_$3" ;;
	esac
}

# table RUN... [- RUN...]: per CPU and context, each column the runs' values, "/" between
# runs, " | " for "-".
table() {
	local cpu ctx run n p50 p99 max sep v
	printf '%-4s %-7s %-25s %-19s %-21s %s\n' cpu context "samples $HEAD" "p50 $HEAD" \
		"p99 $HEAD" "max $HEAD"
	for cpu in $(seq 0 $((${nproc_guest:-2} - 1))); do
		for ctx in irq thread; do
			n= p50= p99= max= sep=
			for run in "$@"; do
				if [ "$run" = - ]; then
					sep=" | "
					continue
				fi
				read -r -a v <<<"$(cell "$run" "$cpu" $ctx)"
				if [ "${v[0]:--}" = - ]; then
					echo "  $run: no samples of CPU $cpu $ctx"
					fail=1
				fi
				n+=$sep${v[0]:--} p50+=$sep${v[1]:--}
				p99+=$sep${v[2]:--} max+=$sep${v[3]:--}
				sep=/
			done
			printf '%-4s %-7s %-25s %-19s %-21s %s\n' "$cpu" $ctx "$n" "$p50" "$p99" \
				"$max"
		done
	done
}

# summary RUN GATED: its exit code, CPU shares and losses; for a lathound run what it says it
# lost, and (GATED 1) whether its CPU share is within 1 %.
summary() {
	local run=$1 tool rc cpu_s kl as ap hs hp r said warned unpaired
	case $run in rtla*) tool=rtla ;; *) tool=lathound ;; esac
	rc=$(fact "$run.rc")
	cpu_s=$(awk -v t="$(fact "$run.cpu_ticks")" 'BEGIN { printf "%.2f", t / 100 }')
	kl=$(kernel_lost "$run")
	read -r as ap <<<"$(armed "$run")"
	read -r hs hp <<<"$(armed "$run" 0.5)"
	echo "$run ($tool): exit $rc; CPU while timerlat ran $ap % of one CPU ($as s; second" \
		"half $hp %), over its whole run $cpu_s s in $(fact "$run.s") s =" \
		"$(share "$run") %;" \
		"the kernel's ring buffer lost $kl"
	if [ $tool = rtla ]; then
		[ "$rc" = 0 ] || { echo "  $run failed: $(head -3 "$d/$run.err")"; fail=1; }
		return
	fi
	r=$d/$run/report.json
	said=$(jq -r '.run.sections_lost // "-"' "$r" 2>/dev/null)
	warned=$(jq -r '[.input.warnings[]? | select(test("lost"))] | length' "$r" 2>/dev/null)
	# IRQ and thread samples of one CPU pair up; at most the last one is unpaired.
	unpaired=$(jq -r '[.histograms[]? | select(.cpu != null and
		(.kind == "timerlat_irq" or .kind == "timerlat_thread"))] | group_by(.cpu) |
		map((map(select(.kind == "timerlat_irq").count) | add // 0) -
		    (map(select(.kind == "timerlat_thread").count) | add // 0) |
		    if . < 0 then -. else . end) | max // 0' "$r" 2>/dev/null)
	echo "  lathound says $said lost (warnings on it: ${warned:-0}); IRQ - thread samples" \
		"on one CPU at most ${unpaired:--}"
	case $rc in
	0 | 2) ;;
	*) echo "  $run failed: $(head -3 "$d/$run.err")"; fail=1 ;;
	esac
	if [ "$said" = - ]; then
		echo "  $run: no report"
		fail=1
	elif [ "$said" = 0 ] && { { [ "$kl" != - ] && [ "$kl" -gt 0 ]; } ||
				   [ "${unpaired:-0}" -gt 1 ]; }; then
		echo "  $run: lathound lost samples without saying so"
		fail=1
	fi
	[ "$2" = 1 ] || return 0
	awk -v p="$ap" 'BEGIN { exit !(p != "-" && p <= 1) }' || {
		echo "  $run: lathound's CPU while timerlat ran is $ap %, above 1 % of one CPU"
		fail=1
	}
}

nproc_guest=$(fact nproc)
echo "Debian $(basename "$RTDIR") under QEMU TCG (plain, $nproc_guest CPUs), timerlat period" \
	"$(fact rtla-1.knobs | sed 's/.*timerlat_period_us=//') us, $S s per run," \
	"$(fact rtla-1.knobs | sed 's/ .*//;s/=/ /')"
echo "rtla $("$RTLA" --help 2>&1 | sed -n 's/^rtla version //p' | head -1) (Debian $(dpkg-query -W \
	-f='${Version}' rtla 2>/dev/null)), lathound $(git -C "$TOP" describe --always --dirty)"
echo "host load average before / after: $load0 / $load1 ($(nproc) host CPUs)"
echo "cells: rtla 1 / rtla 2 | lathound 1 / lathound 2 (run in the order rtla 1, lathound 1," \
	"rtla 2, lathound 2); us"
echo
fail=0
HEAD="rtla | lh" table rtla-1 rtla-2 - lh-1 lh-2
if [ -n "$(fact lhnh-1.rc)" ]; then
	echo
	echo "what lathound asks of the kernel that rtla's defaults do not, one at a time (run" \
		"after the four above): lathound --no-hist (no wakeup histogram counted in the" \
		"kernel) | rtla -s 1000000 (print_stack set: a stack saved at every timer IRQ) /" \
		"rtla -e osnoise (the noise events enabled)"
	HEAD="lh-nh | rtla-s/-e" table lhnh-1 - rtlast-1 rtlaos-1
fi
echo
summary rtla-1
summary lh-1 1
summary rtla-2
summary lh-2 1
if [ -n "$(fact lhnh-1.rc)" ]; then
	summary lhnh-1
	summary rtlast-1
	summary rtlaos-1
fi
exit $fail
