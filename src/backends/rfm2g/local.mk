# SPDX-License-Identifier: LGPL-2.1-or-later
# The rfm2g: backend, a 5565-family card through the vendor's RFM2g driver
# (/dev/rfm2gN), with the board controls librfm2g uses (src/board.h):
# part of librfm (src/local.mk). On Windows the card is reached through
# GE's DLL, loaded when a node opens (rfm2g-win.c).
if RFM_OS_POSIX
src_librfm_la_SOURCES += \
	src/backends/rfm2g/rfm2g-internal.h \
	src/backends/rfm2g/rfm2g.c \
	src/backends/rfm2g/rfm2g-board.c
else
src_librfm_la_SOURCES += src/backends/rfm2g/rfm2g-win.c
endif
EXTRA_DIST += src/backends/rfm2g/rfm2g-win.c
