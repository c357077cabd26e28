/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve in a build without libmicrohttpd: the command exists, so that
 * rfm --help and a user typing it learn why it is not there.
 */
#include "config.h"

#include <string.h>

#include "cli.h"

int cli_run_serve(struct cli *cli, int argc, char **argv)
{
	/* Its help still works (rfm serve --help), saying why it is missing. */
	for (int i = 0; i < argc; i++)
		if (cli->want_help || !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			cli_print_command_help(stdout, cli->command);
			return CLI_EXIT_DONE;
		}
	return cli_error(cli, "this rfm was built without libmicrohttpd: rebuild after "
			 "installing it (Debian: libmicrohttpd-dev) to get rfm serve");
}

/* Its synopsis and summary as well: rfm --help says what this build has. */
const char cli_serve_args[] =
	"...";
const char cli_serve_summary[] =
	"Serve a monitoring page and metrics over HTTP (not built: no libmicrohttpd)";
const char cli_help_serve[] =
	"This rfm was built without libmicrohttpd, so it cannot serve HTTP.\n";
