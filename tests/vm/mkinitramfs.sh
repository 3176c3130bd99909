#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the test guest's initramfs: busybox-static, lathound with the shared libraries ldd
# lists and the dynamic loader, the repo's rules/, kernel modules, the scenario scripts,
# tests/vm/guest/{init,lib.sh,lhx-inject} and other programs a scenario runs (-b, e.g.
# /usr/bin/trace-cmd, with their libraries too). Needs no root (the archive's files are
# root-owned through cpio -R; /init opens /dev/console itself once devtmpfs is mounted).
# A guest of another architecture takes -R ROOT, that architecture's Debian packages unpacked
# (tests/vm/arm64-root.sh): busybox is ROOT/bin/busybox, -b names programs inside ROOT, and
# the libraries (readelf's NEEDED, recursively) and the loader (PT_INTERP) come from ROOT.
# -p names a program of this machine's file system all the same (another lathound built for
# the guest), its libraries found as -b's are. -d copies a data file (a trace a scenario
# reads, e.g. bench/vm-rtla.sh's calibration) into /opt/lathound/data/, by its base name.
#
# usage: mkinitramfs.sh -o OUT.cpio.gz [-R ROOT] [-l LATHOUND] [-r RULES_DIR] [-m MODULE.ko]...
#                       [-s SCENARIO.sh]... [-b PROGRAM]... [-p PROGRAM]... [-d FILE]...
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUSYBOX=${BUSYBOX:-/bin/busybox}
out= lathound=$TOP/lathound rules=$TOP/rules sysroot=
modules=() scenarios=() programs=() own=() data=()

die() { echo "mkinitramfs: $*" >&2; exit 1; }

while getopts o:R:l:r:m:s:b:p:d: opt; do
	case $opt in
	o) out=$OPTARG ;;
	R) sysroot=$OPTARG BUSYBOX=$OPTARG/bin/busybox ;;
	l) lathound=$OPTARG ;;
	r) rules=$OPTARG ;;
	m) modules+=("$OPTARG") ;;
	s) scenarios+=("$OPTARG") ;;
	b) programs+=("$OPTARG") ;;
	p) own+=("$OPTARG") ;;
	d) data+=("$OPTARG") ;;
	*) die "usage: mkinitramfs.sh -o OUT [-R ROOT] [-l LATHOUND] [-r RULES] [-m KO]... [-s SCRIPT]... [-b PROGRAM]... [-p PROGRAM]... [-d FILE]..." ;;
	esac
done
[ -n "$out" ] || die "no output given (-o OUT.cpio.gz)"
[ -f "$lathound" ] && [ -x "$lathound" ] || die "cannot run '$lathound' (run make first)"
[ -x "$BUSYBOX" ] || die "no busybox at '$BUSYBOX' (apt-get install busybox-static)"
readelf -d "$BUSYBOX" 2>/dev/null | grep -q NEEDED &&
	die "'$BUSYBOX' is not statically linked (apt-get install busybox-static)"

root=$(mktemp -d /tmp/lathound-initramfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,etc,modules,scenarios,lhvm} \
	"$root"/opt/lathound

cp "$BUSYBOX" "$root/bin/busybox"
# Another architecture's busybox cannot say its applets here: the guest's init installs them.
if [ -z "$sysroot" ]; then
	for applet in $("$BUSYBOX" --list); do
		[ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
	done
else
	ln -s busybox "$root/bin/sh"
fi

# sysroot_libs FILE: the paths (inside $sysroot) of the libraries FILE needs, recursively,
# and of its loader.
sysroot_libs() {
	local -A done_
	local todo=("$1") f name dir found
	readelf -l "$1" | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p'
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for name in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[ -n "${done_[$name]:-}" ] && continue
			done_[$name]=1
			found=
			for dir in "$sysroot"/lib/*-linux-gnu* "$sysroot"/usr/lib/*-linux-gnu* \
				   "$sysroot/lib" "$sysroot/usr/lib"; do
				[ -e "$dir/$name" ] && found=$dir/$name && break
			done
			[ -n "$found" ] || die "'$1' needs $name, which is not in $sysroot"
			echo "${found#"$sysroot"}"
			todo+=("$found")
		done
	done
}

# copy_libs PROGRAM: the libraries it needs and the loader, each at the path the loader
# looks for it: ldd's list, or with -R readelf's, from ROOT.
copy_libs() {
	local lib libs
	if [ -n "$sysroot" ]; then
		libs=$(sysroot_libs "$1") || exit 1
		for lib in $libs; do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$sysroot$lib" "$root$lib"
		done
		return
	fi
	while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done < <(ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
}

cp "$lathound" "$root/opt/lathound/lathound"
ln -s /opt/lathound/lathound "$root/usr/bin/lathound"
copy_libs "$lathound"
for p in "${programs[@]/#/$sysroot}" "${own[@]}"; do
	[ -x "$p" ] || die "cannot run '$p'"
	cp -L "$p" "$root/usr/bin/"
	copy_libs "$p"
done
[ -d "$rules" ] && cp -r "$rules" "$root/opt/lathound/rules"
mkdir -p "$root/opt/lathound/rules"
# The guest runs the lhx driver: its rules join the shipped ones there.
cp "$HERE/lhx/lhx.rules" "$root/opt/lathound/rules/"
echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"

for m in "${modules[@]}"; do cp "$m" "$root/modules/"; done
if [ ${#data[@]} -gt 0 ]; then
	mkdir -p "$root/opt/lathound/data"
	for f in "${data[@]}"; do
		[ -f "$f" ] || die "no data file '$f'"
		[ -e "$root/opt/lathound/data/$(basename "$f")" ] &&
			die "two data files named '$(basename "$f")'"
		cp "$f" "$root/opt/lathound/data/"
	done
fi
for s in "${scenarios[@]}"; do cp "$s" "$root/scenarios/"; done
cp "$HERE/guest/init" "$root/init"
cp "$HERE/guest/lib.sh" "$root/lhvm/lib.sh"
cp "$HERE/guest/lhx-inject" "$root/bin/lhx-inject"
chmod 0755 "$root/init" "$root/bin/lhx-inject"

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
