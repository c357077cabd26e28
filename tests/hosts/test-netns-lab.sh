#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The namespace lab (netns-lab.sh) that the multi-host tests stand on:
# nodes reach each other by unicast and multicast, a pulled link cuts a node
# off and plugging it back restores it, two labs coexist, `down` removes
# every namespace (twice is harmless) and nothing is left in this namespace.
# Skipped (77) without root or `ip netns`.

set -u
here=$(cd "$(dirname "$0")" && pwd) || exit 99
lab="$here/netns-lab.sh"
probe="/usr/bin/python3 $here/udp-probe.py"

fail() { echo "FAIL: $*"; exit 1; }

root_links_before=$(ip -o link show 2>/dev/null | awk -F': ' '{ print $2 }' | sort)

RFM_LAB=$("$lab" up 3)
rc=$?
[ $rc = 0 ] || exit $rc
export RFM_LAB
other_lab=
listener=
cleanup() {
	[ -n "$listener" ] && kill "$listener" 2>/dev/null
	"$lab" down
	[ -n "$other_lab" ] && RFM_LAB=$other_lab "$lab" down
}
trap cleanup EXIT
echo "lab $RFM_LAB"

n=$(ip netns list | grep -c "^$RFM_LAB-")
[ "$n" = 4 ] || fail "expected 3 node namespaces and a bridge, found $n"
"$lab" exec 2 ip -4 -o addr show eth0 | grep -q ' 10\.77\.0\.2/24 ' ||
	fail "node 2 has no 10.77.0.2/24 on eth0"
[ "$("$lab" addr 3)" = 10.77.0.3 ] || fail "addr 3 is not 10.77.0.3"
"$lab" exec 1 ip link show lo | grep -q 'UP' || fail "node 1: lo is down"

# Starts a listener in node $1 on $2:$3 and waits for its "ready" line.
start_listener() {
	exec 3< <("$lab" exec "$1" $probe listen "$2" "$3")
	listener=$!
	read -r -t 10 line <&3 || fail "listener in node $1 did not get ready"
	[ "$line" = ready ] || fail "listener said '$line'"
}

start_listener 2 10.77.0.2 7001
"$lab" exec 1 $probe send 10.77.0.2 7001 5 || fail "node 1 cannot reach node 2"
wait "$listener" || fail "listener in node 2 saw nothing"

start_listener 3 239.255.0.77 7002
"$lab" exec 1 $probe send 239.255.0.77 7002 5 || fail "multicast from node 1 does not reach node 3"
wait "$listener" || fail "multicast listener in node 3 saw nothing"

start_listener 2 10.77.0.2 7003
"$lab" link 2 down || fail "link 2 down"
if "$lab" exec 1 $probe send 10.77.0.2 7003 1; then
	fail "node 2 answered with its link down"
fi
"$lab" link 2 up || fail "link 2 up"
"$lab" exec 1 $probe send 10.77.0.2 7003 5 || fail "node 2 unreachable after link up"
wait "$listener" || fail "listener in node 2 saw nothing after link up"
listener=

# A second lab alongside: its own name, its own namespaces, same subnet.
other_lab=$(RFM_LAB= "$lab" up 1) || fail "second lab did not come up"
[ "$other_lab" != "$RFM_LAB" ] || fail "two labs got the same name"
RFM_LAB=$other_lab "$lab" exec 1 ip -4 -o addr show eth0 | grep -q ' 10\.77\.0\.1/24 ' ||
	fail "second lab's node 1 has no address"

# Bad input: a clear error (2), not a hang or a command in the wrong place.
"$lab" exec 9 true 2>/dev/null
[ $? = 2 ] || fail "exec in a node the lab does not have did not fail with 2"
"$lab" link 1 sideways 2>/dev/null
[ $? = 2 ] || fail "link 1 sideways did not fail with 2"
RFM_LAB= "$lab" down 2>/dev/null
[ $? = 2 ] || fail "down without RFM_LAB did not fail with 2"

"$lab" down || fail "down"
[ -z "$(ip netns list | grep "^$RFM_LAB-")" ] || fail "namespaces left after down"
"$lab" down || fail "second down failed"
RFM_LAB=$other_lab "$lab" down || fail "down of the second lab"
[ -z "$(ip netns list | grep "^$other_lab-")" ] || fail "second lab left namespaces"
other_lab=

root_links_after=$(ip -o link show 2>/dev/null | awk -F': ' '{ print $2 }' | sort)
[ "$root_links_before" = "$root_links_after" ] || fail "links in the caller's namespace changed"
echo "PASS: netns lab (unicast, multicast, link down/up, two labs, cleanup)"
