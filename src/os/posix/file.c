/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * POSIX: os/file.h. The segment directory is /dev/shm, reached through
 * shm_open() and shm_unlink() (names "/rfm-NAME"); owner and group are
 * numeric ids, shown as "uid N" and "gid N".
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "os/file.h"

#define SEG_DIR "/dev/shm"

int rfm__fd_keep_off_std(int fd)
{
	int moved;

	/*
	 * With stdin, stdout or stderr closed, the kernel hands out 0-2 for our
	 * next descriptor, and the program's own printf() or perror() would then
	 * write into a shared segment or a device. Move it above them.
	 */
	if (fd < 0 || fd > 2)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	int err = errno;
	close(fd);
	errno = err;
	return moved;
}

int rfm__os_open_read(const char *path)
{
	return rfm__fd_keep_off_std(open(path, O_RDONLY | O_CLOEXEC));
}

void rfm__os_close(int fd)
{
	close(fd);
}

const char *rfm__os_seg_dir(void)
{
	return SEG_DIR;
}

int rfm__os_seg_open(const char *name, unsigned int flags, unsigned int mode)
{
	int oflags = (flags & RFM_OS_SEG_READ ? O_RDONLY : O_RDWR) | O_NOFOLLOW | O_CLOEXEC;

	if (flags & RFM_OS_SEG_CREATE)
		oflags |= O_CREAT;
	if (flags & RFM_OS_SEG_EXCL)
		oflags |= O_EXCL;
	return rfm__fd_keep_off_std(shm_open(name, oflags, (mode_t)mode));
}

int rfm__os_seg_unlink(const char *name)
{
	return shm_unlink(name);
}

int rfm__os_seg_room(uint64_t *total, uint64_t *avail)
{
	struct statvfs fs;

	if (statvfs(SEG_DIR, &fs) < 0)
		return -1;
	*total = (uint64_t)fs.f_blocks * fs.f_frsize;
	*avail = (uint64_t)fs.f_bavail * fs.f_frsize;
	return 0;
}

const char *rfm__os_seg_more_room(void)
{
	return "give " SEG_DIR " more room (docker run --shm-size=256m, or remount it with size=)";
}

static void from_stat(const struct stat *s, struct rfm_os_stat *st)
{
	st->size = (uint64_t)s->st_size;
	st->dev = (uint64_t)s->st_dev;
	st->ino = (uint64_t)s->st_ino;
	st->regular = S_ISREG(s->st_mode);
	st->mine = s->st_uid == geteuid();
	st->mode = (unsigned int)(s->st_mode & 0777);
	snprintf(st->owner, sizeof(st->owner), "uid %u", (unsigned int)s->st_uid);
	snprintf(st->group, sizeof(st->group), "gid %u", (unsigned int)s->st_gid);
}

int rfm__os_seg_stat(const char *name, struct rfm_os_stat *st)
{
	char path[sizeof(SEG_DIR) + 256];
	struct stat s;

	snprintf(path, sizeof(path), SEG_DIR "%s", name);
	if (lstat(path, &s) < 0)
		return -1;
	from_stat(&s, st);
	return 0;
}

int rfm__os_file_stat(int fd, struct rfm_os_stat *st)
{
	struct stat s;

	if (fstat(fd, &s) < 0)
		return -1;
	from_stat(&s, st);
	return 0;
}

int rfm__os_file_size(int fd, uint64_t *size)
{
	struct stat s;

	if (fstat(fd, &s) < 0)
		return -1;
	*size = (uint64_t)s.st_size;
	return 0;
}

void rfm__os_user(char *buf, size_t len)
{
	snprintf(buf, len, "uid %u", (unsigned int)geteuid());
}

int rfm__os_file_set_mode(int fd, unsigned int mode)
{
	return fchmod(fd, (mode_t)mode);
}

int rfm__os_file_share_like(int fd, int like, unsigned int mode)
{
	struct stat s;

	if (fstat(like, &s) < 0 || fchown(fd, geteuid() == 0 ? s.st_uid : (uid_t)-1, s.st_gid) < 0)
		return -1;
	return fchmod(fd, (mode_t)mode);
}

int rfm__os_file_truncate(int fd, uint64_t len)
{
	return ftruncate(fd, (off_t)len);
}

int rfm__os_file_reserve(int fd, uint64_t offset, uint64_t len)
{
	return posix_fallocate(fd, (off_t)offset, (off_t)len);
}
