#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Suites ask what the backend under test can do, never which one it is.
#
# A suite that compares the backend's name runs on one backend for a reason
# it does not say, and never on a new backend that could run it. So outside
# tests/backends/NAME/ (the suites of one backend, which may name it) and
# the harness's table of backends, this fails on:
#   - harness_require_backend() or a skip by name: say what the program
#     needs with harness_require(HARNESS_CAP_..., why), or what a case
#     needs with skip_unless_can() (tests/harness/rfm-cmocka.h);
#   - a C or C++ string that is a backend's name ("shm", "dds"...), the
#     stuff of such comparisons (compare with harness_backend() instead);
#   - a shell or Python comparison of RFM_TEST_BACKEND with a name.
# URIs such as "shm:NAME" in tests of the URI grammar or of a tool are not
# names compared: they pass.
#   srcdir=SRC check-backend-names.sh
srcdir=${srcdir:-.}
cd "$srcdir/tests" || exit 99

names='shm|dev|dds|rfm2g'
found=$(
	{
		grep -rnE --include='*.c' --include='*.h' --include='*.cc' \
			-e 'harness_require_backend[[:space:]]*\(' \
			-e 'skip_unless_backend' \
			-e "\"($names)\"" . |
			grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)'
		grep -rnE --include='*.sh' --include='*.py' \
			"RFM_TEST_BACKEND[^=]*(!=|==)[[:space:]]*[\"']?($names)\\b" .
		# A script that reads RFM_TEST_BACKEND into a variable first.
		for f in $(grep -rlE --include='*.sh' 'RFM_TEST_BACKEND' .); do
			grep -nE -e "\\[[^]]*[!=]=?[[:space:]]*\"?($names)\"?[[:space:]]*\\]" \
				-e "^[[:space:]]*\"?($names)\"?(\\|[a-z0-9\"]+)*\\)" "$f" |
				sed "s|^|$f:|"
		done
	} | sed 's|^\./||' | grep -vE '^(backends/|harness/harness\.[ch]:)' | sort -u
)
if [ -n "$found" ]; then
	echo "Suites outside tests/backends/ that name a backend (ask for a capability:"
	echo "harness_require(), skip_unless_can(), harness_can(); tests/harness/harness.h):"
	echo "$found"
	exit 1
fi
echo "check-backend-names: no suite outside tests/backends/ names a backend"
