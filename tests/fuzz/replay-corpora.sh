#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Replay every fuzz corpus through its harness (built with the normal
# compiler and flags, so sanitizer builds check them too). The segment
# and cli harnesses create networks: as root they run in a private
# /dev/shm; otherwise they are skipped with a note.
set -eu
src=${srcdir:-.}/tests/fuzz
bin=tests/fuzz

run() {
	target=$1
	shift
	echo "replaying $(ls "$src/$target-corpus" | wc -l) $target inputs"
	"$@" "$bin/replay-$target" "$src/$target-corpus"/*
}

run uri
run layout
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	for t in segment cli; do
		run "$t" unshare -m sh -c \
			'mount -t tmpfs -o size=64m,mode=1777 rfm-replay /dev/shm && exec "$@"' sh
	done
else
	echo "segment and cli corpora skipped: they need root for a private /dev/shm"
fi
