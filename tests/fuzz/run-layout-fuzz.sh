#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Build the layout-parser fuzzer with clang (libFuzzer + ASan + UBSan) and
# run it for a while on a copy of the seed corpus.
#
#   run-layout-fuzz.sh SRCDIR BUILDDIR [SECONDS]      (make fuzz-layout does this)
#
# BUILDDIR is a configured build tree (for config.h and rfm/version.h).
# Exit status: 0 when no problem was found, non-zero otherwise; a crashing
# input is left as BUILDDIR/fuzz-layout-work/crash-* to reproduce with
#   BUILDDIR/fuzz-layout-bin CRASHFILE
set -eu

src=$(cd "${1:?usage: $0 SRCDIR BUILDDIR [SECONDS]}" && pwd)
build=$(cd "${2:?usage: $0 SRCDIR BUILDDIR [SECONDS]}" && pwd)
seconds=${3:-30}
clang=${FUZZ_CC:-clang}

bin="$build/fuzz-layout-bin"
work="$build/fuzz-layout-work"

# shellcheck disable=SC2046
"$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -I"$build" -I"$src/include" -I"$build/include" \
	"$src"/src/*.c "$src/tests/fuzz/layout-fuzz.c" \
	$(pkg-config --cflags --libs yaml-0.1) -lm -lpthread -lrt \
	-o "$bin"

mkdir -p "$work/corpus"
cp "$src"/tests/fuzz/layout-corpus/* "$src"/examples/layouts/*.yaml "$work/corpus/"
cd "$work"
echo "fuzzing the layout parser for $seconds s (corpus in $work/corpus)"
"$bin" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 corpus
