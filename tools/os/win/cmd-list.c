/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm list on Windows. Linux's rfm list reads the segment files of
 * /dev/shm and counts their nodes from POSIX record locks without taking
 * any (F_OFD_GETLK); Windows offers no way to see a byte-range lock
 * without trying to take it, and taking one, even for a moment, could
 * turn away a node that attaches then. Rather than a count that changes
 * what it looks at, the command says where the networks are.
 */
#include "config.h"

#include "cli.h"

int cli_shm_footprint(const char *name, uint64_t *bytes)
{
	(void)name;
	(void)bytes;
	return -1; /* unknown: rfm info shows no footprint */
}

int cli_run_list(struct cli *cli, int argc, char **argv)
{
	int ret = cli_parse_args(cli, argc, argv, 0, 0);

	if (ret)
		return ret;
	return cli_error(cli, "list is not available on Windows yet: the networks are the "
			      "files rfm-NAME of %%LOCALAPPDATA%%\\librfm\\shm (or $RFM_SHM_DIR); "
			      "rfm info shm:NAME shows one");
}

const char cli_help_list[] =
    "On Linux, show every emulated network of /dev/shm without attaching to\n"
    "it. Not available on Windows yet: it says where the networks are.\n";
