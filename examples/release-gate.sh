#!/bin/bash
# Release gate for an RT kernel on a test board: soak under the real workload, then fail
# the pipeline when a worst case exceeds its budget or a critical rule fires.
# The JUnit report on stdout goes to Jenkins/GitLab; DIR keeps report.json, report.txt and
# the raw snapshots. Exit status is lathound's: 0 pass, 1 error, 2 gate failed.
set -u
out=latency-$(uname -r)-$(date +%Y%m%d-%H%M)
lathound record \
	--tracer irqsoff,preemptoff,wakeup_rt --slice 5m \
	--output "$out" \
	--max irqsoff=80us --max preemptoff=100us --max wakeup_rt=150us \
	--fail-on critical \
	--rules /usr/local/share/lathound/rules --rules ./site.rules \
	--format junit \
	-- cyclictest -m -S -p 95 -i 200 -D 8h -q >"$out.junit.xml"
