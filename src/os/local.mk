# SPDX-License-Identifier: LGPL-2.1-or-later
# The OS layer (docs/architecture.md, "The OS layer"): one small header per
# concern in src/os/, their implementations in one directory per OS, the
# one configure chose (RFM_OS: posix or win). Part of librfm: appended to
# src_librfm_la_SOURCES, so every copy of the library's sources has it.
# The per-OS inline headers (os-*-inline.h) are found through
# -I$(top_srcdir)/src/os/$(RFM_OS), in AM_CPPFLAGS (Makefile.am).
src_librfm_la_SOURCES += \
	src/os/byteorder.h src/os/clock.h src/os/wait.h src/os/file.h src/os/map.h \
	src/os/lock.h src/os/thread.h src/os/memory.h src/os/process.h src/os/random.h \
	src/os/ready.h src/os/cpus.c
if RFM_OS_WIN
src_librfm_la_SOURCES += \
	src/os/win/os-clock-inline.h src/os/win/os-wait-inline.h src/os/win/win-internal.h \
	src/os/win/clock.c src/os/win/wait.c src/os/win/wait-file.c src/os/win/file.c src/os/win/map.c \
	src/os/win/lock.c src/os/win/thread.c src/os/win/memory.c src/os/win/process.c \
	src/os/win/random.c src/os/win/ready.c src/os/win/error.c
else
src_librfm_la_SOURCES += \
	src/os/posix/os-clock-inline.h src/os/posix/os-wait-inline.h \
	src/os/posix/clock.c src/os/posix/file.c src/os/posix/map.c src/os/posix/lock.c \
	src/os/posix/thread.c src/os/posix/memory.c src/os/posix/process.c \
	src/os/posix/random.c src/os/posix/ready.c
endif
# Files the library writes (recordings): made exclusively, built beside, put in place.
src_librfm_la_SOURCES += src/os/file-temp.h src/os/file-temp.c
if RFM_OS_WIN
src_librfm_la_SOURCES += src/os/win/file-write.c
else
src_librfm_la_SOURCES += src/os/posix/file-write.c
endif
# Modules the library opens at run time (the recorder's HDF5 writer).
src_librfm_la_SOURCES += src/os/module.h
if RFM_OS_WIN
src_librfm_la_SOURCES += src/os/win/module.c
else
src_librfm_la_SOURCES += src/os/posix/module.c
endif
