#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What a user without the rights sees: every command run as 'nobody' (setpriv) must fail
# with exit 1 and say that permission is the problem, not that something is missing from
# the kernel. Needs root to drop privileges; the tracefs it denies is a copy made of plain
# files (a root-owned 0700 directory, as tracefs is mounted), plus the host's own when it
# is mounted and closed to nobody. As nobody nothing on the host can change, and nothing
# here writes as root outside $TMP.
. "$(dirname "$0")/../lib.sh"

NOBODY=65534
if [ "$(id -u)" != 0 ]; then
	skip "permission errors as an unprivileged user" "needs root to drop privileges to uid $NOBODY with setpriv"
	finish
fi
if ! command -v setpriv >/dev/null; then
	skip "permission errors as an unprivileged user" "setpriv (util-linux) is not installed"
	finish
fi

# as_nobody ARGS...: runs lathound as uid/gid 65534 without groups; sets $rc, $out, $err.
as_nobody() {
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$LATHOUND" "$@" \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

if ! setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups test -x "$LATHOUND"; then
	skip "permission errors as an unprivileged user" "uid $NOBODY cannot run '$LATHOUND' (a directory above it is closed)"
	finish
fi

# nobody may enter $TMP and write in $PUB (as an ordinary user may in /tmp).
chmod 711 "$TMP"
PUB=$TMP/pub
mkdir -m 1777 "$PUB"

# A tracefs tree of a kernel with every latency tracer, closed as the real one is (0700).
F=$TMP/tracefs
mkdir -p "$F/options" "$F/instances"
echo nop >"$F/current_tracer"
echo "irqsoff preemptoff preemptirqsoff wakeup wakeup_rt wakeup_dl function nop" \
	>"$F/available_tracers"
echo 1 >"$F/tracing_on"
printf '# tracer: nop\n#\n' >"$F/trace"
chmod 700 "$F"
snap() { (cd "$F" && find . -type f | sort | xargs sha1sum; stat -c '%a %U' .); }
snap >"$TMP/tracefs.before"
# An RT kernel's config: tracefs being closed must not make the tracers "missing".
printf 'CONFIG_FTRACE=y\nCONFIG_FUNCTION_TRACER=y\nCONFIG_DYNAMIC_FTRACE=y\nCONFIG_IRQSOFF_TRACER=y\nCONFIG_PREEMPT_TRACER=y\nCONFIG_SCHED_TRACER=y\nCONFIG_KPROBE_EVENTS=y\n' \
	>"$PUB/config"
chmod 644 "$PUB/config"
echo '# no rules' >"$PUB/none.rules"
chmod 644 "$PUB/none.rules"
DENIED="cannot access tracefs at '$F': Permission denied (run lathound record as root)"

# ---- record ----
as_nobody record --tracefs "$F" --state-dir "$PUB/state" -t irqsoff -d 1s -o "$PUB/rec" \
	-r "$PUB/none.rules"
expect_rc "record as nobody" 1
expect_in "record says permission, and what to do" "$err" "$DENIED"
expect_not_in "record does not blame the kernel config" "$err" "CONFIG_"
check "record left no output directory" test ! -e "$PUB/rec"
check "record left no state directory (tracefs is checked before the lock)" test ! -e "$PUB/state"

# ---- doctor ----
as_nobody doctor --tracefs "$F" --state-dir "$PUB/state" --kernel-config "$PUB/config"
expect_rc "doctor as nobody" 1
expect_in "doctor names the permission problem" "$out" "$DENIED"
expect_in "doctor: tracefs is a FAIL" "$out" "FAIL  tracefs"
expect_in "doctor: the remedy is to run as root" "$out" "-> run as root"
expect_in "doctor: tracers are unknown, not missing" "$out" \
	"tracer irqsoff         unknown (tracefs not readable; kernel config: CONFIG_IRQSOFF_TRACER=y)"
expect_not_in "doctor does not claim a tracer is missing" "$out" "not available in this kernel"
expect_not_in "doctor does not claim the kernel lacks tracers" "$out" "none available"
as_nobody doctor --tracefs "$F" --state-dir "$PUB/state" --kernel-config "$PUB/config" -f json
expect_rc "doctor -f json as nobody" 1
echo "$out" >"$TMP/doctor.json"
expect_jq "json: tracefs FAIL with the reason, tracers unknown" "$TMP/doctor.json" \
	'(.checks[] | select(.check == "tracefs") | .status == "fail" and (.detail | test("Permission denied"))) and ([.checks[] | select(.check | startswith("tracer ")) | .detail | startswith("unknown (tracefs not readable")] | length == 9 and all)'

# The host's tracefs, as mounted (0700): the audit's own case. Not mounted here: left so.
HOST=/sys/kernel/tracing
if ! grep -q " $HOST tracefs " /proc/mounts; then
	skip "record/doctor as nobody on the host tracefs" "tracefs is not mounted on $HOST (not mounting it for this test)"
elif setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups test -e "$HOST/current_tracer"; then
	skip "record/doctor as nobody on the host tracefs" "$HOST is readable by uid $NOBODY here"
else
	as_nobody record --state-dir "$PUB/state" -t irqsoff -d 1s -o "$PUB/rec-host" \
		-r "$PUB/none.rules"
	expect_rc "record as nobody, host tracefs" 1
	expect_in "record: host tracefs, permission" "$err" \
		"cannot access tracefs at '$HOST': Permission denied (run lathound record as root)"
	check "record: host tracefs, no output directory" test ! -e "$PUB/rec-host"
	as_nobody doctor --state-dir "$PUB/state"
	expect_rc "doctor as nobody, host tracefs" 1
	expect_in "doctor: host tracefs, permission" "$out" "cannot access tracefs at '$HOST': Permission denied"
	expect_not_in "doctor: host tracefs, no tracer claimed missing" "$out" "not available in this kernel"
	check "nothing was left in the state directory" test ! -e "$PUB/state"
fi

# ---- analyze and rules check of files nobody may read ----
cp "$DATA/pidt-irqsoff-nofunc.trace" "$PUB/closed.trace"
chmod 000 "$PUB/closed.trace"
as_nobody analyze "$PUB/closed.trace"
expect_rc "analyze of an unreadable trace" 1
expect_in "analyze says which file and why" "$err" \
	"cannot open trace '$PUB/closed.trace': Permission denied"
printf '[x]\nmatch = ^schedule$\nseverity = warning\n' >"$PUB/closed.rules"
chmod 000 "$PUB/closed.rules"
as_nobody rules check "$PUB/closed.rules"
expect_rc "rules check of an unreadable rule file" 1
expect_in "rules check says which file and why" "$err" \
	"cannot open rule file '$PUB/closed.rules': Permission denied"

# ---- reset ----
mkdir -m 755 "$TMP/state"
as_nobody reset --state-dir "$TMP/state"
expect_rc "reset as nobody" 1
expect_in "reset says permission" "$err" "Permission denied"
expect_in "reset names the lock it could not take" "$err" "'$TMP/state/lock'"
check "reset as nobody created nothing" test -z "$(ls -A "$TMP/state")"
as_nobody reset
expect_rc "reset as nobody, default state directory" 1
expect_in "reset (default) says permission" "$err" "Permission denied"

snap >"$TMP/tracefs.now"
check "the closed tracefs tree is as it was" cmp -s "$TMP/tracefs.before" "$TMP/tracefs.now"

finish
