# SPDX-License-Identifier: GPL-2.0-only
# timerlat and osnoise on Debian's own PREEMPT_RT kernel (tests/vm/rt/run, 2 CPUs, plain
# TCG): the culprit is lhspin, a SCHED_FIFO 99 task pinned to CPU 1 spinning a few ms every
# PERIOD ms, above timerlat's threads. The host asserts on the reports: the spinner named as
# the blocking task of its spikes and as the top noise source of CPU 1 (counted in the
# kernel), a rule on it fired, the osnoise knobs given back after a normal end, SIGTERM,
# SIGKILL + reset (timerlat, and osnoise with its hist triggers); hwlat's samples (TCG's gaps
# are its "hardware" noise) alone and in slices beside timerlat, tracing_thresh and
# hwlat_detector/* as found on every exit path; a tracer another user holds refused with
# EBUSY.
# lhvm-program: lhspin

PERIOD=100
# timerlat's spinner runs every 103 ms, not a multiple of timerlat's 10 ms period: its
# wake-ups then fall at ten phases of that period in turn. At a multiple, the phase is set
# once by when lathound started it, and a phase near 0 has the spinner woken by the timer's
# own interrupt in every spin, so that interrupt never finds it running (one CI run: 105 of
# 121 spikes, the check on spike.blocking then had 16 to judge).
TL_PERIOD=103
# timerlat's spins are two of its 10 ms periods long: each covers one expiry at least 10 ms
# before its end, so every spin makes one spike well over -T whatever the host's load does to
# the guest's clock (at 8 ms, 3 in 8 of the spins that cover an expiry fall under 3 ms, and a
# stalled vCPU turns more of them into spikes that begin before the spin). osnoise's are 8 ms:
# its availability check asks for the spinner's share.
TL_SPIN=20
OS_SPIN=8

# step NAME: progress on the console (the kernel log, as the protocol: tests/vm/guest/init),
# with the guest's uptime: a hang shows where.
step() {
	echo "<0>LHVM-STEP $1 $(cut -d' ' -f1 /proc/uptime)" >/dev/kmsg
}

cat >"$OUT/spin.rules" <<'RULES'
# The scenario's own culprit, as a user would name a known offender.
[lhspin-blocks-timer]
match    = ^lhspin-[0-9]+$
in       = task
tracer   = timerlat osnoise
severity = warning
message  = the test's SCHED_FIFO 99 spinner kept the timer thread from running

# The same offender named as the task the timer interrupted.
[lhspin-blocking]
match    = ^lhspin-[0-9]+$
in       = blocking
tracer   = timerlat
severity = info
message  = the timer fired while the test's spinner ran
RULES

# A user's settings, not the defaults: a restore to defaults would be caught. The top-level
# buffer expanded as any first use of tracing does (enabling an event), as user_state() does.
echo 2000 >$T/osnoise/timerlat_period_us
echo 0 >$T/osnoise/print_stack
echo 1408 >$T/buffer_size_kb
# hwlat's own, not its defaults (500 ms of every 1 s with interrupts off): width first, it
# must stay within the window.
echo 100000 >$T/hwlat_detector/width
echo 300000 >$T/hwlat_detector/window
knobs knobs-before.txt

step doctor
rec doctor doctor

# timerlat on CPU 1: every thread latency over 3 ms, while the spinner runs 120 times there
# (a margin over the 20 spikes the host asks for).
# Under TCG a timer cycle costs far more than on hardware: a 10 ms period (one timer per
# spin at most) and CPU 0 left to lathound keep the guest responsive.
step timerlat
rec tl record -t timerlat -T 3ms --timerlat-period 10000 --noise-cpus 1 --keep 1000 -o "$OUT/tl" \
	-r "$RULES" -r "$OUT/spin.rules" -- /usr/bin/lhspin 1 $TL_SPIN $TL_PERIOD 120
knobs knobs-tl.txt

# osnoise on CPU 1: its noise by source, the spinner running all along (osnoise's periods
# are 1 s: the record lasts 4 of them).
step osnoise
/usr/bin/lhspin 1 $OS_SPIN $PERIOD 70 >"$OUT/spin-os.out" 2>&1 &
spin=$!
rec os record -t osnoise --noise-cpus 1 -d 5s -o "$OUT/os" --metrics "$OUT/os.prom" \
	-r "$RULES" -r "$OUT/spin.rules"
wait $spin
knobs knobs-os.txt

# hwlat on both CPUs, round-robin (one 100 ms width in each 300 ms window): a vCPU the host
# deschedules inside a width is a gap over tracing_thresh, as an SMI would be.
step hwlat
rec hw record -t hwlat -d 6s -o "$OUT/hw" -r "$RULES"
knobs knobs-hw.txt

# hwlat and timerlat take turns in the instance, slice by slice.
step hwlat_tl
rec hwtl record -t hwlat,timerlat --slice 2s -d 8s --timerlat-period 10000 --noise-cpus 1 \
	-o "$OUT/hwtl" -r "$RULES"
knobs knobs-hwtl.txt

# start NAME TRACER [ARGS...]: a background run of TRACER; waits until its instance runs it
# and, for osnoise, until its noise sources' hist triggers are set.
start() {
	local name=$1 tracer=$2 i=0
	local trig=$T/instances/lathound-noise-*/events/osnoise/thread_noise/trigger
	step "$name"
	shift 2
	"$LH" record -t "$tracer" "$@" -o "$OUT/$name" -r "$RULES" >"$OUT/$name.out" \
		2>"$OUT/$name.err" &
	pid=$!
	while ! { grep -qs "$tracer" $T/instances/lathound-noise-*/current_tracer &&
		{ [ "$tracer" != osnoise ] ||
		  grep -qs '^hist' $trig; }; } &&
		[ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	fact "$name.armed" "$(cat $T/instances/lathound-noise-*/current_tracer 2>/dev/null)"
	fact "$name.period_running" "$(cat $T/osnoise/timerlat_period_us)"
	fact "$name.thresh_running" "$(cat $T/tracing_thresh)"
	fact "$name.triggers" "$(cat $T/instances/lathound-noise-*/events/osnoise/*_noise/trigger 2>/dev/null |
		grep -c '^hist')"
	sleep 1
	# the kernel's own text of the sources' histograms, for tests/data/hist/
	[ "$tracer" != osnoise ] ||
		cat $T/instances/lathound-noise-*/events/osnoise/*_noise/hist >"$OUT/$name.hist" 2>&1
}

start term timerlat --timerlat-period 20000
kill -TERM $pid
wait $pid
fact term.rc $?
knobs knobs-term.txt

start kill timerlat --timerlat-period 20000
kill -KILL $pid
wait $pid
fact killed.period "$(cat $T/osnoise/timerlat_period_us)"
rec reset reset
knobs knobs-reset.txt

# hwlat raises tracing_thresh from 0 to its own default while it runs, gives it back when its
# tracer is cleared, and keeps the value it read then as its next default: after a normal
# end, SIGTERM and SIGKILL + reset it reads 0 again, and the next hwlat runs at 10 us again.
start hwterm hwlat
kill -TERM $pid
wait $pid
fact hwterm.rc $?
knobs knobs-hwterm.txt

start hwkill hwlat
kill -KILL $pid
wait $pid
fact hwkilled.thresh "$(cat $T/tracing_thresh)"
rec hwreset reset
knobs knobs-hwreset.txt
start hwafter hwlat
kill -TERM $pid
wait $pid

# osnoise killed with its noise sources' hist triggers set: reset removes them with the
# instance.
start oskill osnoise
kill -KILL $pid
wait $pid
rec osreset reset
knobs knobs-osreset.txt

step busy
# Another user runs osnoise (rtla osnoise, in an instance of its own): timerlat is refused
# with EBUSY. (6.1 lets several instances run timerlat at once, with the same knobs.)
mkdir $T/instances/other
echo osnoise >$T/instances/other/current_tracer
rec busy record -t timerlat -d 2s -o "$OUT/busy" -r "$RULES"
echo nop >$T/instances/other/current_tracer
rmdir $T/instances/other
knobs knobs-busy.txt

# The serial console carries the outputs back: the reports are what the host reads.
rm -rf "$OUT"/*/snapshots "$OUT"/*/report.html "$OUT"/*/report.txt
step done
