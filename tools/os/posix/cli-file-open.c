/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Output files (-o, --hist-csv) opened on Linux (tools/cli-file.c puts
 * them in place): a temporary file beside the target, with the target's
 * mode. What is not a regular file (a device such as /dev/full, a FIFO,
 * a terminal) is written in place and never removed or truncated.
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
