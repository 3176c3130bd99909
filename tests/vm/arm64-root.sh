#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Debian's arm64 packages for the arm64 guests, unpacked into one directory tree and cached:
# downloaded with 'apt-get download' and unpacked with 'dpkg-deb -x', never installed. The
# build machine's own packages stay as they are: libtracecmd-dev and libtracecmd1 are not
# Multi-Arch: same (installing their :arm64 copies removes the native ones), nor are
# busybox-static, rt-tests and stress-ng. The tree holds
#   - the development files lathound is cross-built against (a sysroot for pkg-config:
#     PKG_CONFIG_SYSROOT_DIR=ROOT, PKG_CONFIG_LIBDIR=ROOT/usr/lib/aarch64-linux-gnu/pkgconfig),
#   - the guests' programs (busybox-static, cyclictest, stress-ng, trace-cmd) and every library
#     they and lathound need, with the dynamic loader,
#   - Debian's arm64 PREEMPT_RT kernel, linux-image-rt-arm64 (ROOT/boot/vmlinuz-*, an
#     uncompressed arm64 Image, and its config-*; not its modules).
# Libraries come with the libraries they depend on, to the end; programs such as python3 that
# rt-tests' scripts want are left out (the guests run cyclictest only). It lives in
# ${XDG_CACHE_HOME:-/var/cache}/lathound-vm/arm64-root/<key>, <key> hashing FORMAT, the
# packages named below and apt's arm64 package lists, so a Debian update or another package
# makes a new tree; older ones go when no test uses them. Needs 'dpkg --add-architecture
# arm64' and 'apt-get update' (tests/deps.sh).
#
# usage: arm64-root.sh           unpack if needed; print the tree's directory
#        arm64-root.sh --status  print it; exit 0 if unpacked, 3 if not
set -euo pipefail

CACHE_ROOT=${XDG_CACHE_HOME:-/var/cache}/lathound-vm/arm64-root
# The tree's layout and how its packages are chosen: a change here makes a new tree.
FORMAT=1
# Development packages: the -dev packages they depend on are not followed (those the build
# needs are named here).
DEV=(libc6-dev linux-libc-dev libcrypt-dev libtracefs-dev libtraceevent-dev libtracecmd-dev
     libpcre2-dev libjson-c-dev zlib1g-dev libvectorscan-dev)
PROGRAMS=(busybox-static rt-tests stress-ng trace-cmd)

die() { echo "arm64-root: $*" >&2; exit 1; }

# Not a pipe: grep -q stops at its match, and under pipefail dpkg's SIGPIPE (armhf listed
# after arm64) would fail the test.
grep -qx arm64 <<<"$(dpkg --print-foreign-architectures)" ||
	die "arm64 is not a dpkg architecture here (tests/deps.sh adds it)"
lists=$(ls /var/lib/apt/lists/*_binary-arm64_Packages* 2>/dev/null) ||
	die "no arm64 package lists (apt-get update, after tests/deps.sh)"
key=$( { echo "$FORMAT ${DEV[*]} ${PROGRAMS[*]}"; stat -c '%n %s %Y' $lists; } |
	sha256sum | cut -c1-16)
DIR=$CACHE_ROOT/$key

if [ "${1:-}" = --status ]; then
	echo "$DIR"
	[ -f "$DIR/.complete" ] && exit 0 || exit 3
fi
if [ -f "$DIR/.complete" ]; then
	echo "$DIR"
	exit 0
fi

mkdir -p "$CACHE_ROOT" || die "cannot create '$CACHE_ROOT'"
exec 9>"$CACHE_ROOT/.lock"
flock 9
if [ ! -f "$DIR/.complete" ]; then
	start=$(date +%s)
	rt=$(apt-cache depends linux-image-rt-arm64:arm64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9.]*-[0-9]*-rt-arm64\)\(:arm64\)\?$/\1/p' | head -1)
	[ -n "$rt" ] || die "apt knows no linux-image-rt-arm64 (apt-get update, after tests/deps.sh)"

	# The packages: those named, and the shared libraries they depend on, recursively: the
	# Multi-Arch: same packages and the lib* ones (libtracecmd1 is not M-A same); not programs
	# such as python3 or perl, nor other -dev packages (those the build needs are named).
	declare -A seen
	want=()
	queue=("${DEV[@]}" "${PROGRAMS[@]}")
	for p in "${DEV[@]}" "${PROGRAMS[@]}" "$rt"; do
		seen[$p]=1
		want+=("$p")
	done
	while [ ${#queue[@]} -gt 0 ]; do
		deps=()
		for d in $(apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks \
				--no-replaces --no-enhances "${queue[@]/%/:arm64}" 2>/dev/null |
			   sed -n 's/^ *|\?\(Pre\)\?Depends: \([^ <>]*\)$/\2/p'); do
			d=${d%:arm64}
			[[ $d == *-dev || $d == *:* || -n ${seen[$d]:-} ]] && continue
			seen[$d]=1
			deps+=("$d:arm64")
		done
		queue=()
		[ ${#deps[@]} -gt 0 ] || break
		for d in $(apt-cache show --no-all-versions "${deps[@]}" 2>/dev/null |
			   awk '/^Package:/ { p = $2; ma = "" } /^Multi-Arch:/ { ma = $2 }
				/^$/ && p != "" { if (ma == "same" || p ~ /^lib/) print p; p = "" }
				END { if (p != "" && (ma == "same" || p ~ /^lib/)) print p }'); do
			want+=("$d")
			queue+=("$d")
		done
	done
	# What apt fetches (kept in .packages).
	versions=$(apt-cache policy "${want[@]/%/:arm64}" |
		awk '/^[^ ]/ { p = $1; sub(/:$/, "", p) } $1 == "Candidate:" { print p, $2 }' |
		LC_ALL=C sort)
	[ "$(wc -l <<<"$versions")" = ${#want[@]} ] || die "apt-cache policy did not name every package"
	! grep -q ' \((none)\)\?$' <<<"$versions" ||
		die "apt has no arm64 candidate for: $(grep ' \((none)\)\?$' <<<"$versions" | tr '\n' ' ')"
	tmp=$(mktemp -d "$CACHE_ROOT/.get.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# apt-get download writes to the working directory; as root it drops to _apt, which
	# must be able to write there.
	chmod 0777 "$tmp"
	mkdir "$tmp/debs"
	chmod 0777 "$tmp/debs"
	(cd "$tmp/debs" && apt-get download -q "${want[@]/%/:arm64}" >"$tmp/download.log" 2>&1) ||
		{ tail -5 "$tmp/download.log" >&2; die "apt-get download failed"; }
	mkdir "$tmp/root"
	for deb in "$tmp"/debs/*.deb; do
		if [[ ${deb##*/} == "${rt}_"* ]]; then
			dpkg-deb --fsys-tarfile "$deb" | tar -xf - -C "$tmp/root" ./boot
		else
			dpkg-deb -x "$deb" "$tmp/root"
		fi || die "cannot unpack $deb"
	done
	# Debian's development symlinks may be absolute (/lib/...): relative ones stay inside.
	find "$tmp/root" -type l -lname '/*' | while read -r l; do
		ln -sfn "$(realpath -ms --relative-to="${l%/*}" "$tmp/root$(readlink "$l")")" "$l"
	done
	echo "$versions" >"$tmp/root/.packages"
	echo $(($(date +%s) - start)) >"$tmp/root/.seconds"
	touch "$tmp/root/.complete"
	rm -rf "$DIR"
	mv "$tmp/root" "$DIR"
	echo "arm64-root: ${#want[@]} packages unpacked in $(cat "$DIR/.seconds") s: $DIR" >&2
	# Older trees go, unless in use (tests/vm/lib-vm.sh holds a shared lock on .lock-<key>).
	for old in "$CACHE_ROOT"/*; do
		[ "$old" = "$DIR" ] && continue
		(
			exec 8>>"$CACHE_ROOT/.lock-${old##*/}"
			flock -n 8 && rm -rf "$old"
		)
	done
fi
echo "$DIR"
