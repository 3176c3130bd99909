#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the lathound test kernel once and caches it: Debian's linux-source-6.1, 'make
# tinyconfig' plus tests/vm/kernel.config (every latency tracer, kprobes, modules) and the
# architecture's fragment, kernel.ARCH.config. ARCH is x86_64 (the default, built with the
# host's gcc) or arm64 (cross-built: ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-). The cache
# lives outside the checkout, in ${XDG_CACHE_HOME:-/var/cache}/lathound-vm/<key>/, where
# <key> hashes the fragments, this script and the source tarball, so editing either rebuilds:
#   bzImage (x86_64), Image (arm64)   the kernel
#   modules/*.ko                modules built with it (preemptirq_delay_test.ko)
#   tree/                       the configured, built tree ('make -C tree M=DIR modules')
#   release, config, build.log  'make kernelrelease', the final .config, the build's output
#   arch                        ARCH
# Only the first run pays for the build (about 5 minutes on 2 cores). Concurrent runs wait
# on a lock; a build is done in <key>.tmp and renamed into place only when complete, so an
# interrupted build is thrown away and redone, never used. A new build removes older ones
# of the same ARCH that no test is using, except the newest of them.
#
# usage: build-kernel.sh [--arch ARCH]           build if needed; print the cache directory
#        build-kernel.sh [--arch ARCH] --status  print the cache directory; exit 0 if built,
#                                                3 if not
#        build-kernel.sh --arch ARCH --make-args print the make arguments that build for ARCH
#                                                (modules: make -C DIR/tree ARGS M=... modules)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC_TAR=${LH_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
CACHE_ROOT=${XDG_CACHE_HOME:-/var/cache}/lathound-vm
JOBS=${LH_JOBS:-$(nproc)}

die() { echo "build-kernel: $*" >&2; exit 1; }

ARCH=x86_64
if [ "${1:-}" = --arch ]; then
	ARCH=${2:-}
	shift 2 || die "--arch needs a value"
fi
case $ARCH in
x86_64) MAKE_ARGS=() IMAGE=bzImage BOOT=arch/x86/boot/bzImage ;;
arm64) MAKE_ARGS=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-) IMAGE=Image
	BOOT=arch/arm64/boot/Image ;;
*) die "unknown architecture '$ARCH' (x86_64 or arm64)" ;;
esac
if [ "${1:-}" = --make-args ]; then
	echo "${MAKE_ARGS[*]}"
	exit 0
fi
FRAGMENTS=("$HERE/kernel.config" "$HERE/kernel.$ARCH.config")
[ "$ARCH" = x86_64 ] || command -v "${MAKE_ARGS[1]#CROSS_COMPILE=}gcc" >/dev/null ||
	die "no ${MAKE_ARGS[1]#CROSS_COMPILE=}gcc (apt-get install gcc-aarch64-linux-gnu)"

[ -r "$SRC_TAR" ] || die "cannot read kernel source '$SRC_TAR' (apt-get install linux-source-6.1)"

key=$( { cat "${FRAGMENTS[@]}" "$0"; echo "$ARCH"; stat -L -c '%n %s %Y' "$SRC_TAR"; } |
	sha256sum | cut -c1-16)
DIR=$CACHE_ROOT/$key

if [ "${1:-}" = --status ]; then
	echo "$DIR"
	[ -f "$DIR/$IMAGE" ] && exit 0 || exit 3
fi

if [ -f "$DIR/$IMAGE" ]; then
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
if [ -f "$DIR/$IMAGE" ]; then
	echo "$DIR"
	exit 0
fi

TMPD=$DIR.tmp
rm -rf "$TMPD"		# left by an interrupted build: we hold the lock, nobody uses it
mkdir -p "$TMPD"
echo "$ARCH" >"$TMPD/arch"
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
step make -C "$T" "${MAKE_ARGS[@]}" tinyconfig

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
done < <(cat "${FRAGMENTS[@]}")
step make -C "$T" "${MAKE_ARGS[@]}" olddefconfig

# olddefconfig silently drops what a dependency forbids: fail loudly instead.
missing=()
for w in "${want[@]}"; do
	case $w in
	*=n) ! grep -q "^${w%=n}=" "$T/.config" || missing+=("$w") ;;
	*) grep -qxF "$w" "$T/.config" || missing+=("$w") ;;
	esac
done
[ ${#missing[@]} -eq 0 ] ||
	die "make olddefconfig dropped ${missing[*]} (a dependency is missing from ${FRAGMENTS[*]##*/})"

step make -C "$T" "${MAKE_ARGS[@]}" -j"$JOBS" "$IMAGE" modules
step make -C "$T" "${MAKE_ARGS[@]}" -s kernelrelease
make -C "$T" "${MAKE_ARGS[@]}" -s kernelrelease >"$TMPD/release" 2>/dev/null
cp "$T/$BOOT" "$TMPD/$IMAGE.new"
cp "$T/.config" "$TMPD/config"
mkdir -p "$TMPD/modules"
find "$T" -name '*.ko' -exec cp {} "$TMPD/modules/" \;
[ -f "$TMPD/modules/preemptirq_delay_test.ko" ] || die "preemptirq_delay_test.ko was not built"
echo $(($(date +%s) - start)) >"$TMPD/build-seconds"
mv "$TMPD/$IMAGE.new" "$TMPD/$IMAGE"	# the image marks a complete build
rm -rf "$DIR"		# never complete (no image), else we would not be here
mv "$TMPD" "$DIR"
echo "build-kernel: built $(cat "$DIR/release") in $(cat "$DIR/build-seconds") s: $DIR" >&2

# Builds of this ARCH for another key (an older kernel.config) go, unless in use:
# tests/vm/lib-vm.sh holds a shared lock on a kernel's lock file while it uses that kernel.
# The newest of them stays: branches not yet merged (and CI on this machine) may still use
# the previous kernel.config, and removing it would make each side rebuild and remove the
# other's in turn.
kept=
for old in $(ls -dt "$CACHE_ROOT"/*); do
	k=${old##*/}
	[[ ${k%.tmp} =~ ^[0-9a-f]{16}$ ]] && [ "${k%.tmp}" != "$key" ] || continue
	# A build without 'arch' is an x86_64 one (from before arm64).
	[ "$(cat "$old/arch" 2>/dev/null || echo x86_64)" = "$ARCH" ] || continue
	if [ -z "$kept" ] && [ -f "$old/$IMAGE" ]; then
		kept=$old
		continue
	fi
	(
		exec 8>>"$CACHE_ROOT/.lock-${k%.tmp}"
		flock -n 8 && rm -rf "$old" && echo "build-kernel: removed the old build $old" >&2
	)
done
echo "$DIR"
