# SPDX-License-Identifier: LGPL-2.1-or-later
# The dds: backend (issue 18): its own suite, then the shared ring, record,
# event and health suites once more with RFM_TEST_BACKEND=dds, each node a
# handle of this process with its own copy of the window, on loopback
# (tests/dds/run-dds-suites.sh). Skipped when librfm has no Cyclone DDS.

if WITH_TESTS
check_PROGRAMS += tests/dds/test-dds
tests_dds_test_dds_SOURCES = tests/dds/test-dds.c
tests_dds_test_dds_CPPFLAGS = $(rfm_test_cppflags) -I$(top_srcdir)/src
tests_dds_test_dds_LDADD = $(rfm_test_ldadd)
# callbacks=receive, with node 2 in a process of its own (dds-peer).
check_PROGRAMS += tests/dds/test-dds-callbacks
tests_dds_test_dds_callbacks_SOURCES = tests/dds/test-dds-callbacks.c
tests_dds_test_dds_callbacks_CPPFLAGS = $(rfm_test_cppflags) -I$(top_srcdir)/src
tests_dds_test_dds_callbacks_LDADD = $(rfm_test_ldadd)

TESTS += tests/dds/run-dds-suites.sh
endif
EXTRA_DIST += tests/dds/run-dds-suites.sh tests/dds/tsan.supp

# Across "hosts": one node per network namespace (tests/hosts/netns-lab.sh),
# root only; dds-peer is the node each namespace runs.
if WITH_TESTS
check_PROGRAMS += tests/dds/dds-peer
tests_dds_dds_peer_SOURCES = tests/dds/dds-peer.c
tests_dds_dds_peer_LDADD = src/librfm.la
TESTS += tests/dds/test-dds-hosts.py
endif
EXTRA_DIST += tests/dds/test-dds-hosts.py
