# SPDX-License-Identifier: LGPL-2.1-or-later
# The C++ layer <rfm/rfm.hpp>: its API suite, and the C++ example run as
# two processes (examples/cxx/two-node, built by examples/cxx/local.mk).

if WITH_TESTS
check_PROGRAMS += tests/cxx/test-cxx-api
TESTS += tests/cxx/test-cxx-api tests/cxx/run-two-node.sh

tests_cxx_test_cxx_api_SOURCES = tests/cxx/test-cxx-api.cc
tests_cxx_test_cxx_api_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/harness
tests_cxx_test_cxx_api_CXXFLAGS = -std=c++17 $(RFM_WARN_CXXFLAGS)
tests_cxx_test_cxx_api_LDADD = tests/harness/libharness.la src/librfm.la

check_PROGRAMS += tests/cxx/test-cxx
TESTS += tests/cxx/test-cxx
# The public headers must compile as C++ too (extern "C", inline accessors).
tests_cxx_test_cxx_SOURCES = tests/cxx/test-cxx.cc
tests_cxx_test_cxx_CPPFLAGS = $(AM_CPPFLAGS)
tests_cxx_test_cxx_LDADD = src/librfm.la
# The project's warnings (and -Werror) minus the two that g++ rejects for C++.
rfm_cxx_warn_c = $(RFM_WARN_CFLAGS:-Wmissing-prototypes=)
rfm_cxx_warn = $(rfm_cxx_warn_c:-Wstrict-prototypes=)
tests_cxx_test_cxx_CXXFLAGS = $(rfm_cxx_warn)
endif

EXTRA_DIST += tests/cxx/run-two-node.sh
