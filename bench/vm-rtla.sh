#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lathound's timerlat beside its peer (issue 19): Debian's own linux-image-rt-amd64 (6.1
# PREEMPT_RT, tests/vm/get-rt-kernel.sh) under QEMU, plain TCG, 2 CPUs in one host thread
# (multi-threaded until 2026-12-05, the README's figures among them), timerlat at its
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
# what lathound says it lost (run.sections_lost, warnings).
# Guest time runs at wall-clock speed under TCG while guest code runs far slower than on
# hardware, so a share of the guest's CPU is inflated by the slowdown S of the code that
# spends it. The same boot measures S for lathound's kind of code: before the first run
# and after the last, the guest times (user + system, clock ticks) CAL_N runs of
# 'lathound analyze -j 1' over a fixed set of traces (tests/data/*.trace and
# tests/data/published/*.trace, each named CAL_K times: parsing and rule matching) with the
# rules the guest has; this host times the same binary on the same files and rules (bash's
# time, user + system) ten times before the boot and ten after it.
# S = the median of the guest's times / the median of this host's; each run's share is
# printed raw (the guest's) and host-equivalent (raw / S).
# It is an estimate, and S alone flatters: TCG slows kernel code (system calls, page faults,
# the timer and tracing paths) by factors of its own, and analyze's system time (page
# faults, mostly) is slowed far more than its user time and varies from boot to boot
# (five boots: S 12-23, S_user 10.5-13.5), while what lathound does while timerlat runs is
# system calls on the ring buffer (12-70 % of its guest time) and libtraceevent decoding.
# So the boot also times code that is the same binary on both sides and little but system
# calls: busybox dd of DD one-byte blocks, /dev/zero to /dev/null, its system time alone
# giving S_sys (4.2-7.7). The split estimate of a run is its guest user share / S_user + its
# system share / S_sys.
# The gate wants both estimates within 1 %. Neither is exact (lathound's system calls are
# not dd's; the kernel's timerlat work outside lathound's process is in no share here).
# The host's other load shows in both sides' times: each side is timed twice, both printed.
# usage: bench/vm-rtla.sh [SECONDS]   (default 30)
#   LH_VM_KEEP=1 keeps the work directory (outputs, reports, console log); EXTRA=0 runs the
#   four runs only; RTLA=PATH another rtla; CAL_K (default 40), CAL_N (the guest's runs
#   each time, 4), DD (100000) size the calibration; LATHOUND_BIN another lathound (the
#   calibration times that one).
#   Exit 1 when a run failed, when lathound lost samples without saying so (the kernel's
#   buffer dropped some, or IRQ and thread samples of a CPU differ by more than one, and
#   the report says none lost), when the calibration did not measure S, S_user and S_sys,
#   or when its host-equivalent CPU share while timerlat ran (guest share / S, or the split
#   estimate) is above 1 % of one CPU in one of its two default runs.
. "$(dirname "$0")/../tests/lib.sh"
. "$TOP/tests/vm/lib-vm.sh"

S=${1:-30}
CAL_K=${CAL_K:-40}
CAL_N=${CAL_N:-4}
DD=${DD:-100000}
RTLA=${RTLA:-/usr/bin/rtla}
for v in "$S" "$CAL_K" "$CAL_N" "$DD"; do
	case $v in
	'' | *[!0-9]* | 0) echo "usage: bench/vm-rtla.sh [SECONDS]" >&2; exit 1 ;;
	esac
done
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

# The calibration's traces, and the rules the guest has (mkinitramfs.sh adds lhx's).
CAL_FILES=("$TOP"/tests/data/*.trace "$TOP"/tests/data/published/*.trace)
mkdir -p "$TMP/cal-rules"
cp -r "$TOP/rules/." "$VM/lhx/lhx.rules" "$TMP/cal-rules/"

# host_calibrate WHEN: this host's times of the guest's calibration workloads
# (scenarios/rtla.sh), "RC USER SYSTEM" (seconds) a line, ten lines each, into
# $TMP/host-cal-WHEN and $TMP/host-dd-WHEN.
host_calibrate() {
	local i k files=() TIMEFORMAT='%3U %3S'
	for k in $(seq "$CAL_K"); do files+=("${CAL_FILES[@]}"); done
	for i in $(seq 10); do
		{ time { "$LATHOUND_BIN" analyze -j 1 -q -r "$TMP/cal-rules" --fail-on=none \
			--allow-unreadable -f json -o "$TMP/cal.json" "${files[@]}" >/dev/null 2>&1
			echo $? >"$TMP/rc"; }; } 2>"$TMP/t"
		echo "$(cat "$TMP/rc") $(cat "$TMP/t")" >>"$TMP/host-cal-$1"
	done
	for i in $(seq 10); do
		{ time { "$BUSYBOX" dd if=/dev/zero of=/dev/null bs=1 count="$DD" >/dev/null 2>&1
			echo $? >"$TMP/rc"; }; } 2>"$TMP/t"
		echo "$(cat "$TMP/rc") $(cat "$TMP/t")" >>"$TMP/host-dd-$1"
	done
}

"$VM/mkinitramfs.sh" -o "$TMP/initrd.gz" -l "$LATHOUND_BIN" -r "$TOP/rules" \
	-s "$VM/scenarios/rtla.sh" -b "$RTLA" "${CAL_FILES[@]/#/-d}" ||
	die "cannot build the guest's initramfs"
mkdir -p "$TMP/kernel"
ln -s "$RTDIR/vmlinuz" "$TMP/kernel/bzImage"
KDIR=$TMP/kernel
load0=$(cut -d' ' -f1-3 /proc/loadavg)
host_calibrate before
# Four runs of S seconds (seven with EXTRA) and the tools' start and end; the protocol through
# the kernel log (tests/vm/guest/init says why).
runs=4
[ "${EXTRA:-1}" = 1 ] && runs=7
append="lhvm_kmsg=1 printk.time=0 printk.devkmsg=on"
# The calibration's guest time, generously: 10 ms of this host's CPU a pass of analyze
# and 1 us a byte of dd, 100 times slower.
cal_s=$((2 * (CAL_N * CAL_K + 3 * DD / 10000) + 60))
append="$append lhvm_rtla_s=$S lhvm_rtla_extra=${EXTRA:-1} lhvm_rtla_cal_k=$CAL_K"
append="$append lhvm_rtla_cal_n=$CAL_N lhvm_rtla_dd=$DD"
VM_MEM=512M VM_SCENARIO_TIMEOUT=$((runs * (S + 60) + 60 + cal_s)) VM_APPEND="$append" \
	vm_boot rtla smp2 "$TMP/initrd.gz" $((runs * (S + 60) + 360 + cal_s)) rtla ||
	die "the guest did not run its scenario (console: $TMP/rtla.log)"
host_calibrate after
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

# armed_split RUN: "USER SYSTEM" of the tool's CPU while timerlat ran (the window of
# armed RUN), each as a share of one CPU, in %; "- -" when the poller did not say them.
armed_split() {
	awk 'NF >= 4 { t[++n] = $1; u[n] = $3; s[n] = $4 }
		END {
			if (n < 2 || t[n] - t[1] < 1) { print "- -"; exit }
			printf "%.2f %.2f\n", (u[n] - u[1]) / (t[n] - t[1]),
			       (s[n] - s[1]) / (t[n] - t[1])
		}' "$d/$1.cpu" 2>/dev/null || echo "- -"
}

# cal_stat SCALE FILE...: "N TOTAL USER SYSTEM" of the calibration lines "RC USER SYSTEM"
# in FILEs, in seconds (the values divided by SCALE): how many, and the medians of user +
# system, of user and of system, each taken alone; "-" when one failed or none is there.
cal_stat() {
	local scale=$1
	shift
	cat "$@" 2>/dev/null | awk -v scale="$scale" '
		function median(a,	i, j, x) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					x = a[j]; a[j] = a[j - 1]; a[j - 1] = x
				}
			return a[int((n + 1) / 2)]
		}
		$1 != 0 { bad = 1; next }
		{ n++; t[n] = ($2 + $3) / scale; u[n] = $2 / scale; s[n] = $3 / scale }
		END {
			if (!n || bad) { print "-"; exit }
			printf "%d %.3f %.3f %.3f\n", n, median(t), median(u), median(s)
		}'
}

# ratio A B: A / B to two places, "-" when either is not a positive number.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }'
}

# field N STAT: the Nth value of a cal_stat line ("-" for a failed one).
field() {
	[ "$2" = - ] && { echo -; return; }
	cut -d' ' -f"$1" <<<"$2"
}

# calibration: prints the calibration's figures and sets SLOW (S: analyze, user + system),
# SLOW_USER (analyze's user time alone) and SLOW_SYS (dd's system time alone).
calibration() {
	local gb ga g hb ha h ddg ddh
	gb=$(cal_stat 100 "$d/cal-before") ga=$(cal_stat 100 "$d/cal-after")
	g=$(cal_stat 100 "$d/cal-before" "$d/cal-after")
	hb=$(cal_stat 1 "$TMP/host-cal-before") ha=$(cal_stat 1 "$TMP/host-cal-after")
	h=$(cal_stat 1 "$TMP/host-cal-before" "$TMP/host-cal-after")
	SLOW=$(ratio "$(field 2 "$g")" "$(field 2 "$h")")
	SLOW_USER=$(ratio "$(field 3 "$g")" "$(field 3 "$h")")
	echo "calibration: 'lathound analyze -j 1' over ${#CAL_FILES[@]} traces named $CAL_K" \
		"times, medians of user + system (user, system): guest $(field 2 "$g") s" \
		"($(field 3 "$g"), $(field 4 "$g"); before $(field 2 "$gb"), after $(field 2 "$ga"))," \
		"this host $(field 2 "$h") s ($(field 3 "$h"), $(field 4 "$h"); before" \
		"$(field 2 "$hb"), after $(field 2 "$ha")): S = $SLOW; user time alone S_user =" \
		"$SLOW_USER"
	ddg=$(cal_stat 100 "$d/dd-before" "$d/dd-after")
	ddh=$(cal_stat 1 "$TMP/host-dd-before" "$TMP/host-dd-after")
	SLOW_SYS=$(ratio "$(field 4 "$ddg")" "$(field 4 "$ddh")")
	echo "kernel code: busybox dd of $DD one-byte blocks (the same binary), medians: guest" \
		"$(field 2 "$ddg") s (user $(field 3 "$ddg"), system $(field 4 "$ddg")), this host" \
		"$(field 2 "$ddh") s (user $(field 3 "$ddh"), system $(field 4 "$ddh")): system" \
		"time alone S_sys = $SLOW_SYS"
	[ "$g" = - ] || [ "$h" = - ] || [ "$ddg" = - ] || [ "$ddh" = - ] &&
		echo "  the calibration failed or did not run (guest: $d/{cal,dd}-*, this host:" \
			"$TMP/host-{cal,dd}-*)"
	return 0
}

# host_eq SHARE: SHARE / S to two places, "-" without either.
host_eq() {
	awk -v p="$1" -v s="$SLOW" 'BEGIN {
		if (p != "-" && s + 0 > 0) printf "%.2f", p / s; else print "-" }'
}

# host_split USER SYSTEM: USER / S_user + SYSTEM / S_sys, "-" without them.
host_split() {
	awk -v u="$1" -v s="$2" -v su="$SLOW_USER" -v ss="$SLOW_SYS" 'BEGIN {
		if (u != "-" && s != "-" && su + 0 > 0 && ss + 0 > 0)
			printf "%.2f", u / su + s / ss
		else
			print "-" }'
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

# summary RUN GATED: its exit code, CPU shares (the guest's, and host-equivalent: / S) and
# losses; for a lathound run what it says it lost, and (GATED 1) whether its host-equivalent
# CPU share while timerlat ran is within 1 %.
summary() {
	local run=$1 tool rc cpu_s kl as ap hs hp au asy he hsp r said warned unpaired
	case $run in rtla*) tool=rtla ;; *) tool=lathound ;; esac
	rc=$(fact "$run.rc")
	cpu_s=$(awk -v t="$(fact "$run.cpu_ticks")" 'BEGIN { printf "%.2f", t / 100 }')
	kl=$(kernel_lost "$run")
	read -r as ap <<<"$(armed "$run")"
	read -r hs hp <<<"$(armed "$run" 0.5)"
	read -r au asy <<<"$(armed_split "$run")"
	echo "$run ($tool): exit $rc; CPU while timerlat ran $ap % of one CPU in the guest" \
		"(user $au, system $asy; $as s), host-equivalent $(host_eq "$ap") % (split" \
		"$(host_split "$au" "$asy") %); second half" \
		"$hp % ($(host_eq "$hp") %); over its whole run $cpu_s s in $(fact "$run.s") s =" \
		"$(share "$run") % ($(host_eq "$(share "$run")") %);" \
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
	he=$(host_eq "$ap") hsp=$(host_split "$au" "$asy")
	if [ "$he" = - ] || [ "$hsp" = - ]; then
		echo "  $run: no host-equivalent CPU share (guest share $ap %: user $au, system" \
			"$asy; S $SLOW, S_user $SLOW_USER, S_sys $SLOW_SYS)"
		fail=1
	elif ! awk -v p="$he" -v q="$hsp" 'BEGIN { exit !(p <= 1 && q <= 1) }'; then
		echo "  $run: lathound's host-equivalent CPU while timerlat ran is $he % (split" \
			"$hsp %), above 1 % of one CPU"
		fail=1
	fi
}

nproc_guest=$(fact nproc)
echo "Debian $(basename "$RTDIR") under QEMU TCG (plain, $nproc_guest CPUs), timerlat period" \
	"$(fact rtla-1.knobs | sed 's/.*timerlat_period_us=//') us, $S s per run," \
	"$(fact rtla-1.knobs | sed 's/ .*//;s/=/ /')"
echo "rtla $("$RTLA" --help 2>&1 | sed -n 's/^rtla version //p' | head -1) (Debian $(dpkg-query -W \
	-f='${Version}' rtla 2>/dev/null)), lathound $LATHOUND_BIN (bench:" \
	"$(git -C "$TOP" describe --always --dirty))"
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
calibration
[ "$SLOW" = - ] || [ "$SLOW_USER" = - ] || [ "$SLOW_SYS" = - ] && fail=1
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
