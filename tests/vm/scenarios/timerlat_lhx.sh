# SPDX-License-Identifier: GPL-2.0-only
# timerlat on the test kernel, where the culprits are known (issue 19): every spike broken
# into its parts and its cause named. lhx's fakeraid handler holds interrupts off 2000 us, 10
# times 103.1 ms apart, under 'record -t timerlat -T 1000us': each section starts 100 us later
# in timerlat's 1 ms period than the one before, so the ten meet the timer at ten phases
# across the period. (At 103 ms, a multiple of it, all ten met the timer at one phase, set by
# when the run began: at a bad one most of them failed at once, and in one CI run 1 of 10
# spikes linked its section.) Each section delays a timer by 1-2 ms, and the spike's parts
# name the interrupt (osnoise:irq_noise "fakeraid"). Then lhx's preempt-off hog, a kthread,
# the same way: the timer's interrupt comes in time, its thread cannot run; the spike charges
# the hog, with the stack of what ran when the timer fired (print_stack).
user_state
knobs knobs-before.txt

rec tlx record -t timerlat -T 1000us --hist all --keep 100 -o "$OUT/tlx" -r "$RULES" -- \
	lhx-inject fakeraid 2000 10 103100
knobs knobs-tlx.txt

rec tlp record -t timerlat -T 1000us --hist all --keep 100 -o "$OUT/tlp" -r "$RULES" -- \
	lhx-inject preempt 2000 10 103100
knobs knobs-tlp.txt

# SIGKILL while timerlat runs with the histograms' sections enabled in its instance: the
# kernel refuses to remove a synthetic event an instance has enabled (EBUSY), so reset must
# remove the killed run's instance before its histograms.
"$LH" record -t timerlat -T 1000us --hist all -o "$OUT/tlk" -r "$RULES" \
	>"$OUT/tlk.out" 2>"$OUT/tlk.err" &
pid=$!
i=0
while ! grep -qx timerlat $T/instances/lathound-noise-*/current_tracer 2>/dev/null &&
	[ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
fact tlk.watched "$(cat $T/instances/lathound-noise-*/events/synthetic/*/enable 2>/dev/null |
	grep -c 1)"
kill -KILL $pid
wait $pid
knobs knobs-tlk-killed.txt
rec tlkreset reset
knobs knobs-tlk-reset.txt
