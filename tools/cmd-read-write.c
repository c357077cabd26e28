/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm read and rfm write: raw bytes between the window and a file, stdin,
 * stdout or the command line, through the library's bounded rfm_mem_read()
 * and rfm_mem_write(). Large ranges move in chunks, so memory use stays
 * small whatever the window size.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "os/tool-os.h"

#define CHUNK (64 * 1024)

/* ---- rfm read ---- */

static const struct option read_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ NULL, 0, NULL, 0 },
};

/* Copy [offset, offset+length) to @out in chunks. */
static int copy_out(struct cli *cli, uint64_t offset, size_t length, FILE *out,
		    const char *out_name)
{
	uint8_t buf[CHUNK];

	for (size_t done = 0; done < length;) {
		size_t n = length - done < CHUNK ? length - done : CHUNK;

		if (rfm_mem_read(cli->node, offset + done, buf, n))
			return cli_fail(cli);
		if (fwrite(buf, 1, n, out) != n)
			return cli_error(cli, "writing %s: %s", out_name, strerror(errno));
		done += n;
	}
	return 0;
}

/* The JSON report of a copy, read or write: the range it covered. */
static struct json_object *range_json(uint64_t offset, size_t length)
{
	struct json_object *obj = json_object_new_object();

	cli_json_add_u64(obj, "offset", offset);
	cli_json_add_u64(obj, "length", length);
	return obj;
}

int cli_run_read(struct cli *cli, int argc, char **argv)
{
	struct cli_out_file file = { 0 };
	const char *path = NULL;
	uint64_t offset;
	size_t length;
	FILE *out = stdout;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "o:", read_options)) > 0)
		if (opt == 'o')
			path = optarg;
	ret = cli_open_range(cli, opt, argc, argv, &offset, &length);
	if (ret)
		return ret;

	/* The file is created only once the range is known to be good. */
	if (path) {
		ret = cli_out_open(cli, &file, path, true);
		if (ret)
			return ret;
		out = file.fp;
	}
	if (cli->json && !path)
		return cli_json_print_bytes(cli, offset, length);
	if (!path)
		tool_os_binary_stream(stdout);	/* raw bytes, as they are */
	ret = copy_out(cli, offset, length, out, path ? path : "the output");
	if (ret)
		cli_out_abort(&file);
	else
		ret = cli_out_commit(cli, &file);
	if (!ret && cli->json) {
		struct json_object *obj = range_json(offset, length);

		cli_json_add_string(obj, "file", path);
		cli_json_print(obj);
	}
	return ret;
}

const char cli_help_read[] =
	"Copy LENGTH bytes of the window, starting at OFFSET, to standard output\n"
	"or to FILE as raw bytes. Nothing is written when the range does not lie\n"
	"inside the window.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE  write to FILE instead of standard output\n"
	"\n"
	"JSON keys: offset, length, and hex (the bytes) or file.\n";

/* ---- rfm write ---- */

enum { OPT_HEX = 'x', OPT_STRING = 's' };

static const struct option write_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "hex", required_argument, NULL, OPT_HEX },
	{ "string", required_argument, NULL, OPT_STRING },
	{ NULL, 0, NULL, 0 },
};

/*
 * Read all of @in, but never more than @limit + 1 bytes: one byte more than
 * fits tells "too long" apart from "exactly the window".
 */
static int slurp(struct cli *cli, FILE *in, const char *name, uint64_t limit, uint8_t **bufp,
		 size_t *lenp)
{
	size_t len = 0, cap = 0;
	uint8_t *buf = NULL;

	for (;;) {
		if (len == cap) {
			size_t more = cap ? cap * 2 : CHUNK;
			uint8_t *bigger = realloc(buf, more);

			if (!bigger) {
				free(buf);
				return cli_error(cli, "out of memory reading %s", name);
			}
			buf = bigger;
			cap = more;
		}
		size_t want = cap - len;
		if (len + want > limit + 1)
			want = (size_t)(limit + 1 - len);
		size_t n = fread(buf + len, 1, want, in);
		len += n;
		if (n < want || len > limit)
			break;
	}
	if (ferror(in)) {
		free(buf);
		return cli_error(cli, "reading %s: %s", name, strerror(errno));
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

static int load_input(struct cli *cli, const char *path, uint8_t **bufp, size_t *lenp)
{
	uint64_t size = rfm_node_size(cli->node);
	FILE *in = stdin;
	int ret;

	if (path) {
		in = fopen(path, "rb");
		if (!in)
			return cli_error(cli, "%s: %s", path, strerror(errno));
	}
	if (!path)
		tool_os_binary_stream(stdin);
	ret = slurp(cli, in, path ? path : "standard input", size, bufp, lenp);
	if (path)
		fclose(in);
	if (!ret && *lenp > size) {
		free(*bufp);
		*bufp = NULL;
		return cli_error(cli, "%s is longer than the %llu-byte window",
				 path ? path : "the input", (unsigned long long)size);
	}
	return ret;
}

int cli_run_write(struct cli *cli, int argc, char **argv)
{
	const char *path = NULL, *hex = NULL, *text = NULL;
	unsigned int sources = 0;
	uint8_t *buf = NULL;
	uint64_t offset;
	size_t length;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "i:", write_options)) > 0) {
		switch (opt) {
		case 'i':
			path = optarg;
			break;
		case OPT_HEX:
			hex = optarg;
			break;
		case OPT_STRING:
			text = optarg;
			break;
		}
		sources++;
	}
	if (opt == CLI_OPT_STOP)
		return cli->status;
	if (sources > 1)
		return cli_usage_error(cli, "give at most one of -i FILE, --hex HEX, --string TEXT");
	ret = cli_check_args(cli, argc, argv, 1, 1);
	if (!ret)
		ret = cli_parse_bytes(cli, "OFFSET", argv[optind], UINT64_MAX, &offset);
	if (!ret && hex)
		ret = cli_parse_hex(cli, hex, &buf, &length);
	if (!ret)
		ret = cli_open(cli);
	if (ret) {
		free(buf);
		return ret;
	}

	if (text) {
		length = strlen(text);
		ret = cli_guard_write(cli, offset, length);
		if (!ret && rfm_mem_write(cli->node, offset, text, length))
			ret = cli_fail(cli);
	} else {
		if (!hex)
			ret = load_input(cli, path, &buf, &length);
		if (!ret)
			ret = cli_guard_write(cli, offset, length);
		if (!ret && rfm_mem_write(cli->node, offset, buf, length))
			ret = cli_fail(cli);
		free(buf);
	}
	if (!ret && cli->json)
		cli_json_print(range_json(offset, length));
	return ret;
}

const char cli_help_write[] =
	"Write bytes into the window starting at OFFSET. The bytes come from\n"
	"standard input unless one of the options gives them. Nothing is written\n"
	"when they would not fit inside the window. Prints nothing on success.\n"
	"\n"
	"Options:\n"
	"  -i, --input FILE   the bytes of FILE\n"
	"      --hex HEX      bytes in hex, e.g. deadbeef, \"de ad be ef\", de:ad:be:ef\n"
	"      --string TEXT  the characters of TEXT, without a terminating NUL\n"
	"\n"
	"JSON keys: offset, length.\n";
