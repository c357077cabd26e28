/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The file a recording writes, as both sinks (HDF5, CSV) need it: made
 * exclusively unless asked to replace one (so a refusal names its
 * errno and leaves the old file alone), or built whole under a temporary
 * name beside it and then put in place (HDF5: a reader polling for the
 * file never meets it half made, nor holds HDF5's lock on it while it is
 * created), and the free space of its file system, asked before rows are
 * written so a full disk ends a recording at a row's end. What differs
 * between operating systems is the OS layer's (os/file.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "os/file.h"
#include "recorder-internal.h"

/* Recordings are readable by everyone, as the umask leaves it. */
#define REC_FILE_MODE 0644

static int exists_error(const struct rfm_recorder *r)
{
	errno = EEXIST;
	return rfm__error(RFM_ESYS, "%s exists (replace it with RFM_REC_F_OVERWRITE)", r->path);
}

static bool overwrite(const struct rfm_recorder *r)
{
	return r->cfg.flags & RFM_REC_F_OVERWRITE;
}

int rfm__rec_create_file(struct rfm_recorder *r)
{
	int fd = rfm__os_file_create(r->path, overwrite(r), REC_FILE_MODE);

	if (fd < 0) {
		int err = errno;
		if (err == EEXIST)
			return exists_error(r);
		return rfm__error(rfm__errno_code(err), "%s: %s", r->path, strerror(err));
	}
	return fd;
}

int rfm__rec_temp_path(struct rfm_recorder *r, char **tmpp)
{
	*tmpp = NULL;
	/* Refused before anything is made: the file there stays as it is. */
	if (!overwrite(r) && rfm__os_path_taken(r->path))
		return exists_error(r);
	if (rfm__os_file_temp_beside(r->path, REC_FILE_MODE, tmpp) < 0) {
		int err = errno;
		return rfm__error(rfm__errno_code(err), "%s: cannot create a file beside it: %s",
				  r->path, strerror(err));
	}
	return 0;
}

int rfm__rec_put_in_place(struct rfm_recorder *r, const char *tmp)
{
	if (rfm__os_file_move(tmp, r->path, overwrite(r)) == 0)
		return 0;
	int err = errno;
	/* Taken since rfm__rec_temp_path() looked: nothing was replaced. */
	if (err == EEXIST && !overwrite(r))
		return exists_error(r);
	return rfm__error(rfm__errno_code(err), "%s: %s", r->path, strerror(err));
}

void rfm__rec_remove_file(const char *path)
{
	int err = errno;

	rfm__os_file_remove(path);
	errno = err;	/* the caller reports what went wrong before */
}

int rfm__rec_file_size(const char *path, uint64_t *size)
{
	return rfm__os_path_size(path, size);
}

int rfm__rec_room_check(struct rec_room *room, const char *path, uint64_t bytes, uint64_t margin)
{
	uint64_t avail;

	if (room->free >= bytes + 8 * margin) {
		room->free -= bytes;
		return 0;
	}
	if (rfm__os_room_beside(path, &avail) < 0)
		return 0;	/* cannot tell: let the write say */
	room->free = avail > bytes ? avail - bytes : 0;
	if (avail < bytes + margin)
		return rfm__error(RFM_ENOSPC, "%s: the disk is full (%llu bytes free, %llu to "
				  "write); the file holds the rows flushed before", path,
				  (unsigned long long)avail, (unsigned long long)bytes);
	return 0;
}
