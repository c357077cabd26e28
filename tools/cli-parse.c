/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Numbers and byte strings given on the command line. Parsing is strict:
 * an offset that is silently truncated or wrapped would poke the wrong
 * address of a live network, so anything but a clean number is refused.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The K/M/G suffix at @end (binary, as in URIs and layouts): its shift, 0 for none, -1 bad. */
static int suffix_shift(const char *end)
{
	if (!end[0])
		return 0;
	if (end[1])
		return -1;
	switch (end[0]) {
	case 'k': case 'K': return 10;
	case 'm': case 'M': return 20;
	case 'g': case 'G': return 30;
	default: return -1;
	}
}

static int parse_number(struct cli *cli, const char *what, const char *text, uint64_t max,
			bool suffixes, uint64_t *value)
{
	const char *forms = suffixes ? "use decimal, 0x hex or 0 octal, optionally with a K, M "
				       "or G suffix"
				     : "use decimal, 0x hex or 0 octal";
	unsigned long long v;
	char *end;
	int shift = 0;

	if (!text[0])
		return cli_usage_error(cli, "%s is empty", what);
	if (text[0] == '-')
		return cli_usage_error(cli, "%s '%s' is negative", what, text);
	/* strtoull would skip blanks and take a sign: insist on a digit. */
	if (!isdigit((unsigned char)text[0]))
		return cli_usage_error(cli, "%s '%s' is not a number (%s)", what, text, forms);
	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno == ERANGE)
		return cli_usage_error(cli, "%s '%s' is too large for 64 bits", what, text);
	if (suffixes)
		shift = suffix_shift(end);
	if ((*end && !suffixes) || shift < 0)
		return cli_usage_error(cli, "%s '%s' is not a number: unexpected '%s' (%s)", what,
				       text, end, forms);
	if (shift && v > (UINT64_MAX >> shift))
		return cli_usage_error(cli, "%s '%s' is too large for 64 bits", what, text);
	v <<= shift;
	if (v > max)
		return cli_usage_error(cli, "%s '%s' is too large (at most 0x%llx)", what, text,
				       (unsigned long long)max);
	*value = v;
	return 0;
}

int cli_parse_u64(struct cli *cli, const char *what, const char *text, uint64_t max,
		  uint64_t *value)
{
	return parse_number(cli, what, text, max, false, value);
}

int cli_parse_bytes(struct cli *cli, const char *what, const char *text, uint64_t max,
		    uint64_t *value)
{
	return parse_number(cli, what, text, max, true, value);
}

int cli_parse_size(struct cli *cli, const char *what, const char *text, size_t *value)
{
	uint64_t v;
	int ret = cli_parse_bytes(cli, what, text, SIZE_MAX, &v);

	if (!ret)
		*value = (size_t)v;
	return ret;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int cli_parse_hex(struct cli *cli, const char *text, uint8_t **bufp, size_t *lenp)
{
	size_t len = 0;
	uint8_t *buf = malloc(strlen(text) / 2 + 1);

	if (!buf)
		return cli_error(cli, "out of memory");
	for (const char *p = text; *p;) {
		if (isspace((unsigned char)*p) || *p == ':') {
			p++;
			continue;
		}
		int hi = hex_digit(p[0]);
		int lo = hi < 0 ? -1 : hex_digit(p[1]);
		if (lo < 0) {
			/* Point at the character that is wrong. */
			const char *bad = hi < 0 ? p : p + 1;
			bool lone = hi >= 0 && (!p[1] || isspace((unsigned char)p[1]) || p[1] == ':');

			free(buf);
			if (lone)
				return cli_usage_error(cli,
						       "HEX: byte '%c' at position %zu needs two hex digits",
						       *p, (size_t)(p - text) + 1);
			return cli_usage_error(cli, "HEX: '%c' at position %zu is not a hex digit",
					       *bad, (size_t)(bad - text) + 1);
		}
		buf[len++] = (uint8_t)(hi << 4 | lo);
		p += 2;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}
