/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm: look at and exercise a reflective-memory network from the shell.
 * One binary with git-style subcommands; this file parses the options
 * before the subcommand, finds it in the table (commands.c) and runs it.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "cli.h"

/* Flush stdout and report a failed write (a full disk, a closed pipe...). */
static int finish_output(struct cli *cli, int status)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	cli_set_command(cli, NULL);
	cli_error(cli, "writing the output: %s", strerror(errno));
	return status == CLI_EXIT_OK ? CLI_EXIT_FAILED : status;
}

static int run(struct cli *cli, int argc, char **argv)
{
	const struct cli_command *cmd;

	/* Before the command only common options exist: the result is -1 or a stop. */
	cli_set_command(cli, NULL);
	if (cli_getopt(cli, argc, argv, NULL, NULL) == CLI_OPT_STOP)
		return cli->status;

	if (optind >= argc) {
		if (cli->want_version) {
			cli_print_version(cli);
			return CLI_EXIT_OK;
		}
		if (cli->want_help) {
			cli_print_global_help(cli, stdout);
			return CLI_EXIT_OK;
		}
		return cli_usage_error(cli, "no command given");
	}
	cmd = cli_find_command(cli, argv[optind]);
	if (!cmd)
		return cli_unknown_command(cli, argv[optind]);

	/* Help and version asked for before the command still apply to it. */
	argc -= optind;
	argv += optind;
	cli_set_command(cli, cmd);
	return cmd->run(cli, argc, argv);
}

int main(int argc, char **argv)
{
	struct cli cli;
	int status;

	memset(&cli, 0, sizeof(cli));
	cli.argv = argv;
	cli.commands = cli_commands;
	status = run(&cli, argc, argv);
	if (status == CLI_EXIT_DONE)
		status = CLI_EXIT_OK;
	cli_watch_node(NULL); /* a signal from now on has no node to cancel */
	rfm_close(cli.node);
	return finish_output(&cli, status);
}
