/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Finding a command in the table of the program (cli->commands: rfm's in
 * commands.c, a helper program's of its own), and saying a name is none.
 */
#include "config.h"

#include <string.h>

#include "cli.h"

const struct cli_command *cli_find_command(const struct cli *cli, const char *name)
{
	for (const struct cli_command *c = cli->commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* More than any program's table has. */
#define CLI_COMMANDS_MAX 128

const char *cli_suggest_command(const struct cli *cli, const char *name)
{
	const char *names[CLI_COMMANDS_MAX];
	size_t n = 0;

	for (const struct cli_command *c = cli->commands; c->name && n < CLI_COMMANDS_MAX; c++)
		names[n++] = c->name;
	return cli_suggest(name, names, n);
}

int cli_unknown_command(struct cli *cli, const char *name)
{
	const char *near = cli_suggest_command(cli, name);

	if (near)
		return cli_usage_error(cli, "unknown command '%s'; did you mean '%s'?", name, near);
	return cli_usage_error(cli, "unknown command '%s'", name);
}
