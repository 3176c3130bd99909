# SPDX-License-Identifier: GPL-2.0-only
# An overnight soak in guest time (boot mode soak: -icount shift=1,sleep=off, idle skipped):
# 'lathound record -d SECONDS' left alone, but for a fakeraid interrupt handler that keeps
# interrupts off (the lhx driver) every PERIOD seconds. Injection k lasts 2500 + 10 k us:
# each one is longer than every one before, so that every injection made while irqsoff is
# armed is a section lathound must capture, in running-maximum mode too (one no longer than
# the worst so far is, by design, not a capture there), and each capture names its
# injection by the handler's duration.
#
# Ground truth is the kernel's own state, read around each injection: current_tracer (and
# tracing_on, 0 while lathound switches tracers or reads a snapshot: blind) MARGIN seconds
# before it (a), just before (b), just after (c) and MARGIN seconds after (d). The host
# (tests/vm/lib-vm.sh: vm_soak_figures) counts an injection made while irqsoff was armed
# when b and c name irqsoff, and demands its capture when a and d do too (not within MARGIN
# of a slice's switch). Lines of 'injections': k us t b a c d, each state TRACER:TRACING_ON.
# Around an injection the guest runs shell builtins only (no fork, no exec: their sections
# would be the new maxima of a tracer armed from zero, right where the injection comes).
#
# The kernel command line sets the soak: lhvm_soak=SECONDS:PERIOD:FIRST:MODE, the first
# injection FIRST seconds after the start, then one every PERIOD; MODE max (three tracers in
# 60 s slices, running maxima), thresh (the same with -T 1ms) or single (irqsoff alone,
# running maxima). The default is make check's short soak (tests/vm/run); bench/vm-soak.sh
# runs 12 guest hours per mode.
IFS=: read -r dur period first mode <<EOF
${lhvm_soak:-1800:29:20:max}
EOF
margin=1
case $mode in
max) args="-t irqsoff,preemptoff,wakeup_rt --slice 60s" ;;
thresh) args="-t irqsoff,preemptoff,wakeup_rt -T 1ms --slice 60s" ;;
single) args="-t irqsoff" ;;
*) echo "soak: unknown mode '$mode'" >&2; exit 1 ;;
esac
fact soak.mode "$mode"
fact soak.duration "$dur"
fact soak.period "$period"
fact soak.margin "$margin"
fact soak.args "$args"

# Times are centiseconds of /proc/uptime, read and waited for with builtins: 'read -t' on a
# FIFO nobody writes to is a sleep without a fork.
mkfifo /tmp/soak.fifo
exec 3<>/tmp/soak.fifo
# now: sets $now, centiseconds since boot (without leading zeros: in the first second
# "0.05" would make 005, an octal number to $((...)), and 0.08 none at all).
now() {
	local u
	read -r u _ </proc/uptime
	now=${u%.*}${u#*.}
	now=${now#0}
	now=${now#0}
}
# sleep_until CS
sleep_until() {
	local d cc
	now
	d=$(($1 - now))
	[ $d -gt 0 ] || return 0
	cc=$((d % 100))
	[ $cc -lt 10 ] && cc=0$cc
	read -t "$((d / 100)).$cc" _ <&3
	return 0
}
# state VAR: VAR=current_tracer:tracing_on
state() {
	local tr on
	read -r tr <$T/current_tracer
	read -r on <$T/tracing_on
	eval "$1=\$tr:\$on"
}

# sample NAME: lathound's CPU time (s) and RSS (kB) now.
sample() {
	local name=$1 stat
	stat=$(sed 's/.*) //' /proc/$pid/stat 2>/dev/null) || return
	# state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
	set -- $stat
	now
	fact "$name.at" $(((now - t0) / 100))
	fact "$name.cpu_s" "$(awk -v u="${12}" -v s="${13}" \
		'BEGIN { printf "%.2f", (u + s) / 100 }')"
	fact "$name.rss_kb" "$(sed -n 's/^VmRSS:[^0-9]*\([0-9]*\).*/\1/p' /proc/$pid/status)"
	fact "$name.hwm_kb" "$(sed -n 's/^VmHWM:[^0-9]*\([0-9]*\).*/\1/p' /proc/$pid/status)"
}

"$LH" record $args -d "${dur}s" -o "$OUT/soak" -r "$RULES" >"$OUT/soak.out" \
	2>"$OUT/soak.err" &
pid=$!
now
t0=$now
n=0
while [ "$(cat $T/current_tracer)" = nop ] && [ $n -lt 200 ]; do
	sleep 0.1
	n=$((n + 1))
done

# lathound's CPU and RSS every guest hour, and 10 s before the end.
(
	h=1
	while [ $((h * 3600)) -lt "$dur" ]; do
		sleep_until $((t0 + h * 360000))
		sample "h$h"
		h=$((h + 1))
	done
	sleep_until $((t0 + (dur - 10) * 100))
	sample end
) &
sampler=$!

k=0
m=$((margin * 100))
while :; do
	t=$((t0 + (first + k * period) * 100))
	[ $((t + m + 500)) -lt $((t0 + dur * 100)) ] || break
	us=$((2500 + 10 * k))
	sleep_until $((t - m))
	state a
	sleep_until $t
	state b
	now
	inject fakeraid $us
	state c
	sleep_until $((t + m))
	state d
	echo "$k $us $(((now - t0) / 100)) $b $a $c $d" >>"$OUT/injections"
	k=$((k + 1))
done
fact soak.injections $k
fact soak.sections "$(cat $LHX/sections)"

wait $pid
fact soak.rc $?
wait $sampler
now
fact soak.s $(((now - t0) / 100))
fact soak.out_kb "$(du -sk "$OUT/soak" | cut -f1)"
fact soak.snapshots "$(ls "$OUT/soak/snapshots" 2>/dev/null | wc -l)"
# The report is what the host reads; the raw snapshots would only slow the console down.
rm -rf "$OUT/soak/snapshots"
