/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Output files (-o, --hist-csv): putting a complete file in place, or
 * giving up without leaving anything of ours behind. A file is written
 * under a temporary name in its directory (cli_out_open(), the OS's half
 * in tools/os/.../cli-file-open.c) and replaces the target only once
 * complete, so a failure leaves the old file as it was and never half a
 * new one; the tool deletes only the temporary file it created itself.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "os/tool-os.h"

int cli_out_commit(struct cli *cli, struct cli_out_file *f)
{
	int ret = 0;

	if (!f->fp)
		return 0;
	errno = 0;
	if (ferror(f->fp) | fflush(f->fp) || (f->tmp && tool_os_sync_file(f->fp)))
		ret = errno ? errno : EIO;
	if (fclose(f->fp) && !ret)
		ret = errno;
	f->fp = NULL;
	if (!ret && f->tmp)
		ret = tool_os_replace_file(f->tmp, f->target);
	if (!ret) {
		free(f->tmp);
		f->tmp = NULL;	/* in place: nothing of ours to remove */
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
		remove(f->tmp);
	free(f->tmp);
	free(f->target);
	f->tmp = NULL;
	f->target = NULL;
}
