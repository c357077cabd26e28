#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The C++ example examples/cxx/two-node as two processes: start the reader,
# wait for its "ready" line (a FIFO: no sleep), run the writer, then collect
# the reader by its PID. Both check every sample; both must exit 0. The
# two processes meet on an emulated network of their own (a shm: URI),
# whatever RFM_TEST_BACKEND says.
#
# make check runs it from the top build directory. TWO_NODE may name the
# program, SAMPLES the count.

top_builddir=$(pwd)
prog=${TWO_NODE:-$top_builddir/examples/cxx/two-node}
samples=${SAMPLES:-2000}

if [ ! -x "$prog" ]; then
	echo "run-two-node: $prog not built (configure --disable-examples?)"
	exit 77
fi
unset RFM_URI

name=cxx-two-node-$$
uri="shm:$name?size=1M"
tmp=$(mktemp -d) || exit 99
reader_pid=
cleanup() {
	[ -n "$reader_pid" ] && kill "$reader_pid" 2>/dev/null
	rm -rf "$tmp"
	rm -f "/dev/shm/rfm-$name" "/dev/shm/rfmlock-$name"   # the segment and its lock file
}
trap cleanup EXIT

mkfifo "$tmp/reader.out" || exit 99
"$prog" reader "$uri&node=1" "$samples" >"$tmp/reader.out" &
reader_pid=$!
exec 3<"$tmp/reader.out"
if ! read -r ready id <&3 || [ "$ready" != ready ] || [ "$id" != 1 ]; then
	echo "run-two-node: the reader did not get ready (said: '$ready $id')" >&2
	exit 1
fi
echo "reader is node $id"

status=0
"$prog" writer "$uri&node=0" "$samples" || status=1
cat <&3
wait "$reader_pid" || status=1
reader_pid=
exit $status
