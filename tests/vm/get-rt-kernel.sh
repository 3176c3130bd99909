#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian's own PREEMPT_RT kernel, as RT users run it (linux-image-rt-amd64, 6.1): downloaded
# with apt-get and unpacked, never installed. Prints the directory that holds vmlinuz and
# config (CACHE/debian-rt/<version>/); the first run downloads (~70 MB), the next ones reuse it.
#
#	tests/vm/get-rt-kernel.sh [CACHE]
set -eu

cache=${1:-${XDG_CACHE_HOME:-/var/cache}/lathound-vm}
pkg=$(apt-cache depends linux-image-rt-amd64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9.]*-[0-9]*-rt-amd64\)$/\1/p' | head -n 1)
if [ -z "$pkg" ]; then
	echo "get-rt-kernel: apt knows no linux-image-rt-amd64 (run apt-get update)" >&2
	exit 1
fi
dir=$cache/debian-rt/${pkg#linux-image-}
if [ -f "$dir/vmlinuz" ] && [ -f "$dir/config" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$cache/debian-rt"
exec 9>"$cache/debian-rt/.lock"
flock 9
if [ ! -f "$dir/vmlinuz" ]; then
	tmp=$(mktemp -d "$cache/debian-rt/.get.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# apt-get download writes to the working directory; as root it drops to _apt, which
	# must be able to write there
	chmod 0777 "$tmp"
	(cd "$tmp" && apt-get download -q "$pkg" >&2)
	dpkg-deb -x "$tmp"/"$pkg"_*.deb "$tmp/x"
	mkdir -p "$tmp/out"
	cp "$tmp"/x/boot/vmlinuz-* "$tmp/out/vmlinuz"
	cp "$tmp"/x/boot/config-* "$tmp/out/config"
	rm -rf "$dir"
	mv "$tmp/out" "$dir"
fi
echo "$dir"
