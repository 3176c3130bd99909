#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# examples/lava and examples/systemd, checked with the tools that run them.
# LAVA: the test definition is YAML with the fields LAVA reads, its dependencies are Debian
# packages and its steps' commands exist; the steps run as LAVA's test shell runs them (the
# parameters as shell variables, from the repository's top directory, under /bin/sh) with a
# stub lava-test-case that accepts only what LAVA's does, on a real 'lathound record' (the
# fake tracefs fed a real snapshot); the reporter also on real reports, and without one.
# systemd: systemd-analyze verify on the units, and on broken copies (it must catch them);
# the timer's schedule by systemd-analyze calendar.
. "$(dirname "$0")/../lib.sh"

IRQSOFF=$DATA/pidt-irqsoff-nofunc.trace
. "$(dirname "$0")/fake-tracefs.sh"

# ---- LAVA ----
LAVA=$TOP/examples/lava
DEF=$LAVA/lathound-soak.yaml
PY=
for p in /usr/bin/python3 python3; do
	"$p" -c 'import yaml' 2>/dev/null && { PY=$p; break; }
done

# The stub of LAVA's lava-test-case: logs its arguments, refuses what LAVA refuses (a name
# outside [-_a-zA-Z0-9.], a result LAVA does not know, a measurement that is not a number,
# units with a space or without a measurement).
mkdir -p "$TMP/bin"
cat >"$TMP/bin/lava-test-case" <<'STUB'
#!/bin/sh
log=${LAVA_LOG:?}
name=$1; shift
echo "$name" | grep -Eq '^[-_a-zA-Z0-9.]+$' || { echo "bad name '$name'" >>"$log.bad"; exit 1; }
result= measurement= units=
while [ $# -gt 0 ]; do
	case $1 in
	--result) result=$2; shift 2 ;;
	--measurement) measurement=$2; shift 2 ;;
	--units) units=$2; shift 2 ;;
	*) echo "$name: unknown argument '$1'" >>"$log.bad"; exit 1 ;;
	esac
done
case $result in pass|fail|skip|unknown) ;; *) echo "$name: result '$result'" >>"$log.bad"; exit 1 ;; esac
[ -z "$measurement" ] || echo "$measurement" | grep -Eq '^-?[0-9]+(\.[0-9]+)?$' ||
	{ echo "$name: measurement '$measurement'" >>"$log.bad"; exit 1; }
[ -z "$units" ] || { [ -n "$measurement" ] && ! echo "$units" | grep -q ' '; } ||
	{ echo "$name: units '$units'" >>"$log.bad"; exit 1; }
echo "$name $result${measurement:+ $measurement}${units:+ $units}" >>"$log"
STUB
chmod +x "$TMP/bin/lava-test-case"
ln -s "$LATHOUND" "$TMP/bin/lathound"

# quiet COMMAND...: runs it, its output dropped.
quiet() { "$@" >/dev/null 2>&1; }

# lava_case LOG NAME: the line lava-test-case logged for NAME, without the name.
lava_case() { sed -n "s/^$2 //p" "$1" | tail -1; }

# expect_case DESC LOG NAME LINE
expect_case() {
	local v
	v=$(lava_case "$2" "$3")
	if [ "$v" = "$4" ]; then ok "$1 ($3 $4)"; else not_ok "$1: $3 gave '$v', expected '$4'"; fi
}

if [ -z "$PY" ]; then
	skip "LAVA test definition" "no python3 with the yaml module (tests/deps.sh installs python3-yaml)"
else
	o=$("$PY" - "$DEF" <<-'PYEOF' 2>&1
	import re, sys, yaml
	d = yaml.safe_load(open(sys.argv[1]))
	m, run, params = d["metadata"], d["run"], d.get("params", {})
	assert m["format"] == "Lava-Test Test Definition 1.0", m["format"]
	assert re.fullmatch(r"[-_a-zA-Z0-9.]+", m["name"]), m["name"]
	assert m["description"].strip()
	assert run["steps"] and all(isinstance(s, str) for s in run["steps"]), run["steps"]
	assert all(isinstance(v, str) for v in params.values()), params
	assert all(isinstance(p, str) for p in d.get("install", {}).get("deps", []))
	print("ok")
	PYEOF
	)
	check "lathound-soak.yaml: a Lava-Test Test Definition 1.0 with name, description, string params, steps" \
		test "$o" = ok
	[ "$o" = ok ] || sed 's/^/#   /' <<<"$o" | tail -5
	for p in $("$PY" -c 'import sys, yaml
print(" ".join(yaml.safe_load(open(sys.argv[1])).get("install", {}).get("deps", [])))' "$DEF"); do
		check "lathound-soak.yaml: its dependency '$p' is a Debian package, installed here" \
			quiet dpkg-query -W "$p"
	done
	check "lathound-lava.sh: the step's script is there, executable" test -x "$LAVA/lathound-lava.sh"
	check "lathound-lava.sh: POSIX sh (dash -n)" dash -n "$LAVA/lathound-lava.sh"
	for c in jq date mkdir; do
		check "lathound-lava.sh: '$c', which it runs, exists" quiet command -v $c
	done

	# runsh PARAM=VALUE...: the steps as LAVA's run.sh has them, the definition's defaults
	# then the job's parameters as shell variables.
	runsh() {
		"$PY" - "$DEF" "$@" <<-'PYEOF'
		import shlex, sys, yaml
		d = yaml.safe_load(open(sys.argv[1]))
		params = dict(d.get("params", {}))
		params.update(a.split("=", 1) for a in sys.argv[2:])
		print("\n".join(["#!/bin/sh"] + ["%s=%s" % (k, shlex.quote(v)) for k, v in params.items()]
				+ d["run"]["steps"]))
		PYEOF
	}

	# A soak of both default tracers: irqsoff gets a real 2002 us snapshot over its 1ms
	# budget; wakeup_rt's turn never comes (3 s of a 10 s slice).
	mkfake
	runsh DURATION=3s MAX="--max irqsoff=1ms" OUTPUT="$TMP/lava" \
		RECORD_ARGS="--tracefs $F --state-dir $ST ${NORULES[*]}" >"$TMP/run.sh"
	( wait_armed irqsoff && sleep 0.3 && section "$IRQSOFF" 2002 ) &
	BG=$!
	(cd "$TOP" && LAVA_LOG=$TMP/lava.log PATH=$TMP/bin:$PATH sh "$TMP/run.sh") >"$TMP/lava.out" 2>&1
	rc=$?
	wait $BG
	check "the LAVA steps run to the end (exit $rc)" test $rc = 0
	check "... lava-test-case was given only what LAVA accepts" test ! -e "$TMP/lava.log.bad"
	[ -e "$TMP/lava.log.bad" ] && sed 's/^/#   /' "$TMP/lava.log.bad"
	r=$(ls "$TMP"/lava/*/report.json 2>/dev/null | head -1)
	check "... the report is in OUTPUT/<UTC time>/" test -s "$r"
	expect_case "... irqsoff over its budget fails, its worst as the measurement" "$TMP/lava.log" \
		lathound-irqsoff "fail $(jq -r .tracers.irqsoff.max_us "$r") us"
	expect_case "... 2002 us, the snapshot's latency" "$TMP/lava.log" lathound-irqsoff \
		"fail 2002 us"
	expect_case "... wakeup_rt, never armed, fails: it measured nothing" "$TMP/lava.log" \
		lathound-wakeup_rt "fail 0 us"
	expect_case "... the verdict fails" "$TMP/lava.log" lathound-verdict fail
	check "... the LAVA log says why" grep -q 'irqsoff: worst 2002us.*exceeds --max irqsoff=1ms' \
		"$TMP/lava.out"
	check "... and that wakeup_rt was not measured" grep -q '^wakeup_rt not measured: never armed' \
		"$TMP/lava.out"
	expect_tree "the LAVA steps"
	sed 's/^/# lava-test-case /' "$TMP/lava.log"

	# The reporter alone, on real reports: a pass, a budget that fails, a run that failed.
	run analyze "${NORULES[@]}" --max irqsoff=5ms -f json -o "$TMP/pass.json" "$IRQSOFF"
	LAVA_LOG=$TMP/pass.log PATH=$TMP/bin:$PATH "$LAVA/lathound-lava.sh" --report \
		"$TMP/pass.json" 0 >/dev/null
	expect_case "a report that passes: irqsoff passes" "$TMP/pass.log" lathound-irqsoff "pass 2002 us"
	expect_case "... the verdict passes" "$TMP/pass.log" lathound-verdict pass
	LAVA_LOG=$TMP/st.log PATH=$TMP/bin:$PATH "$LAVA/lathound-lava.sh" --report \
		"$TMP/pass.json" 1 >/dev/null
	expect_case "a passing report with lathound's exit status 1: the verdict fails" "$TMP/st.log" \
		lathound-verdict fail
	LAVA_LOG=$TMP/none.log PATH=$TMP/bin:$PATH "$LAVA/lathound-lava.sh" --report \
		"$TMP/no-such/report.json" 1 >/dev/null 2>"$TMP/none.err"
	rc=$?
	expect_case "no report (lathound failed to start): the verdict fails" "$TMP/none.log" \
		lathound-verdict fail
	if [ $rc = 1 ] && grep -q "no report in '$TMP/no-such/report.json'" "$TMP/none.err"; then
		ok "... and the reporter exits 1, saying so"
	else
		not_ok "... and the reporter exits 1, saying so: exit $rc, '$(cat "$TMP/none.err")'"
	fi
fi

# ---- systemd ----
SD=$TOP/examples/systemd
if ! command -v systemd-analyze >/dev/null; then
	skip "systemd units" "no systemd-analyze (tests/deps.sh installs systemd)"
else
	# Documentation=man:lathound-record(1) is checked too (verify runs man) when man is here.
	mkdir -p "$TMP/man/man1"
	ln -s "$TOP"/doc/*.1 "$TMP/man/man1/"
	man=(--man=yes)
	if ! command -v man >/dev/null; then
		man=(--man=no)
		skip "the units' Documentation= man pages" "no man here (Debian's man-db)"
	fi
	o=$(cd "$SD" && MANPATH=$TMP/man systemd-analyze verify "${man[@]}" \
		lathound-soak.service lathound-soak.timer 2>&1)
	check "lathound-soak.service and .timer: systemd-analyze verify finds nothing" \
		test $? = 0 -a -z "$o"
	[ -n "$o" ] && sed 's/^/#   /' <<<"$o" | head -10
	# Broken copies: verify must catch them, or the check above proves nothing.
	mkdir "$TMP/sd"
	sed 's/%%F/%F/' "$SD/lathound-soak.service" >"$TMP/sd/lathound-soak.service"
	sed 's/^OnCalendar=.*/OnCalendar=*-*-* 25:00:00/' "$SD/lathound-soak.timer" \
		>"$TMP/sd/lathound-soak.timer"
	o=$(cd "$TMP/sd" && systemd-analyze verify --man=no lathound-soak.service 2>&1)
	check "... a '%' systemd would read as a specifier is caught" test $? != 0
	o=$(cd "$TMP/sd" && systemd-analyze verify --man=no lathound-soak.timer 2>&1)
	check "... a schedule that is not one is caught" test $? != 0
	when=$(sed -n 's/^OnCalendar=//p' "$SD/lathound-soak.timer")
	o=$(systemd-analyze calendar --iterations=3 "$when" 2>&1)
	n=$(grep -E '(Next elapse|Iter\. #[0-9]+): ' <<<"$o" | grep -c ' 01:00:00 ')
	d=$(grep -E '(Next elapse|Iter\. #[0-9]+): ' <<<"$o" | awk '{ print $(NF - 2) }' | sort -u | wc -l)
	check "the timer: every night at 01:00, $n of 3 elapses on $d different days" \
		test "$n" = 3 -a "$d" = 3
	grep -E 'Next elapse|Iter' <<<"$o" | sed 's/^ */# calendar: /'
	for w in '--metrics "$$METRICS"' 'METRICS=/var/lib/prometheus/node-exporter/lathound.prom' \
		'-o "/var/lib/lathound/$$(date +%%F)"' 'StateDirectory=lathound' 'Type=oneshot'; do
		check "the service has $w" grep -qF -- "$w" "$SD/lathound-soak.service"
	done
	check "the timer starts the service, enabled under timers.target" \
		grep -qx 'WantedBy=timers.target' "$SD/lathound-soak.timer"
fi

finish
