# SPDX-License-Identifier: LGPL-2.1-or-later
# C++ examples over <rfm/rfm.hpp> (run in make check by tests/cxx/run-two-node.sh).
if WITH_EXAMPLES
noinst_PROGRAMS += examples/cxx/two-node
examples_cxx_two_node_SOURCES = examples/cxx/two-node.cc
examples_cxx_two_node_CXXFLAGS = -std=c++17 $(RFM_WARN_CXXFLAGS)
examples_cxx_two_node_LDADD = src/librfm.la
endif
