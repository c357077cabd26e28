#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The fault lab's switch (lab-switch, netns-lab.sh `up N switch`) does what
# the fault tests rely on, proved by datagrams counted at the receiver and
# the switch's own counters (counts, not times): frames pass both ways,
# multicast reaches every port; drop=0.3 on one direction loses about 30%
# of it (and nothing the other way); dup=1 doubles every frame; delay and
# jitter queue them; reorder makes later frames overtake; a partition
# blocks every frame across it and heal restores it; what a port sent,
# recorded, is saved as a pcap file and comes again when replayed; link
# down takes the carrier away; the seed given is the seed used; bad commands are refused
# and change nothing; `down` stops the switch by its pid and leaves nothing
# in this namespace. Skipped (77) without root, `ip netns` or /dev/net/tun.

set -u
here=$(cd "$(dirname "$0")" && pwd) || exit 99
lab="$here/netns-lab.sh"
probe="/usr/bin/python3 $here/udp-probe.py"
export RFM_LAB_SWITCH=${RFM_LAB_SWITCH:-$(pwd)/tests/hosts/lab-switch}

fail() { echo "FAIL: $*"; exit 1; }

root_links_before=$(ip -o link show 2>/dev/null | awk -F': ' '{ print $2 }' | sort)

RFM_LAB=$(RFM_LAB='' RFM_LAB_SEED=4242 "$lab" up 3 switch)
rc=$?
[ $rc = 0 ] || exit $rc
export RFM_LAB
counter=
cleanup() {
	[ -n "$counter" ] && kill "$counter" 2>/dev/null
	"$lab" down
}
trap cleanup EXIT
echo "lab $RFM_LAB"
switch_pid=$(cat "/tmp/$RFM_LAB.switch/pid") || fail "no pid file"
kill -0 "$switch_pid" || fail "the switch is not running"

[ "$("$lab" ctl seed)" = "seed 4242" ] || fail "RFM_LAB_SEED=4242 is not the seed used"
grep -q '^seed 4242$' "/tmp/$RFM_LAB.switch/log" || fail "the seed is not in the log"
"$lab" exec 2 ip -4 -o addr show eth0 | grep -q ' 10\.77\.0\.2/24 ' ||
	fail "node 2 has no 10.77.0.2/24 on eth0"
"$lab" exec 3 ip -d link show eth0 | grep -q 'tun type tap' || fail "node 3's eth0 is not a TAP"

# Starts a datagram counter in node $1 (port $2, $3 distinct ones awaited).
start_counter() {
	exec 3< <("$lab" exec "$1" $probe count "$2" ${3:-})
	counter=$!
	read -r -t 10 line <&3 || fail "counter in node $1 did not get ready"
	[ "$line" = ready ] || fail "counter said '$line'"
}
# Sends $2 datagrams from node $1 to the counter; prints its answer.
burst() {
	"$lab" exec "$1" $probe burst 10.77.0.2 7100 "$2" || fail "burst from node $1"
	wait "$counter"
	counter=
}
# Field $2 of port $1 in the switch's stats.
stat() {
	"$lab" ctl stats | awk -v p="$1" -v f="$2" '$1 == "port" && $2 == p {
		for (i = 3; i < NF; i += 2) if ($i == f) print $(i + 1) }'
}

# Plain forwarding, unicast and multicast (also fills the ARP caches).
exec 4< <("$lab" exec 2 $probe listen 10.77.0.2 7001)
read -r -t 10 line <&4 && [ "$line" = ready ] || fail "listener in node 2"
"$lab" exec 1 $probe send 10.77.0.2 7001 5 || fail "node 1 cannot reach node 2"
exec 4< <("$lab" exec 3 $probe listen 239.255.0.78 7002)
read -r -t 10 line <&4 && [ "$line" = ready ] || fail "listener in node 3"
"$lab" exec 1 $probe send 239.255.0.78 7002 5 || fail "multicast from node 1 does not reach node 3"
"$lab" exec 3 $probe send 10.77.0.2 7001 1 >/dev/null 2>&1 # node 3 learns node 2
exec 4<&-

echo "drop=0.3 from 1 to 2: about 30% lost that way, nothing the other way"
"$lab" ctl set from=1 to=2 drop=0.3 >/dev/null || fail "set drop"
"$lab" ctl zero >/dev/null
start_counter 2 7100
answer=$(burst 1 2000)
echo "  $answer; switch: $("$lab" ctl stats | head -1)"
got=$(echo "$answer" | awk '{ print $4 }')
dropped=$(stat 1 dropped)
offered=$(stat 1 offered)
[ "$dropped" -gt 400 ] && [ "$dropped" -lt 800 ] || fail "dropped $dropped of about 2000, not ~30%"
# Every datagram the switch did not drop arrived (the ends are frames too).
[ "$got" -ge $((2000 - dropped)) ] && [ "$got" -le $((offered - dropped)) ] ||
	fail "received $got, the switch dropped $dropped of $offered"
[ "$(stat 2 dropped)" = 0 ] || fail "the other direction lost frames"
"$lab" ctl clear >/dev/null

echo "dup=1: every frame twice"
"$lab" ctl set from=1 to=2 dup=1 >/dev/null
"$lab" ctl zero >/dev/null
start_counter 2 7100 500
answer=$(burst 1 500)
echo "  $answer"
set -- $answer
[ "$4" = 500 ] && [ "$2" -ge 1000 ] || fail "dup=1: $answer"
[ "$(stat 1 duplicated)" -ge 500 ] || fail "duplicated $(stat 1 duplicated)"
"$lab" ctl clear >/dev/null

echo "delay=5 jitter=5 reorder=0.3: queued, and later frames overtake"
"$lab" ctl set from=1 delay=5 jitter=5 reorder=0.3 reorder_ms=20 >/dev/null
"$lab" ctl zero >/dev/null
start_counter 2 7100 1000
answer=$(burst 1 1000)
echo "  $answer; switch: $("$lab" ctl stats | head -1)"
set -- $answer
[ "$4" = 1000 ] || fail "delayed frames lost: $answer"
[ "$6" -gt 0 ] || fail "nothing arrived out of order: $answer"
[ "$(stat 1 delayed)" -ge 1000 ] || fail "delayed $(stat 1 delayed)"
[ "$(stat 1 reordered)" -gt 0 ] || fail "the switch counted no reordering"
"$lab" ctl clear >/dev/null

echo "partition 1 | 2,3: nothing crosses; heal: it does again"
"$lab" ctl partition 1 2,3 >/dev/null || fail "partition"
"$lab" ctl zero >/dev/null
start_counter 2 7100
"$lab" exec 1 $probe burst 10.77.0.2 7100 200 >/dev/null &
burster=$!
# The burst's end cannot cross: wait until the switch has blocked it all.
until [ "$(stat 1 blocked)" -ge 201 ]; do
	kill -0 "$burster" 2>/dev/null || fail "the burst ended across a partition"
	"$lab" ctl hold 20 >/dev/null
done
"$lab" ctl heal >/dev/null
wait "$burster" || fail "burst after heal"
answer=$(wait "$counter"; cat <&3)
counter=
echo "  $answer; blocked $(stat 1 blocked)"
set -- $answer
[ "$2" = 0 ] || fail "datagrams crossed the partition: $answer"
[ "$(stat 1 dropped)" = 0 ] || fail "a partition counted as loss"

echo "record 1, replay: what node 1 sent arrives again as node 1's"
"$lab" ctl zero >/dev/null
"$lab" ctl record 1 >/dev/null || fail "record 1"
start_counter 2 7100 300
answer=$(burst 1 300)
recorded=$("$lab" ctl record stop) || fail "record stop"
echo "  $answer; $recorded"
set -- $recorded
[ "$2" -ge 301 ] || fail "recorded $2 frames of a 300-datagram burst"
pcap=/tmp/$RFM_LAB.switch/tape.pcap
[ "$("$lab" ctl save "$pcap")" = "ok $2 frames" ] || fail "save $pcap"
# A pcap file: its magic, then a 16-byte header and the frame for each.
[ "$(od -An -tx4 -N4 "$pcap" | tr -d ' ')" = a1b2c3d4 ] || fail "$pcap is no pcap file"
[ "$(wc -c <"$pcap")" -gt $((24 + 16 * $2)) ] || fail "$pcap holds less than $2 frames"
start_counter 2 7100 300
"$lab" ctl replay 3000 >/dev/null || fail "replay"
answer=$(wait "$counter"; cat <&3)
counter=
echo "  replayed: $answer; port 1 replayed $(stat 1 replayed)"
set -- $answer
[ "$4" = 300 ] || fail "the replay did not bring the 300 datagrams again: $answer"
[ "$(stat 1 replayed)" -ge 301 ] || fail "the switch counted $(stat 1 replayed) replayed frames"

echo "link 2 down: no carrier; up: carrier"
"$lab" link 2 down || fail "link 2 down"
"$lab" exec 2 ip link show eth0 | grep -q 'NO-CARRIER' || fail "node 2 has carrier with its link down"
"$lab" link 2 up || fail "link 2 up"
"$lab" exec 2 ip link show eth0 | grep -q 'LOWER_UP' || fail "node 2 has no carrier after link up"

echo "bad commands: refused (exit 2), nothing changed"
"$lab" ctl set drop=2 2>/dev/null && fail "drop=2 accepted"
"$lab" ctl set from=9 drop=0.1 2>/dev/null && fail "port 9 accepted"
"$lab" ctl set drop 2>/dev/null && fail "'drop' without a value accepted"
"$lab" ctl partition 1 1,2 2>/dev/null && fail "a port in two groups accepted"
"$lab" ctl link 2 sideways 2>/dev/null && fail "link 2 sideways accepted"
"$lab" ctl frobnicate 2>/dev/null && fail "an unknown command accepted"
"$lab" ctl hold 2>/dev/null && fail "hold without MS accepted"
"$lab" ctl record 9 2>/dev/null && fail "record 9 accepted"
"$lab" ctl replay 2>/dev/null && fail "replay without MS accepted"
"$lab" exec 1 $probe send 10.77.0.2 7001 0.1 >/dev/null 2>&1 # ARP kept fresh
"$lab" ctl zero >/dev/null
exec 4< <("$lab" exec 2 $probe listen 10.77.0.2 7003)
read -r -t 10 line <&4 && [ "$line" = ready ] || fail "listener in node 2"
"$lab" exec 1 $probe send 10.77.0.2 7003 5 >/dev/null || fail "a refused command changed the rules"
exec 4<&-
[ "$(stat 1 dropped)" = 0 ] || fail "frames dropped after refused commands"
[ "$("$lab" ctl hold 50)" = "held 50" ] || fail "hold 50"

"$lab" down || fail "down"
kill -0 "$switch_pid" 2>/dev/null && fail "the switch (pid $switch_pid) still runs after down"
[ -z "$(ip netns list | grep "^$RFM_LAB-")" ] || fail "namespaces left after down"
[ ! -e "/tmp/$RFM_LAB.switch" ] || fail "/tmp/$RFM_LAB.switch left after down"
"$lab" down || fail "second down failed"
root_links_after=$(ip -o link show 2>/dev/null | awk -F': ' '{ print $2 }' | sort)
[ "$root_links_before" = "$root_links_after" ] || fail "links in the caller's namespace changed"
echo "PASS: lab switch (forwarding, multicast, drop, dup, delay, reorder, partition, record and replay, link, errors, cleanup)"
