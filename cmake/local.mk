# SPDX-License-Identifier: LGPL-2.1-or-later
# CMake packages of librfm and librfm2g: find_package(rfm) or
# find_package(rfm2g) gives the imported targets rfm::rfm, rfm::rfm2g and
# rfm::rfm2g_static. rfmConfig.cmake finds the headers relative to itself:
# the path from $(libdir)/cmake/rfm to $(includedir) is worked out here.

rfmcmakedir = $(libdir)/cmake/rfm
rfmcmake_DATA = cmake/rfmConfig.cmake cmake/rfmConfigVersion.cmake
rfm2gcmakedir = $(libdir)/cmake/rfm2g
rfm2gcmake_DATA = cmake/rfm2gConfig.cmake cmake/rfm2gConfigVersion.cmake

cmake/rfmConfig.cmake: $(top_srcdir)/cmake/rfmConfig.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) cmake && \
	rel=`realpath -m --relative-to='$(rfmcmakedir)' '$(includedir)'` && \
	sed -e "s|@RFM_CMAKE_TO_INCLUDEDIR@|$$rel|" $(top_srcdir)/cmake/rfmConfig.cmake.in >$@.tmp && \
	mv $@.tmp $@
CLEANFILES += cmake/rfmConfig.cmake
EXTRA_DIST += cmake/rfmConfig.cmake.in cmake/rfm2gConfig.cmake
