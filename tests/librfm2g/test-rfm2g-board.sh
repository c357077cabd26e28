#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The emulated RFM2g board is the size of a 5565: GE's rfm2g_util session
# (tests/librfm2g/rfm2g-util-session.c) passes on /dev/rfm2gN with no RFM_URI
# and on an RFM_URI naming a new network (64 MiB), and on size=128M and
# 256M; a program writes at 0x03000000; a network that exists with another
# size is joined as it is; programs from Windows and VxWorks build
# unchanged and reach board N by their platforms' names; a /dev/shm too small for a board gets an error
# that says how big /dev/shm is, what is needed and both fixes. Runs in a
# private /dev/shm (a mount namespace: root only; skipped otherwise), so
# the vendor names (shm:rfm2gN) cannot meet other programs' networks.
# The boards are emulated networks (shm:), whatever RFM_TEST_BACKEND says.

top_builddir=$(pwd)

if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
	echo "skipped: needs root and unshare to mount a private /dev/shm"
	exit 77
fi
SESSION="$top_builddir/tests/librfm2g/rfm2g-util-session"
WINDOWS="$top_builddir/tests/librfm2g/rfm2g-windows-style"
VXWORKS="$top_builddir/tests/librfm2g/rfm2g-vxworks-style"
RFM_TOOL="$top_builddir/tools/rfm"
for f in "$SESSION" "$WINDOWS" "$VXWORKS" "$RFM_TOOL"; do
	if [ ! -x "$f" ]; then
		echo "skipped: $f is not built (--enable-tools)"
		exit 77
	fi
done
# A unit with no card of either driver: its default is the emulated board.
unit=0
while [ -e "/dev/rfm2g$unit" ] || [ -e "/dev/rfm$unit" ]; do
	unit=$((unit + 1))
done

work=$(mktemp -d) || exit 99
trap 'rm -rf "$work"' EXIT
export SESSION WINDOWS VXWORKS RFM_TOOL WORK="$work" UNIT="$unit"

unshare -m sh -ec '
	mount --make-rprivate / 2>/dev/null || true
	mount -t tmpfs -o size=300m tmpfs /dev/shm
	unset RFM_URI
	echo "== /dev/rfm2g$UNIT, no RFM_URI: shm:rfm2g$UNIT, 64 MiB"
	"$SESSION" /dev/rfm2g$UNIT
	test "$(stat -c %s /dev/shm/rfm-rfm2g$UNIT)" -gt $((64 << 20))
	"$RFM_TOOL" -u shm:rfm2g$UNIT destroy
	echo "== a Windows and a VxWorks program, unchanged, on board $UNIT by their names"
	echo "$UNIT" | "$WINDOWS"
	"$VXWORKS" "$UNIT"
	test "$("$RFM_TOOL" -u shm:rfm2g$UNIT peek32 0x1004)" = "$(printf 0x%08x $((0x56580000 + UNIT)))"
	"$RFM_TOOL" -u shm:rfm2g$UNIT destroy
	echo "== RFM_URI naming a new network: 64 MiB"
	RFM_URI=shm:site "$SESSION" /dev/rfm2g0
	"$RFM_TOOL" -u shm:site destroy
	echo "== size=128M and size=256M, as the 5565 models"
	RFM_URI="shm:big?size=128M" "$SESSION" /dev/rfm2g0 $((128 << 20))
	"$RFM_TOOL" -u shm:big destroy
	RFM_URI="shm:big?size=256M" "$SESSION" /dev/rfm2g0 $((256 << 20))
	"$RFM_TOOL" -u shm:big destroy
	echo "== a network the rfm tool made (16 MiB) is joined as it is"
	"$RFM_TOOL" -u shm:old poke32 0x10 7
	RFM_URI=shm:old "$SESSION" /dev/rfm2g0 $((16 << 20)) >"$WORK/old" || {
		cat "$WORK/old"; exit 1; }
	tail -n 1 "$WORK/old"
	"$RFM_TOOL" -u shm:old destroy
	test -z "$(ls /dev/shm)"

	echo "== a 64 MiB /dev/shm (Docker default) cannot hold a 64 MiB board"
	umount /dev/shm
	mount -t tmpfs -o size=64m tmpfs /dev/shm
	if "$SESSION" /dev/rfm2g$UNIT >"$WORK/out" 2>"$WORK/err"; then
		echo "FAIL: a 64 MiB board fitted a 64 MiB /dev/shm with its header"
		exit 1
	fi
	cat "$WORK/out" "$WORK/err"
	grep -q "FAIL open /dev/rfm2g$UNIT" "$WORK/out"
	grep -q "it holds 67108864 bytes" "$WORK/err"
	grep -q "are needed" "$WORK/err"
	grep -q "RFM_URI=.shm:rfm2g$UNIT?size=16M" "$WORK/err"
	grep -q -- "--shm-size" "$WORK/err"
	test -z "$(ls /dev/shm)"
	# The first fix works: a smaller board by the URI.
	RFM_URI="shm:rfm2g$UNIT?size=16M" "$SESSION" /dev/rfm2g$UNIT $((16 << 20)) | tail -n 1
'
status=$?
[ $status = 0 ] && echo "PASS: the emulated board is 64 MiB by default; rfm2g_util's session passes"
exit $status
