#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A program of another architecture (under qemu-user) and a native one on
# one shm: network: each reads the other's ring and sees its heartbeats
# (tests/cross/mixed-peer.c). For i386/armhf this is 32-bit beside 64-bit;
# for s390x the segment itself is refused (another byte order, by design:
# see docs/architecture.md), so check-cross runs it for 32-bit targets.
# Usage: mixed-shm.sh NATIVE_BUILD CROSS_BUILD QEMU SYSROOT ARCH
set -euo pipefail
native=$1 build=$2 qemu=$3 sr=$4 arch=$5
net="t-mixed-$arch-$$"
uri="shm:$net?size=4M"
run_cross() {
	"$(dirname "$0")/qemu-run.sh" "$build/tests/cross/mixed-peer" "$@"
}
cleanup() { "$native/tools/rfm" -u "shm:$net" destroy -f >/dev/null 2>&1 || true; }
trap cleanup EXIT
export CROSS_QEMU=$qemu CROSS_SYSROOT=$sr CROSS_BUILD=$build
"$native/tests/cross/mixed-peer" "$uri" 1 2 & a=$!
run_cross "$uri" 2 1 & b=$!
status=0
wait "$a" || { echo "FAIL: mixed shm: native node 1 beside $arch node 2"; status=1; }
wait "$b" || { echo "FAIL: mixed shm: $arch node 2 beside native node 1"; status=1; }
[ $status = 0 ] && echo "PASS: mixed shm: native x86-64 node and $arch node share rings and heartbeats"
exit $status
