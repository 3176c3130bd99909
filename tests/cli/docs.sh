#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What README.md and doc/ say lathound does by default is what the binary says: the kernel
# histograms 'record' counts without --hist are those 'record --help' names. And what the
# README's Layout says the tree holds is the tree.
. "$(dirname "$0")/../lib.sh"

run record --help
dflt=$(sed -n 's/.*histograms counted in the kernel (default \([a-z,]*\) where.*/\1/p' <<<"$out")
check "record --help names the default kernel histograms ($dflt)" test -n "$dflt"

# Every sentence of the docs that says which kinds record counts by default, e.g. "record
# counts wakeup by default", "by default the wakeup histogram", "without --hist, record counts
# the wakeup histogram" (man page markup and Markdown code marks dropped, lines joined).
KIND='(irqsoff|preemptoff|wakeup)[a-z]*'
SAID="record counts [a-z, ]{1,40} by default|[Bb]y default,? (the )?$KIND( (and|or) $KIND)*"
SAID+="( histograms?| alone| where)|without --hist, record counts (the )?[a-z, ]{1,40} histograms?"
want=$(tr ',' '\n' <<<"$dflt" | sort -u | paste -sd,)
wrong= n=0
for f in "$TOP"/README.md "$TOP"/doc/*.md "$TOP"/doc/*.1; do
	while read -r said; do
		kinds=$(grep -oE 'irqsoff|preemptoff|wakeup' <<<"$said" | sort -u | paste -sd,)
		[ "$kinds" = "$want" ] || wrong+=" $(basename "$f"): '$said';"
		n=$((n + 1))
	done < <(tr '\n' ' ' <"$f" | sed 's/\\f[BIR]//g; s/`//g; s/ \.[BI]R\? / /g' |
		grep -oE "$SAID")
done
check "the docs' default kernel histograms are --help's ($n sentences)${wrong:+:$wrong}" \
	test -z "$wrong" -a "$n" -ge 5
# The README's Layout names every module (src/DIR/NAME.c) in the section of its folder, where
# a pattern such as cmd-*.c may stand for several.
layout=$(awk '/^## / { in_layout = ($0 == "## Layout") } in_layout && /^```/ { n++; next }
	      in_layout && n == 1' "$TOP/README.md")
missing= n=0
for f in "$TOP"/src/*/*.c; do
	rel=${f#"$TOP"/} dir=${rel%/*}/ name=${f##*/} found=
	for w in $(awk -v d="$dir" '/^src\// { in_dir = ($1 == d) } in_dir' <<<"$layout" |
		   grep -oE '[a-z*-]+\.c'); do
		# shellcheck disable=SC2053 # the README's word is a pattern
		[[ $name == $w ]] && found=1
	done
	[ -n "$found" ] || missing+=" $rel"
	n=$((n + 1))
done
grep -q '^src/main\.c ' <<<"$layout" || missing+=" src/main.c"
check "README's Layout names every module in its folder ($n)${missing:+, not:$missing}" \
	test -z "$missing" -a "$n" -ge 40
# lathound-rules(1) names every file of the shipped library, and no other; its example of
# 'rules check' on the library is what the binary prints there.
man=$TOP/doc/lathound-rules.1
said=$(awk '/^\.S[HS] / { in_lib = ($0 == ".SS The shipped library") } in_lib' "$man" |
       sed -n 's/^\.RI ( \([a-z0-9-]*\.rules\) ).*/\1/p' | sort | paste -sd' ')
tree=$(cd "$TOP/rules" && printf '%s\n' *.rules | sort | paste -sd' ')
[ "$said" = "$tree" ] && said=
check "lathound-rules(1) names the shipped rule files ($tree)${said:+, not: $said}" test -z "$said"
example=$(sed -n '/^\$ lathound rules check rules$/,/^\.fi$/p' "$man" | sed '1d;$d')
real=$(cd "$TOP" && "${LATHOUND_RUN[@]}" rules check rules 2>&1)
check "lathound-rules(1)'s 'rules check rules' is the binary's output (${real##*$'\n'})" \
	test "$example" = "$real"
finish
