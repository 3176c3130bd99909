#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The build's other targets check the program 'make' builds: 'make fuzz' (tests/fuzz) compiles
# and links the Vectorscan prefilter exactly when lathound has it (by default where
# pkg-config finds libhs; VECTORSCAN=no for none), and 'make valgrind' runs the prefilter's
# differential under memcheck. Read from what make would run (make -n); only the sanitizer
# build (README) is built, in a copy of the sources.
. "$(dirname "$0")/../lib.sh"
# the default build, whatever make (and its command-line variables) runs this test
unset MAKEFLAGS MFLAGS MAKELEVEL

# flags DIR TARGET [VAR=VALUE]: "D" when make's compile of rules-prefilter.c has
# -DLH_HAVE_VECTORSCAN, "L" when the link of TARGET has -lhs.
flags() {
	local cmds f=
	cmds=$(make -n -B -C "$1" "$2" "${@:3}" 2>&1)
	grep -- 'rules-prefilter\.c' <<<"$cmds" | grep -q -- '-DLH_HAVE_VECTORSCAN' && f+=D
	grep -E -- "-o $2 " <<<"$cmds" | grep -qE -- '-lhs( |$)' && f+=L
	echo "$f"
}

hs=no
pkg-config --exists libhs && hs=yes
top=$(flags "$TOP" lathound)
if [ $hs = yes ]; then
	check "make: with libhs found, lathound has the prefilter ($top)" test "$top" = DL
else
	check "make: without libhs, lathound has no prefilter ($top)" test -z "$top"
fi
fuzz=$(flags "$TOP/tests/fuzz" fuzz-rules)
check "make fuzz: fuzz-rules has the prefilter as lathound does ($fuzz, lathound $top)" \
	test "$fuzz" = "$top"
fuzz=$(flags "$TOP/tests/fuzz" fuzz-parse)
check "make fuzz: fuzz-parse is built as lathound ($fuzz, lathound $top)" test "$fuzz" = "$top"
vg=$(make -n -C "$TOP" valgrind 2>&1)
check "make valgrind: the prefilter's differential under memcheck" \
	grep -q 'CK_RUN_CASE=prefilter .*tests/valgrind tests/unit/rules\.t' <<<"$vg"
if [ $hs = yes ]; then
	check "make valgrind: a lathound without the prefilter is refused" \
		grep -q "lathound --version | grep -q '^rules prefilter: Vectorscan'" <<<"$vg"
fi
top=$(flags "$TOP" lathound VECTORSCAN=no)
fuzz=$(flags "$TOP/tests/fuzz" fuzz-rules VECTORSCAN=no)
check "VECTORSCAN=no: no prefilter in lathound ($top) nor fuzz-rules ($fuzz)" \
	test -z "$top$fuzz"

# Warning-free under clang as under gcc (-Werror: the build fails on a warning), in a copy.
mkdir "$TMP/clang"
cp -r "$TOP/src" "$TOP/Makefile" "$TOP/config.mk" "$TMP/clang/"
rm -f "$TMP"/clang/src/*.o "$TMP"/clang/src/*/*.o
make -s -C "$TMP/clang" -j2 CC=clang lathound >"$TMP/clang.log" 2>&1
check "make CC=clang: lathound builds warning-free" test -x "$TMP/clang/lathound"
sed 's/^/#   /' "$TMP/clang.log" | head -20

# 'make SANITIZE=address,undefined' (README) is built, in a copy of the sources: the
# sanitizers' checks change what the compiler's warnings see (-Werror), and the program
# reads traces with two threads and writes their reports without a finding.
mkdir "$TMP/san"
cp -r "$TOP/src" "$TOP/Makefile" "$TOP/config.mk" "$TOP/rules" "$TMP/san/"
rm -f "$TMP"/san/src/*.o "$TMP"/san/src/*/*.o
make -s -C "$TMP/san" -j2 SANITIZE=address,undefined lathound >"$TMP/san.log" 2>&1
check "make SANITIZE=address,undefined: lathound builds warning-free" test -x "$TMP/san/lathound"
sed 's/^/#   /' "$TMP/san.log" | head -20
if [ -x "$TMP/san/lathound" ]; then
	"$TMP/san/lathound" analyze -q -j 2 --chunk 4096 -f json -r "$TMP/san/rules" \
		"$DATA"/published/*.trace >/dev/null 2>"$TMP/san.err"
	rc=$?
	check "SANITIZE build: the published corpus read by 2 threads, no finding (exit $rc)" \
		eval '[ $rc -le 2 ] && ! grep -qE "runtime error|Sanitizer" "$TMP/san.err"'
	grep -E -A5 "runtime error|Sanitizer" "$TMP/san.err" | sed 's/^/#   /' | head -20
	# a saved report read back (report-load.c) and written again, a function named null
	"$TMP/san/lathound" analyze -q -f json -r "$TMP/san/rules" "$DATA/vm-irqsoff-func.trace" \
		>"$TMP/san.json" 2>/dev/null
	jq '(.records[] | .function_counts[0].name) = null' "$TMP/san.json" >"$TMP/san-null.json"
	"$TMP/san/lathound" report -f json "$TMP/san-null.json" "$TMP/san-null.json" \
		>"$TMP/san-back.json" 2>"$TMP/san.err"
	rc=$?
	check "SANITIZE build: two saved reports read back and written, no finding (exit $rc)" \
		eval '[ $rc -le 2 ] && jq -e ".records_total > 0" "$TMP/san-back.json" >/dev/null &&
		      ! grep -qE "runtime error|Sanitizer" "$TMP/san.err"'
	grep -E -A5 "runtime error|Sanitizer" "$TMP/san.err" | sed 's/^/#   /' | head -20
fi
finish
