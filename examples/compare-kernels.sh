#!/bin/bash
# Compare the worst case per tracer of two lathound JSON reports (e.g. two kernels soaked
# on the same board) and fail when the new one grew by more than 10 %.
# usage: compare-kernels.sh old/report.json new/report.json
set -eu
old=$1 new=$2
# Not a pipeline into the loop: that loop would run in a subshell, and its grew=1 be lost.
rows=$(jq -n --slurpfile a "$old" --slurpfile b "$new" -r '
  ($a[0].tracers | keys) + ($b[0].tracers | keys) | unique[] as $t
  | [$t, ($a[0].tracers[$t].max_us // 0), ($b[0].tracers[$t].max_us // 0)]
  | @tsv')
while IFS=$'\t' read -r t o n; do
	pct=$(( o > 0 ? (n - o) * 100 / o : 0 ))
	printf '%-16s %8s us -> %8s us  (%+d %%)\n' "$t" "$o" "$n" "$pct"
	[ "$pct" -le 10 ] || grew=1
done <<<"$rows"
[ -z "${grew:-}" ]
