/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The segment directory on Linux (tools/os/tool-seg.h): /dev/shm, where
 * shm_open() keeps the files. A network's attached nodes are the node
 * ids whose byte of its lock file is locked, read with F_OFD_GETLK, a
 * query that takes nothing.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/shm/shm-segment.h" /* the files' names, the lock bytes */
#include "os/tool-seg.h"

/* A path of the segment directory: "/dev/shm/PREFIX" NAME. */
#define SEG_PATH(buf, prefix, name) \
	snprintf(buf, sizeof(buf), RFM_SHM_DIR "/" prefix "%s", name)

const char *tool_seg_dir(void)
{
	return RFM_SHM_DIR;
}

int tool_seg_each(int (*fn)(const char *file, void *arg), void *arg)
{
	DIR *dir = opendir(RFM_SHM_DIR);
	struct dirent *de;

	if (!dir)
		return errno;
	while ((de = readdir(dir)))
		if (fn(de->d_name, arg))
			break;
	closedir(dir);
	return 0;
}

/* Bytes a file really occupies in /dev/shm: its reserved pages, not its length. */
static uint64_t occupied(const struct stat *st)
{
	return (uint64_t)st->st_blocks * 512;
}

static void from_stat(const struct stat *st, struct tool_seg_file *f)
{
	struct passwd *pw = getpwuid(st->st_uid);

	f->bytes = occupied(st);
	f->size = (uint64_t)st->st_size;
	f->mode = (int)(st->st_mode & 0777);
	f->uid = st->st_uid;
	if (pw)
		snprintf(f->owner, sizeof(f->owner), "%s", pw->pw_name);
	else
		snprintf(f->owner, sizeof(f->owner), "%u", (unsigned int)st->st_uid);
}

int tool_seg_read(const char *name, struct tool_seg_file *f, void *head, size_t len,
		  size_t *got)
{
	char path[RFM_SHM_NAME_MAX + 32];
	struct stat st;
	ssize_t n;
	int fd, err;

	memset(f, 0, sizeof(*f));
	*got = 0;
	SEG_PATH(path, RFM_SHM_PREFIX, name);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		err = fd < 0 && errno == EACCES ? EACCES : ENODEV;
		if (lstat(path, &st) == 0)
			from_stat(&st, f);
		if (fd >= 0)
			close(fd);
		return err;
	}
	from_stat(&st, f);
	n = pread(fd, head, len, 0);
	*got = n > 0 ? (size_t)n : 0;
	close(fd);
	return 0;
}

int tool_seg_footprint(const char *name, uint64_t *bytes)
{
	char path[RFM_SHM_NAME_MAX + 32];
	struct stat st;

	SEG_PATH(path, RFM_SHM_PREFIX, name);
	if (stat(path, &st) < 0)
		return -1;
	*bytes = occupied(&st);
	return 0;
}

int tool_seg_attached(const char *name)
{
	char path[RFM_SHM_NAME_MAX + 32];
	int fd, n = 0;

	SEG_PATH(path, RFM_SHM_LOCK_PREFIX, name);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	for (int id = 0; id < 256; id++) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				    .l_start = RFM_SHM_LOCK_BASE + id, .l_len = 1 };

		if (fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
			n++;
	}
	close(fd);
	return n;
}
