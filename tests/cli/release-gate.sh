#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# examples/release-gate.sh run as a user would: a soak on a board (record, here on the fake
# tracefs with a workload that prints), the gate's JUnit file and report.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fake-tracefs.sh"
EX=$TOP/examples
FAKERAID=$DATA/vm-irqsoff-fakeraid.trace
IRQSOFF=$DATA/pidt-irqsoff-nofunc.trace
xml_ok() { python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$1"; }

# The board is the fake tracefs; a 'lathound' first in PATH points the real one at it, and
# shortens the 5-minute slices to 1 s so that each of the three tracers is armed.
mkdir -p "$TMP/bin" "$TMP/board"
cat >"$TMP/bin/lathound" <<EOF
#!/bin/bash
args=()
for a in "\${@:2}"; do [ "\$a" = 5m ] && a=1s; args+=("\$a"); done
exec "$LATHOUND" "\$1" --tracefs "$F" --state-dir "$ST" "\${args[@]}"
EOF
chmod +x "$TMP/bin/lathound"
echo '<workload said>&' >"$TMP/noise.txt"
mkfake "irqsoff preemptoff wakeup_rt"
# The kernel's side: the fakeraid section under irqsoff, then the workload ends once each
# tracer had a whole slice (irqsoff armed again after wakeup_rt).
(
	wait_armed irqsoff || exit 1
	sleep 0.3; section "$FAKERAID" 2005
	wait_armed preemptoff && wait_armed wakeup_rt && wait_armed irqsoff
	touch "$TMP/soaked"
) &
BG=$!
(cd "$TMP/board" && PATH=$TMP/bin:$PATH "$EX/release-gate.sh" \
	sh -c "cat $TMP/noise.txt; while [ ! -e $TMP/soaked ]; do sleep 0.1; done" \
	>"$TMP/gate.out" 2>"$TMP/err")
rc=$?
wait $BG
expect_rc "release-gate.sh: the fakeraid section fails the gate" 2
xml=$(ls "$TMP"/board/latency-*.junit.xml 2>/dev/null)
check "release-gate.sh: the JUnit file is there" test -n "$xml"
check "release-gate.sh: the JUnit is well-formed, though the workload printed" xml_ok "$xml"
check "release-gate.sh: the workload's output is on stdout, and only that" \
	test "$(cat "$TMP/gate.out")" = '<workload said>&'
j=$(cat "$xml")
expect_in "release-gate.sh: irqsoff over its 80us budget" "$j" \
	'<failure message="irqsoff: worst 2005us (lhx/fakeraid-49 on CPU0) exceeds --max irqsoff=80us'
expect_in "release-gate.sh: the shipped rule names the handler" "$j" \
	'<failure message="rule raid-irq-held (critical) hit by 1 record'
expect_in "release-gate.sh: site.rules was added to the library" "$j" \
	'<testcase classname="lathound.rules" name="fpga-driver-slow"'
check "release-gate.sh: DIR keeps report.json" test -s "${xml%.junit.xml}/report.json"
expect_jq "release-gate.sh: each of the three tracers was armed" "${xml%.junit.xml}/report.json" \
	'[.tracers[] | .armed_s > 0] | length == 3 and all'
expect_tree "release-gate.sh"

finish
