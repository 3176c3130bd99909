#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What README.md tells a board to install: every shared library the binary links comes from
# a package of its runtime-only list, and a staged install runs from where it was copied.
. "$(dirname "$0")/../lib.sh"

pkgs=$(sed -n 's/^apt-get install --no-install-recommends \(lib.*\)$/\1/p' "$TOP/README.md")
check "README: a runtime-only package list" [ -n "$pkgs" ]
# The libraries lathound itself links (NEEDED; theirs come with them as dependencies).
if command -v dpkg >/dev/null && command -v objdump >/dev/null; then
	for lib in $(objdump -p "$LATHOUND" | sed -n 's/^ *NEEDED *//p'); do
		case $lib in libc.so.*|libm.so.*|ld-linux*) continue ;; esac	# libc6
		pkg=$(dpkg -S "*/$lib" 2>/dev/null | head -1 | cut -d: -f1)
		check "README's runtime packages hold $lib (${pkg:-no package})" \
			grep -qw -- "${pkg:-none}" <<<"$pkgs"
	done
else
	skip "README's runtime packages" "no dpkg or objdump on this machine"
fi

# The staged install of the README, copied elsewhere, finds its own rules.
make -s -C "$TOP" install PREFIX=/usr DESTDIR="$TMP/stage" >/dev/null 2>&1
mkdir -p "$TMP/board"
tar -C "$TMP/stage" -c . | tar -C "$TMP/board" -x
run_board() { "$TMP/board/usr/bin/lathound" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; out=$(cat "$TMP/out"); }
run_board rules list
expect_rc "staged install: rules list" 0
expect_in "staged install: the shipped rules, from its own share/" "$out" \
	"$TMP/board/usr/bin/../share/lathound/rules/storage.rules"
expect_not_in "staged install: no test-driver rule" "$out" "lhx-"

finish
