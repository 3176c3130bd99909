# SPDX-License-Identifier: GPL-2.0-only
# awk -f wakeup-whole.awk SNAPSHOT...: of wakeup tracer snapshots (text of 'trace', one a
# file), how many are one section whole; prints "whole/all". Whole: the body has its wake-up
# line ('+') and its switch line ('==>'), both name the header's task, and the header's
# latency is the switch's time (relative to the wake-up) plus what the kernel spends before
# it reads its clock (the switch's stack trace: 6 us on Debian's RT kernel under -icount),
# give or take the microsecond the two are rounded to. A snapshot torn between two sections
# of different tasks or latencies has one's header and the other's body; one without its
# wake-up or switch lost part of its section.
function judge() {
	all++
	if (lat != "" && sw != "" && lat - sw >= -1 && lat - sw <= 20 &&
	    task != "" && woke == task && switched == task)
		whole++
}
FNR == 1 { if (NR > 1) judge(); lat = sw = task = woke = switched = "" }
/^# latency: [0-9]+ us/ { lat = $3 }
/^#    \| task: / { task = $4; sub(/-[0-9]+$/, "", task) }
/ \+ \[[0-9]+\] / && woke == "" { woke = $NF }
/ ==> \[[0-9]+\] / {
	switched = $NF
	for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+us/) { sw = $i + 0; break }
}
END { if (NR) judge(); print whole + 0 "/" all + 0 }
