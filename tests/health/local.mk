# SPDX-License-Identifier: LGPL-2.1-or-later
# Heartbeats across processes (src/health*.c): NODE_UP/NODE_DOWN, the node
# table and its states (left, crashed, silent), self-test, counters. Backend: RFM_TEST_BACKEND. Interposes
# pthread_create() (dlsym RTLD_NEXT) to hold a monitor thread back.

if WITH_TESTS
check_PROGRAMS += tests/health/test-health tests/health/test-health-states
TESTS += tests/health/test-health tests/health/test-health-states
tests_health_test_health_SOURCES = tests/health/test-health.c
tests_health_test_health_CPPFLAGS = $(rfm_test_cppflags)
tests_health_test_health_LDADD = $(rfm_test_ldadd) -ldl
tests_health_test_health_states_SOURCES = tests/health/test-health-states.c
tests_health_test_health_states_CPPFLAGS = $(rfm_test_cppflags)
tests_health_test_health_states_LDADD = $(rfm_test_ldadd)
endif
