#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Files lathound writes as root, in directories other users may write (CI workspaces, /tmp):
# each case plants what another user ('nobody') could plant there, and checks that nothing
# is written through it, that no state file another user could have written reaches tracefs,
# and that what a killed run left behind is removed. Needs root (to run as root, and to own
# files as nobody); the tracefs is a copy made of plain files. Nothing outside $TMP is touched.
. "$(dirname "$0")/../lib.sh"

NOBODY=65534
if [ "$(id -u)" != 0 ]; then
	skip "files lathound writes as root" "needs root: the cases are files planted by uid $NOBODY for root to meet"
	finish
fi

TRACE=$DATA/pidt-irqsoff-nofunc.trace
echo '# no rules' >"$TMP/none.rules"
NORULES=(-r "$TMP/none.rules")
# A shared directory, as a CI workspace is: writable by all, not sticky (so that the kernel's
# protected_symlinks, which only guards sticky directories, does not hide what lathound does).
PUB=$TMP/pub
mkdir -m 0777 "$PUB"
# A root-only file and directory another user would like root to write into.
printf 'root only\n' >"$TMP/secret"
chmod 600 "$TMP/secret"
mkdir -m 0700 "$TMP/private"

# plant_link TARGET LINK: a symbolic link owned by nobody.
plant_link() { ln -s "$1" "$2" && chown -h $NOBODY:$NOBODY "$2"; }
# as_nobody FILE: hands FILE to nobody.
as_nobody() { chown -h $NOBODY:$NOBODY "$@"; }
owner() { stat -c %u "$1"; }

# A tracefs tree of a kernel with irqsoff, in plain files, and a fingerprint of it.
F=$TMP/tracefs
mkdir -p "$F/options" "$F/instances"
echo nop >"$F/current_tracer"
echo "irqsoff nop" >"$F/available_tracers"
echo 1 >"$F/tracing_on"
echo 0 >"$F/tracing_thresh"
echo 0 >"$F/tracing_max_latency"
echo 1408 >"$F/buffer_size_kb"
echo schedule >"$F/set_ftrace_filter"
printf '# tracer: nop\n#\n' >"$F/trace"
tree() { (cd "$1" && find . -type f | sort | xargs sha1sum); }
tree "$F" >"$TMP/tree.before"
expect_tree() {
	if tree "$F" | cmp -s - "$TMP/tree.before"; then ok "$1: tracefs tree left as found"; else
		not_ok "$1: tracefs tree changed"; tree "$F" | diff "$TMP/tree.before" - | sed 's/^/#   /'; fi
}

# What an attacker would have root write into tracefs, in a state file of this version
# (JSON), and in the text of version 1 (which a lathound before it read).
state_json() {
	jq -n --arg dir "$2" --argjson pid "$1" '{format: "lathound-state", version: 2, pid: $pid,
		started_ns: 1, tracing_dir: $dir, entries: [
		{kind: "value", path: "current_tracer", value: "irqsoff\n"},
		{kind: "value", path: "tracing_thresh", value: "999\n"},
		{kind: "value", path: "buffer_size_kb", value: "7\n"},
		{kind: "list", path: "set_ftrace_filter", value: "evil_function\n"}]}'
}
state_v1() {
	printf 'lathound-state 1\npid %s\ntracing-dir %s\n' "$1" "$2"
	printf '%s\\n\n' 'value current_tracer irqsoff' 'value tracing_thresh 999' \
		'value buffer_size_kb 7' 'list set_ftrace_filter evil_function'
	printf 'end 4\n'
}
rec() { run record --tracefs "$F" -t irqsoff -d 200ms -q "${NORULES[@]}" "$@"; }

# ---- analyze -o PATH: a link planted at PATH ----
mkfifo "$PUB/fifo" && as_nobody "$PUB/fifo"
timeout 20 cat "$PUB/fifo" >"$TMP/stolen" &
READER=$!
plant_link "$PUB/fifo" "$PUB/to-fifo.json"
timeout 10 "$LATHOUND" analyze "${NORULES[@]}" -f json -o "$PUB/to-fifo.json" "$TRACE" \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
err=$(cat "$TMP/err")
expect_rc "-o a link to another user's FIFO" 1
expect_in "it says why" "$err" \
	"cannot write report '$PUB/to-fifo.json': it is a symbolic link, and only a regular file is replaced"
kill $READER 2>/dev/null
wait $READER 2>/dev/null
check "nothing reached the FIFO's reader" test ! -s "$TMP/stolen"
check "the link is still there, untouched" test -L "$PUB/to-fifo.json"

mknod -m 600 "$TMP/rootdev" c 1 3	# a root-only device (the null device: harmless here)
plant_link "$TMP/rootdev" "$PUB/to-dev.json"
run analyze "${NORULES[@]}" -f json -o "$PUB/to-dev.json" "$TRACE"
expect_rc "-o a link to a root-only device" 1
expect_in "it says why" "$err" "'$PUB/to-dev.json': it is a symbolic link"
check "the device is still a device" test -c "$TMP/rootdev"

plant_link "$TMP/secret" "$PUB/to-secret.json"
run analyze "${NORULES[@]}" -f json -o "$PUB/to-secret.json" "$TRACE"
expect_rc "-o a link to a root-only file" 1
check "the root-only file is untouched" grep -qx "root only" "$TMP/secret"
check "the link is still a link" test -L "$PUB/to-secret.json"

# A FIFO planted at PATH itself: refused at once, nothing written, no hang.
timeout 20 cat "$PUB/fifo" >"$TMP/stolen" &
READER=$!
timeout 10 "$LATHOUND" analyze "${NORULES[@]}" -o "$PUB/fifo" "$TRACE" >"$TMP/out" 2>"$TMP/err"
rc=$?
err=$(cat "$TMP/err")
expect_rc "-o another user's FIFO" 1
expect_in "it says why" "$err" "cannot write report '$PUB/fifo': it is a FIFO, and only a regular file is replaced"
kill $READER 2>/dev/null
wait $READER 2>/dev/null
check "nothing reached the FIFO's reader" test ! -s "$TMP/stolen"

# The old temporary file was the predictable PATH.tmp: whoever made it first owned root's
# report. A planted one is left alone, and the report is root's own new file.
touch "$PUB/r.json.tmp" && chmod 666 "$PUB/r.json.tmp" && as_nobody "$PUB/r.json.tmp"
touch "$PUB/r.json" && as_nobody "$PUB/r.json"
run analyze "${NORULES[@]}" -f json -o "$PUB/r.json" "$TRACE"
expect_rc "-o with a planted PATH.tmp" 0
check "the report is root's file, not the planted one" test "$(owner "$PUB/r.json")" = 0
check "the report is not writable by others" test "$(stat -c %a "$PUB/r.json")" = 644
expect_jq "the report is the whole report" "$PUB/r.json" '.records[0].latency_us == 2002'
check "the planted PATH.tmp is untouched" test ! -s "$PUB/r.json.tmp"
check "the planted PATH.tmp is still nobody's" test "$(owner "$PUB/r.json.tmp")" = $NOBODY

# Temporary files of a run killed while writing PATH are removed by the next one; another
# user's file of the same shape is not root's to remove.
touch "$PUB/.r.json.lathound-Ab12Cd" "$PUB/.r.json.lathound-N0b0dy"
as_nobody "$PUB/.r.json.lathound-N0b0dy"
run analyze "${NORULES[@]}" -f json -o "$PUB/r.json" "$TRACE"
expect_rc "-o after a killed run" 0
check "the killed run's temporary file is gone" test ! -e "$PUB/.r.json.lathound-Ab12Cd"
check "another user's file is left alone" test -e "$PUB/.r.json.lathound-N0b0dy"
check "no temporary file of this run is left" \
	test "$(ls -A "$PUB" | grep -c 'lathound-')" = 1

# ---- record -o DIR: a link planted at DIR ----
ST=$TMP/state
plant_link "$TMP/private" "$PUB/rec"
rec --state-dir "$ST" -o "$PUB/rec"
expect_rc "record -o a link to a root-only directory" 1
expect_in "it says why" "$err" "output directory '$PUB/rec' is a symbolic link: refusing to follow it"
check "nothing was written in the root-only directory" test -z "$(ls -A "$TMP/private")"
expect_tree "record -o a link"

# ---- the lock file planted as a link ----
mkdir -m 755 "$ST.lock"
plant_link "$TMP/secret" "$ST.lock/lock"
rec --state-dir "$ST.lock" -o "$TMP/o-lock"
expect_rc "record with the lock planted as a link" 1
expect_in "it says why" "$err" "refusing lock file '$ST.lock/lock': it is a symbolic link"
check "the link's target is not truncated nor given a pid" grep -qx "root only" "$TMP/secret"
run reset --tracefs "$F" --state-dir "$ST.lock"
expect_rc "reset with the lock planted as a link" 1
expect_in "reset says why" "$err" "refusing lock file '$ST.lock/lock': it is a symbolic link"
check "still untouched" grep -qx "root only" "$TMP/secret"
expect_tree "the lock planted as a link"

# ---- a state file planted by another user ----
# In a state directory others may write (a shared --state-dir), in both formats: refused
# before it is read, by record and by reset, and tracefs keeps what it has.
mkdir -m 1777 "$PUB/shared"
for fmt in json v1; do
	rm -f "$PUB/shared/state"
	"state_$fmt" 4242 "$F" >"$PUB/shared/state"
	chmod 644 "$PUB/shared/state"
	as_nobody "$PUB/shared/state"
	rec --state-dir "$PUB/shared" -o "$TMP/o-shared-$fmt"
	expect_rc "record, a state file ($fmt) planted in a shared state directory" 1
	expect_in "it says why" "$err" \
		"refusing state directory '$PUB/shared': it is writable by others (mode 1777), and only a directory root alone can write is trusted"
	expect_tree "record, a planted state file ($fmt)"
	run reset --tracefs "$F" --state-dir "$PUB/shared"
	expect_rc "reset, a state file ($fmt) planted in a shared state directory" 1
	expect_in "reset says why" "$err" "refusing state directory '$PUB/shared'"
	expect_tree "reset, a planted state file ($fmt)"
	check "the planted file is left for root to look at" test -s "$PUB/shared/state"
done
# A state directory another user owns, and a state file another user owns in root's.
mkdir -m 755 "$PUB/theirs"
state_v1 4242 "$F" >"$PUB/theirs/state"
as_nobody "$PUB/theirs" "$PUB/theirs/state"
rec --state-dir "$PUB/theirs" -o "$TMP/o-theirs"
expect_rc "record, a state directory owned by another user" 1
expect_in "it says why" "$err" "refusing state directory '$PUB/theirs': it is owned by uid $NOBODY"
expect_tree "a state directory owned by another user"
mkdir -m 755 "$ST.owned"
state_json 4242 "$F" >"$ST.owned/state"
as_nobody "$ST.owned/state"
run reset --tracefs "$F" --state-dir "$ST.owned"
expect_rc "reset, a state file owned by another user" 1
expect_in "it says why" "$err" "refusing state file '$ST.owned/state': it is owned by uid $NOBODY"
rec --state-dir "$ST.owned" -o "$TMP/o-owned"
expect_rc "record, a state file owned by another user" 1
expect_in "record says why" "$err" "refusing state file '$ST.owned/state': it is owned by uid $NOBODY"
expect_tree "a state file owned by another user"
# The same file, root's own: restored (the refusals above are about who wrote it).
chown 0:0 "$ST.owned/state"
run reset --tracefs "$F" --state-dir "$ST.owned"
expect_rc "reset, the same state file owned by root" 0
check "its values were restored" test "$(cat "$F/tracing_thresh")" = 999
echo 0 >"$F/tracing_thresh"; echo nop >"$F/current_tracer"; echo 1408 >"$F/buffer_size_kb"
echo schedule >"$F/set_ftrace_filter"
expect_tree "put back by hand"

# ---- a state file is restored only into the tracefs it was saved from ----
F2=$TMP/tracefs2
cp -a "$F" "$F2"
mkdir -m 755 "$ST.other"
state_json 4242 "$F2" >"$ST.other/state"
rec --state-dir "$ST.other" -o "$TMP/o-other"
expect_rc "record on one tree, a state file saved from another" 1
expect_in "it names both" "$err" \
	"state file '$ST.other/state' was saved from the tracefs at '$F2', not from the one in use now ('$F'): not restoring it there"
expect_tree "a state file of another tree"
run reset --tracefs "$F" --state-dir "$ST.other"
expect_rc "reset on one tree, a state file saved from another" 1
expect_in "reset names both" "$err" "was saved from the tracefs at '$F2'"
check "the state file is kept" test -s "$ST.other/state"
run reset --tracefs "$F2" --state-dir "$ST.other"
expect_rc "reset on the tree it was saved from" 0
check "restored there" test "$(cat "$F2/tracing_thresh")" = 999
expect_tree "reset into the other tree"

# ---- temporary files of a run killed while it wrote the state file ----
mkdir -m 755 "$ST.killed"
touch "$ST.killed/.state.lathound-Qw3rTy"
rec --state-dir "$ST.killed" -o "$TMP/o-killed"
expect_rc "record after a run killed while writing its state file" 0
check "record removed the stale temporary file" test ! -e "$ST.killed/.state.lathound-Qw3rTy"
touch "$ST.killed/.state.lathound-As5dFg"
run reset --tracefs "$F" --state-dir "$ST.killed"
expect_rc "reset after a run killed while writing its state file" 0
check "reset removed the stale temporary file" test ! -e "$ST.killed/.state.lathound-As5dFg"
expect_tree "stale temporary files"

# ---- a state directory whose parents are missing (a board without /run) ----
rec --state-dir "$TMP/no/run/yet/lathound" -o "$TMP/o-deep"
expect_rc "record with a state directory whose parents are missing" 0
check "the state directory was made, root's alone" \
	test "$(stat -c '%a %u' "$TMP/no/run/yet/lathound")" = "755 0"
run reset --tracefs "$F" --state-dir "$TMP/none/yet/lathound"
expect_rc "reset with a state directory whose parents are missing" 0
expect_in "nothing to restore" "$out" "nothing to restore"
expect_tree "missing parents"

finish
