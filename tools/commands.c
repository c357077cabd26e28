/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The table of subcommands. To add one, define cli_cmd_NAME in its own
 * cmd-*.c file and add X(NAME) below, where rfm --help should list it.
 */
#include "config.h"

#include <string.h>

#include "cli.h"

#define RFM_COMMANDS(X) \
	X(info)         \
	X(peek8)        \
	X(peek16)       \
	X(peek32)       \
	X(peek64)       \
	X(poke8)        \
	X(poke16)       \
	X(poke32)       \
	X(poke64)       \
	X(read)         \
	X(write)        \
	X(dump)         \
	X(fill)         \
	X(verify)       \
	X(send)         \
	X(wait)         \
	X(listen)       \
	X(stats)        \
	X(destroy)      \
	X(list)         \
	X(layout)       \
	X(get)          \
	X(set)          \
	X(watch)        \
	X(ping)         \
	X(jitter)       \
	X(bench)        \
	X(ring)         \
	X(nodes)        \
	X(serve)        \
	X(selftest)     \
	X(help)

#define DECLARE_COMMAND(name) extern const struct cli_command cli_cmd_##name;
RFM_COMMANDS(DECLARE_COMMAND)

#define LIST_COMMAND(name) &cli_cmd_##name,
const struct cli_command *const cli_commands[] = { RFM_COMMANDS(LIST_COMMAND) NULL };

const struct cli_command *cli_find_command(const char *name)
{
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

const char *cli_suggest_command(const char *name)
{
	const char *names[sizeof(cli_commands) / sizeof(cli_commands[0])];
	size_t n = 0;

	for (const struct cli_command *const *c = cli_commands; *c; c++)
		names[n++] = (*c)->name;
	return cli_suggest(name, names, n);
}

int cli_unknown_command(struct cli *cli, const char *name)
{
	const char *near = cli_suggest_command(name);

	if (near)
		return cli_usage_error(cli, "unknown command '%s'; did you mean '%s'?", name, near);
	return cli_usage_error(cli, "unknown command '%s'", name);
}
