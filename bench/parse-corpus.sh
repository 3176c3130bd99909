#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Writes a benchmark corpus of concatenated latency snapshots to OUT, SIZE_MB megabytes
# (default 220), deterministically: the same arguments give the same bytes.
#
#   bench/parse-corpus.sh OUT [SIZE_MB]
#
# The snapshots are variants of the real ones in tests/data: ~75% of the bytes with
# function-trace on (6.1 and 3.x latency layouts), ~20% display-graph, the rest function-trace
# off (irqsoff, preemptoff, irq events, wakeup_rt, wakeup_dl). Each variant has its own task
# pid and renames a share of the functions; each snapshot gets its own latency. Elided
# "[...]" lines of the documentation samples are dropped, so the corpus has no bad lines.
set -e
out=$1
size=${2:-220}
if [ -z "$out" ]; then
	echo "usage: $0 OUT [SIZE_MB]" >&2
	exit 1
fi
case $size in
''|*[!0-9]*) echo "$0: SIZE_MB must be a whole number, not '$size'" >&2; exit 1 ;;
esac
data=$(cd "$(dirname "$0")/../tests/data" && pwd)

# weight (per 100 snapshots) and template
set -- \
	36 "$data/pidt-preemptirqsoff-func.trace" \
	4 "$data/ftrace-rst-irqsoff-func.trace" \
	4 "$data/ftrace-rst-preemptoff-func.trace" \
	4 "$data/ftrace-rst-preemptirqsoff-func.trace" \
	4 "$data/ftrace-rst-wakeup_rt-func.trace" \
	8 "$data/pidt-irqsoff-graph.trace" \
	8 "$data/pidt-irqsoff-nofunc.trace" \
	8 "$data/pidt-preemptoff-nofunc.trace" \
	8 "$data/handmade-irq-events.trace" \
	8 "$data/handmade-wakeup_rt-6.1.trace" \
	8 "$data/handmade-wakeup_dl.trace"
weights=
files=
while [ $# -gt 0 ]; do
	weights="$weights $1"
	files="$files $2"
	shift 2
done

# shellcheck disable=SC2086
LC_ALL=C awk -v size_mb="$size" -v weights="$weights" '
function rnd() {
	seed = (seed * 69069 + 1) % 4294967296
	return int(seed / 65536)
}
FNR == 1 { nt++ }
$0 == "[...]" { next }
{ tl[nt, ++tn[nt]] = $0 }
END {
	seed = 20261129
	nw = split(weights, w, " ")
	for (i = 1; i <= nw; i++)
		for (j = 0; j < w[i]; j++)
			pick[npick++] = i
	variants = 96
	for (v = 0; v < variants; v++)
		make_variant(v, pick[rnd() % npick])
	limit = size_mb * 1048576
	total = 0
	while (total < limit) {
		v = rnd() % variants
		lat = vlat[v] + rnd() % (int(vlat[v] / 4) + 1)
		h = vhdr[v]
		sub(/@LAT@/, lat, h)
		printf "%s%s", h, vbody[v]
		total += length(h) + length(vbody[v])
	}
}
function make_variant(v, t,    i, line, pid, npid, hdr, body, inbody, name, suffix, r, m) {
	pid = ""
	npid = 100 + rnd() % 32000
	suffix = ".part." (v % 7)
	r = rnd() % 3
	hdr = body = ""
	inbody = 0
	for (i = 1; i <= tn[t]; i++) {
		line = tl[t, i]
		if (!inbody && substr(line, 1, 1) != "#")
			inbody = 1
		if (!inbody) {
			if (line ~ /^# latency: [0-9]+ us/) {
				m = line
				sub(/^# latency: /, "", m)
				sub(/ us.*/, "", m)
				vlat[v] = m + 0
				sub(/^# latency: [0-9]+/, "# latency: @LAT@", line)
			} else if (line ~ /\| task: .*-[0-9]+ \(/) {
				pid = line
				sub(/ \(.*/, "", pid)
				sub(/.*-/, "", pid)
				sub("-" pid " \\(", "-" npid " (", line)
			}
			hdr = hdr line "\n"
			continue
		}
		if (pid != "")
			gsub("-" pid " ", "-" npid " ", line)
		# rename a third of the traced functions (by name length), per variant
		if (match(line, /: [A-Za-z_][A-Za-z0-9_.]* <-/)) {
			name = substr(line, RSTART + 2, RLENGTH - 5)
			if (length(name) % 3 == r)
				line = substr(line, 1, RSTART + 1) name suffix substr(line, RSTART + RLENGTH - 3)
		} else if (match(line, /\|  *[A-Za-z_][A-Za-z0-9_.]*\(\)/)) {
			name = substr(line, RSTART, RLENGTH - 2)
			sub(/^\| */, "", name)
			if (length(name) % 3 == r)
				sub(name "\\(\\)", name suffix "()", line)
		}
		body = body line "\n"
	}
	vhdr[v] = hdr
	vbody[v] = body
	if (vlat[v] == "")
		vlat[v] = 100
}
' $files >"$out"
