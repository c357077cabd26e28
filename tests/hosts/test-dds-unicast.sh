#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# dds: on a network without multicast, with the README's Cyclone DDS
# configuration (examples/cyclonedds-unicast.xml, as written): two
# namespaces whose interfaces have multicast turned off and no multicast
# route, so only unicast discovery through its Peers list can join them;
# the two-host demo must run there. (Without the file the simulator gives
# up: "node 2 did not answer in 20 s".) Skipped (77) without root, the
# dds: backend or the examples.

top_builddir=$(pwd)
top_srcdir=$(cd "${srcdir:-.}" && pwd) || exit 99
lab="$top_srcdir/tests/hosts/netns-lab.sh"
demo="$top_builddir/examples/hosts-demo"
layout="$top_srcdir/examples/layouts/hosts-demo.yaml"

if [ "$(id -u)" != 0 ]; then
	echo "skipped: network namespaces need root"
	exit 77
fi
if ! grep -q '^#define HAVE_DDS 1' "$top_builddir/config.h"; then
	echo "skipped: this build has no dds: backend"
	exit 77
fi
if [ ! -x "$demo" ]; then
	echo "skipped: examples/hosts-demo is not built (--enable-examples)"
	exit 77
fi

RFM_LAB=$("$lab" up 2)
rc=$?
[ $rc = 0 ] || exit $rc
export RFM_LAB
out=$(mktemp) || exit 99
pid=""
cleanup() {
	[ -z "$pid" ] || kill "$pid" 2>/dev/null
	"$lab" down
	rm -f "$out"
}
trap cleanup EXIT

for k in 1 2; do
	"$lab" exec $k ip link set eth0 multicast off || exit 99
	"$lab" exec $k ip route del 224.0.0.0/4 || exit 99
done
"$lab" exec 1 ip link show eth0 | grep -q MULTICAST && { echo "FAIL: multicast still on"; exit 1; }

CYCLONEDDS_URI="file://$top_srcdir/examples/cyclonedds-unicast.xml"
export CYCLONEDDS_URI
uri="dds:unicast$$?size=64K"
"$lab" exec 2 "$demo" controller "$uri&node=2" "$layout" >"$out" 2>&1 &
pid=$!
until grep -qs '^ready$' "$out"; do
	kill -0 "$pid" 2>/dev/null || { cat "$out"; echo "FAIL: the controller did not start"; exit 1; }
	sleep 0.05
done
"$lab" exec 1 "$demo" sim "$uri&node=1" "$layout" 3 || { cat "$out"; echo "FAIL: simulator"; exit 1; }
wait "$pid" || { cat "$out"; echo "FAIL: controller"; exit 1; }
pid=""
cat "$out"
grep -q '^controller (node 2): answered 3 cycles' "$out" || { echo "FAIL: not 3 cycles"; exit 1; }
echo "PASS: dds: with unicast discovery only (examples/cyclonedds-unicast.xml)"
