/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The table of subcommands, in the order rfm --help lists them: one row a
 * command, with its synopsis, its one-line summary, its help (the text of
 * rfm NAME --help, beside its code as cli_help_NAME) and the function that
 * runs it, with a constant for a handler several rows share (peek and poke:
 * the width in bits). To add a command, see cli.h.
 */
#include "config.h"

#include <string.h>

#include "cli.h"

const struct cli_command cli_commands[] = {
	{ "info", "",
	  "Show the node's id, window size, backend and network",
	  cli_help_info, cli_run_info, 0 },
	{ "peek8", "OFFSET [--dec]",
	  "Read the 8-bit value at OFFSET",
	  cli_help_peek8, cli_run_peek, 8 },
	{ "peek16", "OFFSET [--dec]",
	  "Read the 16-bit value at OFFSET",
	  cli_help_peek16, cli_run_peek, 16 },
	{ "peek32", "OFFSET [--dec]",
	  "Read the 32-bit value at OFFSET",
	  cli_help_peek32, cli_run_peek, 32 },
	{ "peek64", "OFFSET [--dec]",
	  "Read the 64-bit value at OFFSET",
	  cli_help_peek64, cli_run_peek, 64 },
	{ "poke8", "OFFSET VALUE",
	  "Write the 8-bit VALUE at OFFSET",
	  cli_help_poke8, cli_run_poke, 8 },
	{ "poke16", "OFFSET VALUE",
	  "Write the 16-bit VALUE at OFFSET",
	  cli_help_poke16, cli_run_poke, 16 },
	{ "poke32", "OFFSET VALUE",
	  "Write the 32-bit VALUE at OFFSET",
	  cli_help_poke32, cli_run_poke, 32 },
	{ "poke64", "OFFSET VALUE",
	  "Write the 64-bit VALUE at OFFSET",
	  cli_help_poke64, cli_run_poke, 64 },
	{ "read", "OFFSET LENGTH [-o FILE]",
	  "Copy LENGTH bytes at OFFSET to stdout or a file, raw",
	  cli_help_read, cli_run_read, 0 },
	{ "write", "OFFSET [-i FILE | --hex HEX | --string TEXT]",
	  "Write bytes from stdin, a file, hex or text at OFFSET",
	  cli_help_write, cli_run_write, 0 },
	{ "dump", "OFFSET LENGTH [-v]",
	  "Show LENGTH bytes at OFFSET in hex and ASCII",
	  cli_help_dump, cli_run_dump, 0 },
	{ "fill", "OFFSET LENGTH --pattern P [--seed N]",
	  "Write a test pattern over LENGTH bytes at OFFSET",
	  cli_help_fill, cli_run_fill, 0 },
	{ "verify", "OFFSET LENGTH --pattern P [--seed N]",
	  "Check LENGTH bytes at OFFSET against a test pattern",
	  cli_help_verify, cli_run_verify, 0 },
	{ "send", "--to NODE|all --event TYPE [--data N] [--loopback]",
	  "Send a network interrupt to one node or to all others",
	  cli_help_send, cli_run_send, 0 },
	{ "wait", "--event TYPE[,TYPE...] [--timeout MS] [--time CLOCK]",
	  "Wait for one network interrupt and print it",
	  cli_help_wait, cli_run_wait, 0 },
	{ "listen", "[--event TYPE[,TYPE...]] [--count N] [--timeout MS] [--time CLOCK]",
	  "Print network interrupts as they arrive",
	  cli_help_listen, cli_run_listen, 0 },
	{ "stats", "[--event TYPE[,TYPE...]] [--duration MS]",
	  "Receive events for a while and show the library's event counters",
	  cli_help_stats, cli_run_stats, 0 },
	{ "destroy", "[--force]",
	  "Remove the network named by the URI",
	  cli_help_destroy, cli_run_destroy, 0 },
	{ "list", "",
	  "List the emulated (shm:) networks on this host",
	  cli_help_list, cli_run_list, 0 },
	{ "layout", "check FILE [--list] | header FILE [-o OUT] [--prefix NAME]",
	  "Validate a layout file, or write its C header",
	  cli_help_layout, cli_run_layout, 0 },
	{ "get", "NAME... [--layout FILE]",
	  "Print variables of a layout by name",
	  cli_help_get, cli_run_get, 0 },
	{ "set", "NAME VALUE [--layout FILE] [--force]",
	  "Write a variable of a layout by name",
	  cli_help_set, cli_run_set, 0 },
	{ "watch", "NAME... [--layout FILE] [--interval MS] [--count N] [--time CLOCK]",
	  "Show variables of a layout as they change",
	  cli_help_watch, cli_run_watch, 0 },
	{ "record", "NAMES... -o FILE [--rate HZ | --on-change | --on-event TYPE] [--duration S] "
	  "[--trigger T [--pre S]] [--events TYPES] [--ring SPEC] [--bytes SPEC]",
	  "Record variables, records, regions, rings and events into HDF5 or CSV",
	  cli_help_record, cli_run_record, 0 },
	{ "replay", "FILE [NAMES...] [--speed X] [--loop] [--from S] [--to S] [--force]",
	  "Write a recording back into the network at its recorded times",
	  cli_help_replay, cli_run_replay, 0 },
	{ "plot", "FILE NAMES... -o PNG",
	  "Plot recorded variables against time into a PNG (matplotlib)",
	  cli_help_plot, cli_run_plot, 0 },
	{ "ping", "[--local | --echo | --peer NODE] [--mode spin|event|ring] [--rt-prio P] "
	  "[--cpu LIST] [--lock-memory] [OPTIONS]",
	  "Measure round-trip latency to another node (latency histogram)",
	  cli_help_ping, cli_run_ping, 0 },
	{ "jitter", "[--mode timer|event] [--rate HZ] [--count N] [--rt-prio P] [--cpu LIST] "
	  "[--lock-memory]",
	  "Measure the wake-up jitter of a periodic loop (cyclictest-style)",
	  cli_help_jitter, cli_run_jitter, 0 },
	{ "bench", "[--duration MS] [--offset OFF [--length LEN]] "
	  "[--layout FILE [--var NAME] [--record NAME]]",
	  "Measure write/read bandwidth, peek/poke, table and ring rates on this node",
	  cli_help_bench, cli_run_bench, 0 },
	{ "ring", "create OFFSET|REGION [opts] | pub OFFSET|REGION MESSAGE... | "
	  "tail OFFSET|REGION [opts] | stat OFFSET|REGION",
	  "Create a ring channel, publish to it, print its messages or its state",
	  cli_help_ring, cli_run_ring, 0 },
	{ "nodes", "[--time CLOCK]",
	  "List the network's nodes: attached, alive, incarnation, last beat",
	  cli_help_nodes, cli_run_nodes, 0 },
	{ "serve", cli_serve_args, cli_serve_summary, cli_help_serve, cli_run_serve, 0 },
	{ "selftest", "[--offset OFFSET] | --system [--cpu LIST] [--rt-prio P]",
	  "Test the own node (loopback event, write/readback), or the machine",
	  cli_help_selftest, cli_run_selftest, 0 },
	{ "help", "[COMMAND]",
	  "Show the list of commands, or one command's help",
	  cli_help_help, cli_run_help, 0 },
	{ NULL, NULL, NULL, NULL, NULL, 0 },
};

const struct cli_command *cli_find_command(const char *name)
{
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

const char *cli_suggest_command(const char *name)
{
	const char *names[sizeof(cli_commands) / sizeof(cli_commands[0])];
	size_t n = 0;

	for (const struct cli_command *c = cli_commands; c->name; c++)
		names[n++] = c->name;
	return cli_suggest(name, names, n);
}

int cli_unknown_command(struct cli *cli, const char *name)
{
	const char *near = cli_suggest_command(name);

	if (near)
		return cli_usage_error(cli, "unknown command '%s'; did you mean '%s'?", name, near);
	return cli_usage_error(cli, "unknown command '%s'", name);
}
