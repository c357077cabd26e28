/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm help [COMMAND], and rfm --help: the list of commands with their
 * one-line summaries, or one command's help. It reads the program's table
 * through cli->commands, which main sets, so that the table may name this
 * handler without the two files depending on each other.
 */
#include "config.h"

#include <string.h>

#include "cli.h"

void cli_print_global_help(const struct cli *cli, FILE *out)
{
	size_t width = 0;

	fputs("Usage: rfm [OPTIONS] COMMAND [ARGS...]\n"
	      "Look at and exercise a reflective-memory network (real or emulated).\n"
	      "\n"
	      "Commands:\n",
	      out);
	for (const struct cli_command *c = cli->commands; c->name; c++)
		if (strlen(c->name) > width)
			width = strlen(c->name);
	for (const struct cli_command *c = cli->commands; c->name; c++)
		fprintf(out, "  %-*s  %s\n", (int)width, c->name, c->summary);
	fputs("\nrfm COMMAND --help shows a command's arguments and options.\n\n", out);
	cli_print_common_help(out);
}

int cli_run_help(struct cli *cli, int argc, char **argv)
{
	const struct cli_command *cmd;
	int ret = cli_parse_args(cli, argc, argv, 0, 1);

	if (ret)
		return ret;
	if (optind == argc) {
		cli_print_global_help(cli, stdout);
		return CLI_EXIT_OK;
	}
	cmd = cli_find_command(cli, argv[optind]);
	if (!cmd)
		return cli_unknown_command(cli, argv[optind]);
	cli_print_command_help(stdout, cmd);
	return CLI_EXIT_OK;
}

const char cli_help_help[] = "";
