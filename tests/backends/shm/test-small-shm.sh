#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The default network fits Docker's default 64 MiB /dev/shm: examples/minimal,
# the README's first C snippet and the demo (examples/demo.sh) run in a private 64 MiB tmpfs mounted on
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

for f in "$top_builddir/tools/rfm" "$top_builddir/examples/minimal" \
	"$top_builddir/tests/backends/shm/readme-snippet"; do
	if [ ! -x "$f" ]; then
		echo "skipped: $f is not built (--enable-tools, --enable-examples)"
		exit 77
	fi
done

work=$(mktemp -d) || exit 99
trap 'rm -rf "$work"' EXIT

export RFM_TOOL="$top_builddir/tools/rfm" MINIMAL="$top_builddir/examples/minimal" WORK="$work"
export SNIPPET="$top_builddir/tests/backends/shm/readme-snippet"
export DEMO="$top_srcdir/examples/demo.sh" BUILDDIR="$top_builddir"
unshare -m sh -ec '
	mount --make-rprivate / 2>/dev/null || true
	mount -t tmpfs -o size=64m tmpfs /dev/shm
	unset RFM_URI
	"$MINIMAL" | grep "read back"
	"$MINIMAL" | grep "16777216-byte window"
	"$RFM_TOOL" -u shm:default destroy
	"$SNIPPET" | grep "published sample"
	"$RFM_TOOL" -u shm:lab destroy
	# The demo of ./quickstart.sh demo: three nodes, every sample checked.
	"$DEMO" "$BUILDDIR" 300 | tail -n 3
	# A window too big for this /dev/shm: the fix is in the message.
	if "$RFM_TOOL" -u "shm:big?size=64M" poke32 0 1 2>"$WORK/err"; then
		echo "FAIL: a 64 MiB window fitted a 64 MiB /dev/shm with its header"
		exit 1
	fi
	cat "$WORK/err"
	grep -q "it holds 67108864 bytes" "$WORK/err"
	grep -q "are needed" "$WORK/err"
	grep -q "are free" "$WORK/err"
	grep -q -- "--shm-size" "$WORK/err"
	grep -q "size=" "$WORK/err"
	test ! -e /dev/shm/rfm-big
	test -z "$(ls /dev/shm)"
'
status=$?
[ $status = 0 ] && echo "PASS: minimal, the README snippet and the demo run in a 64 MiB /dev/shm"
exit $status
