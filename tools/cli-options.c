/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Option parsing shared by every subcommand. The common options are merged
 * into each command's own getopt_long() tables, so they are accepted both
 * before the subcommand ("rfm -u URI peek32 0") and after it
 * ("rfm peek32 0 -u URI"). getopt's own messages are off (opterr = 0): the
 * tool words its errors itself and always points to the right --help.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum {
	OPT_JSON = CLI_OPT_COMMON,
};

static const struct option common_longopts[] = {
	{ "uri", required_argument, NULL, 'u' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
};
static const char common_shortopts[] = "u:hV";

void cli_set_command(struct cli *cli, const struct cli_command *cmd)
{
	cli->command = cmd;
	cli->options_merged = false;
	/* 0, not 1: glibc then also resets its permutation state. */
	optind = 0;
}

static int merge_options(struct cli *cli, const char *shortopts, const struct option *longopts)
{
	size_t n = 0, common = sizeof(common_longopts) / sizeof(common_longopts[0]);
	size_t own = 0;

	while (longopts && longopts[own].name)
		own++;
	if (common + own + 1 > sizeof(cli->longopts) / sizeof(cli->longopts[0]) ||
	    strlen(shortopts ? shortopts : "") + sizeof(common_shortopts) + 2 >
		    sizeof(cli->shortopts))
		return cli_error(cli, "internal error: too many options for '%s'",
				 cli->command ? cli->command->name : "rfm");

	for (size_t i = 0; i < common; i++)
		cli->longopts[n++] = common_longopts[i];
	for (size_t i = 0; i < own; i++)
		cli->longopts[n++] = longopts[i];
	memset(&cli->longopts[n], 0, sizeof(cli->longopts[n]));

	/*
	 * "+" before the subcommand: stop at its name. ":" makes a missing
	 * option argument distinguishable from an unknown option.
	 */
	snprintf(cli->shortopts, sizeof(cli->shortopts), "%s:%s%s", cli->command ? "" : "+",
		 common_shortopts, shortopts ? shortopts : "");
	cli->options_merged = true;
	return 0;
}

/* The option as the user typed it, without any "=value". */
static void option_text(char *buf, size_t len, const char *arg, int opt)
{
	if (arg && arg[0] == '-' && arg[1] == '-') {
		size_t name = strcspn(arg, "=");
		snprintf(buf, len, "%.*s", (int)name, arg);
	} else if (opt > 0 && opt < 0x100) {
		snprintf(buf, len, "-%c", opt);
	} else {
		snprintf(buf, len, "%s", arg ? arg : "?");
	}
}

/* "unknown option '--conut'; did you mean '--count'?" among this command's options. */
static int unknown_option(struct cli *cli, const char *text)
{
	const char *names[sizeof(cli->longopts) / sizeof(cli->longopts[0])];
	size_t n = 0;
	const char *near;

	for (const struct option *o = cli->longopts; o->name && n < sizeof(names) / sizeof(names[0]);
	     o++)
		names[n++] = o->name;
	near = text[0] == '-' && text[1] == '-' ? cli_suggest(text + 2, names, n) : NULL;
	if (near)
		return cli_usage_error(cli, "unknown option '%s'; did you mean '--%s'?", text, near);
	return cli_usage_error(cli, "unknown option '%s'", text);
}

static int option_error(struct cli *cli, int ret, int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : NULL;
	char text[64];

	option_text(text, sizeof(text), arg, optopt);
	/*
	 * "--flag=x" first: glibc's getopt_long() answers it with '?', the
	 * BSD one (mingw-w64's) with ':' as for a missing argument.
	 */
	if (arg && arg[0] == '-' && arg[1] == '-' && strchr(arg, '=') && optopt)
		return cli_usage_error(cli, "option '%s' takes no argument", text);
	if (ret == ':')
		return cli_usage_error(cli, "option '%s' needs an argument", text);
	/* getopt sees "-1" as an option; it is a number the user meant. */
	if (arg && arg[0] == '-' && arg[1] >= '0' && arg[1] <= '9')
		return cli_usage_error(cli, "'%s' is negative: numbers must be 0 or more", arg);
	return unknown_option(cli, text);
}

int cli_getopt(struct cli *cli, int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	int opt;

	if (!cli->options_merged && merge_options(cli, shortopts, longopts)) {
		cli->status = CLI_EXIT_FAILED;
		return CLI_OPT_STOP;
	}
	opterr = 0;
	for (;;) {
		opt = getopt_long(argc, argv, cli->shortopts, cli->longopts, NULL);
		switch (opt) {
		case 'u':
			cli->uri = optarg;
			continue;
		case OPT_JSON:
			cli->json = true;
			continue;
		case 'h':
			cli->want_help = true;
			continue;
		case 'V':
			cli->want_version = true;
			continue;
		case '?':
		case ':':
			cli->status = option_error(cli, opt, argc, argv);
			return CLI_OPT_STOP;
		case -1:
			/* Before the subcommand, main decides what help and version mean. */
			if (cli->command && (cli->want_help || cli->want_version)) {
				if (cli->want_help)
					cli_print_command_help(stdout, cli->command);
				else
					cli_print_version(cli);
				cli->status = CLI_EXIT_DONE;
				return CLI_OPT_STOP;
			}
			return -1;
		default:
			return opt;
		}
	}
}

int cli_check_args(struct cli *cli, int argc, char **argv, int min, int max)
{
	int count = argc - optind;

	if (count < min)
		return cli_usage_error(cli, "missing argument; usage: rfm %s %s", cli->command->name,
				       cli->command->args);
	if (count > max)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind + max]);
	return 0;
}

int cli_options_end(struct cli *cli, int opt, int argc, char **argv, int min, int max)
{
	if (opt == CLI_OPT_STOP)
		return cli->status ? cli->status : CLI_EXIT_DONE;
	return cli_check_args(cli, argc, argv, min, max);
}

int cli_open_range(struct cli *cli, int opt, int argc, char **argv, uint64_t *offset,
		   size_t *length)
{
	int ret = cli_options_end(cli, opt, argc, argv, 2, 2);

	if (!ret)
		ret = cli_parse_bytes(cli, "OFFSET", argv[optind], UINT64_MAX, offset);
	if (!ret)
		ret = cli_parse_size(cli, "LENGTH", argv[optind + 1], length);
	if (!ret)
		ret = cli_open(cli);
	if (!ret)
		ret = cli_check_range(cli, *offset, *length);
	return ret;
}

int cli_parse_args(struct cli *cli, int argc, char **argv, int min, int max)
{
	/* Without options of its own, the command sees only -1 or a stop. */
	return cli_options_end(cli, cli_getopt(cli, argc, argv, "", NULL), argc, argv, min, max);
}

void cli_print_common_help(FILE *out)
{
	fputs("Common options (before or after the command):\n"
	      "  -u, --uri URI   the node to open (default: $RFM_URI, else " RFM_DEFAULT_URI ")\n"
	      "                  e.g. shm:NAME?node=N&size=BYTES\n"
	      "      --json      print the result as one JSON object\n"
	      "  -h, --help      show help (rfm COMMAND --help: that command's)\n"
	      "  -V, --version   print the tool's and the library's versions\n"
	      "\n"
	      "Numbers are in C notation: decimal, 0x hexadecimal or 0 octal; offsets\n"
	      "and sizes also take a K, M or G suffix (2^10, 2^20, 2^30): 64K, 0x10M.\n"
	      "\n"
	      "Exit status:\n"
	      "  0  success\n"
	      "  1  the operation failed (the library's message is printed)\n"
	      "  2  usage error: bad option, number or argument\n"
	      "  3  verify found mismatches; wait timed out\n"
	      "  4  get printed a stale value (its writer node is down)\n",
	      out);
}

void cli_print_command_help(FILE *out, const struct cli_command *cmd)
{
	fprintf(out, "Usage: rfm [OPTIONS] %s %s\n%s.\n", cmd->name, cmd->args, cmd->summary);
	if (cmd->help && cmd->help[0])
		fprintf(out, "\n%s", cmd->help);
	fputc('\n', out);
	cli_print_common_help(out);
}
