# SPDX-License-Identifier: GPL-2.0-only
# With --threshold every section above it is a capture: 20 fakeraid sections of 2000 us at
# 10 per second must give (at least) 19 records. Under -icount such sections are alike to
# the byte; threshold_step makes each 5 us longer than the one before, as real ones differ.
rec threshold record -t irqsoff -T 1ms -o "$OUT/threshold" -r "$RULES" -- \
	lhx-inject fakeraid 2000 20 100000
rec threshold_step record -t irqsoff -T 1ms -o "$OUT/threshold_step" -r "$RULES" -- \
	lhx-inject fakeraid 2000 20 100000 -1 5
fact sections "$(cat $LHX/sections)"
