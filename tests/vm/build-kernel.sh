#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the lathound test kernel once and caches it: Debian's linux-source-6.1, 'make
# tinyconfig' plus tests/vm/kernel.config (every latency tracer, kprobes, modules). The cache
# lives outside the checkout, in ${XDG_CACHE_HOME:-/var/cache}/lathound-vm/<key>/, where
# <key> hashes the fragment, this script and the source tarball, so editing either rebuilds:
#   bzImage                     the kernel
#   modules/*.ko                modules built with it (preemptirq_delay_test.ko)
#   tree/                       the configured, built tree ('make -C tree M=DIR modules')
#   release, config, build.log  'make kernelrelease', the final .config, the build's output
# Only the first run pays for the build (about 5 minutes on 2 cores). Concurrent runs wait
# on a lock; a build is done in <key>.tmp and renamed into place only when complete, so an
# interrupted build is thrown away and redone, never used. A new build removes older ones
# that no test is using, except the newest of them.
#
# usage: build-kernel.sh           build if needed; print the cache directory on stdout
#        build-kernel.sh --status  print the cache directory; exit 0 if built, 3 if not
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC_TAR=${LH_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
CACHE_ROOT=${XDG_CACHE_HOME:-/var/cache}/lathound-vm
JOBS=${LH_JOBS:-$(nproc)}

die() { echo "build-kernel: $*" >&2; exit 1; }

[ -r "$SRC_TAR" ] || die "cannot read kernel source '$SRC_TAR' (apt-get install linux-source-6.1)"

key=$( { cat "$HERE/kernel.config" "$0"; stat -L -c '%n %s %Y' "$SRC_TAR"; } |
	sha256sum | cut -c1-16)
DIR=$CACHE_ROOT/$key

if [ "${1:-}" = --status ]; then
	echo "$DIR"
	[ -f "$DIR/bzImage" ] && exit 0 || exit 3
fi

if [ -f "$DIR/bzImage" ]; then
	echo "$DIR"
	exit 0
fi

mkdir -p "$CACHE_ROOT" || die "cannot create cache directory '$CACHE_ROOT'"
exec 9>"$CACHE_ROOT/.lock-$key"
if ! flock -n 9; then
	echo "build-kernel: another build of $key is running, waiting for it" >&2
	flock 9
fi
# Whoever held the lock may have finished the build.
if [ -f "$DIR/bzImage" ]; then
	echo "$DIR"
	exit 0
fi

TMPD=$DIR.tmp
rm -rf "$TMPD"		# left by an interrupted build: we hold the lock, nobody uses it
mkdir -p "$TMPD"
LOG=$TMPD/build.log
start=$(date +%s)
echo "build-kernel: building the test kernel in $TMPD (about 5 minutes on 2 cores;" \
	"log: $LOG)" >&2

# Runs a build step with its output in the log; on failure shows the log's end.
step() {
	echo "+ $*" >>"$LOG"
	if ! "$@" >>"$LOG" 2>&1; then
		tail -30 "$LOG" >&2
		die "failed: $* (full log: $LOG)"
	fi
}

step mkdir -p "$TMPD/tree"
step tar xJf "$SRC_TAR" -C "$TMPD/tree" --strip-components=1
T=$TMPD/tree
step make -C "$T" tinyconfig

# Apply the fragment, then let olddefconfig resolve dependencies.
want=()
while IFS= read -r line; do
	line=${line%%#*}
	line=${line//[[:space:]]/}
	[ -z "$line" ] && continue
	name=${line%%=*}
	val=${line#*=}
	name=${name#CONFIG_}
	case $val in
	y) step "$T/scripts/config" --file "$T/.config" --enable "$name" ;;
	m) step "$T/scripts/config" --file "$T/.config" --module "$name" ;;
	n) step "$T/scripts/config" --file "$T/.config" --disable "$name" ;;
	\"*) step "$T/scripts/config" --file "$T/.config" --set-str "$name" "${val//\"/}" ;;
	*) step "$T/scripts/config" --file "$T/.config" --set-val "$name" "$val" ;;
	esac
	want+=("CONFIG_$name=$val")
done <"$HERE/kernel.config"
step make -C "$T" olddefconfig

# olddefconfig silently drops what a dependency forbids: fail loudly instead.
missing=()
for w in "${want[@]}"; do
	case $w in
	*=n) ! grep -q "^${w%=n}=" "$T/.config" || missing+=("$w") ;;
	*) grep -qxF "$w" "$T/.config" || missing+=("$w") ;;
	esac
done
[ ${#missing[@]} -eq 0 ] ||
	die "make olddefconfig dropped ${missing[*]} (a dependency is missing from kernel.config)"

step make -C "$T" -j"$JOBS" bzImage modules
step make -C "$T" -s kernelrelease
make -C "$T" -s kernelrelease >"$TMPD/release" 2>/dev/null
cp "$T/arch/x86/boot/bzImage" "$TMPD/bzImage.new"
cp "$T/.config" "$TMPD/config"
mkdir -p "$TMPD/modules"
find "$T" -name '*.ko' -exec cp {} "$TMPD/modules/" \;
[ -f "$TMPD/modules/preemptirq_delay_test.ko" ] || die "preemptirq_delay_test.ko was not built"
echo $(($(date +%s) - start)) >"$TMPD/build-seconds"
mv "$TMPD/bzImage.new" "$TMPD/bzImage"	# bzImage marks a complete build
rm -rf "$DIR"		# never complete (no bzImage), else we would not be here
mv "$TMPD" "$DIR"
echo "build-kernel: built $(cat "$DIR/release") in $(cat "$DIR/build-seconds") s: $DIR" >&2

# Builds for another key (an older kernel.config) go, unless in use: tests/vm/lib-vm.sh holds
# a shared lock on a kernel's lock file while it uses that kernel. The newest of them stays:
# branches not yet merged (and CI on this machine) may still use the previous kernel.config,
# and removing it would make each side rebuild and remove the other's in turn.
kept=
for old in $(ls -dt "$CACHE_ROOT"/*); do
	k=${old##*/}
	[[ ${k%.tmp} =~ ^[0-9a-f]{16}$ ]] && [ "${k%.tmp}" != "$key" ] || continue
	if [ -z "$kept" ] && [ -f "$old/bzImage" ]; then
		kept=$old
		continue
	fi
	(
		exec 8>>"$CACHE_ROOT/.lock-${k%.tmp}"
		flock -n 8 && rm -rf "$old" && echo "build-kernel: removed the old build $old" >&2
	)
done
echo "$DIR"
