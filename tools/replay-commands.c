/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The commands of rfm-replay, the helper program rfm runs for rfm replay
 * (cmd-replay-exec.c): the same main (rfm.c) and command line as rfm, with
 * replay, and help for it, its only commands.
 */
#include "config.h"

#include "cli.h"

const struct cli_command cli_commands[] = {
	{ "replay", CLI_REPLAY_ARGS, CLI_REPLAY_SUMMARY, cli_help_replay, cli_run_replay, 0 },
	{ "help", "[COMMAND]",
	  "Show the list of commands, or one command's help",
	  cli_help_help, cli_run_help, 0 },
	{ NULL, NULL, NULL, NULL, NULL, 0 },
};
