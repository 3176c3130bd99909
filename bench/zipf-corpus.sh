#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds a benchmark corpus of latency snapshots whose function names are this machine's
# kernel text symbols (/proc/kallsyms, types t and T, one per name), drawn with a Zipf
# distribution (bench/zipf-corpus.c). Without a readable /proc/kallsyms (addresses hidden
# do not matter: only the names are read) the test kernel's System.map is used.
# Usage: bench/zipf-corpus.sh OUT SIZE_MB [SEED]
set -e
cd "$(dirname "$0")/.."
OUT=$1
MB=${2:-220}
[ -n "$OUT" ] || { echo "usage: bench/zipf-corpus.sh OUT SIZE_MB [SEED]" >&2; exit 1; }
mkdir -p bench/out
cc -std=gnu11 -O2 -Wall -Wextra -Werror -o bench/out/zipf-corpus bench/zipf-corpus.c -lm
syms=bench/out/kernel-text-symbols.txt
src=/proc/kallsyms
if [ "$(awk '$2 ~ /^[tT]$/' "$src" 2>/dev/null | head -200 | wc -l)" -lt 200 ]; then
	src=$(ls /var/cache/lathound-vm/*/System.map 2>/dev/null | head -1)
fi
[ -n "$src" ] || { echo "bench/zipf-corpus.sh: no /proc/kallsyms nor System.map" >&2; exit 1; }
awk '$2 ~ /^[tT]$/ {print $3}' "$src" | sort -u >"$syms"
echo "symbols: $(wc -l <"$syms") text symbols from $src"
bench/out/zipf-corpus "$syms" "$OUT" "$MB" ${3:+"$3"}
