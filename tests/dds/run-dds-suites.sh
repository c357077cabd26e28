#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The suites that run on the dds: backend, in one TESTS entry: each
# program under RFM_TEST_BACKEND=dds (the harness puts Cyclone on the
# loopback interface, a DDS domain per program). Exit 77 when every one
# skipped (a librfm without Cyclone DDS), 1 when any failed.
#
# Not here: programs that fork children after opening nodes (Cyclone's
# threads do not survive fork(); those cases skip with the reason), and
# shm:-only suites. The ring consumer table still claims its entries by a
# cross-node compare-and-swap (src/ring-consumer.c claim_entry): in one
# process the handles apply each other's samples at once, so the claim is
# not raced here; on separate hosts it is (issue 18, the ring redesign).
RFM_TEST_BACKEND=dds
export RFM_TEST_BACKEND
suites="tests/dds/test-dds tests/dds/test-dds-callbacks tests/rings/test-rings-api tests/rings/test-health
	tests/rings/test-record-notify tests/dev/test-events-nodes"
ran=0 failed=0
for t in $suites; do
	echo "== $t (dds:)"
	./$t
	rc=$?
	case $rc in
	0) ran=$((ran + 1)) ;;
	77) ;;
	*) echo "FAIL: $t exited $rc"; failed=$((failed + 1)) ;;
	esac
done
[ $failed -eq 0 ] || exit 1
[ $ran -gt 0 ] || exit 77
exit 0
