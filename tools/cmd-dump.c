/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm dump: hex and ASCII, in the layout of "hexdump -C", with absolute
 * window offsets. Runs of identical lines fold into one "*" line, as there,
 * because a window is mostly zeros.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define LINE 16
#define CHUNK (4096 * LINE)

struct dumper {
	uint8_t prev[LINE];
	bool have_prev;	/* prev holds the last full line printed or folded */
	bool folding;	/* a "*" has been printed for the current run */
	bool all;	/* -v: never fold */
};

static void print_line(uint64_t offset, const uint8_t *bytes, size_t n)
{
	printf("%08llx ", (unsigned long long)offset);
	for (size_t i = 0; i < LINE; i++) {
		if (i == LINE / 2)
			putchar(' ');
		if (i < n)
			printf(" %02x", bytes[i]);
		else
			fputs("   ", stdout);
	}
	fputs("  |", stdout);
	for (size_t i = 0; i < n; i++)
		putchar(isprint(bytes[i]) && bytes[i] < 0x80 ? bytes[i] : '.');
	puts("|");
}

static void dump_line(struct dumper *d, uint64_t offset, const uint8_t *bytes, size_t n)
{
	if (!d->all && n == LINE && d->have_prev && !memcmp(d->prev, bytes, LINE)) {
		if (!d->folding)
			puts("*");
		d->folding = true;
		return;
	}
	print_line(offset, bytes, n);
	d->folding = false;
	d->have_prev = n == LINE;
	if (d->have_prev)
		memcpy(d->prev, bytes, LINE);
}

static int dump_text(struct cli *cli, uint64_t offset, size_t length, bool all)
{
	struct dumper d = { .all = all };
	uint8_t *buf = malloc(CHUNK);

	if (!buf)
		return cli_error(cli, "out of memory");
	for (size_t done = 0; done < length;) {
		size_t n = length - done < CHUNK ? length - done : CHUNK;

		if (rfm_mem_read(cli->node, offset + done, buf, n)) {
			free(buf);
			return cli_fail(cli);
		}
		for (size_t i = 0; i < n; i += LINE)
			dump_line(&d, offset + done + i, buf + i, n - i < LINE ? n - i : LINE);
		done += n;
	}
	/* The end offset closes the dump, as hexdump does. */
	if (length)
		printf("%08llx\n", (unsigned long long)(offset + length));
	free(buf);
	return CLI_EXIT_OK;
}

static const struct option dump_options[] = {
	{ "all", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

int cli_run_dump(struct cli *cli, int argc, char **argv)
{
	bool all = false;
	uint64_t offset;
	size_t length;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "v", dump_options)) > 0)
		if (opt == 'v')
			all = true;
	ret = cli_open_range(cli, opt, argc, argv, &offset, &length);
	if (ret)
		return ret;
	return cli->json ? cli_json_print_bytes(cli, offset, length) : dump_text(cli, offset, length, all);
}

const char cli_help_dump[] =
	"Print LENGTH bytes of the window from OFFSET as \"hexdump -C\" does: the\n"
	"window offset, 16 bytes in hex, the same bytes as ASCII ('.' when not\n"
	"printable), and the end offset on the last line. A run of lines equal to\n"
	"the one before is shown as a single '*'.\n"
	"\n"
	"Options:\n"
	"  -v, --all      show every line, do not fold repeats into '*'\n"
	"\n"
	"JSON keys: offset, length, hex (the bytes).\n";
