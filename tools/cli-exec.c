/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Programs the rfm tool runs in its place: rfm plot's Python, and its
 * helper programs. A command whose code needs a large library (rfm
 * replay: HDF5 and the 31 libraries it brings) is a helper program of
 * its own, so that every other command, rfm --version included, starts
 * without loading it; rfm runs the helper with its own command line.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "os/tool-os.h"

#ifndef RFM_BUILDDIR
#define RFM_BUILDDIR ""
#endif
#ifndef RFM_PKGLIBEXECDIR
#define RFM_PKGLIBEXECDIR ""
#endif

bool cli_in_build_tree(void)
{
	char exe[PATH_MAX], *build;
	bool inside;

	if (!tool_os_self_path(exe, sizeof(exe)) || !RFM_BUILDDIR[0] ||
	    !(build = tool_os_realpath(RFM_BUILDDIR)))
		return false;
	size_t len = strlen(build);
	inside = !strncmp(exe, build, len) && tool_os_is_dir_sep(exe[len]);
	free(build);
	return inside;
}

int cli_exec_helper(struct cli *cli, const char *name)
{
	char path[PATH_MAX];
	bool build = cli_in_build_tree();
	int n = snprintf(path, sizeof(path), "%s/%s", build ? RFM_BUILDDIR "/tools" :
			 RFM_PKGLIBEXECDIR, name);

	if (n < 0 || (size_t)n >= sizeof(path))
		return cli_error(cli, "the path of %s is too long", name);
	fflush(stdout);
	int err = tool_os_exec(path, cli->argv, false);
	return cli_error(cli, "cannot run %s: %s (it comes with the rfm tool: Debian: reinstall "
			 "rfm-tools)", path, strerror(err));
}
