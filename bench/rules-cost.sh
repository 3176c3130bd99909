#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What rules cost at the edges, on the first 1000 snapshots of the bench corpus:
#   1. 7 backtracking rules (nested quantifiers that fail on kernel symbols after an
#      exponential search, so PCRE2's limits stop them): analyze time, and which rules
#      lathound reports as not evaluated;
#   2. many literal rules (N plain kernel-like names, in = functions stack): analyze time
#      for each N, to show the cost grows linearly with N.
# Usage: bench/rules-cost.sh [N...]   (default 1000 20000 40000 60000 80000 100000);
# LATHOUND=PATH measures another build.
# Work files go to bench/out/ (not committed). Runs under the heavy lock (it measures time).
set -e
cd "$(dirname "$0")/.."
OUT=bench/out
mkdir -p "$OUT"
LATHOUND=${LATHOUND:-./lathound}
[ "$LATHOUND" != ./lathound ] || [ -x ./lathound ] || make -s lathound
[ $# -gt 0 ] || set -- 1000 20000 40000 60000 80000 100000
big=$OUT/corpus-220M.trace
[ -s "$big" ] || bench/parse-corpus.sh "$big" 220
corpus=$OUT/corpus-1k.trace
[ -s "$corpus" ] || LC_ALL=C awk '/^# tracer:/ && ++n > 1000 { exit } { print }' "$big" >"$corpus"

# wall-clock seconds of one run of a command (exit 1 or 2 allowed: limits, gates)
secs() {
	local s e
	s=$(date +%s.%N)
	"$@" >"$OUT/last.out" 2>"$OUT/last.err" || [ $? -le 2 ]
	e=$(date +%s.%N)
	echo "$e - $s" | bc -l
}

bt=$OUT/backtrack.rules
cat >"$bt" <<'RULES'
# Nested quantifiers with no required literal: each fails on a kernel symbol only after an
# exponential search, unless PCRE2's match, depth or heap limit stops it.
[bt-1]
match = ^(\w+)+[^\w\s]$
[bt-2]
match = ^([a-z_]+)*[0-9]{3}$
[bt-3]
match = ^(_?[a-z0-9]+)+\W{2}$
[bt-4]
match = ^(?:[a-z]+_?)+[A-Z]$
[bt-5]
match = ^(\w|[a-z])+[^\w+]{2}$
[bt-6]
match = ^((\w)+\w?)+\s\S$
[bt-7]
match = ^([^+/]+)+[+/]{2}$
RULES

cat "$corpus" >/dev/null
echo "corpus: $corpus ($(stat -c %s "$corpus") bytes, $(grep -c '^# tracer:' "$corpus") snapshots)"
printf '7 backtracking rules      : %7.2f s\n' "$(secs "$LATHOUND" analyze --format json -r "$bt" "$corpus")"
grep -o "rule 'bt-[0-9]*'[^;(]*" "$OUT/last.err" | sort | uniq -c | sed 's/^/    /' || true
for n in "$@"; do
	f=$OUT/literal-$n.rules
	[ -s "$f" ] || LC_ALL=C awk -v n="$n" 'BEGIN {
		srand(7)
		nc = split("b d f g k l m n p r s t v z qu tr kr sk", c, " ")
		nv = split("a e i o u ar ex ov", v, " ")
		for (r = 1; r <= n; r++) {
			s = ""
			for (k = 0; k < 3 + int(rand() * 3); k++)
				s = s c[1 + int(rand() * nc)] v[1 + int(rand() * nv)]
			printf "[lit-%06d]\nmatch = %s_%d\nin = functions stack\n\n", r, s, r
		}
	}' >"$f"
	printf '%6d literal rules      : %7.2f s\n' "$n" "$(secs "$LATHOUND" analyze -q --format json -r "$f" "$corpus")"
done
