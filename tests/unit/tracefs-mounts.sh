#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The unit tests that use libtracefs (on a fake tracefs tree, tests/unit/fake-tracefs.h) run
# once with /sys/kernel/tracing unmounted, as on a fresh machine, and once mounted, as on a
# used one: libtracefs looks at the mounted tracefs in places (and mounts one where none is),
# and a test whose outcome follows the machine's mounts is not hermetic. Each state is set in
# a private mount namespace (unshare -m), so the machine's own mounts are never changed and
# nothing has to be restored: another run that uses tracefs meanwhile sees no difference.
# In the unmounted state, no test may have mounted tracefs by the end (CK_FORK=no: a mount
# made in a test's process stays in the namespace to be seen).
# Needs root (mounting); prints one SKIP line with the reason otherwise.
. "$(dirname "$0")/../lib.sh"

MNT=/sys/kernel/tracing
if [ "$(id -u)" != 0 ]; then
	skip "unit tests with tracefs unmounted and mounted" "not root (mounting tracefs needs it)"
	finish
fi
if ! command -v unshare >/dev/null; then
	skip "unit tests with tracefs unmounted and mounted" "no unshare (apt-get install util-linux)"
	finish
fi
if ! unshare -m --propagation private true 2>"$TMP/err"; then
	skip "unit tests with tracefs unmounted and mounted" \
	     "no private mount namespace here: $(head -1 "$TMP/err")"
	finish
fi
if grep -qs " $MNT tracefs " /proc/mounts; then here=mounted; else here=unmounted; fi
echo "# this machine has tracefs $here at $MNT; each state below is set in a private mount namespace"

tests=()
for c in "$TOP"/tests/unit/*.c; do
	grep -q tracefs "$c" && [ -x "${c%.c}.t" ] && tests+=("${c%.c}.t")
done

# in_state STATE: the script that sets STATE (mounted or unmounted) in the namespace, runs
# the tests (their Check summary on stdout), and says what was mounted at the end.
in_state() {
	cat <<EOF
	if [ $1 = unmounted ]; then
		for m in $MNT /sys/kernel/debug/tracing; do
			while grep -qs " \$m tracefs " /proc/mounts; do
				umount "\$m" 2>/dev/null || { echo "BUSY \$m"; exit 3; }
			done
		done
	elif ! grep -qs " $MNT tracefs " /proc/mounts; then
		mount -t tracefs nodev $MNT || exit 4
	fi
	for t in ${tests[*]}; do
		echo "== \$t"
		CK_FORK=no "\$t" 2>&1 | tail -3
	done
	echo "END \$(grep -c ' tracefs ' /proc/mounts)"
EOF
}

for state in unmounted mounted; do
	unshare -m --propagation private bash -c "$(in_state $state)" >"$TMP/$state.log" 2>&1
	rc=$?
	if [ "$rc" = 3 ]; then
		skip "unit tests with tracefs $state" "umount failed: $(grep BUSY "$TMP/$state.log")"
		continue
	elif [ "$rc" = 4 ]; then
		skip "unit tests with tracefs $state" "cannot mount tracefs at $MNT"
		continue
	fi
	for t in "${tests[@]}"; do
		name=tests/unit/$(basename "$t")
		line=$(sed -n "\|^== $t\$|,/Checks:/p" "$TMP/$state.log" | grep 'Checks:')
		if grep -q 'Failures: 0, Errors: 0' <<<"$line"; then
			ok "tracefs $state: $name (${line##*: Checks: })"
		else
			not_ok "tracefs $state: $name: ${line:-no Check summary}"
			sed -n "\|^== $t\$|,/Checks:/p" "$TMP/$state.log" | sed 's/^/#   /' | head -8
		fi
	done
	if [ "$state" = unmounted ]; then
		check "tracefs unmounted: no unit test mounted one (hermetic)" \
			grep -qx 'END 0' "$TMP/$state.log"
	fi
done
finish
