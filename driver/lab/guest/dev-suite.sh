#!/bin/busybox sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The library's test programs against the dev: backend, inside a lab guest
# with several virtual cards on one network (vm-run.sh -d N):
#   dev-suite.sh --index I --nodes N PROGRAM...
# Each PROGRAM runs with RFM_TEST_BACKEND=dev; exit 77 counts as skipped
# (the program says why). Prints "# guest I: P passed, F failed" for vm-run.sh.
index=0
while [ $# -gt 0 ]; do
	case $1 in
	--index) index=$2; shift 2 ;;
	--nodes) shift 2 ;;
	*) break ;;
	esac
done

export RFM_TEST_BACKEND=dev
# cmocka's own output is enough; no colours on a serial console.
export CMOCKA_MESSAGE_OUTPUT=stdout
passed=0 failed=0 skipped=0
for prog in "$@"; do
	echo "RFMLAB-SUITE: $prog"
	start=$(date +%s)
	"/bin/$prog"
	rc=$?
	took=$(($(date +%s) - start))
	case $rc in
	0) passed=$((passed + 1)); echo "ok - $prog (${took}s)" ;;
	77) skipped=$((skipped + 1)); echo "ok - $prog # SKIP (${took}s)" ;;
	*) failed=$((failed + 1)); echo "not ok - $prog (exit $rc, ${took}s)" ;;
	esac
done
echo "# guest $index: $passed passed, $failed failed, $skipped skipped (programs, backend dev)"
[ $failed = 0 ]
