#!/bin/busybox sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# `rfm ping --mode event` across two lab guests over dev:, the CLI as a
# user runs it: guest 1 echoes, guest 0 pings COUNT round trips.
#   ping-pair.sh --index I --nodes 2 [COUNT]
# The guests learn each other's node id through the window itself: each
# writes id+1 to its own word at RENDEZVOUS (rfm poke32) and polls the
# other's (rfm peek32) — a ready signal, with a bound, no fixed sleep.
index=0
while [ $# -gt 0 ]; do
	case $1 in
	--index) index=$2; shift 2 ;;
	--nodes) shift 2 ;;
	*) break ;;
	esac
done
count=${1:-500}
warmup=50
uri=dev:/dev/rfm0
rendezvous=$((0x100000))

fail() {
	echo "not ok - $*"
	echo "# guest $index: 0 passed, 1 failed"
	exit 1
}

me=$(rfm -u "$uri" info --json | sed -n 's/.*"node_id": *\([0-9]*\).*/\1/p')
[ -n "$me" ] || fail "rfm info on $uri"
rfm -u "$uri" poke32 $((rendezvous + 4 * index)) $((me + 1)) || fail "rfm poke32"
other=$((1 - index))
tries=0
while :; do
	v=$(rfm -u "$uri" peek32 $((rendezvous + 4 * other))) || fail "rfm peek32"
	[ "$((v))" != 0 ] && break
	tries=$((tries + 1))
	[ $tries -lt 20000 ] || fail "guest $other never published its node id"
done
peer=$(($((v)) - 1))
echo "# guest $index: node $me, peer node $peer"

if [ "$index" = 1 ]; then
	# A remote echoer leaves after the pinger's warm-up and measured rounds.
	rfm -u "$uri" ping --echo --mode event --count $((warmup + count)) --timeout 60000 ||
		fail "rfm ping --echo"
	echo "ok - rfm ping --echo --mode event --count $((warmup + count)) (guest 1)"
else
	out=$(rfm -u "$uri" ping --mode event --peer "$peer" --warmup $warmup --count "$count" \
		--timeout 30000) ||
		{ echo "$out"; fail "rfm ping --mode event --peer $peer"; }
	echo "$out"
	echo "$out" | grep -q "$count round trips" || fail "rfm ping did not report $count round trips"
	echo "$out" | sed -n 's/^  *round/bench: rfm ping --mode event across guests (ns): round/p'
	echo "ok - rfm ping --mode event --count $count (guest 0)"
fi
echo "# guest $index: 1 passed, 0 failed"
