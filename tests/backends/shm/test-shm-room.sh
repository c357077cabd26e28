#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A full /dev/shm gets a fix that can work. In a private 512 KiB /dev/shm
# (a mount namespace: root only; skipped otherwise):
#  - a 1 MiB window does not fit; the message says how big /dev/shm is and
#    names a size= that fits what is free with the header, node table and
#    one event queue, rounded down to 4096 bytes; that size opens and
#    receives, and it is the largest such (4096 more does not leave room
#    for the queue);
#  - in a 16 KiB /dev/shm no window fits, and the message says so;
#  - an event queue that does not fit names no window size (the network
#    exists), only more room.

top_builddir=$(pwd)

if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
	echo "skipped: needs root and unshare to mount a private /dev/shm"
	exit 77
fi
if [ "${RFM_TEST_BACKEND:-shm}" != shm ]; then
	echo "skipped: shm: backend only"
	exit 77
fi
RFM_TOOL="$top_builddir/tools/rfm"
if [ ! -x "$RFM_TOOL" ]; then
	echo "skipped: $RFM_TOOL is not built (--enable-tools)"
	exit 77
fi

work=$(mktemp -d) || exit 99
trap 'rm -rf "$work"' EXIT
export RFM_TOOL WORK="$work"

unshare -m sh -ec '
	mount --make-rprivate / 2>/dev/null || true
	mount -t tmpfs -o size=512k tmpfs /dev/shm
	unset RFM_URI
	echo "== 1 MiB in a 512 KiB /dev/shm"
	if "$RFM_TOOL" -u "shm:tiny?size=1M" poke32 0 1 2>"$WORK/err"; then
		echo "FAIL: a 1 MiB window fitted a 512 KiB /dev/shm"; exit 1
	fi
	cat "$WORK/err"
	grep -q "it holds 524288 bytes, 524288 are free and 1069056 are needed" "$WORK/err"
	fit=$(sed -n "s/.*a window that fits (size=\([0-9]*\)K).*/\1/p" "$WORK/err")
	test -n "$fit"
	bytes=$((fit * 1024))
	echo "named: size=${fit}K ($bytes bytes)"
	test $((bytes % 4096)) = 0
	test "$bytes" -lt 524288
	test -z "$(ls /dev/shm)"
	# The size named fits, and a receiver gets its event queue.
	"$RFM_TOOL" -u "shm:tiny?size=${fit}K" poke32 0 1
	"$RFM_TOOL" -u "shm:tiny?size=${fit}K" wait --event intr1 --timeout 0 >"$WORK/out" 2>&1 &&
		{ echo "FAIL: an event arrived"; exit 1; } || test $? = 3
	"$RFM_TOOL" -u shm:tiny destroy
	# The largest: 4096 bytes more leaves no room for the queue.
	more=$((bytes + 4096))
	"$RFM_TOOL" -u "shm:tiny?size=$more" poke32 0 1
	if "$RFM_TOOL" -u "shm:tiny?size=$more" wait --event intr1 --timeout 0 2>"$WORK/err2"; then
		echo "FAIL: a queue fitted beside a window larger than the one named"; exit 1
	fi
	cat "$WORK/err2"
	# An event queue that does not fit: only more room helps, no size=.
	grep -q "reserving an event queue: is /dev/shm full?" "$WORK/err2"
	grep -q "give /dev/shm more room" "$WORK/err2"
	if grep -q "window that fits\|no window fits" "$WORK/err2"; then
		echo "FAIL: a window size offered for an existing network"; exit 1
	fi
	"$RFM_TOOL" -u shm:tiny destroy
	test -z "$(ls /dev/shm)"

	echo "== 16 KiB: no window fits"
	umount /dev/shm
	mount -t tmpfs -o size=16k tmpfs /dev/shm
	if "$RFM_TOOL" -u "shm:tiny?size=4K" poke32 0 1 2>"$WORK/err3"; then
		echo "FAIL: a window fitted a 16 KiB /dev/shm with its header"; exit 1
	fi
	cat "$WORK/err3"
	grep -q "no window fits in what is free: give /dev/shm more room" "$WORK/err3"
	test -z "$(ls /dev/shm)"
'
status=$?
[ $status = 0 ] && echo "PASS: a full /dev/shm names a window that fits, or none"
exit $status
