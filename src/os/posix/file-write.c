/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* POSIX: os/file.h's files the library writes (recordings). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "os/file.h"
#include "os/file-temp.h"

int rfm__os_file_create(const char *path, bool replace, unsigned int mode)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (replace ? O_TRUNC : O_EXCL);

	return rfm__fd_keep_off_std(open(path, flags, (mode_t)mode));
}

bool rfm__os_path_taken(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* The length of @path's directory, its last '/' included: 0 for a bare name. */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) + 1 : 0;
}

/* Make @name only where nothing has it, and close it: 0 or -1 with errno. */
static int create_new(const char *name, unsigned int mode)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)mode);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int rfm__os_file_temp_beside(const char *path, unsigned int mode, char **tmpp)
{
	return rfm__os_temp_beside(path, dir_len(path), create_new, mode, tmpp);
}

int rfm__os_file_move(const char *from, const char *to, bool replace)
{
	if (replace)
		return rename(from, to);
	/* link() fails with EEXIST whatever has the name, however new: nothing is replaced. */
	if (link(from, to) == 0) {
		unlink(from);
		return 0;
	}
	if (errno != EPERM && errno != EOPNOTSUPP)
		return -1;
	/* A file system without hard links (FAT on a USB stick): rename, replacing nothing. */
	return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

int rfm__os_file_remove(const char *path)
{
	return unlink(path);
}

int rfm__os_path_size(const char *path, uint64_t *size)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	*size = (uint64_t)st.st_size;
	return 0;
}

int rfm__os_room_beside(const char *path, uint64_t *avail)
{
	size_t dl = dir_len(path);
	char *dir = dl ? strndup(path, dl) : strdup(".");
	struct statvfs fs;
	int ret = -1;

	if (dir && (ret = statvfs(dir, &fs)) == 0)
		*avail = (uint64_t)fs.f_bavail * fs.f_frsize;
	free(dir);
	return ret;
}
