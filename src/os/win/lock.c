/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: os/lock.h, LockFileEx() on the descriptor's HANDLE: locks
 * belong to the handle (an open, as Linux's OFD locks), and the OS drops
 * them when the handle is closed or its process ends.
 *
 * What Windows does not do, this file does from a table of what each
 * handle holds:
 *  - change a lock's kind: shared to exclusive is an unlock and a new
 *    lock (another open may take the byte in between, when the change
 *    fails: the shared lock is taken again if it can be); exclusive to
 *    shared is a shared lock beside the exclusive one (allowed on one
 *    handle), then an unlock, which drops the exclusive one first;
 *  - leave our own locks out of "held by another": a handle's own
 *    exclusive lock is known from the table; for a byte nobody holds here,
 *    an exclusive lock taken and dropped at once tells whether anyone
 *    else does (a lock to keep tries again for a moment, so such a look
 *    from another process does not fail it). Looks take turns on a
 *    companion byte of the one they look at, so that two looks at once
 *    (two processes reading the node table) never take each other for a
 *    holder. A byte this handle holds shared is reported not held by
 *    others: Windows cannot tell who else shares it (no caller asks).
 * rfm__os_close() forgets a handle's rows before the handle goes, so a
 * later handle of the same value starts clean.
 *
 * The file lock is an exclusive lock on a byte no byte lock uses.
 */
#include "config.h"

#include <errno.h>
#include <io.h>
#include <stdlib.h>

#include "internal.h"
#include "os/file.h"
#include "os/lock.h"
#include "os/win/win-internal.h"

/* The file lock's byte: far above any byte lock (node ids, queues). */
#define FILE_LOCK_BYTE (UINT64_C(1) << 62)
/* The companion of @byte that its looks take turns on: above every byte
 * lock, below the file lock's byte. */
#define LOOK_BYTE(byte) ((UINT64_C(1) << 61) + (byte))
/* How long a look waits for its turn: looks hold it for a few calls, but
 * a process may be descheduled between them on a loaded host. */
#define LOOK_TURN_MS 1000
/* Tries of a lock to keep before another open is taken to hold it. */
#define LOOK_TRIES 16

struct held {
	HANDLE h;
	uint64_t byte;
	enum rfm_os_lock kind;
};

static SRWLOCK table_lock = SRWLOCK_INIT;
static struct held *table;
static size_t rows, cap;

static enum rfm_os_lock held_kind(HANDLE h, uint64_t byte)
{
	enum rfm_os_lock kind = RFM_OS_UNLOCK;

	AcquireSRWLockShared(&table_lock);
	for (size_t i = 0; i < rows; i++)
		if (table[i].h == h && table[i].byte == byte) {
			kind = table[i].kind;
			break;
		}
	ReleaseSRWLockShared(&table_lock);
	return kind;
}

/* Record what @h holds on @byte now; false when out of memory. */
static bool set_held(HANDLE h, uint64_t byte, enum rfm_os_lock kind)
{
	bool ok = true;
	size_t i;

	AcquireSRWLockExclusive(&table_lock);
	for (i = 0; i < rows; i++)
		if (table[i].h == h && table[i].byte == byte)
			break;
	if (kind == RFM_OS_UNLOCK) {
		if (i < rows)
			table[i] = table[--rows];
	} else if (i < rows) {
		table[i].kind = kind;
	} else if (rfm__grow(&table, &cap, rows, sizeof(*table)) == 0) {
		table[rows++] = (struct held){ h, byte, kind };
	} else {
		ok = false;
	}
	ReleaseSRWLockExclusive(&table_lock);
	return ok;
}

static bool try_lock_byte(HANDLE h, uint64_t byte, bool excl)
{
	OVERLAPPED ov = { 0 };

	ov.Offset = (DWORD)byte;
	ov.OffsetHigh = (DWORD)(byte >> 32);
	return LockFileEx(h, LOCKFILE_FAIL_IMMEDIATELY | (excl ? LOCKFILE_EXCLUSIVE_LOCK : 0), 0,
			  1, 0, &ov);
}

/* A lock refused because another open holds what conflicts (wine may say
 * so as a pending wait). */
static bool conflict(DWORD err)
{
	return err == ERROR_LOCK_VIOLATION || err == ERROR_IO_PENDING;
}

/*
 * A lock to keep. Another process's look (rfm__os_byte_locked()) holds
 * the byte for a moment: a holder holds it for as long as it lives, so a
 * few tries a yield apart tell the two apart.
 */
static bool lock_byte(HANDLE h, uint64_t byte, bool excl)
{
	for (int tries = 0;; tries++) {
		if (try_lock_byte(h, byte, excl))
			return true;
		if (tries == LOOK_TRIES || !conflict(GetLastError()))
			return false;
		SwitchToThread();
	}
}

/* A turn to look at a byte: waits while other looks take theirs, but not
 * for one that keeps it (a stopped process): past LOOK_TURN_MS, false. */
static bool look_turn(HANDLE h, uint64_t byte)
{
	ULONGLONG give_up = GetTickCount64() + LOOK_TURN_MS;

	while (!try_lock_byte(h, LOOK_BYTE(byte), true)) {
		if (!conflict(GetLastError()) || GetTickCount64() > give_up)
			return false;
		SwitchToThread();
	}
	return true;
}

static bool unlock_byte(HANDLE h, uint64_t byte)
{
	OVERLAPPED ov = { 0 };

	ov.Offset = (DWORD)byte;
	ov.OffsetHigh = (DWORD)(byte >> 32);
	return UnlockFileEx(h, 0, 1, 0, &ov);
}

/* -EAGAIN for a lock another open holds, else -errno of the last error. */
static int lock_error(void)
{
	DWORD err = GetLastError();

	return conflict(err) ? -EAGAIN : -rfm__win_errno(err);
}

int rfm__os_file_lock(int fd)
{
	HANDLE h = rfm__win_handle(fd);

	if (h == INVALID_HANDLE_VALUE)
		return -EBADF;
	return try_lock_byte(h, FILE_LOCK_BYTE, true) ? 0 : lock_error();
}

void rfm__os_file_unlock(int fd)
{
	HANDLE h = rfm__win_handle(fd);

	if (h != INVALID_HANDLE_VALUE)
		unlock_byte(h, FILE_LOCK_BYTE);
}

int rfm__os_byte_lock(int fd, uint64_t byte, enum rfm_os_lock kind)
{
	HANDLE h = rfm__win_handle(fd);
	enum rfm_os_lock cur;
	int ret = 0;

	if (h == INVALID_HANDLE_VALUE)
		return -EBADF;
	cur = held_kind(h, byte);
	if (kind == cur)
		return 0;
	switch (kind) {
	case RFM_OS_UNLOCK:
		unlock_byte(h, byte);
		break;
	case RFM_OS_LOCK_SHARED:
		if (!lock_byte(h, byte, false))
			return lock_error();
		/* From exclusive: the unlock drops the exclusive lock, the older one. */
		if (cur == RFM_OS_LOCK_EXCL)
			unlock_byte(h, byte);
		break;
	case RFM_OS_LOCK_EXCL:
		if (cur == RFM_OS_LOCK_SHARED)
			unlock_byte(h, byte);
		if (!lock_byte(h, byte, true)) {
			ret = lock_error();
			kind = cur == RFM_OS_LOCK_SHARED && lock_byte(h, byte, false)
				       ? RFM_OS_LOCK_SHARED
				       : RFM_OS_UNLOCK;
			if (kind == cur)
				return ret;
		}
		break;
	}
	if (!set_held(h, byte, kind)) {
		/* Cannot remember it: hold nothing rather than something unrecorded. */
		unlock_byte(h, byte);
		if (kind == RFM_OS_LOCK_SHARED && cur == RFM_OS_LOCK_EXCL)
			unlock_byte(h, byte);
		set_held(h, byte, RFM_OS_UNLOCK);
		return -ENOMEM;
	}
	return ret;
}

bool rfm__os_byte_locked(int fd, uint64_t byte)
{
	HANDLE h = rfm__win_handle(fd);

	bool turn, held;

	if (h == INVALID_HANDLE_VALUE || held_kind(h, byte) != RFM_OS_UNLOCK)
		return false;
	/* Without a turn (another look kept it), the look is as good as
	 * one taken beside another: it may see that one as a holder. */
	turn = look_turn(h, byte);
	if (try_lock_byte(h, byte, true)) {
		unlock_byte(h, byte);
		held = false;
	} else {
		held = conflict(GetLastError());
	}
	if (turn)
		unlock_byte(h, LOOK_BYTE(byte));
	return held;
}

void rfm__os_close(int fd)
{
	HANDLE h = rfm__win_handle(fd);

	AcquireSRWLockExclusive(&table_lock);
	for (size_t i = 0; i < rows;)
		if (table[i].h == h)
			table[i] = table[--rows];
		else
			i++;
	ReleaseSRWLockExclusive(&table_lock);
	_close(fd);
}
