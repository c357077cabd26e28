#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# ./quickstart.sh demo-hosts runs examples/demo-hosts.sh: a simulator and a
# controller in two network namespaces. Here it runs on shm: (the demo's
# machinery) and on dds: (the real thing: each host its own copy), and every
# cycle must come back answered with the values the controller computed.
# Skipped (77) without root, namespaces or the examples.

top_builddir=$(pwd)
top_srcdir=$(cd "${srcdir:-.}" && pwd) || exit 99
demo="$top_srcdir/examples/demo-hosts.sh"

if [ "$(id -u)" != 0 ]; then
	echo "skipped: network namespaces need root"
	exit 77
fi
if [ ! -x "$top_builddir/examples/hosts-demo" ]; then
	echo "skipped: examples/hosts-demo is not built (--enable-examples)"
	exit 77
fi

out=$(mktemp) || exit 99
trap 'rm -f "$out"' EXIT

# The controller drives the plant to 1500 rpm: after 6 cycles the throttle
# has settled at 0.501 and the speed is 1497.7 rpm — values that only come
# out if every reading crossed to the other side and back.
check() {
	scheme=$1
	"$demo" "$top_builddir" 6 "$scheme" >"$out" 2>&1
	rc=$?
	cat "$out"
	[ $rc = 77 ] && exit 77
	[ $rc = 0 ] || { echo "FAIL: demo on $scheme: exit $rc"; exit 1; }
	grep -q '^cycle  6  speed 1497.7 rpm  temperature 31.2 degC  ->  throttle 0.501$' "$out" ||
		{ echo "FAIL: demo on $scheme: cycle 6 is not the expected one"; exit 1; }
	grep -q '^controller (node 2): answered 6 cycles' "$out" ||
		{ echo "FAIL: demo on $scheme: the controller did not answer 6 cycles"; exit 1; }
	[ "$(grep -c '^cycle ' "$out")" = 6 ] || { echo "FAIL: demo on $scheme: not 6 cycles"; exit 1; }
}

check shm
if ! grep -q '^#define HAVE_DDS 1' "$top_builddir/config.h"; then
	echo "skipped: this build has no dds: backend (ran the demo on shm: only)"
	exit 77
fi
check dds
echo "PASS: demo-hosts on shm: and dds:"
