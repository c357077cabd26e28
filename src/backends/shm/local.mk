# SPDX-License-Identifier: LGPL-2.1-or-later
# The shm: backend, a network in one host's shared memory: part of librfm
# (src/local.mk).
src_librfm_la_SOURCES += \
	src/backends/shm/shm-segment.h \
	src/backends/shm/shm-segment.c \
	src/backends/shm/shm-lock.c \
	src/backends/shm/shm-internal.h \
	src/backends/shm/shm.c \
	src/backends/shm/shm-events.c \
	src/backends/shm/shm-health.c \
	src/backends/shm/shm-observe.c \
	src/backends/shm/shm-names.c \
	src/backends/shm/shm-room.c
# hugepages=1: a window on hugetlbfs, where the OS has it (Linux); elsewhere
# the refusal that says so.
if RFM_OS_POSIX
src_librfm_la_SOURCES += src/backends/shm/shm-huge.c
else
src_librfm_la_SOURCES += src/backends/shm/shm-huge-none.c
endif
# Its threat model (shm.c, shm-events.c).
EXTRA_DIST += docs/security.md
