#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian packages that building, testing and the VM demo need, when missing,
# and fetches Debian's own RT kernel for tests/vm/rt (downloaded and unpacked into the VM
# cache by tests/vm/get-rt-kernel.sh, never installed; quick once cached).
# Needs root for apt-get; without it, names what is missing and goes on (the tests then
# skip what they cannot run, saying why).
PKGS=(gcc make pkg-config libtracefs-dev libtraceevent-dev libtracecmd-dev libpcre2-dev
      libvectorscan-dev
      libjson-c-dev check libsubunit-dev zlib1g-dev jq clang libxml2-utils libxml2-dev time
      trace-cmd strace
      qemu-system-x86 busybox-static linux-source-6.1 flex bison bc libelf-dev libssl-dev
      cpio xz-utils kmod prometheus prometheus-node-exporter curl python3-yaml systemd man-db chromium
      gcc-aarch64-linux-gnu qemu-system-arm
      rtla)
# rtla (Debian's, from the kernel's tools/tracing/rtla): the peer bench/vm-rtla.sh runs in
# the RT guest beside lathound's timerlat; no test needs it.
# The arm64 guests (VM_ARCH=arm64 tests/vm/run) take Debian's arm64 packages, downloaded and
# unpacked by tests/vm/arm64-root.sh, never installed (libtracecmd-dev, libtracecmd1 and
# busybox-static are not Multi-Arch: same: installing their :arm64 copies would remove the
# build machine's own): apt needs the arm64 architecture and its package lists for that.
if ! grep -qx arm64 <<<"$(dpkg --print-foreign-architectures)" ||
   ! ls /var/lib/apt/lists/*_binary-arm64_Packages* >/dev/null 2>&1; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps: run as root: dpkg --add-architecture arm64 && apt-get update" >&2
	else
		echo "deps: adding the arm64 architecture to apt"
		dpkg --add-architecture arm64 && apt-get update >/tmp/lathound-apt.log 2>&1 ||
			{ echo "deps: apt-get update failed, see /tmp/lathound-apt.log" >&2; exit 1; }
	fi
fi
# Cross-builds (tests/cross/run): arm64 and armhf toolchains, their -dev libraries (Debian's
# multiarch), qemu-user for running the builds. libtracecmd is not Multi-Arch: same (its :arm64
# package would replace the native one): cross_sysroots unpacks its ARM copies into
# $CROSS_CACHE/ARCH/sysroot instead, with a libtracecmd.pc in $CROSS_CACHE/ARCH/pkgconfig.
CROSS_CACHE=/var/cache/lathound-cross
declare -A CROSS_TRIPLET=([arm64]=aarch64-linux-gnu [armhf]=arm-linux-gnueabihf)
PKGS+=(qemu-user-static libvectorscan-dev:arm64)
for a in "${!CROSS_TRIPLET[@]}"; do
	PKGS+=("crossbuild-essential-$a" "pkgconf:$a" "libtracefs-dev:$a" "libtraceevent-dev:$a"
	       "libpcre2-dev:$a" "libjson-c-dev:$a" "zlib1g-dev:$a" "libzstd1:$a" "check:$a"
	       "libsubunit-dev:$a")
done
cross_sysroots() {
	local a v dir tmp
	v=$(dpkg-query -W -f='${Version}' libtracecmd1 2>/dev/null) || return 0
	for a in "${!CROSS_TRIPLET[@]}"; do
		dir=$CROSS_CACHE/$a
		[ "$(cat "$dir/version" 2>/dev/null)" = "$v" ] && continue
		tmp=$(mktemp -d) && chmod 755 "$tmp" && rm -rf "$dir" && mkdir -p "$dir/pkgconfig" &&
		(cd "$tmp" && apt-get download "libtracecmd1:$a=$v" "libtracecmd-dev:$a=$v") \
			>>/tmp/lathound-apt.log 2>&1 &&
		dpkg-deb -x "$tmp"/libtracecmd1_*.deb "$dir/sysroot" &&
		dpkg-deb -x "$tmp"/libtracecmd-dev_*.deb "$dir/sysroot" &&
		sed "s|=/usr|=$dir/sysroot/usr|" \
			"$dir/sysroot/usr/lib/${CROSS_TRIPLET[$a]}/pkgconfig/libtracecmd.pc" \
			>"$dir/pkgconfig/libtracecmd.pc" && echo "$v" >"$dir/version" ||
			echo "deps: libtracecmd for $a not unpacked into $dir, see /tmp/lathound-apt.log" >&2
		rm -rf "$tmp"
	done
}

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
# rt_kernel: Debian's linux-image-rt-amd64, for tests/vm/rt (a warning when it cannot be had).
rt_kernel() {
	"$(dirname "$0")/vm/get-rt-kernel.sh" >/dev/null ||
		echo "deps: cannot fetch Debian's RT kernel (tests/vm/rt will skip)" >&2
}
if [ ${#missing[@]} -eq 0 ]; then
	rt_kernel
	[ "$(id -u)" = 0 ] && cross_sysroots
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages (install as root): ${missing[*]}" >&2
	exit 0
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
for a in "${!CROSS_TRIPLET[@]}"; do
	grep -qx "$a" <<<"$(dpkg --print-foreign-architectures)" || dpkg --add-architecture "$a"
done
# prometheus and prometheus-node-exporter start their services when installed where an init
# system runs: the tests need neither (they start node_exporter on a free port of their own)
# and the default ports 9090 and 9100 are not theirs to take. A policy-rc.d that forbids
# starting services is put in place for the install only, unless one is there already.
policy=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d &&
		policy=/usr/sbin/policy-rc.d
	trap '[ -n "$policy" ] && rm -f "$policy"' EXIT
fi
if ! apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/lathound-apt.log 2>&1; then
	apt-get update >>/tmp/lathound-apt.log 2>&1
	apt-get install -y --no-install-recommends "${missing[@]}" >>/tmp/lathound-apt.log 2>&1 ||
		{ echo "deps: apt-get install failed, see /tmp/lathound-apt.log" >&2; tail -5 /tmp/lathound-apt.log >&2; exit 1; }
fi
rt_kernel
cross_sysroots
