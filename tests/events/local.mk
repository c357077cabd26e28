# SPDX-License-Identifier: LGPL-2.1-or-later
# Network-interrupt suites (src/event*.c): in-process API, cross-process, shared
# segment robustness and the 4-process stress test. Backend: RFM_TEST_BACKEND.

if WITH_TESTS

ev_test_cppflags = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/events -I$(top_srcdir)/tests/harness \
	$(CMOCKA_CFLAGS)
ev_test_ldadd = tests/harness/libharness.la src/librfm.la $(CMOCKA_LIBS)

ev_tests = \
	tests/events/test-events-api \
	tests/events/test-events-xproc \
	tests/events/test-events-segment \
	tests/events/test-events-stress \
	tests/events/test-events-unregister

check_PROGRAMS += $(ev_tests)
TESTS += $(ev_tests)

tests_events_test_events_api_SOURCES = tests/events/test-events-api.c tests/events/ev-test.h
tests_events_test_events_api_CPPFLAGS = $(ev_test_cppflags)
tests_events_test_events_api_LDADD = $(ev_test_ldadd)

tests_events_test_events_xproc_SOURCES = tests/events/test-events-xproc.c tests/events/ev-test.h
tests_events_test_events_xproc_CPPFLAGS = $(ev_test_cppflags)
tests_events_test_events_xproc_LDADD = $(ev_test_ldadd)

# Forges stalled and corrupt queues, so it knows the segment's layout.
tests_events_test_events_segment_SOURCES = tests/events/test-events-segment.c tests/events/ev-test.h
tests_events_test_events_segment_CPPFLAGS = $(ev_test_cppflags) -I$(top_srcdir)/src
tests_events_test_events_segment_LDADD = $(ev_test_ldadd)

tests_events_test_events_stress_SOURCES = tests/events/test-events-stress.c tests/events/ev-test.h
tests_events_test_events_stress_CPPFLAGS = $(ev_test_cppflags)
tests_events_test_events_stress_LDADD = $(ev_test_ldadd)

# A record sent after unregistering the last callback reaches waits (a race
# in the dispatcher's take): a plain program, no CMocka.
tests_events_test_events_unregister_SOURCES = tests/events/test-events-unregister.c
tests_events_test_events_unregister_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/harness
tests_events_test_events_unregister_LDADD = tests/harness/libharness.la src/librfm.la

endif

# Events between nodes, for every backend (written for dev:, where
# delivery is asynchronous; the shm: suites beside it assume more).
if WITH_TESTS
check_PROGRAMS += tests/events/test-events-nodes
TESTS += tests/events/test-events-nodes
tests_events_test_events_nodes_SOURCES = tests/events/test-events-nodes.c
tests_events_test_events_nodes_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/harness $(CMOCKA_CFLAGS)
tests_events_test_events_nodes_LDADD = tests/harness/libharness.la src/librfm.la $(CMOCKA_LIBS)
endif
