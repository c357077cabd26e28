#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A program of another architecture (under qemu-user) and a native one on
# one network (tests/cross/mixed-peer.c): memory, typed variables of both
# byte orders, records, a ring each way and heartbeats, checked by both.
#   shm:  for i386/armhf: a 32-bit and a 64-bit program on one segment (a
#         segment of another byte order is refused by design, see
#         docs/architecture.md, so not for s390x);
#   dds:  for s390x: a big-endian and a little-endian node over loopback.
# dds: traffic stays on this machine and private: Cyclone on the loopback
# interface only, unicast; the network (a DDS partition) is named after
# this script's pid, which no other running test has, and the DDS domain
# is taken from it too, so runs side by side do not even discover each
# other. Both programs run until both have checked each other (ready words
# in the window); each is waited for by its pid and killed by it on exit.
# Usage: mixed-hosts.sh NATIVE_BUILD CROSS_BUILD QEMU SYSROOT ARCH BACKEND
set -euo pipefail
native=$1 build=$2 qemu=$3 sr=$4 arch=$5 backend=$6
net="t-mixed-$arch-$$"
case $backend in
shm) uri="shm:$net?size=1M" what="32-bit beside 64-bit" ;;
dds)
	grep -q '^#define HAVE_DDS 1' "$native/config.h" || {
		echo "SKIP: mixed dds: on $arch: the native build has no dds: backend (Debian: cyclonedds-dev cyclonedds-tools)"
		exit 0
	}
	uri="dds:$net?size=1M&domain=$((20 + $$ % 200))"
	what="big-endian beside little-endian"
	loopback='<CycloneDDS><Domain Id="any"><General><Interfaces><NetworkInterface name="lo"/></Interfaces>'
	loopback+='<AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex>'
	loopback+='<MaxAutoParticipantIndex>100</MaxAutoParticipantIndex><Peers><Peer Address="127.0.0.1"/></Peers>'
	loopback+='</Discovery></Domain></CycloneDDS>'
	: "${CYCLONEDDS_URI:=$loopback}"
	export CYCLONEDDS_URI
	;;
*) echo "mixed-hosts.sh: backend shm or dds, not '$backend'" >&2; exit 2 ;;
esac
a="" b=""
# shellcheck disable=SC2317 # the EXIT trap calls it
cleanup() {
	for p in $a $b; do kill "$p" 2>/dev/null || true; done
	[ "$backend" = shm ] && { "$native/tools/rfm" -u "shm:$net" destroy -f >/dev/null 2>&1 || true; }
	return 0
}
trap cleanup EXIT
export CROSS_QEMU=$qemu CROSS_SYSROOT=$sr CROSS_BUILD=$build
"$native/tests/cross/mixed-peer" "$uri" 1 2 & a=$!
"$(dirname "$0")/qemu-run.sh" "$build/tests/cross/mixed-peer" "$uri" 2 1 & b=$!
status=0
wait "$a" || { echo "FAIL: mixed $backend: native node 1 beside $arch node 2"; status=1; }
a=""
wait "$b" || { echo "FAIL: mixed $backend: $arch node 2 beside native node 1"; status=1; }
b=""
[ $status = 0 ] && echo "PASS: mixed $backend: native x86-64 node and $arch node ($what):" \
	"memory, typed variables of both byte orders, records, rings both ways, heartbeats"
exit $status
