/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm replay, as rfm runs it: reading HDF5 takes libhdf5 and the 31
 * libraries it brings, so the command is a helper program of its own,
 * rfm-replay (cmd-replay.c and replay-*.c; $(pkglibexecdir)), that rfm
 * runs in its place with the same command line. rfm itself, and every
 * other command, start without HDF5.
 */
#include "config.h"

#include <string.h>

#include "cli.h"

int cli_run_replay(struct cli *cli, int argc, char **argv)
{
	/* Help is answered here: the helper need not be there for it. */
	for (int i = 0; i < argc; i++)
		if (cli->want_help || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cli_print_command_help(stdout, cli->command);
			return CLI_EXIT_DONE;
		}
	return cli_exec_helper(cli, "rfm-replay");
}
