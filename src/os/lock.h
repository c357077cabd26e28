/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * File locks that die with their holder (the OS layer; docs/
 * architecture.md, "The OS layer"): what a shm: network knows its live
 * nodes and receivers by. The OS drops every lock of a process that exits
 * or is killed, so a lock found free means its holder is gone.
 *
 *  - The file lock: one exclusive lock on the whole file, taken without
 *    waiting (flock() on Linux; on Windows a lock on a byte far beyond
 *    those the byte locks use).
 *  - Byte locks: one byte each, shared or exclusive, held by an open of
 *    the file (a descriptor from its own open, not a process: Linux's
 *    open file description locks; LockFileEx() on the descriptor's
 *    HANDLE on Windows). Two opens of one file in one process conflict
 *    as two processes do.
 *
 * Functions return 0, or -errno: -EAGAIN when another open holds what
 * conflicts.
 */
#ifndef RFM_OS_LOCK_H
#define RFM_OS_LOCK_H

#include <stdbool.h>
#include <stdint.h>

/* The file lock, without waiting: 0, -EAGAIN while another open holds it. */
int rfm__os_file_lock(int fd);
void rfm__os_file_unlock(int fd);

enum rfm_os_lock {
	RFM_OS_UNLOCK,		/* hold nothing on the byte */
	RFM_OS_LOCK_SHARED,	/* hold it beside other shared holders */
	RFM_OS_LOCK_EXCL,	/* hold it alone */
};

/*
 * Make this open's lock on @byte @kind, without waiting: from none, shared
 * or exclusive to any of them (an exclusive lock made shared lets others
 * share it; a shared one made exclusive succeeds only if no other open
 * shares it, and is then kept as it was). 0, or -EAGAIN.
 */
int rfm__os_byte_lock(int fd, uint64_t byte, enum rfm_os_lock kind);

/* Does another open of the file hold a lock on @byte? (Ours never counts.) */
bool rfm__os_byte_locked(int fd, uint64_t byte);

#endif /* RFM_OS_LOCK_H */
