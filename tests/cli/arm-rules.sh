#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The shipped ARM rules (rules/arm.rules) on real ARM snapshots: each fires on the published
# ARM snapshot its comment names, and no ARM rule fires on a snapshot of another architecture
# (published/expected.tsv says which is which) or on tests/data's x86 snapshots.
. "$(dirname "$0")/../lib.sh"

PUB=$DATA/published
# rule -> the published files (arm or arm64) it must fire on
declare -A FIRES=(
	[arm-firmware-call]="29-blog-jgsun-qcom-5.4-irqsoff-joined-dashes.trace"
	[arm-idle-firmware-suspend]="21-blog-cn-msm-arm64-4.4-irqsoff-func.trace"
	[arm-gic-irq]="09-linux-mmc-arm64-preemptoff-gmail-wrap.trace 14-blog-wowotech-arm-4.4-irqsoff-markdown-quote.trace 30-blog-jgsun-qcom-5.4-irqsoff-prompt-lines.trace"
	[arm-arch-timer]="09-linux-mmc-arm64-preemptoff-gmail-wrap.trace"
)

ids=$(sed -n 's/^\[\(.*\)\]$/\1/p' "$TOP/rules/arm.rules" | sort | paste -sd' ')
check "every rule of rules/arm.rules is checked here ($ids)" \
	test "$ids" = "$(printf '%s\n' "${!FIRES[@]}" | sort | paste -sd' ')"

# hits FILE: the ARM rules that fired on FILE's records, with the whole shipped library loaded
# as a user has it ("rule:records" sorted, space-separated).
hits() {
	"${LATHOUND_RUN[@]}" analyze -r "$TOP/rules" -f json "$1" 2>/dev/null |
		jq -r '[.records[].rules[] | select(startswith("arm-"))] | group_by(.) |
			map("\(.[0]):\(length)") | join(" ")'
}

for id in "${!FIRES[@]}"; do
	for f in ${FIRES[$id]}; do
		arch=$(awk -F'\t' -v f="$f" '$1 == f { print $18; exit }' "$PUB/expected.tsv")
		h=$(hits "$PUB/$f")
		check "[$id] fires on $f ($arch; ARM rules hit: ${h:-none})" \
			grep -qE "(^| )$id:[0-9]+" <<<"$h"
	done
done

# Every other architecture's snapshot, and tests/data's (x86 guests, the kernel documentation's
# x86 examples, hand-made x86 layouts): no ARM rule.
n=0 wrong=
while read -r f; do
	h=$(hits "$PUB/$f")
	[ -n "$h" ] && wrong+=" $f($h)"
	n=$((n + 1))
done < <(awk -F'\t' 'NR > 1 && $18 != "arm" && $18 != "arm64" { print $1 }' \
	 "$PUB/expected.tsv" | sort -u)
for f in "$DATA"/*.trace; do
	h=$(hits "$f")
	[ -n "$h" ] && wrong+=" $(basename "$f")($h)"
	n=$((n + 1))
done
check "no ARM rule fires on the $n traces of other architectures${wrong:+:$wrong}" \
	test -z "$wrong" -a "$n" -gt 40
finish
