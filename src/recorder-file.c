/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The file a recording writes, as both sinks (HDF5, CSV) need it: made
 * exclusively unless asked to replace one (so a refusal names its
 * errno and leaves the old file alone), or built whole under a temporary
 * name beside it and then put in place (HDF5: a reader polling for the
 * file never meets it half made, nor holds HDF5's lock on it while it is
 * created), and the free space of its file
 * system, asked before rows are written so a full disk ends a recording
 * at a row's end.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "internal.h"
#include "recorder-internal.h"

int rfm__rec_create_file(struct rfm_recorder *r)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC |
		    (r->cfg.flags & RFM_REC_F_OVERWRITE ? O_TRUNC : O_EXCL);
	int fd = open(r->path, flags, 0644);

	if (fd < 0) {
		int err = errno;
		if (err == EEXIST)
			return rfm__error(RFM_ESYS, "%s exists (replace it with RFM_REC_F_OVERWRITE)",
					  r->path);
		return rfm__error(rfm__errno_code(err), "%s: %s", r->path, strerror(err));
	}
	return fd;
}

int rfm__rec_temp_path(struct rfm_recorder *r, char **tmpp)
{
	struct stat st;
	const char *slash = strrchr(r->path, '/');
	int dir_len = slash ? (int)(slash - r->path + 1) : 0;

	/* Refused before anything is made: the file there stays as it is. */
	if (!(r->cfg.flags & RFM_REC_F_OVERWRITE) && lstat(r->path, &st) == 0) {
		errno = EEXIST;
		return rfm__error(RFM_ESYS, "%s exists (replace it with RFM_REC_F_OVERWRITE)",
				  r->path);
	}
	if (asprintf(tmpp, "%.*s.%s.rfm-XXXXXX", dir_len, r->path, r->path + dir_len) < 0) {
		*tmpp = NULL;
		return rfm__error(RFM_ENOMEM, "recorder: out of memory");
	}
	int fd = mkstemp(*tmpp);
	if (fd < 0) {
		int err = errno;
		free(*tmpp);
		*tmpp = NULL;
		return rfm__error(rfm__errno_code(err), "%s: cannot create a file beside it: %s",
				  r->path, strerror(err));
	}
	fchmod(fd, 0644);
	close(fd);
	return 0;
}

int rfm__rec_put_in_place(struct rfm_recorder *r, const char *tmp)
{
	int ret = 0;

	if (r->cfg.flags & RFM_REC_F_OVERWRITE) {
		if (rename(tmp, r->path) < 0)
			ret = rfm__error(rfm__errno_code(errno), "%s: %s", r->path, strerror(errno));
		return ret;
	}
	/* link() fails if the name was taken meanwhile: nothing is replaced. */
	if (link(tmp, r->path) < 0) {
		int err = errno;
		ret = err == EEXIST ? rfm__error(RFM_ESYS, "%s exists (replace it with "
						 "RFM_REC_F_OVERWRITE)", r->path)
				    : rfm__error(rfm__errno_code(err), "%s: %s", r->path,
						 strerror(err));
		errno = err;
	}
	unlink(tmp);
	return ret;
}

int rfm__rec_room_init(struct rec_room *room, const char *path)
{
	const char *slash = strrchr(path, '/');

	room->free = 0;
	if (!slash)
		room->dir = strdup(".");
	else if (slash == path)
		room->dir = strdup("/");
	else
		room->dir = strndup(path, (size_t)(slash - path));
	return room->dir ? 0 : rfm__error(RFM_ENOMEM, "recorder: out of memory");
}

void rfm__rec_room_free(struct rec_room *room)
{
	free(room->dir);
	room->dir = NULL;
}

int rfm__rec_room_check(struct rec_room *room, const char *path, uint64_t bytes, uint64_t margin)
{
	struct statvfs st;

	if (room->free >= bytes + 8 * margin) {
		room->free -= bytes;
		return 0;
	}
	if (statvfs(room->dir, &st) < 0)
		return 0;	/* cannot tell: let the write say */
	uint64_t avail = (uint64_t)st.f_bavail * st.f_frsize;
	room->free = avail > bytes ? avail - bytes : 0;
	if (avail < bytes + margin)
		return rfm__error(RFM_ENOSPC, "%s: the disk is full (%llu bytes free, %llu to "
				  "write); the file holds the rows flushed before", path,
				  (unsigned long long)avail, (unsigned long long)bytes);
	return 0;
}
