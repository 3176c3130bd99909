#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# examples/gitlab-ci.yml as GitLab reads it: the YAML parses (python3-yaml), the pipeline has
# the shape it claims (Debian image, packages Debian has, the board's output as an artifact,
# JUnit reports, the diff gate on the analyze job's report), and every lathound command line
# in it runs with the real binary: the board's 'record' line parses (pointed at no tracefs,
# it stops where it would arm the tracers), the analyze and gate jobs' scripts run as GitLab
# runs them (bash -e) on board snapshots from tests/data, their exit status and reports as a
# pipeline would see them.
. "$(dirname "$0")/../lib.sh"

YML=$TOP/examples/gitlab-ci.yml
PY=
for p in python3 /usr/bin/python3; do
	"$p" -c 'import yaml' 2>/dev/null && { PY=$p; break; }
done
if [ -z "$PY" ]; then
	skip "examples/gitlab-ci.yml" "no python3 with the yaml module (tests/deps.sh installs python3-yaml)"
	exit 0
fi

# The pipeline's shape; each job's script into $TMP/job-NAME.sh, its variables into vars.sh.
shape=$("$PY" - "$YML" "$TMP" <<'EOF' 2>&1
import shlex, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
out = sys.argv[2]
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
stages = d.get("stages", [])
need(stages == ["soak", "analyze", "gate"], "stages soak, analyze, gate")
tpl = d.get(".lathound-debian", {})
need(str(tpl.get("image", "")).startswith("debian:"), "a Debian image")
need(any("apt-get install" in l for l in tpl.get("before_script", [])), "apt-get install")
jobs = {k: v for k, v in d.items() if isinstance(v, dict) and "stage" in v}
for k, v in jobs.items():
    need(v["stage"] in stages, k + ": a declared stage")
    for n in v.get("needs", []):
        need(n in jobs, k + ": needs a job of the file")
soak, ana, gate = jobs.get("latency:soak", {}), jobs.get("latency:analyze", {}), jobs.get("latency:diff", {})
need("rt-board" in soak.get("tags", []), "soak runs on the board's runner")
need("board/" in soak.get("artifacts", {}).get("paths", []), "the board's output is an artifact")
need(ana.get("extends") == ".lathound-debian" and gate.get("extends") == ".lathound-debian",
     "analyze and diff in the Debian image")
need(ana.get("artifacts", {}).get("reports", {}).get("junit") == "latency.xml", "analyze: JUnit")
need("report.json" in ana.get("artifacts", {}).get("paths", []), "analyze: report.json kept")
need(gate.get("artifacts", {}).get("reports", {}).get("junit") == "diff.xml", "diff: JUnit")
need(any(l.startswith("lathound diff") for l in gate.get("script", [])), "diff: lathound diff")
need(any("jobs/artifacts/$LATHOUND_BASE_REF/raw/report.json?job=latency:analyze" in l
         for l in gate.get("script", [])), "diff: the base is the analyze job's report")
for k, v in jobs.items():
    with open("%s/job-%s.sh" % (out, k.split(":")[1]), "w") as f:
        f.write("\n".join(v.get("script", [])) + "\n")
with open(out + "/vars.sh", "w") as f:
    for k, v in d.get("variables", {}).items():
        f.write("export %s=%s\n" % (k, shlex.quote(str(v))))
with open(out + "/packages", "w") as f:
    for l in tpl.get("before_script", []):
        if "apt-get install" in l:
            f.write("\n".join(w for w in l.split()[2:] if not w.startswith("-") and w != "install"))
print("\n".join(bad) if bad else "ok")
EOF
)
check "gitlab-ci.yml: parses, and has the pipeline's shape${shape:+ ($shape)}" [ "$shape" = ok ]
[ "$shape" = ok ] || exit $T_FAILED

# The packages it installs are Debian's (known to apt here, or installed).
unknown=
for p in $(cat "$TMP/packages"); do
	apt-cache show "$p" >/dev/null 2>&1 || dpkg-query -W "$p" >/dev/null 2>&1 || unknown+=" $p"
done
check "gitlab-ci.yml: every package it installs is a Debian package${unknown:+ (unknown:$unknown)}" \
	[ -z "$unknown" -a -s "$TMP/packages" ]

. "$TMP/vars.sh"
mkdir -p "$TMP/bin"
ln -s "$LATHOUND" "$TMP/bin/lathound"
export PATH=$TMP/bin:$PATH

# soak: the board's record line, pointed at no tracefs: its options parse, it stops there.
line=$(grep '^lathound record ' "$TMP/job-soak.sh")
mkdir -p "$TMP/soak"
(cd "$TMP/soak" && eval "${line/lathound record /lathound record --tracefs $TMP/none --state-dir $TMP/st }") \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
check "soak: the record line's options parse (it stops at the missing tracefs, exit $rc)" \
	grep -q "no tracefs at '$TMP/none'" "$TMP/err"
check "soak: nothing written" [ ! -e "$TMP/soak/board" ]

# A board's output as the soak job leaves it: snapshots named as record names them.
board() {
	local dir=$1 f n=0; shift
	rm -rf "$dir"
	mkdir -p "$dir/board/snapshots"
	for f; do
		n=$((n + 1))
		cp "$DATA/$f" "$dir/board/snapshots/capture-$(printf %06d $n)-$f"
	done
}
job() {
	(cd "$1" && bash -e "$TMP/job-$2.sh") >"$TMP/out" 2>"$TMP/err"
	rc=$?
	out=$(cat "$TMP/out")
}

# analyze: the release's board (no rule hits) and the candidate's (fakeraid: critical hits).
board "$TMP/rel" pidt-irqsoff-nofunc.trace vm-preemptoff-hog.trace
job "$TMP/rel" analyze
expect_rc "analyze (release): over the 200us budget, the gate fails" 2
expect_jq "analyze (release): report.json written, its verdict fail" "$TMP/rel/report.json" \
	'.verdict == "fail"'
check "analyze (release): latency.xml well-formed (xmllint)" xmllint --noout "$TMP/rel/latency.xml"
check "analyze (release): latency.xml fails irqsoff and preemptoff" \
	grep -q 'failures="2"' "$TMP/rel/latency.xml"
board "$TMP/new" vm-irqsoff-fakeraid.trace vm-preemptoff-hog.trace
job "$TMP/new" analyze
expect_rc "analyze (candidate)" 2

# gate: the analyze job's report against the release's (what curl would fetch).
sed -i '/^curl /d' "$TMP/job-diff.sh"
check "diff job: the curl line left out, lathound lines kept" grep -q '^lathound diff' "$TMP/job-diff.sh"
cp "$TMP/rel/report.json" "$TMP/new/base.json"
job "$TMP/new" diff
expect_rc "diff: the candidate has a new offender and new critical hits: the gate fails" 2
expect_in "diff: the new critical rule is named" "$out" "rule 'raid-irq-held' (critical)"
expect_in "diff: irqsoff 2002us -> 2005us, within 10%" "$out" "+3us (+0.1%)"
check "diff: diff.xml well-formed (xmllint)" xmllint --noout "$TMP/new/diff.xml"
check "diff: diff.xml has the failures" grep -q 'failures="[1-9]' "$TMP/new/diff.xml"
cp "$TMP/rel/report.json" "$TMP/rel/base.json"
job "$TMP/rel" diff
expect_rc "diff: the release against itself passes" 0
check "diff: its diff.xml has no failure" grep -q 'failures="0" errors="0"' "$TMP/rel/diff.xml"
rm "$TMP/rel/base.json" "$TMP/rel/diff.xml"
job "$TMP/rel" diff
expect_rc "diff: no base report is an error" 1
check "diff: diff.xml says the error" grep -q 'errors="1"' "$TMP/rel/diff.xml"

exit $T_FAILED
