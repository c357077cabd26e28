# SPDX-License-Identifier: LGPL-2.1-or-later
# The rfm2g: backend, a 5565-family card through the vendor's RFM2g driver
# (/dev/rfm2gN), with the board controls librfm2g uses (src/board.h):
# part of librfm (src/local.mk). Linux only so far: on Windows the same
# backend is to reach the card through GE's DLL, loaded at run time (issue 38).
if RFM_OS_POSIX
src_librfm_la_SOURCES += \
	src/backends/rfm2g/rfm2g-internal.h \
	src/backends/rfm2g/rfm2g.c \
	src/backends/rfm2g/rfm2g-board.c
endif
