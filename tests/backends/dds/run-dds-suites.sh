#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The suites that run on the dds: backend, in one TESTS entry: its own
# programs, then every shared suite (a program that says
# HARNESS_SHARED_SUITE(needs), tests/harness/harness.h) once more on each
# backend the harness's table marks for an extra pass (dds: today), when
# the backend has what the suite needs. The harness puts Cyclone on the
# loopback interface, a DDS domain per program. Exit 77 when every one
# skipped (a librfm without Cyclone DDS), 1 when any failed.
#
# A shared suite's cases that fork children after opening nodes skip on
# dds: with the reason (Cyclone's threads do not survive fork()). The ring
# consumer table races no node against another: each node claims lanes of
# its own row only, in its own copy of the window (src/ring-consumer.c
# claim_entry), so the ring suite's two-node cases mean the same here as on
# separate hosts.
srcdir=${srcdir:-.}
ran=0 failed=0

run() { # BACKEND PROGRAM
	echo "== $2 ($1:)"
	RFM_TEST_BACKEND=$1 ./$2
	rc=$?
	case $rc in
	0) ran=$((ran + 1)) ;;
	77) ;;
	*) echo "FAIL: $2 on $1: exited $rc"; failed=$((failed + 1)) ;;
	esac
}

for t in tests/backends/dds/test-dds tests/backends/dds/test-dds-callbacks \
	tests/backends/dds/test-dds-rogue; do
	run dds "$t"
done

# The shared suites, from their sources: tests/DIR/NAME.c is tests/DIR/NAME.
shared=$(cd "$srcdir" && grep -rl --include='*.c' --include='*.cc' '^HARNESS_SHARED_SUITE(' tests |
	sed 's/\.cc*$//' | sort)
[ -n "$shared" ] || { echo "FAIL: no shared suite found under $srcdir/tests"; exit 1; }
probe=$(echo "$shared" | head -n 1)
backends=$(HARNESS_PROBE=extra-pass ./$probe) || { echo "FAIL: $probe HARNESS_PROBE=extra-pass"; exit 1; }
for backend in $backends; do
	for t in $shared; do
		if RFM_TEST_BACKEND=$backend HARNESS_PROBE=shared ./$t; then
			run "$backend" "$t"
		else
			echo "== $t: not on $backend: (it needs what the backend cannot do)"
		fi
	done
done
[ $failed -eq 0 ] || exit 1
[ $ran -gt 0 ] || exit 77
exit 0
