/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Output files (-o, --hist-csv). A file is written under a temporary name
 * in its directory and renamed over the target only once complete, so a
 * failure leaves the old file as it was and never half a new one. What is
 * not a regular file (a device such as /dev/full, a FIFO, a terminal) is
 * written in place and never removed or truncated: the tool deletes only
 * the temporary file it created itself.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The mode a new file gets from fopen(): 0666 less the umask. */
static mode_t default_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

static int open_in_place(struct cli *cli, struct cli_out_file *f, const char *path)
{
	/* No O_TRUNC and no O_CREAT: the target exists and is not ours. */
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0 || !(f->fp = fdopen(fd, "w"))) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		return cli_error(cli, "cannot write '%s': %s", path, strerror(err));
	}
	return 0;
}

int cli_out_open(struct cli *cli, struct cli_out_file *f, const char *path, bool binary)
{
	struct stat st;
	mode_t mode;
	char *slash;
	int fd;

	(void)binary;	/* POSIX streams make no text/binary difference */
	memset(f, 0, sizeof(*f));
	f->path = path;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return open_in_place(cli, f, path);
	/* A symbolic link stays one: replace the file it points to. */
	f->target = realpath(path, NULL);
	if (!f->target && !(f->target = strdup(path)))
		return cli_error(cli, "out of memory");
	mode = stat(f->target, &st) == 0 ? st.st_mode & 07777 : default_mode();
	f->tmp = malloc(strlen(f->target) + 16);
	if (!f->tmp) {
		cli_out_abort(f);
		return cli_error(cli, "out of memory");
	}
	/* ".NAME.XXXXXX" beside the target, so that rename() stays in one filesystem. */
	slash = strrchr(f->target, '/');
	if (slash)
		sprintf(f->tmp, "%.*s/.%s.XXXXXX", (int)(slash - f->target), f->target, slash + 1);
	else
		sprintf(f->tmp, ".%s.XXXXXX", f->target);
	fd = mkostemp(f->tmp, O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		free(f->tmp);
		f->tmp = NULL;
		cli_out_abort(f);
		return cli_error(cli, "cannot write '%s': %s", path, strerror(err));
	}
	if (fchmod(fd, mode) || !(f->fp = fdopen(fd, "w"))) {
		int err = errno;
		close(fd);
		cli_out_abort(f);
		return cli_error(cli, "cannot write '%s': %s", path, strerror(err));
	}
	return 0;
}

int cli_out_commit(struct cli *cli, struct cli_out_file *f)
{
	int ret = 0;

	if (!f->fp)
		return 0;
	errno = 0;
	if (ferror(f->fp) | fflush(f->fp) || (f->tmp && fsync(fileno(f->fp))))
		ret = errno ? errno : EIO;
	if (fclose(f->fp) && !ret)
		ret = errno;
	f->fp = NULL;
	if (!ret && f->tmp && rename(f->tmp, f->target))
		ret = errno;
	if (!ret) {
		free(f->tmp);
		f->tmp = NULL;	/* renamed: nothing of ours to remove */
	}
	cli_out_abort(f);
	return ret ? cli_error(cli, "writing %s: %s", f->path, strerror(ret)) : 0;
}

void cli_out_abort(struct cli_out_file *f)
{
	if (f->fp)
		fclose(f->fp);
	f->fp = NULL;
	/* Only the temporary file this tool created is ever removed. */
	if (f->tmp)
		unlink(f->tmp);
	free(f->tmp);
	free(f->target);
	f->tmp = NULL;
	f->target = NULL;
}
