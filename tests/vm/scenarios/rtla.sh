# SPDX-License-Identifier: GPL-2.0-only
# lathound beside its peer (issue 19, bench/vm-rtla.sh; in no make check list): on Debian's
# own PREEMPT_RT kernel, 2 CPUs, plain TCG, timerlat at its default 1 ms period for
# lhvm_rtla_s seconds (default 30) by 'rtla timerlat hist' (Debian's rtla) and by
# 'lathound record -t timerlat', alternated (rtla, lathound, rtla, lathound) so that the
# host's noise shows between runs of one tool. Per run NAME (rtla-1, lh-1, rtla-2, lh-2):
#   NAME.out, NAME.err   the tool's output (rtla's histograms are its stdout)
#   NAME/report.json     lathound's report
#   NAME.rb              what the kernel's ring buffer of the instance running timerlat
#                        said last while the tool ran (per_cpu/cpuN/stats, read every half
#                        second): "CPU OVERRUN COMMIT_OVERRUN DROPPED READ INSTANCE" a
#                        line
#   facts NAME.rc, NAME.cpu_ticks (the tool's user + system time in clock ticks over its
#   whole run, its own shell's cutime + cstime: the poller and this shell are not in it),
#   NAME.s (guest seconds), NAME.knobs (osnoise/cpus and timerlat_period_us before it)
#   NAME.cpu             "UPTIME TICKS" a line: the guest's uptime and the tool's CPU time
#                        (user + system, clock ticks) at each look while timerlat ran: its
#                        CPU while timerlat runs, its start and end left out; then its
#                        user and its system time apart
#   cal-before, cal-after  the calibration (bench/vm-rtla.sh says why), before the first
#                        run and after the last: "RC UTIME STIME" (clock ticks) a line, one
#                        line per 'lathound analyze' over the files of /opt/lathound/data
#                        named lhvm_rtla_cal_k times (lhvm_rtla_cal_n lines)
#   dd-before, dd-after  alike, busybox dd of lhvm_rtla_dd one-byte blocks from /dev/zero
#                        to /dev/null: two system calls a byte, little user code
# lhvm-program: /usr/bin/rtla

S=${lhvm_rtla_s:-30}
PERIOD=1000

step() {
	echo "<0>LHVM-STEP $1 $(cut -d' ' -f1 /proc/uptime)" >/dev/kmsg
}

# poll NAME: until $OUT/NAME.polling is removed, every half second while an instance runs
# timerlat: the ring-buffer stats of each of its CPUs into $OUT/NAME.rb (the last look kept
# once the instance is gone), and "UPTIME TICKS", the guest's uptime and the tool's CPU
# time (user + system, clock ticks) then, added to $OUT/NAME.cpu. Shell builtins but
# sleep: the poller is light beside the tools.
poll() {
	local i tr f cpu k v over commit drop rd lines pid st up
	while [ -e "$OUT/$1.polling" ]; do
		for i in $T/instances/*; do
			[ -r "$i/current_tracer" ] || continue
			read -r tr <"$i/current_tracer"
			[ "$tr" = timerlat ] || continue
			read -r up k </proc/uptime
			pid=
			[ -s "$OUT/$1.pid" ] && read -r pid <"$OUT/$1.pid"
			st=
			[ -n "$pid" ] && read -r st <"/proc/$pid/stat"
			lines=
			for f in "$i"/per_cpu/cpu*/stats; do
				# the instance going away: its last full look stands
				[ -r "$f" ] || { lines=; break; }
				cpu=${f%/stats}
				cpu=${cpu##*/cpu}
				over=- commit=- drop=- rd=-
				while IFS=: read -r k v; do
					case $k in
					overrun) over=${v# } ;;
					"commit overrun") commit=${v# } ;;
					"dropped events") drop=${v# } ;;
					"read events") rd=${v# } ;;
					esac
				done <"$f"
				lines="$lines$cpu $over $commit $drop $rd ${i##*/}
"
			done
			[ -n "$lines" ] && printf '%s' "$lines" >"$OUT/$1.rb"
			[ -n "$st" ] || continue
			# pid (comm) state ppid ... utime stime: fields 14 and 15 (the tools'
			# names have no space)
			set -- "$1" $st
			echo "$up $((${15} + ${16})) ${15} ${16}" >>"$OUT/$1.cpu"
		done
		sleep 0.5
	done
}

# tool NAME COMMAND...: runs COMMAND (stdout, stderr in NAME.out, NAME.err) from a shell of
# its own that says its exit code and its children's CPU time once it is done (on fd 3),
# with the poller beside it.
tool() {
	local name=$1 t0 t1 res
	shift
	step "$name"
	# (osnoise/cpus answers a read of one byte with EINVAL: cat, not read)
	fact "$name.knobs" \
		"cpus=$(cat $T/osnoise/cpus) timerlat_period_us=$(cat $T/osnoise/timerlat_period_us)"
	: >"$OUT/$name.polling"
	rm -f "$OUT/$name.pid" "$OUT/$name.cpu"
	poll "$name" &
	poller=$!
	t0=$(cut -d' ' -f1 /proc/uptime)
	sh -c 'pidf=$1
		shift
		"$@" &
		echo $! >"$pidf"
		wait $!
		rc=$?
		set -- $(sed "s/.*) //" /proc/$$/stat)
		# state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime
		# stime cutime cstime
		echo "$rc $((${14} + ${15}))" >&3' sh "$OUT/$name.pid" "$@" \
		</dev/null >"$OUT/$name.out" 2>"$OUT/$name.err" 3>"$OUT/$name.res"
	t1=$(cut -d' ' -f1 /proc/uptime)
	rm -f "$OUT/$name.polling"
	wait $poller
	read -r res <"$OUT/$name.res"
	fact "$name.rc" "${res%% *}"
	fact "$name.cpu_ticks" "${res#* }"
	fact "$name.s" "$(echo "$t1 $t0" | awk '{ printf "%.2f", $1 - $2 }')"
}

# times_of FILE COMMAND...: runs COMMAND from a shell of its own, adds "RC UTIME STIME" (its
# user and system time, clock ticks: that shell's cutime and cstime) to FILE.
times_of() {
	local file=$1
	shift
	sh -c '"$@" >/dev/null 2>&1
		rc=$?
		set -- $(sed "s/.*) //" /proc/$$/stat)
		echo "$rc ${14} ${15}"' sh "$@" >>"$file"
}

# calibrate WHEN: the calibration workloads, lhvm_rtla_cal_n and lhvm_rtla_dd_n times each,
# into $OUT/cal-WHEN and $OUT/dd-WHEN (the host runs the same, bench/vm-rtla.sh).
calibrate() {
	local i k when=$1
	[ -d /opt/lathound/data ] || return 0
	step "calibrate-$when"
	set --
	for k in $(seq "${lhvm_rtla_cal_k:-40}"); do
		set -- "$@" /opt/lathound/data/*
	done
	for i in $(seq "${lhvm_rtla_cal_n:-4}"); do
		times_of "$OUT/cal-$when" "$LH" analyze -j 1 -q -r "$RULES" --fail-on=none \
			--allow-unreadable -f json -o /tmp/cal.json "$@"
	done
	rm -f /tmp/cal.json
	for i in $(seq "${lhvm_rtla_dd_n:-3}"); do
		times_of "$OUT/dd-$when" dd if=/dev/zero of=/dev/null bs=1 \
			count="${lhvm_rtla_dd:-100000}"
	done
}

fact nproc "$(nproc)"
fact s "$S"
calibrate before
for k in 1 2; do
	tool "rtla-$k" rtla timerlat hist -d "$S" -p $PERIOD -b 1 -E 100000
	tool "lh-$k" "$LH" record -t timerlat -d "${S}s" --timerlat-period $PERIOD \
		-o "$OUT/lh-$k" -r "$RULES"
done
# With lhvm_rtla_extra=1, what lathound asks of the kernel that rtla's defaults do not, one
# at a time, after the four: lathound without its default in-kernel wakeup histogram (hist
# triggers on every RT wakeup, timerlat's threads' among them); rtla with print_stack set,
# as lathound sets it (-s: the kernel then saves a stack in every timer IRQ, after the IRQ
# sample and before the thread runs; no latency here reaches 1000000 us, so none prints);
# rtla with the osnoise events lathound reads enabled.
if [ "${lhvm_rtla_extra:-0}" = 1 ]; then
	tool lhnh-1 "$LH" record -t timerlat -d "${S}s" --timerlat-period $PERIOD --no-hist \
		-o "$OUT/lhnh-1" -r "$RULES"
	tool rtlast-1 rtla timerlat hist -d "$S" -p $PERIOD -b 1 -E 100000 -s 1000000
	tool rtlaos-1 rtla timerlat hist -d "$S" -p $PERIOD -b 1 -E 100000 -e osnoise
fi
calibrate after
rm -rf "$OUT"/lh*/snapshots "$OUT"/lh*/report.html "$OUT"/lh*/report.txt
step done
