# SPDX-License-Identifier: LGPL-2.1-or-later
# The recorder (recorder.h): known writers recorded and the files read
# back with HDF5's C API. Backend: RFM_TEST_BACKEND (a shared suite: the
# dds: pass runs it too). Needs libhdf5. Then how librfm depends on HDF5:
# not at all until an HDF5 recording opens its module (test-hdf5-link.sh;
# the module's refusals are tests/cli/test_record_module.py's, with the
# modules of another build made here).

if WITH_TESTS
if HAVE_HDF5
check_PROGRAMS += tests/recorder/test-recorder
TESTS += tests/recorder/test-recorder tests/recorder/test-hdf5-link.sh
tests_recorder_test_recorder_SOURCES = tests/recorder/test-recorder.c
tests_recorder_test_recorder_CPPFLAGS = $(rfm_test_cppflags) $(HDF5_CFLAGS)
tests_recorder_test_recorder_LDADD = $(rfm_test_ldadd) $(HDF5_LIBS) -lm

# -rpath: shared objects, as a module is (libtool makes check libraries static otherwise).
check_LTLIBRARIES += tests/recorder/other-build.la tests/recorder/other-interface.la
other_module_ldflags = -module -avoid-version -shared -rpath /nowhere $(RFM_LDFLAGS_DEFS)
tests_recorder_other_build_la_SOURCES = tests/recorder/other-module.c
tests_recorder_other_build_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src \
	-I$(top_builddir)/src -DOTHER_ABI_STEP=0
tests_recorder_other_build_la_LDFLAGS = $(other_module_ldflags)
tests_recorder_other_interface_la_SOURCES = tests/recorder/other-module.c
tests_recorder_other_interface_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src \
	-I$(top_builddir)/src -DOTHER_ABI_STEP=1
tests_recorder_other_interface_la_LDFLAGS = $(other_module_ldflags)
endif
endif
EXTRA_DIST += tests/recorder/test-recorder.c tests/recorder/test-hdf5-link.sh \
	tests/recorder/other-module.c
