# SPDX-License-Identifier: GPL-2.0-only
# Host side of the VM harness, shared by tests/vm/run, tests/vm/demo and tests/vm/bench.sh:
# prerequisites, the cached kernel, the lhx driver, the initramfs and QEMU boots.
# Source after tests/lib.sh (it sets TOP and TMP). VM_ARCH (x86_64 by default, or arm64)
# is the guests' architecture: arm64 guests boot 'qemu-system-aarch64 -M virt' with a kernel
# cross-built from the same source, and run a lathound cross-built here (vm_arm64_root,
# vm_cross_lathound) with Debian's arm64 busybox and libraries.

VM=$TOP/tests/vm
VM_ARCH=${VM_ARCH:-x86_64}
case $VM_ARCH in
arm64) QEMU=${QEMU:-qemu-system-aarch64} VM_IMAGE=Image ;;
*) QEMU=${QEMU:-qemu-system-x86_64} VM_IMAGE=bzImage ;;
esac
LH_LINUX_SOURCE=${LH_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
BUSYBOX=${BUSYBOX:-/bin/busybox}
VM_CACHE=${XDG_CACHE_HOME:-/var/cache}/lathound-vm
# The lathound the guest runs (bench/vm-soak.sh measures another build with it, e.g. main's).
LATHOUND_BIN=${LATHOUND_BIN:-$TOP/lathound}
# The kernel and the lhx driver are built by make runs of their own. Under 'make -jN check' the
# MAKEFLAGS passed down name a jobserver whose descriptors are closed: those runs would go
# serial and print 'jobserver unavailable', which the driver's warning-free check then fails.
unset MAKEFLAGS MFLAGS MAKELEVEL

# vm_boot_prereqs: prints why no guest can boot here (nothing when one can): QEMU, the guest's
# busybox (an arm64 guest's comes with Debian's arm64 packages), jq for the reports.
vm_boot_prereqs() {
	[ "$VM_ARCH" = arm64 ] || [ -x "$LATHOUND_BIN" ] || { echo "no $LATHOUND_BIN (run make)"; return; }
	command -v "$QEMU" >/dev/null ||
		{ echo "no $QEMU (apt-get install qemu-system-x86 qemu-system-arm)"; return; }
	if [ "$VM_ARCH" = arm64 ]; then
		command -v aarch64-linux-gnu-gcc >/dev/null ||
			{ echo "no aarch64-linux-gnu-gcc (apt-get install gcc-aarch64-linux-gnu)"; return; }
		grep -qx arm64 <<<"$(dpkg --print-foreign-architectures)" ||
			{ echo "arm64 is no dpkg architecture here (tests/deps.sh adds it)"; return; }
	fi
	[ "$VM_ARCH" = arm64 ] || [ -x "$BUSYBOX" ] ||
		{ echo "no $BUSYBOX (apt-get install busybox-static)"; return; }
	command -v jq >/dev/null || echo "no jq"
}

# vm_prereqs: prints why the VM suite cannot run here (nothing when it can): a guest boots,
# and the test kernel and its driver build.
vm_prereqs() {
	local t why

	why=$(vm_boot_prereqs)
	[ -z "$why" ] || { echo "$why"; return; }
	[ -r "$LH_LINUX_SOURCE" ] ||
		{ echo "no kernel source $LH_LINUX_SOURCE (apt-get install linux-source-6.1)"; return; }
	for t in make gcc flex bison bc cpio gzip xz base64 flock timeout readelf; do
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
	if KDIR=$("$VM/build-kernel.sh" --arch "$VM_ARCH" --status); then
		KERNEL_HOW="cached in $KDIR"
	else
		KDIR=$("$VM/build-kernel.sh" --arch "$VM_ARCH") || return 1
		KERNEL_HOW="built in $(vm_since "$t0") s into $KDIR"
	fi
	exec {VM_KERNEL_LOCK}>>"$VM_CACHE/.lock-${KDIR##*/}"
	flock -s "$VM_KERNEL_LOCK"
	[ -f "$KDIR/$VM_IMAGE" ]	# removed before the lock was taken
}

# vm_arm64_root: Debian's arm64 packages the arm64 guests and the cross-build use, unpacked
# (tests/vm/arm64-root.sh, cached); sets ARM64_ROOT and holds a shared lock on it until this
# shell exits. Return: non-zero when they could not be fetched (said on stderr).
vm_arm64_root() {
	ARM64_ROOT=$("$VM/arm64-root.sh") || return 1
	exec {VM_ROOT_LOCK}>>"${ARM64_ROOT%/*}/.lock-${ARM64_ROOT##*/}"
	flock -s "$VM_ROOT_LOCK"
	[ -f "$ARM64_ROOT/.complete" ]
}

# vm_cross_lathound: builds lathound for arm64 (Vectorscan on) in a copy of the source under
# $TMP, against $ARM64_ROOT (its pkg-config files, headers and libraries as a sysroot);
# sets LATHOUND_BIN. LATHOUND_ARM64_BIN names one built already (none is built then).
# Return: non-zero when the build failed (its log on stderr).
vm_cross_lathound() {
	local b=$TMP/lathound-arm64
	if [ -n "$LATHOUND_ARM64_BIN" ]; then
		LATHOUND_BIN=$LATHOUND_ARM64_BIN
		return
	fi
	mkdir -p "$b"
	# The sources only: the checkout may hold the build machine's objects.
	cp "$TOP/Makefile" "$TOP/config.mk" "$b/"
	(cd "$TOP" && shopt -s nullglob && cp --parents src/*.[ch] src/*/*.[ch] "$b/")
	if ! PKG_CONFIG_SYSROOT_DIR=$ARM64_ROOT \
	     PKG_CONFIG_LIBDIR=$ARM64_ROOT/usr/lib/aarch64-linux-gnu/pkgconfig:$ARM64_ROOT/usr/share/pkgconfig \
	     make -C "$b" -j"$(nproc)" CC="aarch64-linux-gnu-gcc --sysroot=$ARM64_ROOT" \
		PKG_CONFIG=pkg-config VECTORSCAN=yes lathound >"$b/build.log" 2>&1; then
		grep -E "error|warning|Error" "$b/build.log" | head -20 >&2
		return 1
	fi
	LATHOUND_BIN=$b/lathound
}

# vm_lhx: builds the lhx driver against $KDIR/tree in a copy under $TMP; sets LHX_KO.
vm_lhx() {
	mkdir -p "$TMP/lhx"
	cp "$VM/lhx/lhx.c" "$VM/lhx/Kbuild" "$TMP/lhx/"
	if ! make -C "$KDIR/tree" $("$VM/build-kernel.sh" --arch "$VM_ARCH" --make-args) \
		M="$TMP/lhx" modules >"$TMP/lhx/build.log" 2>&1; then
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
# when this machine has them (an arm64 guest: when $ARM64_ROOT has them): a scenario checks
# for its program and says when it is missing. VM_MODULES (default: lhx and
# preemptirq_delay_test built with $KDIR) are the modules it holds. VM_PROGRAMS
# (space-separated paths) adds programs of the caller's, e.g. another lathound.
vm_initramfs() {
	local out=$1 s p m args=() root=
	shift
	for p in $VM_PROGRAMS; do
		args+=(-p "$p")
	done
	[ "$VM_ARCH" = arm64 ] && root=$ARM64_ROOT args+=(-R "$root")
	for s in "$@"; do
		args+=(-s "$VM/scenarios/$s.sh")
		for p in $(sed -n 's/^# lhvm-program: //p' "$VM/scenarios/$s.sh"); do
			[ -x "$root$p" ] && args+=(-b "$p")
		done
	done
	for m in ${VM_MODULES-$LHX_KO $KDIR/modules/preemptirq_delay_test.ko}; do
		args+=(-m "$m")
	done
	"$VM/mkinitramfs.sh" -o "$out" -l "$LATHOUND_BIN" -r "$TOP/rules" "${args[@]}"
}

# vm_boot NAME MODE INITRD TIMEOUT SCENARIO...: boots the guest, which runs the scenarios in
# order; their output directories land in $TMP/NAME/<scenario>/ (with rc, log, facts...).
# TIMEOUT bounds the whole boot; the guest kills a scenario after VM_SCENARIO_TIMEOUT (else
# LH_VM_SCENARIO_TIMEOUT, default 120) guest seconds and goes on with the next one.
# VM_APPEND is added to the kernel command line (NAME=VALUE reaches the scenarios' environment).
# MODE icount: 1 CPU, -icount shift=0,sleep=off (exact guest time); smp2: plain TCG, 2 CPUs
# in one host thread: multi-threaded TCG hung Debian's RT kernel twice in about ten boots (no
# output until the timeout, tests/vm/rt/run) and crashed the test kernel once while ftrace
# patched its text from the other vCPU (bench/README.md);
# soak: 1 CPU, -icount shift=1,sleep=off: idle guest time is skipped, so guest hours of a
# mostly idle soak take minutes (12 guest hours: about half an hour on 2 busy cores).
# An arm64 guest is QEMU's virt machine (GIC, architected timer, PL011 on ttyAMA0), a
# Cortex-A57. VM_KERNEL (default $KDIR/$VM_IMAGE) is the kernel booted; VM_ACCEL QEMU's
# -accel (default tcg, and tcg,thread=single for smp2).
# Sets BOOT_S (wall seconds). Return: non-zero when QEMU failed or timed out, or the guest
# did not get to the end (the console log is $TMP/NAME.console).
vm_boot() {
	local name=$1 mode=$2 initrd=$3 timeout=$4 t0 rc list
	shift 4
	list=$(IFS=,; echo "$*")
	local qargs=() console=ttyS0
	case $mode in
	icount) qargs+=(-accel "${VM_ACCEL:-tcg}" -icount shift=0,sleep=off -smp 1) ;;
	soak) qargs+=(-accel "${VM_ACCEL:-tcg}" -icount shift=1,sleep=off -smp 1) ;;
	smp2) qargs+=(-accel "${VM_ACCEL:-tcg,thread=single}" -smp 2) ;;
	*) echo "vm_boot: unknown mode '$mode'" >&2; return 1 ;;
	esac
	[ "$VM_ARCH" = arm64 ] && qargs+=(-M virt -cpu cortex-a57) console=ttyAMA0
	local cmdline="console=$console loglevel=4 panic=-1 lhvm=$list"
	cmdline+=" lhvm_timeout=${VM_SCENARIO_TIMEOUT:-${LH_VM_SCENARIO_TIMEOUT:-120}}"
	[ -n "$VM_APPEND" ] && cmdline+=" $VM_APPEND"
	t0=$(vm_now)
	timeout -k 5 "$timeout" "$QEMU" "${qargs[@]}" -m "${VM_MEM:-256M}" -nographic -no-reboot \
		-kernel "${VM_KERNEL:-$KDIR/$VM_IMAGE}" -initrd "$initrd" -append "$cmdline" \
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

# vm_scenario_log DIR: when the scenario that left DIR did not exit 0, says so and shows the
# start of its log, as '# ' lines.
vm_scenario_log() {
	[ "$(cat "$1/rc" 2>/dev/null)" = 0 ] && return
	echo "# scenario ${1##*/} exited '$(cat "$1/rc" 2>/dev/null)'; its log:"
	head -20 "$1/log" 2>/dev/null | sed 's/^/#   /'
}

# vm_soak_figures DIR: what a soak (scenarios/soak.sh) measured, as KEY=VALUE lines:
#   injections; armed: made while irqsoff was armed (the tracer of states b and c); settled:
#   also of a and d (not within the margin of a slice's switch); armed_captured,
#   settled_captured; missed: the settled ones not captured (k:us ...); paused: armed ones
#   that began with tracing off (lathound reading a snapshot: blind; tracing off just after
#   one is no sign, it may be the read of that very section). Injection k ran
#   2500 + 10 k us: it was captured when an irqsoff record's fakeraid handler ran us to
#   us + 8 us;
#   captures, lost, dropped (snapshots), records; other: captures that were no injection
#   (by any tracer: preemptoff sees the fakeraid handler too);
#   armed_s.TRACER, blind_s.TRACER; rss_kb.hN, cpu_s.hN, at.hN per guest hour N and at the
#   end; cpu_pct: lathound's share of the guest CPU; out_kb, snapshots, rc, guest_s.
vm_soak_figures() {
	local d=$1 r=$1/soak/report.json durs k
	# TRACER:DURATION of each record's longest fakeraid handler run
	durs=$(jq -r '.records[] | "\(.tracer):\([.irqs[] | select(.name == "fakeraid") |
		.duration_us // empty] | max // empty)"' "$r" 2>/dev/null | grep -v ':$' | tr '\n' ' ')
	awk -v durs="$durs" -v captures="$(jq -r '.run.captures // 0' "$r" 2>/dev/null)" '
		BEGIN {
			n = split(durs, td, " ")
			for (i = 1; i <= n; i++) {
				split(td[i], f, ":")
				tracer[i] = f[1]; dur[i] = f[2]
			}
		}
		{
			us = $2
			for (i = 4; i <= 7; i++)
				tr[i] = substr($i, 1, index($i, ":") - 1)
			armed = tr[4] == "irqsoff" && tr[6] == "irqsoff"
			settled = armed && tr[5] == "irqsoff" && tr[7] == "irqsoff"
			paused += armed && $4 == "irqsoff:0"
			got = 0
			for (i = 1; i <= n; i++) {
				if (dur[i] < us || dur[i] >= us + 8)
					continue
				caught++
				if (tracer[i] == "irqsoff")
					got = 1
			}
			inj++; a += armed; s += settled
			ac += armed && got; sc += settled && got
			if (settled && !got)
				missed = missed " " $1 ":" us
		}
		END {
			printf "injections=%d\narmed=%d\nsettled=%d\n", inj, a, s
			printf "armed_captured=%d\nsettled_captured=%d\nmissed=%s\n", ac, sc, missed
			printf "paused=%d\n", paused
			printf "other=%d\n", captures - caught
		}' "$d/injections" 2>/dev/null
	jq -r '"captures=\(.run.captures)", "lost=\(.run.sections_lost)",
		"dropped=\(.run.snapshots_dropped)", "records=\(.records_total)",
		(.tracers | to_entries[] | "armed_s.\(.key)=\(.value.armed_s // "")",
					    "blind_s.\(.key)=\(.value.blind_s // "")")' "$r" 2>/dev/null
	for k in rc s out_kb snapshots; do
		echo "$k=$(vm_fact "$d" "soak.$k")"
	done | sed 's/^s=/guest_s=/'
	sed -n 's/^\(h[0-9]*\|end\)\.\(rss_kb\|cpu_s\|at\)=/\2.\1=/p' "$d/facts" 2>/dev/null
	awk -v c="$(vm_fact "$d" end.cpu_s)" -v t="$(vm_fact "$d" end.at)" \
		'BEGIN { if (t > 0) printf "cpu_pct=%.3f\n", 100 * c / t }'
}

# soak_fig FIGURES KEY: one value of vm_soak_figures' output.
soak_fig() { sed -n "s/^$2=//p" <<<"$1" | tail -1; }

# vm_blind_figures DIR NAME: what run NAME of scenarios/blind.sh measured, as KEY=VALUE lines
# (read them with soak_fig): injected (sections lhx ran); captured: injections found in full:
# records with a fakeraid handler that ran 1500..1502 + 2 * injected us and a latency 0..30
# us above that, one per injection (injection i runs 1500 + 2i us: under icount no two
# handler runs alike; their latencies can be, where the inflation varies by 2 us or more, as
# on arm64);
# bad: the other irqsoff records (torn, or an injection twice); infl_mean, infl_max: latency
# - (handler run - 1 us), the handler's run being the injected length and ~1 us of irq
# entry; captures, lost, torn (the report's run counters); armed_s, blind_s (irqsoff); hist:
# irqs-off sections >= 1 ms the in-kernel histogram counted; rc, cpu_s (lathound's), guest_s.
vm_blind_figures() {
	local d=$1 n
	n=$(vm_fact "$d" "$2.injected")
	jq -r --argjson n "${n:-0}" '
		def fr: [.irqs[]? | select(.name == "fakeraid") | .duration_us] | max;
		[.records[] | select(.tracer == "irqsoff") | {lat: .latency_us, dur: fr} |
		 .ok = (.dur != null and .dur >= 1500 and .dur <= 1502 + 2 * $n and
			.lat - .dur >= 0 and .lat - .dur <= 30)] as $r |
		([$r[] | select(.ok)] | unique_by(.dur | floor) | map(.lat - .dur + 1)) as $infl |
		"captured=\($infl | length)",
		"bad=\(($r | length) - ($infl | length))",
		"infl_mean=\(if ($infl | length) > 0 then ($infl | add / length * 10 | round / 10)
			     else "-" end)",
		"infl_max=\($infl | max // "-")",
		"captures=\(.run.captures)", "lost=\(.run.sections_lost)",
		"torn=\(.run.sections_torn // "-")",
		"armed_s=\(.tracers.irqsoff.armed_s)", "blind_s=\(.tracers.irqsoff.blind_s)",
		"hist=\([.histograms[]? | select(.kind == "irqsoff" and .cpu == null) |
			 .buckets[] | select(.lo >= 1000) | .count] | add // 0)"' \
		"$d/$2/report.json" 2>/dev/null
	echo "injected=$n"
	echo "rc=$(vm_fact "$d" "$2.rc")"
	echo "cpu_s=$(vm_fact "$d" "$2.cpu_s")"
	echo "guest_s=$(vm_fact "$d" "$2.s")"
}
