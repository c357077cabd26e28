# SPDX-License-Identifier: LGPL-2.1-or-later
# dds: networks with DDS Security (security=DIR): the files made with
# docs/security.md's commands, an authenticated network of dds-peer
# processes, and strangers (dds-rogue) without a certificate, with another
# CA's, or with permissions for another node id, asserted at the victims.
if WITH_TESTS
TESTS += tests/backends/dds/security/test-dds-security.py
endif
EXTRA_DIST += tests/backends/dds/security/test-dds-security.py \
	tests/backends/dds/security/make-files.sh
