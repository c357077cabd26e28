#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Build one libFuzzer harness with clang (ASan + UBSan) and run it for a
# bounded time on a copy of its seed corpus.
#
#   run-fuzz.sh TARGET SRCDIR BUILDDIR [SECONDS]     (make fuzz does this)
#
# TARGET is uri, segment, layout or cli (tests/fuzz/TARGET-fuzz.c, seeds in
# tests/fuzz/TARGET-corpus/). BUILDDIR is a configured tree (config.h). As
# root the run gets a private 64 MiB /dev/shm (a mount namespace), so what
# the inputs create can neither fill the machine's nor outlive the run.
# Exit status non-zero when a problem was found; the input is left in
# BUILDDIR/fuzz-TARGET-work/ (crash-*, leak-*...). Add it to
# tests/fuzz/TARGET-corpus/ once fixed: make check replays every corpus.
set -eu

target=${1:?usage: $0 TARGET SRCDIR BUILDDIR [SECONDS]}
src=$(cd "${2:?}" && pwd)
build=$(cd "${3:?}" && pwd)
seconds=${4:-20}
clang=${FUZZ_CC:-clang}
bin="$build/fuzz-$target-bin"
work="$build/fuzz-$target-work"

# The sources of this build, as make names them (tests/fuzz/local.mk),
# relative to the source tree (its C files; the lists name headers too).
in_src() { for f in "$@"; do case $f in *.c) printf '%s/%s\n' "$src" "$f" ;; esac; done; }
# shellcheck disable=SC2086 # the lists are words
lib_sources=$(in_src ${RFM_FUZZ_LIB_SOURCES:?run-fuzz.sh: run it through make fuzz})
# No HDF5: its writer is a module, rfm replay a program, of their own.

# The OS layer's half for this build (src/os/posix on Linux): its sources,
# and its directory on the include path for the inline hot-path headers.
os=$(sed -n 's/^RFM_OS = //p' "$build/Makefile")
os_dir="$src/src/os/${os:-posix}"

extra=""
case "$target" in
# The tool without rfm serve (its HTTP side is not what this fuzzes): its
# stand-in cmd-serve-missing.c instead of cmd-serve.c and serve-*.c.
# rfm bench measures with bench/stats.c, which the tool lists.
# shellcheck disable=SC2086 # the list is words
cli) extra="-Dmain=rfm_cli_main -I$src/tools -I$src/tools/os/posix -I$src/bench $(in_src $RFM_FUZZ_TOOL_SOURCES | grep -v -e '/cmd-serve\.c$' -e '/serve-[a-z]*\.c$' -e '/cmd-serve-missing\.c$' -e '/textbuf\.c$') $src/tools/cmd-serve-missing.c $(pkg-config --cflags --libs json-c)" ;;
uri | segment | layout) ;;
*) echo "run-fuzz.sh: unknown target '$target'" >&2; exit 2 ;;
esac

# The dds: backend, when this build has it: its wire types are generated in
# the build tree, and it links Cyclone DDS.
dds=""
if grep -q '^#define HAVE_DDS 1' "$build/config.h"; then
	# shellcheck disable=SC2086 # the list is words
	dds="-I$build/src $(in_src $RFM_FUZZ_DDS_SOURCES) $build/src/backends/dds/dds-wire.c $(pkg-config --cflags --libs CycloneDDS libcrypto)"
fi

# shellcheck disable=SC2086
"$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -DRFM_PKGLIBDIR="\"${RFM_FUZZ_PKGLIBDIR:-/usr/local/lib/librfm}\"" \
	-I"$build" -I"$src/include" -I"$build/include" -I"$src/src" -I"$os_dir" \
	$lib_sources \
	"$src/tests/fuzz/$target-fuzz.c" $extra $dds \
	$(pkg-config --cflags --libs yaml-0.1) -lm -lpthread -lrt -o "$bin"

rm -rf "$work"
mkdir -p "$work/corpus"
cp "$src/tests/fuzz/$target-corpus/"* "$work/corpus/"
[ "$target" = layout ] && cp "$src"/examples/layouts/*.yaml "$work/corpus/"
cd "$work"
echo "fuzzing $target for $seconds s"
run="'$bin' -max_total_time=$seconds -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 corpus"
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	unshare -m sh -c "mount -t tmpfs -o size=64m,mode=1777 rfm-fuzz /dev/shm && exec $run"
elif [ "$target" = cli ] || [ "$target" = segment ]; then
	echo "run-fuzz.sh: $target needs root for a private /dev/shm; skipped"
	exit 0
else
	sh -c "exec $run"
fi
