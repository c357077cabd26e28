/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rfm replay in a tool built without libhdf5: it says what is missing. */
#include "config.h"

#include "cli.h"

int cli_run_replay(struct cli *cli, int argc, char **argv)
{
	int ret = cli_parse_args(cli, argc, argv, 0, 100000);

	if (ret)
		return ret;
	return cli_error(cli, "this rfm was built without HDF5 (configure --without-hdf5, or no "
			 "libhdf5 found), and recordings are HDF5 files (Debian: libhdf5-dev, "
			 "then configure --with-hdf5)");
}

const char cli_help_replay[] =
	"Write an HDF5 recording of rfm record back into the network at its\n"
	"recorded times. This rfm was built without HDF5: it only says so.\n";
