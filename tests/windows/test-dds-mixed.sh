#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# make check-windows-dds: a Windows node (librfm-1.dll under wine) and a
# Linux node (librfm.so) on one dds: network over loopback, through the
# public API (tests/windows/dds-mixed-node.c, built for both): memory both
# ways byte for byte, typed variables of both byte orders through a
# layout, events both ways, a ring each way, a record each way, NODE_UP of
# each seen by the other, and a CSV recorder on the Linux node recording
# what the Windows node publishes. Then the same with security=DIR (the
# site's files made with docs/security.md's commands, protection ENCRYPT,
# Cyclone's security plugins on both sides), and a Windows node whose
# private key others may read refused with the reason.
#
#   test-dds-mixed.sh SRCDIR LINUX_BUILDDIR WIN_BUILDDIR
#
# LINUX_BUILDDIR has src/.libs/librfm.so built with dds:. WIN_BUILDDIR is
# configured once for Windows (mingw-w64, the dependency prefix of
# build-aux/win-deps.sh, with dds:) and kept: a second run rebuilds only
# what changed. Traffic stays on 127.0.0.1 (Cyclone unicast, no
# multicast), on a DDS domain and network name taken from this script's
# pid. Each node is waited for by its pid and killed by it if the script
# stops; every wait inside has a deadline (a hang guard).
#
# Prints "PASS:"/"FAIL:" per check of each node and a count; exit 0 when
# all pass, 77 with the reason when something needed is missing, 1 on a
# failure.
set -euo pipefail

srcdir=$(cd "$1" && pwd)
linux_build=$(cd "$2" && pwd)
win_build=$3
aux=$srcdir/build-aux
env=${RFM_WIN_ENV:-$aux/win-env.sh}
deps=${RFM_WIN_DEPS_SH:-$aux/win-deps.sh}
jobs=${RFM_WIN_JOBS:-2}

skip() {
	echo "SKIP: mixed Windows/Linux dds: network: $*"
	exit 77
}

command -v x86_64-w64-mingw32-gcc-posix >/dev/null ||
	skip "no mingw-w64 compiler (Debian: gcc-mingw-w64-x86-64-posix)"
command -v wine >/dev/null || skip "no wine (Debian: wine wine64)"
grep -q '^#define HAVE_DDS 1' "$linux_build/config.h" ||
	skip "the Linux build has no dds: backend (Debian: cyclonedds-dev cyclonedds-tools libssl-dev)"
[ -f "$linux_build/src/.libs/librfm.so" ] || skip "no $linux_build/src/.libs/librfm.so (make it first)"

# The Windows librfm with dds: (Cyclone DDS and static OpenSSL of the
# prefix), in the build directory check-windows and check-windows-tools share.
win_build=$("$srcdir/tests/windows/win-build-dir.sh" "$srcdir" "$win_build") ||
	{ echo "FAIL: the Windows build directory (tests/windows/win-build-dir.sh)"; exit 1; }
grep -q '^#define HAVE_DDS 1' "$win_build/config.h" ||
	skip "the Windows build has no dds: (Cyclone DDS 0.10.2's source, from the shared dependency directory beside the clone, did not build: build-aux/win-deps.sh)"
(cd "$win_build" && "$env" nice make -j"$jobs" src/librfm.la >make.out 2>&1) ||
	{ grep -E 'error|Error' "$win_build/make.out" | head -30; exit 1; }
[ -f "$win_build/src/.libs/librfm-1.dll" ] || { echo "FAIL: no librfm-1.dll in $win_build/src/.libs"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/rfm-win-dds.XXXXXX")
a="" b=""
# shellcheck disable=SC2317 # the EXIT trap calls it
cleanup() {
	for p in $a $b; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# The same node program for both sides.
cflags=(-std=gnu11 -O2 -Wall -Wextra -Werror -I"$srcdir/include")
gcc "${cflags[@]}" -I"$linux_build/include" -o "$work/node" "$srcdir/tests/windows/dds-mixed-node.c" \
	-L"$linux_build/src/.libs" -lrfm -lpthread -Wl,-rpath,"$linux_build/src/.libs"
x86_64-w64-mingw32-gcc-posix "${cflags[@]}" -I"$win_build/include" -o "$work/node.exe" \
	"$srcdir/tests/windows/dds-mixed-node.c" "$win_build/src/.libs/librfm.dll.a" -lpthread

# Windows paths are Z: and the Unix path (wine's mapping of /).
winpath() { printf 'Z:%s' "$1"; }
libs=$(winpath "$win_build/src/.libs")
WINEPATH="${libs//\//\\}${WINEPATH:+;$WINEPATH}"
export WINEPATH

domain=$((20 + $$ % 200))
loopback='<CycloneDDS><Domain Id="any"><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces>'
loopback+='<AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex>'
loopback+='<MaxAutoParticipantIndex>100</MaxAutoParticipantIndex><Peers><Peer Address="127.0.0.1"/></Peers>'
loopback+='</Discovery></Domain></CycloneDDS>'
export CYCLONEDDS_URI=$loopback

pass=0 fail=0 cpu=""
# Each node's checks; a node that failed without saying which check did
# (it died, or never opened) is one failure more.
count() { # LABEL SIDE FILE STATUS
	local line said=0
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"# cpu "*) cpu+="${cpu:+, }$1 $2 ${line#\# cpu }"; echo "  $2: $line" ;;
		"ok "*) echo "PASS: $1 $2: ${line#ok }"; pass=$((pass + 1)) ;;
		"not ok "*) echo "FAIL: $1 $2: ${line#not ok }"; fail=$((fail + 1)); said=1 ;;
		*) echo "  $2: $line" ;;
		esac
	done <"$3"
	if [ "$4" != 0 ] && [ $said = 0 ]; then
		echo "FAIL: $1 $2: exit status $4"
		fail=$((fail + 1))
	fi
}

# One round: Linux node 1 (recording) and Windows node 2, each in the
# background, each waited for by its pid.
round() { # LABEL [SECURITY_DIR_1 SECURITY_DIR_2]
	local label=$1 uri="dds:t-windds-$$-$1?size=256K&domain=$domain&join=1000" s1="" s2=""
	local sa=0 sb=0
	[ $# -gt 1 ] && s1="&security=$2" s2="&security=$(winpath "$3")"
	"$work/node" "$uri&node=1$s1" 1 2 --record "$work/$label.csv" >"$work/linux.out" 2>&1 &
	a=$!
	"$env" --run "$work/node.exe" "$uri&node=2$s2" 2 1 --recorded >"$work/windows.out" 2>&1 &
	b=$!
	wait "$a" || sa=$?
	a=""
	wait "$b" || sb=$?
	b=""
	count "$label" linux "$work/linux.out" $sa
	count "$label" windows "$work/windows.out" $sb
}

round plain

# DDS Security: Cyclone's plugins on both sides (Debian keeps the native
# ones in libdir/libddsc0debian), the site's files of docs/security.md.
native_plugin=$(find "$(pkg-config --variable=libdir CycloneDDS)" -maxdepth 2 -name 'libdds_security_auth.so*' | head -1)
if [ -z "$native_plugin" ]; then
	echo "SKIP: secure round: no native DDS Security plugins (Debian: libddsc0debian)"
elif ! ls "$("$deps" --prefix)"/bin/dds_security_auth.dll >/dev/null 2>&1; then
	echo "SKIP: secure round: the Windows Cyclone was built without DDS Security"
elif ! command -v openssl >/dev/null; then
	echo "SKIP: secure round: no openssl to make the security files (Debian: openssl)"
else
	mkdir "$work/sec"
	"$srcdir/tests/backends/dds/security/make-files.sh" "$srcdir/docs/security.md" "$work/sec" ENCRYPT 1 2
	round secure "$work/sec/node1" "$work/sec/node2"

	# A private key others may read: the Windows node refuses it, naming
	# it. (wine makes a file's DACL from its owner and other mode bits:
	# others' read is Everyone's.)
	cp -a "$work/sec/node2" "$work/sec/open2"
	chmod 644 "$work/sec/open2/node.key"
	"$env" --run "$work/node.exe" "dds:t-windds-$$-key?node=2&domain=$domain&join=100&security=$(winpath "$work/sec/open2")" 2 1 \
		>"$work/key.out" 2>&1 || true
	if tr -d '\r' <"$work/key.out" | grep -q "not ok open: .*node.key is readable by others (Everyone may read it)"; then
		echo "PASS: secure windows: a node.key others may read is refused"
		pass=$((pass + 1))
	else
		echo "FAIL: secure windows: a node.key others may read was not refused as such:"
		sed 's/^/  /' "$work/key.out"
		fail=$((fail + 1))
	fi
fi

echo "check-windows-dds: $pass passed, $fail failed"
# The nodes' own CPU time: the Windows ones are not time(1)'s children.
echo "check-windows-dds: node CPU: $cpu"
[ $fail = 0 ] && [ $pass -gt 0 ]
