#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The default network fits Docker's default 64 MiB /dev/shm: examples/minimal
# and the README's first C snippet run in a private 64 MiB tmpfs mounted on
# /dev/shm (a mount namespace), and a window that does not fit fails with the
# bytes needed, the bytes free and the fix. Needs root (unshare -m, mount);
# skipped otherwise.

top_builddir=$(pwd)
top_srcdir=$(cd "${srcdir:-.}" && pwd) || exit 99

if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
	echo "skipped: needs root and unshare to mount a private /dev/shm"
	exit 77
fi
if [ "${RFM_TEST_BACKEND:-shm}" != shm ]; then
	echo "skipped: shm: backend only"
	exit 77
fi

for f in "$top_builddir/tools/rfm" "$top_builddir/examples/minimal"; do
	if [ ! -x "$f" ]; then
		echo "skipped: $f is not built (--enable-tools, --enable-examples)"
		exit 77
	fi
done

work=$(mktemp -d) || exit 99
trap 'rm -rf "$work"' EXIT

# The README's first C block, wrapped in a main() that declares what it uses.
awk '/^```c$/ { inblock = 1; next } inblock && /^```$/ { exit } inblock { print }' \
	"$top_srcdir/README.md" >"$work/block.c"
if ! grep -q rfm_open "$work/block.c"; then
	echo "FAIL: no C block with rfm_open() in README.md"
	exit 1
fi
{
	echo '#include <stdio.h>'
	echo '#include <string.h>'
	grep '^#include' "$work/block.c"
	echo 'int main(void) { uint32_t sample = 42, seq = 0;'
	grep -v '^#include' "$work/block.c"
	echo 'puts("snippet ok"); return 0; }'
} >"$work/snippet.c"
libdir=$top_builddir/src/.libs
if ! ${CC:-cc} -o "$work/snippet" "$work/snippet.c" -I"$top_srcdir/include" \
	-I"$top_builddir/include" -L"$libdir" -Wl,-rpath,"$libdir" -lrfm; then
	echo "FAIL: the README's C block does not compile"
	exit 1
fi

export RFM_TOOL="$top_builddir/tools/rfm" MINIMAL="$top_builddir/examples/minimal" WORK="$work"
unshare -m sh -ec '
	mount --make-rprivate / 2>/dev/null || true
	mount -t tmpfs -o size=64m tmpfs /dev/shm
	unset RFM_URI
	"$MINIMAL" | grep "read back"
	"$MINIMAL" | grep "16777216-byte window"
	"$RFM_TOOL" -u shm:default destroy
	"$WORK/snippet"
	"$RFM_TOOL" -u shm:lab destroy
	# A window too big for this /dev/shm: the fix is in the message.
	if "$RFM_TOOL" -u "shm:big?size=64M" poke32 0 1 2>"$WORK/err"; then
		echo "FAIL: a 64 MiB window fitted a 64 MiB /dev/shm with its header"
		exit 1
	fi
	cat "$WORK/err"
	grep -q "bytes are needed" "$WORK/err"
	grep -q "are free" "$WORK/err"
	grep -q -- "--shm-size" "$WORK/err"
	grep -q "size=" "$WORK/err"
	test ! -e /dev/shm/rfm-big
	test -z "$(ls /dev/shm)"
'
status=$?
[ $status = 0 ] && echo "PASS: minimal and the README snippet run in a 64 MiB /dev/shm"
exit $status
