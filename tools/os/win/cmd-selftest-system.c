/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm selftest --system on Windows: the checks read Linux's /proc and
 * /sys (governors, isolcpus, IRQ affinity, RT throttling, the card's
 * interrupt threads), which have no Windows counterpart; the command says
 * so, with what matters on Windows instead (docs/windows-tools.md).
 */
#include "config.h"

#include "system-checks.h"

int cli_selftest_system(struct cli *cli, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_error(cli,
			 "selftest --system checks a Linux machine (/proc and /sys: CPU "
			 "governors, isolated CPUs, interrupt affinity, real-time throttling) and "
			 "is Linux-only; on Windows, see docs/windows-tools.md (power plan, "
			 "timer resolution, DPC latency)");
}
