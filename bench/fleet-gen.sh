#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A generated fleet for 'lathound merge' (bench/fleet-merge.sh, tests/cli/merge.sh): N
# report.json files in DIR, made from real reports. The templates are 'lathound analyze'
# reports of every trace of tests/data/published (each board hits other culprits) and of
# tests/data/pidt-irqsoff-nofunc.trace with its latency set to other values; report i is
# template i % TEMPLATES with board "board-(i % HOSTS)" and the kernel its snapshots name
# suffixed "-v(i / HOSTS % 3)": HOSTS boards, three kernels each, the values of the templates.
# Usage: bench/fleet-gen.sh N DIR [HOSTS]   (HOSTS default 100)
set -e
cd "$(dirname "$0")/.."
N=$1
DIR=$2
HOSTS=${3:-100}
LATHOUND=${LATHOUND:-./lathound}
if [ -z "$N" ] || [ -z "$DIR" ]; then
	echo "usage: bench/fleet-gen.sh N DIR [HOSTS]" >&2
	exit 1
fi
mkdir -p "$DIR/templates"
T=$DIR/templates

# template FILE TRACE: an analyze report with one record kept (the kernel's name), unless
# its verdict is error (a trace it cannot read in full makes no template).
template() {
	"$LATHOUND" analyze -q --keep 1 -f json -o "$1" "$2" || [ $? -eq 2 ]
	[ "$(jq -r .verdict "$1")" != error ] || rm -f "$1"
}
k=0
for f in tests/data/published/*.trace; do
	template "$T/$k.json" "$f" || true
	k=$((k + 1))
done
for us in 150 900 2500 4000 7000; do
	sed "s/latency: 2002 us/latency: $us us/; s/ 2002us : / ${us}us : /" \
		tests/data/pidt-irqsoff-nofunc.trace >"$T/irqsoff-$us.trace"
	template "$T/irqsoff-$us.json" "$T/irqsoff-$us.trace"
	rm -f "$T/irqsoff-$us.trace"
done

# One awk for all N copies: a process per report would take longer than the merge.
awk -v n="$N" -v hosts="$HOSTS" -v dir="$DIR" '
	FNR == 1 { t++ }
	{ line[t, FNR] = $0; len[t] = FNR }
	END {
		for (i = 0; i < n; i++) {
			k = i % t + 1
			out = sprintf("%s/r%05d.json", dir, i)
			for (j = 1; j <= len[k]; j++) {
				s = line[k, j]
				if (s ~ /^  "board": /)
					sub(/"board": .*,$/, "\"board\": \"board-" i % hosts "\",", s)
				else if (s ~ /"kernel": "/)
					sub(/"kernel": "[^"]*/, "&-v" int(i / hosts) % 3, s)
				print s >out
			}
			close(out)
		}
	}' "$T"/*.json
echo "$N reports of $HOSTS boards from $(ls "$T"/*.json | wc -l) templates in $DIR"
