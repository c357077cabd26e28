#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A Windows node (under wine) and a Linux node on one DDS domain over
# loopback exchange librfm's dds: wire types both ways (dds-wire-peer.c):
# every stream sample counted, in order, each field and data byte checked,
# every node claim checked; then the same with DDS Security (the files of
# docs/security.md, protection ENCRYPT) when Cyclone's security plugins
# exist on both sides.
#
# The Windows program is built with mingw-w64 against the Cyclone DDS of
# build-aux/win-deps.sh's prefix, the Linux one against Debian's (the same
# 0.10.2); both from src/backends/dds/dds-wire.idl with the native idlc.
# Traffic stays on this machine and private: Cyclone on 127.0.0.1 only,
# unicast, a DDS domain and partition taken from this script's pid. Each
# program is waited for by its pid and killed by it if the script stops.
#
# Usage: tests/windows/test-dds-wire-mixed.sh [COUNT]   (default 2000)
# Exit 0 when both rounds pass (or the secure one is skipped, with the
# reason), 77 with the reason when something needed is missing, 1 on a
# failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
aux=$top/build-aux
count=${1:-2000}
nodes=3

skip() {
	echo "SKIP: mixed Windows/Linux dds: wire exchange: $*"
	exit 77
}

command -v x86_64-w64-mingw32-gcc-posix >/dev/null || skip "no mingw-w64 compiler (Debian: gcc-mingw-w64-x86-64-posix)"
[ -x /usr/lib/wine/wine64 ] || command -v wine >/dev/null || skip "no wine (Debian: wine wine64)"
command -v idlc >/dev/null || skip "no idlc (Debian: cyclonedds-tools)"
pkg-config --exists CycloneDDS || skip "no native Cyclone DDS (Debian: cyclonedds-dev)"
prefix=$("$aux/win-deps.sh" --prefix)
[ -f "$prefix/lib/pkgconfig/CycloneDDS.pc" ] ||
	skip "no Cyclone DDS for Windows in $prefix (make it with build-aux/win-deps.sh cyclonedds)"

work=$(mktemp -d "${TMPDIR:-/tmp}/rfm-win-wire.XXXXXX")
a="" b=""
# shellcheck disable=SC2317 # the EXIT trap calls it
cleanup() {
	for p in $a $b; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# Both programs, from the same generated types.
idlc -l c -o "$work" "$top/src/backends/dds/dds-wire.idl"
cflags=(-std=gnu11 -O2 -Wall -Wextra -Werror -I"$work")
# shellcheck disable=SC2046 # pkg-config's words
gcc "${cflags[@]}" -o "$work/peer" "$here/dds-wire-peer.c" "$work/dds-wire.c" \
	$(pkg-config --cflags --libs CycloneDDS)
# shellcheck disable=SC2046
x86_64-w64-mingw32-gcc-posix "${cflags[@]}" -o "$work/peer.exe" "$here/dds-wire-peer.c" "$work/dds-wire.c" \
	$(PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig PKG_CONFIG_PATH='' pkg-config --cflags --libs CycloneDDS)

domain=$((20 + $$ % 200))
net="t-winwire-$$"
loopback='<CycloneDDS><Domain Id="any"><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces>'
loopback+='<AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex>'
loopback+='<MaxAutoParticipantIndex>100</MaxAutoParticipantIndex><Peers><Peer Address="127.0.0.1"/></Peers>'
loopback+='</Discovery></Domain></CycloneDDS>'
export CYCLONEDDS_URI=$loopback

# One round: Linux node 1 and Windows node 2, each in the background,
# each waited for by its pid.
round() { # LABEL [SECURITY_DIR_1 SECURITY_DIR_2]
	local label=$1 status=0
	"$work/peer" "$domain" "$net-$label" 1 2 "$count" "$nodes" ${2:+"$2"} >"$work/linux.out" 2>&1 &
	a=$!
	"$aux/win-env.sh" --run "$work/peer.exe" "$domain" "$net-$label" 2 1 "$count" "$nodes" ${3:+"$3"} \
		>"$work/windows.out" 2>&1 &
	b=$!
	wait "$a" || status=1
	a=""
	wait "$b" || status=1
	b=""
	sed 's/^/  linux:   /' "$work/linux.out"
	sed 's/^/  windows: /' "$work/windows.out" | tr -d '\r'
	if [ $status = 0 ]; then
		echo "PASS: mixed dds: wire exchange ($label): Linux node and Windows node under wine, $count samples and $nodes claims each way"
	else
		echo "FAIL: mixed dds: wire exchange ($label)"
	fi
	return $status
}

status=0
round plain || status=1

# DDS Security: Cyclone's plugins on both sides, the site's files made with
# docs/security.md's commands.
# (Debian keeps them in libdir/libddsc0debian/, where its libddsc looks.)
native_plugin=$(find "$(pkg-config --variable=libdir CycloneDDS)" -maxdepth 2 -name 'libdds_security_auth.so*' | head -1)
win_plugin=$(find "$prefix/bin" -maxdepth 1 -iname '*dds_security_auth*.dll' | head -1)
if [ -z "$native_plugin" ]; then
	echo "SKIP: mixed dds: wire exchange (secure): no native DDS Security plugins (Debian's libddsc0debian has them)"
elif [ -z "$win_plugin" ]; then
	echo "SKIP: mixed dds: wire exchange (secure): the Windows Cyclone in $prefix was built without DDS Security"
elif ! command -v openssl >/dev/null; then
	echo "SKIP: mixed dds: wire exchange (secure): no openssl to make the security files (Debian: openssl)"
else
	"$top/tests/backends/dds/security/make-files.sh" "$top/docs/security.md" "$work/sec" ENCRYPT 1 2
	round secure "$work/sec/node1" "$work/sec/node2" || status=1
fi
exit $status
