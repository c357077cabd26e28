/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm fill and rfm verify: write a test pattern over a range, and check a
 * range against it, typically from another node, to prove that every byte
 * travelled.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pattern.h"

#define CHUNK (64 * 1024)

struct pattern_args {
	uint64_t offset;
	size_t length;
	struct pattern pattern;
	char name[16];
};

static const struct option pattern_options[] = {
	{ "pattern", required_argument, NULL, 'p' },
	{ "seed", required_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 },
};

static int parse_pattern(struct cli *cli, const char *text, struct pattern *p)
{
	uint64_t value;
	int ret;

	if (!pattern_from_name(text, p))
		return 0;
	/* Anything else must be a 32-bit number. */
	if (text[0] < '0' || text[0] > '9')
		return cli_usage_error(cli,
				       "unknown pattern '%s' (use zero, ones, incr, addr, random "
				       "or a 32-bit number)",
				       text);
	ret = cli_parse_u64(cli, "pattern value", text, UINT32_MAX, &value);
	if (ret)
		return ret;
	memset(p, 0, sizeof(*p));
	p->kind = PATTERN_VALUE;
	p->value = (uint32_t)value;
	return 0;
}

/* Options and arguments of fill and verify; opens the node and checks the range. */
static int parse(struct cli *cli, int argc, char **argv, struct pattern_args *a)
{
	const char *pattern = NULL, *seed = NULL;
	uint64_t seed_value = 0;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "p:s:", pattern_options)) > 0) {
		if (opt == 'p')
			pattern = optarg;
		else if (opt == 's')
			seed = optarg;
	}
	ret = cli_options_end(cli, opt, argc, argv, 2, 2);
	if (ret)
		return ret;
	if (!pattern)
		return cli_usage_error(cli, "--pattern is required");
	ret = cli_parse_bytes(cli, "OFFSET", argv[optind], UINT64_MAX, &a->offset);
	if (!ret)
		ret = cli_parse_size(cli, "LENGTH", argv[optind + 1], &a->length);
	if (!ret)
		ret = parse_pattern(cli, pattern, &a->pattern);
	if (!ret && seed)
		ret = cli_parse_u64(cli, "seed", seed, UINT64_MAX, &seed_value);
	if (ret)
		return ret;
	if (seed && a->pattern.kind != PATTERN_RANDOM)
		return cli_usage_error(cli, "--seed applies only to --pattern random");
	if (seed)
		a->pattern.seed = seed_value;
	pattern_name(&a->pattern, a->name, sizeof(a->name));

	ret = cli_open(cli);
	if (!ret)
		ret = cli_check_range(cli, a->offset, a->length);
	return ret;
}

static struct json_object *json_result(const struct pattern_args *a)
{
	struct json_object *obj = json_object_new_object();

	cli_json_add_u64(obj, "offset", a->offset);
	cli_json_add_u64(obj, "length", a->length);
	cli_json_add_string(obj, "pattern", a->name);
	if (a->pattern.kind == PATTERN_RANDOM)
		cli_json_add_u64(obj, "seed", a->pattern.seed);
	return obj;
}

/* ---- rfm fill ---- */

int cli_run_fill(struct cli *cli, int argc, char **argv)
{
	struct pattern_args a;
	uint8_t *buf;
	int ret = parse(cli, argc, argv, &a);

	if (!ret)
		ret = cli_guard_write(cli, a.offset, a.length);
	if (ret)
		return ret;
	buf = malloc(CHUNK);
	if (!buf)
		return cli_error(cli, "out of memory");
	for (size_t done = 0; done < a.length && !ret;) {
		size_t n = a.length - done < CHUNK ? a.length - done : CHUNK;

		pattern_generate(&a.pattern, a.offset + done, buf, n);
		if (rfm_mem_write(cli->node, a.offset + done, buf, n))
			ret = cli_fail(cli);
		done += n;
	}
	free(buf);
	if (!ret && cli->json)
		cli_json_print(json_result(&a));
	return ret;
}

/* ---- rfm verify ---- */

struct mismatch {
	uint64_t count;
	uint64_t first_offset;
	uint8_t expected, actual;
};

static void compare(const uint8_t *expected, const uint8_t *actual, size_t n, uint64_t offset,
		    struct mismatch *m)
{
	/* memcmp first: the common case is a clean chunk. */
	if (!memcmp(expected, actual, n))
		return;
	for (size_t i = 0; i < n; i++) {
		if (expected[i] == actual[i])
			continue;
		if (!m->count) {
			m->first_offset = offset + i;
			m->expected = expected[i];
			m->actual = actual[i];
		}
		m->count++;
	}
}

static void print_verify(const struct cli *cli, const struct pattern_args *a,
			 const struct mismatch *m)
{
	if (cli->json) {
		struct json_object *obj = json_result(a);
		struct json_object *first = NULL;

		cli_json_add_bool(obj, "ok", m->count == 0);
		cli_json_add_u64(obj, "mismatches", m->count);
		if (m->count) {
			first = json_object_new_object();
			cli_json_add_u64(first, "offset", m->first_offset);
			cli_json_add_u64(first, "expected", m->expected);
			cli_json_add_u64(first, "actual", m->actual);
		}
		json_object_object_add(obj, "first_mismatch", first);
		cli_json_print(obj);
	} else if (!m->count) {
		printf("ok: %zu bytes at 0x%llx match pattern %s\n", a->length,
		       (unsigned long long)a->offset, a->name);
	} else {
		printf("MISMATCH: %llu of %zu bytes at 0x%llx differ from pattern %s; "
		       "first at 0x%llx: expected 0x%02x, found 0x%02x\n",
		       (unsigned long long)m->count, a->length, (unsigned long long)a->offset,
		       a->name, (unsigned long long)m->first_offset, m->expected, m->actual);
	}
}

int cli_run_verify(struct cli *cli, int argc, char **argv)
{
	struct mismatch m = { 0 };
	struct pattern_args a;
	uint8_t *expected, *actual;
	int ret = parse(cli, argc, argv, &a);

	if (ret)
		return ret;
	expected = malloc(CHUNK);
	actual = malloc(CHUNK);
	if (!expected || !actual) {
		free(expected);
		free(actual);
		return cli_error(cli, "out of memory");
	}
	for (size_t done = 0; done < a.length && !ret;) {
		size_t n = a.length - done < CHUNK ? a.length - done : CHUNK;

		if (rfm_mem_read(cli->node, a.offset + done, actual, n)) {
			ret = cli_fail(cli);
			break;
		}
		pattern_generate(&a.pattern, a.offset + done, expected, n);
		compare(expected, actual, n, a.offset + done, &m);
		done += n;
	}
	free(expected);
	free(actual);
	if (ret)
		return ret;
	print_verify(cli, &a, &m);
	return m.count ? CLI_EXIT_NOMATCH : CLI_EXIT_OK;
}

#define PATTERN_HELP                                                                 \
	"Patterns (each a function of the absolute window offset X, so any part\n"   \
	"of a filled range verifies):\n"                                             \
	"  zero     every byte 0x00\n"                                               \
	"  ones     every byte 0xff\n"                                               \
	"  incr     the byte at X is X mod 256\n"                                    \
	"  addr     the 32-bit word at X is X (low 32 bits), host byte order\n"      \
	"  random   pseudo-random 64-bit words from a seeded xorshift generator,\n"  \
	"           indexed by X / 8 (reproducible: same seed, same bytes)\n"        \
	"  VALUE    a 32-bit number in every aligned 32-bit word, host byte order\n" \
	"\n"                                                                         \
	"Options:\n"                                                                 \
	"  -p, --pattern P   the pattern (required)\n"                               \
	"  -s, --seed N      seed of the random pattern (default 1)\n"

const char cli_help_fill[] =
	"Write the pattern P over the range; nothing is written when the range\n"
	"does not lie inside the window. Prints nothing on success.\n"
	"\n" PATTERN_HELP "\n"
	"JSON keys: offset, length, pattern, seed (random only).\n";

const char cli_help_verify[] =
	"Compare the range with the pattern P, byte by byte, and report the\n"
	"number of mismatched bytes and the first one (offset, expected and\n"
	"actual byte). Exits 3 when any byte differs.\n"
	"\n" PATTERN_HELP "\n"
	"JSON keys: offset, length, pattern, seed (random only), ok, mismatches,\n"
	"first_mismatch (null, or an object with offset, expected, actual).\n";
