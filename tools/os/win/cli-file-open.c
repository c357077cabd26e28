/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Output files (-o, --hist-csv) opened on Windows (tools/cli-file.c puts
 * them in place, with MoveFileExW): a temporary file beside the target.
 * What is not a disk file (a device such as NUL or CON, a pipe) is
 * written in place and never removed. @binary: a text file gets the
 * "\r\n" line ends of Windows text, a binary one its bytes.
 */
#include "config.h"

#include <windows.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* A device or a pipe, written in place: not a file on a disk. */
static bool is_device(const char *path)
{
	HANDLE h = CreateFileA(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
			       FILE_FLAG_BACKUP_SEMANTICS, NULL);
	DWORD type;

	if (h == INVALID_HANDLE_VALUE)
		return false;
	type = GetFileType(h);
	CloseHandle(h);
	return type == FILE_TYPE_CHAR || type == FILE_TYPE_PIPE;
}

int cli_out_open(struct cli *cli, struct cli_out_file *f, const char *path, bool binary)
{
	const char *mode = binary ? "wb" : "w";
	char *slash;
	int fd;

	memset(f, 0, sizeof(*f));
	f->path = path;
	if (is_device(path)) {
		if (!(f->fp = fopen(path, mode)))
			return cli_error(cli, "cannot write '%s': %s", path, strerror(errno));
		return 0;
	}
	f->target = _fullpath(NULL, path, 0);
	if (!f->target && !(f->target = strdup(path)))
		return cli_error(cli, "out of memory");
	f->tmp = malloc(strlen(f->target) + 16);
	if (!f->tmp) {
		cli_out_abort(f);
		return cli_error(cli, "out of memory");
	}
	/* ".NAME.XXXXXX" beside the target, so that the move stays in one volume. */
	slash = strrchr(f->target, '\\');
	if (!slash)
		slash = strrchr(f->target, '/');
	if (slash)
		sprintf(f->tmp, "%.*s%c.%s.XXXXXX", (int)(slash - f->target), f->target, *slash,
			slash + 1);
	else
		sprintf(f->tmp, ".%s.XXXXXX", f->target);
	if (!_mktemp(f->tmp)) {
		cli_out_abort(f);
		return cli_error(cli, "cannot write '%s': no temporary name is free", path);
	}
	fd = _open(f->tmp,
		   _O_WRONLY | _O_CREAT | _O_EXCL | _O_NOINHERIT | (binary ? _O_BINARY : _O_TEXT),
		   _S_IREAD | _S_IWRITE);
	if (fd < 0 || !(f->fp = _fdopen(fd, mode))) {
		int err = errno;
		if (fd >= 0)
			_close(fd);
		else {
			free(f->tmp); /* not ours: nothing to remove */
			f->tmp = NULL;
		}
		cli_out_abort(f);
		return cli_error(cli, "cannot write '%s': %s", path, strerror(err));
	}
	return 0;
}
