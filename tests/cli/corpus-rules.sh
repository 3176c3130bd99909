#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The shipped rules written for real offenders (rules/arm.rules, rules/net.rules, and
# blk-io-completion of rules/storage.rules) on the corpus: each fires on the record of the
# snapshot its comment names, and on no other record of any trace of tests/data or
# tests/data/published, with the whole shipped library loaded as a user has it.
. "$(dirname "$0")/../lib.sh"

PUB=$DATA/published
# rule -> every record of the corpus it fires on, as its report names it (.source, the file
# under tests/data and the line of the snapshot's header). A record beyond the snapshot the
# rule's comment names is listed with its reason.
declare -A FIRES=(
	[arm-firmware-call]="published/29-blog-jgsun-qcom-5.4-irqsoff-joined-dashes.trace:6"
	[arm-idle-firmware-suspend]="published/21-blog-cn-msm-arm64-4.4-irqsoff-func.trace:8"
	# and published/14: started at __irq_svc, 32-bit ARM's interrupt entry from kernel mode
	[arm-gic-irq]="published/09-linux-mmc-arm64-preemptoff-gmail-wrap.trace:297
		published/14-blog-wowotech-arm-4.4-irqsoff-markdown-quote.trace:95
		published/30-blog-jgsun-qcom-5.4-irqsoff-prompt-lines.trace:8"
	[arm-arch-timer]="published/09-linux-mmc-arm64-preemptoff-gmail-wrap.trace:297"
	[net-softirq]="published/20-book-embedded-linux-yocto-3.14-preemptoff.trace:16"
	[net-driver-irqs-off]="published/03-lkml-r8169-wakeup_RT-qp.trace:33"
	[blk-io-completion]="published/09-linux-mmc-arm64-preemptoff-gmail-wrap.trace:44"
)

ids=$({ sed -n 's/^\[\(.*\)\]$/\1/p' "$TOP/rules/arm.rules" "$TOP/rules/net.rules"
	echo blk-io-completion; } | sort | paste -sd' ')
check "every rule of arm.rules and net.rules, and blk-io-completion, is checked here ($ids)" \
	test "$ids" = "$(printf '%s\n' "${!FIRES[@]}" | sort | paste -sd' ')"

# Every record that any rule fired on, over the corpus: rule, source, tracer, latency and task,
# tab-separated, a line each.
n=0 reports=0
for f in "$DATA"/*.trace "$DATA"/*.dat "$PUB"/*.trace; do
	n=$((n + 1))
	"${LATHOUND_RUN[@]}" analyze -q --allow-unreadable -r "$TOP/rules" -f json "$f" \
		>"$TMP/report.json" 2>/dev/null
	jq -e .records "$TMP/report.json" >/dev/null 2>&1 && reports=$((reports + 1))
	jq -r --arg d "$DATA/" '.records[] | . as $r | .rules[] |
		[., ($r.source | ltrimstr($d)), $r.tracer, "\($r.latency_us) us", $r.task.comm] | @tsv' \
		"$TMP/report.json" 2>/dev/null
done >"$TMP/hits"
check "each of the $n corpus traces gave a JSON report ($reports)" \
	test "$reports" = "$n" -a "$n" -gt 60

for id in "${!FIRES[@]}"; do
	want=
	for rec in ${FIRES[$id]}; do
		want+=" $rec"
		f=${rec#published/}
		arch=$(awk -F'\t' -v f="${f%:*}" '$1 == f { print $18; exit }' "$PUB/expected.tsv")
		hit=$(awk -F'\t' -v id="$id" -v rec="$rec" '$1 == id && $2 == rec { print $3, $4, $5 }' \
		      "$TMP/hits")
		check "[$id] fires on $rec (${arch:-tests/data}; ${hit:-no such hit})" test -n "$hit"
	done
	# the records it fired on and no list names
	wrong=$(awk -F'\t' -v id="$id" -v want="$want " \
		'$1 == id && index(want, " " $2 " ") == 0 { printf " %s(%s %s %s)", $2, $3, $4, $5 }' \
		"$TMP/hits")
	check "[$id] fires on no other record of the $n corpus traces${wrong:+:$wrong}" \
		test -z "$wrong"
done
finish
