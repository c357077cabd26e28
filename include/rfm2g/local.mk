# SPDX-License-Identifier: LGPL-2.1-or-later
# The RFM2g API's headers, installed under the vendor's names in
# $(includedir)/rfm2g (pkg-config rfm2g adds that directory); librfm2g
# itself is built by src/librfm2g/local.mk. rfm2g_windows.h, winlocal.h
# and rfm2gdll_stdc.h are the names of GE's Windows package, which
# programs written there include (empty or the same API here).

rfm2gincludedir = $(includedir)/rfm2g
rfm2ginclude_HEADERS = \
	include/rfm2g/rfm2g_api.h \
	include/rfm2g/rfm2g_osspec.h \
	include/rfm2g/rfm2g_osspec_windows.h \
	include/rfm2g/rfm2g_defs_linux.h \
	include/rfm2g/rfm2g_defs.h \
	include/rfm2g/rfm2g_types.h \
	include/rfm2g/rfm2g_types_windows.h \
	include/rfm2g/rfm2g_errno.h \
	include/rfm2g/rfm2g_ioctl.h \
	include/rfm2g/rfm2g_regs.h \
	include/rfm2g/rfm2g_version.h \
	include/rfm2g/rfm2g_struct.h \
	include/rfm2g/rfm2g_windows.h \
	include/rfm2g/rfm2gdll_stdc.h \
	include/rfm2g/winlocal.h
