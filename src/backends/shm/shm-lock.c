/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The file locks of a network (shm.c's header says what each guards): the
 * open lock, taken with a deadline, and the OFD byte locks of node ids and
 * event queues. At the bottom of shm:, beside shm-segment.c: shm.c,
 * shm-events.c and shm-health.c all take or test them.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>

#include "backends/shm/shm-internal.h"

/* How long an open waits for another process that is mid-open. */
#define OPEN_LOCK_TIMEOUT_MS 5000

/* flock with a deadline, so a stopped process cannot hang every opener. */
int rfm__shm_lock_open(int fd, const struct rfm_uri *uri)
{
	const struct timespec pause = { 0, 1000000 };

	for (int waited = 0;; waited++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		int err = errno;
		if (err != EWOULDBLOCK && err != EINTR)
			return rfm__error(rfm__errno_code(err), "%s: flock: %s", uri->text,
					  strerror(err));
		if (waited >= OPEN_LOCK_TIMEOUT_MS)
			return rfm__error(RFM_EBUSY,
					  "%s: another process has held the network's open lock "
					  "for %d ms",
					  uri->text, OPEN_LOCK_TIMEOUT_MS);
		nanosleep(&pause, NULL);
	}
}

int rfm__shm_lock(int fd, const char *uri_text)
{
	struct rfm_uri uri = { .text = (char *)uri_text };

	return rfm__shm_lock_open(fd, &uri);
}

static struct flock byte_lock(uint64_t byte, short type)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = (off_t)byte;
	fl.l_len = 1;
	return fl;
}

/* Is @byte locked by some other open file description? */
bool rfm__shm_byte_locked(int fd, uint64_t byte)
{
	struct flock fl = byte_lock(byte, F_WRLCK);

	if (fcntl(fd, F_OFD_GETLK, &fl) < 0)
		return false;
	return fl.l_type != F_UNLCK;
}

/* Lock node @id's byte as @type (F_WRLCK to own it alone, F_RDLCK to share). */
int rfm__shm_try_lock_node(int fd, int id, short type)
{
	struct flock fl = byte_lock(RFM_SHM_LOCK_BASE + (uint64_t)id, type);

	return fcntl(fd, F_OFD_SETLK, &fl) == 0 ? 0 : -errno;
}
