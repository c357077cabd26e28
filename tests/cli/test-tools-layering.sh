#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# No file circles in the rfm tool: no two files of tools/ call each other,
# directly or around a loop, in the rfm program or in its helper rfm-replay
# (each program's own table of commands makes its own graph). It is the
# library's check (tests/core/test-layering.sh: read from the objects with
# nm) on the lists of objects make writes for each program; a loop kept on
# purpose would be named in tests/cli/layering-allow.txt with its reason.
set -eu

srcdir=${srcdir:-.}
# automake puts the program's canonical name before each source's object.
prefix='^tools_rfm_replay-\|^rfm_replay-\|^tools_rfm-\|^rfm-'

if [ ! -s tests/cli/layering-rfm.list ]; then
	echo "test-tools-layering: no object list of rfm (make writes it before the tests run)" >&2
	exit 99
fi
status=0
for list in tests/cli/layering-rfm.list tests/cli/layering-rfm-replay.list; do
	[ -s "$list" ] || continue
	echo "$list:"
	sh "$srcdir/tests/core/test-layering.sh" "$list" "$srcdir/tests/cli/layering-allow.txt" \
		"$prefix" || status=1
done
exit $status
