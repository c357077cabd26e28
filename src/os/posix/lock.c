/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Linux: os/lock.h. The file lock is flock(); byte locks are open file
 * description (OFD) locks, which belong to the open, not to the process,
 * and change kind in one call. flock() and OFD locks do not interact.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>

#include "os/lock.h"

int rfm__os_file_lock(int fd)
{
	return flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno == EWOULDBLOCK ? -EAGAIN : -errno;
}

void rfm__os_file_unlock(int fd)
{
	flock(fd, LOCK_UN);
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

int rfm__os_byte_lock(int fd, uint64_t byte, enum rfm_os_lock kind)
{
	short type = kind == RFM_OS_LOCK_EXCL ? F_WRLCK : kind == RFM_OS_LOCK_SHARED ? F_RDLCK
										    : F_UNLCK;
	struct flock fl = byte_lock(byte, type);

	if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
		return 0;
	return errno == EACCES ? -EAGAIN : -errno;
}

bool rfm__os_byte_locked(int fd, uint64_t byte)
{
	struct flock fl = byte_lock(byte, F_WRLCK);

	if (fcntl(fd, F_OFD_GETLK, &fl) < 0)
		return false;
	return fl.l_type != F_UNLCK;
}
