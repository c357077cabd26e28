/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve --hist FILE: the latency histogram rfm ping --hist-csv left,
 * read once at start by the parser beside its writer (latency-hist.c);
 * a malformed line is an error naming the file and line.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "serve.h"

int serve_load_hist(struct serve *s, const char *path)
{
	FILE *fp = fopen(path, "r");
	unsigned int lineno;
	int ret;

	if (!fp)
		return cli_error(s->cli, "%s: %m", path);
	errno = 0;
	ret = lhist_read_csv(fp, &s->hist, &s->nhist, &lineno);
	fclose(fp);
	if (ret && lineno)
		return cli_error(s->cli, "%s:%u: not a line of rfm ping --hist-csv "
				 "(low_ns,high_ns,count,cumulative: rising bins, the cumulative "
				 "fraction 0 to 1)", path, lineno);
	if (ret)
		return cli_error(s->cli, "%s: %m", path);
	s->hist_path = path;
	return 0;
}
