#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The build's other targets check the program 'make' builds: 'make fuzz' (tests/fuzz) compiles
# and links the Vectorscan prefilter exactly when lathound has it (by default where
# pkg-config finds libhs; VECTORSCAN=no for none), and 'make valgrind' runs the prefilter's
# differential under memcheck. Read from what make would run (make -n): nothing is built.
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
finish
