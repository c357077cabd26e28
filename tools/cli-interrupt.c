/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Ctrl-C (and SIGTERM) and progress for the commands that run until
 * stopped (ping, bench, stats, wait, watch). A signal only sets a flag that
 * their loops look at and cancels the node's waits (rfm_event_cancel() is
 * safe in a handler), so that they stop at a clean point, report what they
 * measured and close their node: a command that holds a node id leaves
 * the network, where being killed would leave it crashed. Progress goes to
 * stderr once a second, and only to a terminal, so that scripts see none.
 */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "os/tool-os.h"

static volatile sig_atomic_t interrupted;
static rfm_node *volatile watched;

static void on_interrupt(void)
{
	interrupted = 1;
	if (watched)
		rfm_event_cancel(watched);
}

void cli_watch_node(rfm_node *node)
{
	watched = node;
}

void cli_catch_interrupt(void)
{
	tool_os_on_interrupt(on_interrupt);
}

bool cli_interrupted(void)
{
	return interrupted != 0;
}

void cli_progress_start(struct cli_progress *pr)
{
	pr->tty = tool_os_is_terminal(stderr);
	pr->next_ns = rfm_event_now_ns() + 1000000000u;
	pr->shown = false;
}

bool cli_progress_due(struct cli_progress *pr)
{
	uint64_t t;

	if (!pr->tty)
		return false;
	t = rfm_event_now_ns();
	if (t < pr->next_ns)
		return false;
	pr->next_ns = t + 1000000000u;
	pr->shown = true;
	/* Back to the start of the line: each report replaces the last. */
	fputs("\r\033[K", stderr);
	return true;
}

void cli_progress_end(struct cli_progress *pr)
{
	if (pr->shown)
		fputs("\r\033[K", stderr);
	pr->shown = false;
}
