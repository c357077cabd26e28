/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The file locks of a network (shm.c's header says what each guards): the
 * open lock, taken with a deadline, and the byte locks of node ids and
 * event queues (os/lock.h: OFD locks on Linux, LockFileEx() on Windows).
 * At the bottom of shm:, beside shm-segment.c: shm.c, shm-events.c and
 * shm-health.c all take or test them.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "os/clock.h"
#include "backends/shm/shm-internal.h"

/* How long an open waits for another process that is mid-open. */
#define OPEN_LOCK_TIMEOUT_MS 5000

/* The file lock with a deadline, so a stopped process cannot hang every opener. */
int rfm__shm_lock_open(int fd, const struct rfm_uri *uri)
{
	for (int waited = 0;; waited++) {
		int err = rfm__os_file_lock(fd);

		if (!err)
			return 0;
		if (err != -EAGAIN && err != -EINTR)
			return rfm__error(rfm__errno_code(-err), "%s: flock: %s", uri->text,
					  strerror(-err));
		if (waited >= OPEN_LOCK_TIMEOUT_MS)
			return rfm__error(RFM_EBUSY,
					  "%s: another process has held the network's open lock "
					  "for %d ms",
					  uri->text, OPEN_LOCK_TIMEOUT_MS);
		rfm__os_sleep_ns(1000000);
	}
}

int rfm__shm_lock(int fd, const char *uri_text)
{
	struct rfm_uri uri = { .text = (char *)uri_text };

	return rfm__shm_lock_open(fd, &uri);
}

/* Is @byte locked by some other open of the lock file? */
bool rfm__shm_byte_locked(int fd, uint64_t byte)
{
	return rfm__os_byte_locked(fd, byte);
}

/* Make our lock on node @id's byte @kind (EXCL to own it alone, SHARED to share). */
int rfm__shm_try_lock_node(int fd, int id, enum rfm_os_lock kind)
{
	return rfm__os_byte_lock(fd, RFM_SHM_LOCK_BASE + (uint64_t)id, kind);
}
