# SPDX-License-Identifier: GPL-2.0-only
# lathound - hunt latency on real-time Linux with the ftrace latency tracers.

VERSION		:= 0.1.0
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
DATADIR		?= $(PREFIX)/share/lathound
MANDIR		?= $(PREFIX)/share/man
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions

CC		?= cc
include config.mk
CHECK_PKGS	:= check

OPT		?= -O2 -g
WERROR		?= -Werror
CFLAGS		?= $(OPT)
LH_CFLAGS	:= -std=gnu11 -pthread -Isrc -Wall -Wextra $(WERROR) -Wno-unused-parameter \
		   -Wshadow -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes \
		   -D_GNU_SOURCE $(PORT_CFLAGS) -DLH_VERSION='"$(VERSION)"' \
		   -DLH_RULES_DIR='"$(DATADIR)/rules"' $(HS_CFLAGS) \
		   $(shell $(PKG_CONFIG) --cflags $(PKGS))
LIBS		:= $(shell $(PKG_CONFIG) --libs $(PKGS)) -lm -pthread

ifneq ($(SANITIZE),)
LH_CFLAGS	+= -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS		+= -fsanitize=$(SANITIZE)
endif

SRCS		:= $(sort $(wildcard src/*.c src/*/*.c))
HDRS		:= $(wildcard src/*/*.h)
OBJS		:= $(SRCS:.c=.o)
LIB_OBJS	:= $(filter-out src/main.o src/cmd/cmd-%.o,$(OBJS))
UNIT_SRCS	:= $(sort $(wildcard tests/unit/*.c))
UNIT_BINS	:= $(UNIT_SRCS:.c=.t)
MANPAGES	:= $(wildcard doc/*.1)

all: lathound

lathound: $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

src/%.o: src/%.c $(HDRS)
	$(CC) $(LH_CFLAGS) $(CFLAGS) -c -o $@ $<

tests/unit/%.t: tests/unit/%.c $(LIB_OBJS) $(HDRS) $(wildcard tests/unit/*.h)
	$(CC) $(LH_CFLAGS) $(CFLAGS) $(shell $(PKG_CONFIG) --cflags $(CHECK_PKGS)) \
		-DLH_TEST_DATA='"$(CURDIR)/tests/data"' -o $@ $< $(LIB_OBJS) \
		$(LDFLAGS) $(LIBS) $(shell $(PKG_CONFIG) --libs $(CHECK_PKGS))

unit: $(UNIT_BINS)

# The README's test command. Installs what it needs (tests/deps.sh), then runs unit, CLI,
# live-tracefs, real-kernel (QEMU) and ARM cross-build (qemu-user) tests and prints one
# 'N passed, N failed' line.
check: deps lathound unit
	tests/run-all

check-unit: lathound unit
	tests/run-all unit

check-host: lathound unit
	tests/run-all unit cli live

check-vm: deps lathound
	tests/run-all vm vm-arm64

# Every scenario on arm64 (make check runs its core ones: tests/vm/run says which), the
# 2-CPU boot too, beside Debian's arm64 RT kernel.
check-arm64: deps lathound
	LH_VM_SET=all tests/run-all vm-arm64

# arm64 and armhf cross-builds (in .cross/), their tests under QEMU user-mode emulation, with
# more CLI scripts than make check runs (tests/cross/run)
check-cross: deps lathound
	LH_CROSS_CLI=more tests/run-all cross

deps:
	@tests/deps.sh

demo: deps lathound
	tests/vm/demo

fuzz:
	$(MAKE) -C tests/fuzz

# Offline figures (parser throughput vs grep, 10 vs 1000 rules); live figures on this
# machine's tracefs (root: idle cost over 10 minutes, IRQ event rate); figures on the test
# kernel under QEMU (capture rate, latency inflation).
bench: lathound
	bench/run

bench-live: lathound
	bench/record-idle.sh 600
	bench/irq-rate.sh

bench-vm: deps lathound
	bench/vm-capture.sh
	bench/vm-hist.sh
	bench/vm-blind.sh

# The live-capture figures on x86-64 and arm64 side by side (bench/vm-arch.sh).
bench-vm-arch: deps lathound
	bench/vm-arch.sh

# 12 guest hours of record in each mode (max, thresh, single) under QEMU: about half an hour
# of wall time per mode on 2 cores. Not part of make check, which runs a 30-minute one.
bench-vm-soak: deps lathound
	bench/vm-soak.sh

# The unit tests (natively), the CLI tests with lathound under memcheck (tests/valgrind), then
# the rules' prefilter differential under memcheck (20 kallsyms names: under a minute). A
# lathound left without the prefilter by VECTORSCAN=no objects is refused: this checks the
# default build.
valgrind: lathound unit
	$(if $(filter yes,$(VECTORSCAN)),@./lathound --version | \
		grep -q '^rules prefilter: Vectorscan' || \
		{ echo "lathound has no prefilter (VECTORSCAN=no objects?): make clean" >&2; exit 1; })
	LH_VALGRIND=1 tests/run-all unit cli
	CK_RUN_CASE=prefilter CK_FORK=no LH_DIFFERENTIAL_NAMES=20 tests/valgrind tests/unit/rules.t

install: lathound
	install -D -m 0755 lathound $(DESTDIR)$(BINDIR)/lathound
	install -d $(DESTDIR)$(DATADIR)/rules
	install -m 0644 rules/*.rules $(DESTDIR)$(DATADIR)/rules/
	install -d $(DESTDIR)$(MANDIR)/man1
	$(if $(MANPAGES),install -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/)
	install -D -m 0644 doc/lathound.bash-completion $(DESTDIR)$(BASHCOMPDIR)/lathound

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/lathound $(DESTDIR)$(BASHCOMPDIR)/lathound
	rm -rf $(DESTDIR)$(DATADIR)
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANPAGES)))

clean:
	rm -f lathound src/*.o src/*/*.o tests/unit/*.t
	rm -rf .cross
	-$(MAKE) -C tests/fuzz clean 2>/dev/null

.PHONY: all unit check check-unit check-host check-vm check-arm64 check-cross deps demo fuzz bench bench-live bench-vm \
	bench-vm-arch bench-vm-soak \
	valgrind install \
	uninstall clean
