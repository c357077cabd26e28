# SPDX-License-Identifier: LGPL-2.1-or-later
# The dev: backend, a card or VM device through the rfm kernel module
# (driver/): part of librfm (src/local.mk). Linux only: rfm.ko is a Linux driver.
if RFM_OS_POSIX
src_librfm_la_SOURCES += \
	src/backends/dev/dev-internal.h \
	src/backends/dev/dev-error.c \
	src/backends/dev/dev.c \
	src/backends/dev/dev-events.c
endif
