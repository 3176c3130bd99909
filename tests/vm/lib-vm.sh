# SPDX-License-Identifier: GPL-2.0-only
# Host side of the VM harness, shared by tests/vm/run, tests/vm/demo and tests/vm/bench.sh:
# prerequisites, the cached kernel, the lhx driver, the initramfs and QEMU boots.
# Source after tests/lib.sh (it sets TOP and TMP).

VM=$TOP/tests/vm
QEMU=${QEMU:-qemu-system-x86_64}
LH_LINUX_SOURCE=${LH_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
BUSYBOX=${BUSYBOX:-/bin/busybox}
VM_CACHE=${XDG_CACHE_HOME:-/var/cache}/lathound-vm

# vm_prereqs: prints why the VM suite cannot run here (nothing when it can).
vm_prereqs() {
	local t
	[ -x "$TOP/lathound" ] || { echo "no ./lathound (run make)"; return; }
	command -v "$QEMU" >/dev/null || { echo "no $QEMU (apt-get install qemu-system-x86)"; return; }
	[ -r "$LH_LINUX_SOURCE" ] ||
		{ echo "no kernel source $LH_LINUX_SOURCE (apt-get install linux-source-6.1)"; return; }
	[ -x "$BUSYBOX" ] || { echo "no $BUSYBOX (apt-get install busybox-static)"; return; }
	for t in make gcc flex bison bc cpio gzip xz base64 jq flock timeout; do
		command -v $t >/dev/null || { echo "no '$t' to build the kernel and guest"; return; }
	done
	[ -e /usr/include/libelf.h ] || { echo "no libelf headers (apt-get install libelf-dev)"; return; }
	mkdir -p "$VM_CACHE" 2>/dev/null && [ -w "$VM_CACHE" ] ||
		{ echo "cannot write the kernel cache $VM_CACHE (run as root or set XDG_CACHE_HOME)"; return; }
}

# vm_now: seconds since the epoch, with fractions.
vm_now() { date +%s.%N; }
vm_since() { awk -v a="$1" -v b="$(vm_now)" 'BEGIN { printf "%.1f", b - a }'; }

# vm_kernel: builds or reuses the cached kernel; sets KDIR and KERNEL_HOW ("cached" or "built
# in N s"), and holds a shared lock on it until this shell exits, so that a build for another
# kernel.config does not remove it meanwhile. Return: non-zero when the build failed (its
# output went to stderr).
vm_kernel() {
	local t0
	t0=$(vm_now)
	if KDIR=$("$VM/build-kernel.sh" --status); then
		KERNEL_HOW="cached in $KDIR"
	else
		KDIR=$("$VM/build-kernel.sh") || return 1
		KERNEL_HOW="built in $(vm_since "$t0") s into $KDIR"
	fi
	exec {VM_KERNEL_LOCK}>>"$VM_CACHE/.lock-${KDIR##*/}"
	flock -s "$VM_KERNEL_LOCK"
	[ -f "$KDIR/bzImage" ]	# removed before the lock was taken
}

# vm_lhx: builds the lhx driver against $KDIR/tree in a copy under $TMP; sets LHX_KO.
vm_lhx() {
	mkdir -p "$TMP/lhx"
	cp "$VM/lhx/lhx.c" "$VM/lhx/Kbuild" "$TMP/lhx/"
	if ! make -C "$KDIR/tree" M="$TMP/lhx" modules >"$TMP/lhx/build.log" 2>&1; then
		cat "$TMP/lhx/build.log" >&2
		return 1
	fi
	if grep -q 'warning:' "$TMP/lhx/build.log"; then
		grep -A3 'warning:' "$TMP/lhx/build.log" >&2
		return 1
	fi
	LHX_KO=$TMP/lhx/lhx.ko
}

# vm_initramfs OUT SCENARIO...: an initramfs with lathound, the modules and the scenarios,
# and the programs they name on a '# lhvm-program: PATH' line (e.g. /usr/bin/trace-cmd),
# when this machine has them: a scenario checks for its program and says when it is missing.
vm_initramfs() {
	local out=$1 s p args=()
	shift
	for s in "$@"; do
		args+=(-s "$VM/scenarios/$s.sh")
		for p in $(sed -n 's/^# lhvm-program: //p' "$VM/scenarios/$s.sh"); do
			[ -x "$p" ] && args+=(-b "$p")
		done
	done
	"$VM/mkinitramfs.sh" -o "$out" -l "$TOP/lathound" -r "$TOP/rules" -m "$LHX_KO" \
		-m "$KDIR/modules/preemptirq_delay_test.ko" "${args[@]}"
}

# vm_boot NAME MODE INITRD TIMEOUT SCENARIO...: boots the guest, which runs the scenarios in
# order; their output directories land in $TMP/NAME/<scenario>/ (with rc, log, facts...).
# TIMEOUT bounds the whole boot; the guest kills a scenario after LH_VM_SCENARIO_TIMEOUT
# seconds (default 120) and goes on with the next one.
# MODE icount: 1 CPU, -icount shift=0,sleep=off (exact guest time); smp2: plain TCG, 2 CPUs.
# Sets BOOT_S (wall seconds). Return: non-zero when QEMU failed or timed out, or the guest
# did not get to the end (the console log is $TMP/NAME.console).
vm_boot() {
	local name=$1 mode=$2 initrd=$3 timeout=$4 t0 rc list
	shift 4
	list=$(IFS=,; echo "$*")
	local accel=(-accel tcg)
	case $mode in
	icount) accel+=(-icount shift=0,sleep=off -smp 1) ;;
	smp2) accel+=(-smp 2) ;;
	*) echo "vm_boot: unknown mode '$mode'" >&2; return 1 ;;
	esac
	local cmdline="console=ttyS0 loglevel=4 panic=-1 lhvm=$list"
	cmdline+=" lhvm_timeout=${LH_VM_SCENARIO_TIMEOUT:-120}"
	t0=$(vm_now)
	timeout -k 5 "$timeout" "$QEMU" "${accel[@]}" -m 256M -nographic -no-reboot \
		-kernel "$KDIR/bzImage" -initrd "$initrd" -append "$cmdline" \
		</dev/null >"$TMP/$name.console" 2>"$TMP/$name.qemu-err"
	rc=$?
	BOOT_S=$(vm_since "$t0")
	tr -d '\r' <"$TMP/$name.console" >"$TMP/$name.log"
	mkdir -p "$TMP/$name"
	vm_unpack "$TMP/$name.log" "$TMP/$name"
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "vm_boot: $name: QEMU timed out after $timeout s" >&2
		return 1
	fi
	if [ $rc != 0 ]; then
		echo "vm_boot: $name: QEMU exited $rc: $(head -c 500 "$TMP/$name.qemu-err")" >&2
		return 1
	fi
	grep -q '^LHVM-DONE' "$TMP/$name.log" || {
		echo "vm_boot: $name: the guest did not finish; console tail:" >&2
		tail -20 "$TMP/$name.log" >&2
		return 1
	}
}

# vm_unpack LOG DIR: extracts every scenario block of a console log into DIR.
vm_unpack() {
	local log=$1 dir=$2 s
	for s in $(sed -n 's/^LHVM-END \([^ ]*\) .*/\1/p' "$log"); do
		sed -n "/^LHVM-BEGIN $s\$/,/^LHVM-END $s /p" "$log" | sed '1d;$d' |
			base64 -d 2>/dev/null | tar xzf - -C "$dir" 2>/dev/null ||
			echo "vm_unpack: cannot unpack the output of scenario '$s'" >&2
	done
}

# vm_fact DIR KEY: the value a scenario recorded with 'fact KEY VALUE' (empty if none).
vm_fact() {
	sed -n "s/^$2=//p" "$1/facts" 2>/dev/null | tail -1
}
