# SPDX-License-Identifier: LGPL-2.1-or-later
# The dds: backend: its own suites, then every shared suite (the programs
# that say HARNESS_SHARED_SUITE) once more with RFM_TEST_BACKEND=dds, each
# node a handle of this process with its own copy of the window, on
# loopback (tests/backends/dds/run-dds-suites.sh). Skipped when librfm has
# no Cyclone DDS.

if WITH_TESTS
check_PROGRAMS += tests/backends/dds/test-dds
tests_backends_dds_test_dds_SOURCES = tests/backends/dds/test-dds.c
tests_backends_dds_test_dds_CPPFLAGS = $(rfm_test_cppflags) -I$(top_srcdir)/src
tests_backends_dds_test_dds_LDADD = $(rfm_test_ldadd)
# callbacks=receive, with node 2 in a process of its own (dds-peer).
check_PROGRAMS += tests/backends/dds/test-dds-callbacks
tests_backends_dds_test_dds_callbacks_SOURCES = tests/backends/dds/test-dds-callbacks.c
tests_backends_dds_test_dds_callbacks_CPPFLAGS = $(rfm_test_cppflags) -I$(top_srcdir)/src
tests_backends_dds_test_dds_callbacks_LDADD = $(rfm_test_ldadd)

TESTS += tests/backends/dds/run-dds-suites.sh
# Eight processes started at once, released by one barrier: all open.
check_PROGRAMS += tests/backends/dds/test-dds-boot
tests_backends_dds_test_dds_boot_SOURCES = tests/backends/dds/test-dds-boot.c
tests_backends_dds_test_dds_boot_LDADD = src/librfm.la
TESTS += tests/backends/dds/test-dds-boot
endif
# A stranger publishing on a network's topics (built from dds-wire.idl, as
# anyone could), and the nodes' answer to it.
if WITH_TESTS
if HAVE_DDS
check_PROGRAMS += tests/backends/dds/dds-rogue
tests_backends_dds_dds_rogue_SOURCES = tests/backends/dds/dds-rogue.c
nodist_tests_backends_dds_dds_rogue_SOURCES = src/backends/dds/dds-wire.c
tests_backends_dds_dds_rogue_CPPFLAGS = -I$(top_builddir)/src $(DDS_CFLAGS)
tests_backends_dds_dds_rogue_LDADD = $(DDS_LIBS)
endif
# Run by run-dds-suites.sh (RFM_TEST_BACKEND=dds).
check_PROGRAMS += tests/backends/dds/test-dds-rogue
tests_backends_dds_test_dds_rogue_SOURCES = tests/backends/dds/test-dds-rogue.c
tests_backends_dds_test_dds_rogue_CPPFLAGS = $(rfm_test_cppflags) -I$(top_srcdir)/src
tests_backends_dds_test_dds_rogue_LDADD = $(rfm_test_ldadd)
endif
EXTRA_DIST += tests/backends/dds/run-dds-suites.sh tests/backends/dds/tsan.supp \
	tests/backends/dds/dds-rogue.c

# Across "hosts": one node per network namespace (tests/hosts/netns-lab.sh),
# root only; dds-peer is the node each namespace runs.
if WITH_TESTS
check_PROGRAMS += tests/backends/dds/dds-peer
tests_backends_dds_dds_peer_SOURCES = tests/backends/dds/dds-peer.c
tests_backends_dds_dds_peer_LDADD = src/librfm.la
TESTS += tests/backends/dds/test-dds-hosts.py
endif
EXTRA_DIST += tests/backends/dds/test-dds-hosts.py tests/backends/dds/dds_peer.py
