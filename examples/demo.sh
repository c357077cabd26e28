#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A three-node demo on the emulated network: one sender publishes samples
# at 1 kHz with data-then-sequence-flag; two receivers on other nodes (other
# processes) check every sample they take.
#   examples/demo.sh [BUILDDIR [SAMPLES]]     (BUILDDIR defaults to ./build)
set -eu
builddir=$(cd "${1:-build}" && pwd)
samples=${2:-2000}
net="demo-$$"
uri="shm:$net?size=1M"
logs=$(mktemp -d)
pids=""

cleanup() {
	for pid in $pids; do kill "$pid" 2>/dev/null || true; done
	rm -rf "$logs"
	"$builddir/tools/rfm" -u "shm:$net" destroy --force >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

echo "== librfm demo: network $net, 3 nodes, $samples samples at 1 kHz"
for n in 1 2; do
	"$builddir/examples/publish-receiver" "$uri&node=$n" >"$logs/receiver$n" 2>&1 &
	pids="$pids $!"
done
# Start sending once both receivers are attached (they print a line when ready).
for n in 1 2; do
	until grep -q waiting "$logs/receiver$n" 2>/dev/null; do
		kill -0 $pids 2>/dev/null || { cat "$logs"/*; exit 1; }
		sleep 0.05
	done
done
"$builddir/tools/rfm" -u "shm:$net" info
"$builddir/examples/publish-sender" "$uri&node=0" "$samples" 1000
status=0
for pid in $pids; do wait "$pid" || status=1; done
pids=""
cat "$logs/receiver1" "$logs/receiver2"
[ $status -eq 0 ] && echo "== demo passed: every sample taken was consistent" || echo "== demo FAILED"
exit $status
