#!/bin/bash
# Release gate for an RT kernel on a test board: soak under the real workload, then fail
# the pipeline when a worst case exceeds its budget or a critical rule fires.
# usage: release-gate.sh [COMMAND [ARG...]]   (default: 8 hours of cyclictest)
# The JUnit report goes to its own file for Jenkins/GitLab, so what the workload prints never
# lands in it; DIR keeps report.json, report.txt and the raw snapshots. The site's rules
# (site.rules, beside this script) are added to the installed library. Exit status is
# lathound's: 0 pass, 1 error, 2 gate failed.
set -u
[ $# -gt 0 ] || set -- cyclictest -m -S -p 95 -i 200 -D 8h -q
out=latency-$(uname -r)-$(date +%Y%m%d-%H%M)
lathound record \
	--tracer irqsoff,preemptoff,wakeup_rt --slice 5m \
	--output "$out" --junit "$out.junit.xml" \
	--max irqsoff=80us --max preemptoff=100us --max wakeup_rt=150us \
	--fail-on critical \
	--add-rules "$(dirname "$0")/site.rules" \
	-- "$@"
