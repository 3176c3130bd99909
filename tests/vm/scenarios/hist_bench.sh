# SPDX-License-Identifier: GPL-2.0-only
# Guest side of bench/vm-hist.sh (icount, 1 CPU): what the in-kernel histograms cost.
# (a) inflation: ten irqs-off sections of exactly 2000 us (lhx_irqs_hog) measured by the
#     bare irqsoff tracer, without histograms, then with each kind, then with all;
# (b) CPU: guest time (= instructions under icount) of 200,000 one-byte read+write syscall
#     pairs (dd), each of which disables interrupts on the way back to user space, without
#     and with histograms; and how many sections the histograms counted meanwhile.
cat >/tmp/measure.sh <<'EOS'
T=/sys/kernel/tracing
echo 0 >$T/options/function-trace
echo irqsoff >$T/current_tracer
for i in 1 2 3 4 5 6 7 8 9 10; do
	echo 0 >$T/tracing_max_latency
	echo "irqs 2000" >/sys/kernel/lhx/run
	# A builtin, not cat: an exec between the section and this read could be measured
	# too (on the SLOB kernel the suite used before, it kept interrupts off for ms).
	read -r max <$T/tracing_max_latency
	echo "$max"
done >$OUT/infl-$1.txt
echo nop >$T/current_tracer
t0=$(cut -d' ' -f1 /proc/uptime)
dd if=/dev/zero of=/dev/null bs=1 count=200000 2>/dev/null
t1=$(cut -d' ' -f1 /proc/uptime)
echo "$t0 $t1" | awk '{ printf "%.2f\n", $2 - $1 }' >$OUT/cpu-$1.txt
EOS
sh /tmp/measure.sh off
for k in irqsoff preemptoff wakeup irqsoff,preemptoff,wakeup; do
	name=$(echo $k | tr , +)
	"$LH" hist --kinds $k -- sh /tmp/measure.sh "$name" >hist-$name.out 2>hist-$name.err
	fact "$name.rc" $?
done
