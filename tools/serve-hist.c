/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve --hist FILE: the latency histogram rfm ping --hist-csv left,
 * "low_ns,high_ns,count,cumulative" lines after a header line. Read once
 * at start; a malformed line is an error naming the file and line.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

#define HIST_MAX_BINS 100000

int serve_load_hist(struct serve *s, const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[256];
	unsigned int lineno = 0;

	if (!fp)
		return cli_error(s->cli, "%s: %m", path);
	while (fgets(line, sizeof(line), fp)) {
		struct serve_hist_bin b;
		uint64_t cumulative;
		char end;

		lineno++;
		if (lineno == 1 && !strncmp(line, "low_ns", 6))
			continue;	/* the header */
		if (sscanf(line, "%" SCNu64 ",%" SCNu64 ",%" SCNu64 ",%" SCNu64 "%c", &b.low_ns,
			   &b.high_ns, &b.count, &cumulative, &end) != 5 ||
		    end != '\n' || b.high_ns < b.low_ns || s->nhist >= HIST_MAX_BINS) {
			fclose(fp);
			return cli_error(s->cli, "%s:%u: not a line of rfm ping --hist-csv "
					 "(low_ns,high_ns,count,cumulative)", path, lineno);
		}
		struct serve_hist_bin *p = realloc(s->hist, (s->nhist + 1) * sizeof(*p));
		if (!p) {
			fclose(fp);
			return cli_error(s->cli, "out of memory");
		}
		s->hist = p;
		s->hist[s->nhist++] = b;
	}
	fclose(fp);
	s->hist_path = path;
	return 0;
}
