#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Two "hosts" on this machine: network namespaces joined by veth pairs
# (tests/hosts/netns-lab.sh), a plant simulator on node 1 in the first, its
# controller on node 2 in the second, talking over dds: (Cyclone DDS), each
# with its own copy of the window (examples/hosts-demo.c). Needs root.
#   examples/demo-hosts.sh [BUILDDIR [CYCLES [SCHEME]]]
# BUILDDIR defaults to ./build, CYCLES to 10; SCHEME dds (default) or shm
# (the same demo on one shared copy, to compare).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-build}" && pwd)
cycles=${2:-10}
scheme=${3:-dds}
lab="$top/tests/hosts/netns-lab.sh"
demo="$builddir/examples/hosts-demo"
layout="$top/examples/layouts/hosts-demo.yaml"
net="demohosts$$"
case $scheme in
dds) uri="dds:$net?size=64K&domain=0" ;;
shm) uri="shm:$net?size=64K" ;;
*) echo "demo-hosts: scheme '$scheme' is not dds or shm" >&2; exit 2 ;;
esac
[ -x "$demo" ] || { echo "demo-hosts: $demo is not built (configure --enable-examples)" >&2; exit 1; }

status=0
RFM_LAB=$("$lab" up 2) || status=$?
[ $status = 0 ] || exit $status
export RFM_LAB
logs=$(mktemp -d)
pid=""
cleanup() {
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
	"$lab" down
	rm -rf "$logs"
	[ "$scheme" != shm ] || "$builddir/tools/rfm" -u "shm:$net" destroy --force >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== two hosts: namespace $("$lab" ns 1) ($("$lab" addr 1)) and" \
	"$("$lab" ns 2) ($("$lab" addr 2)), one veth link each to a private bridge"
echo "== host 2: the controller, node 2 of $uri"
"$lab" exec 2 "$demo" controller "$uri&node=2" "$layout" >"$logs/controller" 2>&1 &
pid=$!
# Start the simulator once the controller has its node open (it says "ready").
until grep -qs '^ready$' "$logs/controller"; do
	kill -0 "$pid" 2>/dev/null || { cat "$logs/controller"; exit 1; }
	sleep 0.05
done
echo "== host 1: the simulator, node 1, $cycles cycles"
"$lab" exec 1 "$demo" sim "$uri&node=1" "$layout" "$cycles" || status=$?
if [ $status = 0 ]; then
	wait "$pid" || status=$?
else
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
fi
pid=""
grep -v '^ready$' "$logs/controller" || true
if [ $status = 0 ]; then
	echo "== demo passed: every value crossed the link before its interrupt"
else
	echo "== demo FAILED ($status)"
fi
exit $status
