/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm peek8..64 and poke8..64: one naturally aligned, single-copy atomic
 * access through the library's checked accessors. The width comes from
 * the table entry (cli_command.arg).
 */
#include "config.h"

#include "cli.h"

static int peek(struct cli *cli, unsigned int bits, uint64_t offset, uint64_t *value)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	int ret;

	switch (bits) {
	case 8:
		ret = rfm_mem_peek8(cli->node, offset, &v8);
		*value = v8;
		break;
	case 16:
		ret = rfm_mem_peek16(cli->node, offset, &v16);
		*value = v16;
		break;
	case 32:
		ret = rfm_mem_peek32(cli->node, offset, &v32);
		*value = v32;
		break;
	default:
		ret = rfm_mem_peek64(cli->node, offset, value);
		break;
	}
	return ret;
}

static int poke(struct cli *cli, unsigned int bits, uint64_t offset, uint64_t value)
{
	switch (bits) {
	case 8:
		return rfm_mem_poke8(cli->node, offset, (uint8_t)value);
	case 16:
		return rfm_mem_poke16(cli->node, offset, (uint16_t)value);
	case 32:
		return rfm_mem_poke32(cli->node, offset, (uint32_t)value);
	default:
		return rfm_mem_poke64(cli->node, offset, value);
	}
}

static uint64_t width_max(unsigned int bits)
{
	return bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

static void print_access(const struct cli *cli, unsigned int bits, uint64_t offset,
			 uint64_t value, bool decimal)
{
	char hex[24];

	snprintf(hex, sizeof(hex), "0x%0*llx", (int)bits / 4, (unsigned long long)value);
	if (cli->json) {
		struct json_object *obj = json_object_new_object();

		cli_json_add_u64(obj, "offset", offset);
		cli_json_add_u64(obj, "width", bits);
		cli_json_add_u64(obj, "value", value);
		cli_json_add_string(obj, "hex", hex);
		cli_json_print(obj);
	} else if (decimal) {
		printf("%llu\n", (unsigned long long)value);
	} else {
		puts(hex);
	}
}

enum { OPT_DEC = 'd' };

static const struct option peek_options[] = {
	{ "dec", no_argument, NULL, OPT_DEC },
	{ NULL, 0, NULL, 0 },
};

int cli_run_peek(struct cli *cli, int argc, char **argv)
{
	unsigned int bits = cli->command->arg;
	bool decimal = false;
	uint64_t offset, value;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "", peek_options)) > 0)
		if (opt == OPT_DEC)
			decimal = true;
	ret = cli_options_end(cli, opt, argc, argv, 1, 1);
	if (!ret)
		ret = cli_parse_bytes(cli, "OFFSET", argv[optind], UINT64_MAX, &offset);
	if (!ret)
		ret = cli_open(cli);
	if (ret)
		return ret;
	if (peek(cli, bits, offset, &value))
		return cli_fail(cli);
	print_access(cli, bits, offset, value, decimal);
	return CLI_EXIT_OK;
}

int cli_run_poke(struct cli *cli, int argc, char **argv)
{
	unsigned int bits = cli->command->arg;
	uint64_t offset, value;
	int ret;

	ret = cli_parse_args(cli, argc, argv, 2, 2);
	if (!ret)
		ret = cli_parse_bytes(cli, "OFFSET", argv[optind], UINT64_MAX, &offset);
	if (!ret)
		ret = cli_parse_u64(cli, "VALUE", argv[optind + 1], width_max(bits), &value);
	if (!ret)
		ret = cli_open(cli);
	if (ret)
		return ret;
	ret = cli_guard_write(cli, offset, bits / 8);
	if (ret)
		return ret;
	if (poke(cli, bits, offset, value))
		return cli_fail(cli);
	/* Silent on success, like other Unix tools; --json echoes what was written. */
	if (cli->json)
		print_access(cli, bits, offset, value, false);
	return CLI_EXIT_OK;
}

/* The help of the four widths, alike but for the numbers. */
#define PEEK_POKE_HELP(bits, bytes)                                                             \
	const char cli_help_peek##bits[] =                                                      \
		"Read " #bits " bits at OFFSET of the window in one atomic access\n"            \
		"and print the value in hex, zero-padded to the width.\n"                       \
		"OFFSET must be a multiple of " #bytes " (natural alignment).\n"                \
		"\n"                                                                            \
		"Options:\n"                                                                    \
		"      --dec       print the value in decimal\n"                                \
		"\n"                                                                            \
		"JSON keys: offset, width, value (a number), hex.\n";                           \
	const char cli_help_poke##bits[] =                                                      \
		"Write VALUE as " #bits " bits at OFFSET of the window in one atomic\n"         \
		"access; every other node sees it. VALUE must fit in " #bits " bits\n"          \
		"and OFFSET must be a multiple of " #bytes " (natural alignment).\n"            \
		"Prints nothing on success.\n"                                                  \
		"\n"                                                                            \
		"JSON keys: offset, width, value, hex.\n";

PEEK_POKE_HELP(8, 1)
PEEK_POKE_HELP(16, 2)
PEEK_POKE_HELP(32, 4)
PEEK_POKE_HELP(64, 8)
