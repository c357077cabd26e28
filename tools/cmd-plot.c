/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm plot FILE NAMES... -o PNG: recorded variables against time, drawn
 * by the Python module rfm.plot with Debian's matplotlib. The tool runs
 * the interpreter on it, finding the module in the build tree when it
 * runs from there, else in the installed package, and says what is
 * missing when the module or matplotlib is.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "os/tool-os.h"

#ifndef RFM_PYTHON
#define RFM_PYTHON "python3"
#endif
#ifndef RFM_PYTHONDIR
#define RFM_PYTHONDIR ""
#endif
#ifndef RFM_BUILD_PYTHONPATH
#define RFM_BUILD_PYTHONPATH ""
#endif

/* The module's errors are its own; a package that cannot be imported is said here. */
static const char bootstrap[] =
	"import sys\n"
	"try:\n"
	"    import rfm.plot as plot\n"
	"except ImportError as e:\n"
	"    sys.stderr.write('rfm: plot: the Python package rfm cannot be imported (%s): '\n"
	"                     'build librfm with its Python bindings (Debian: swig python3-dev) '\n"
	"                     'or install its Python package\\n' % e)\n"
	"    sys.exit(1)\n"
	"sys.argv[0] = 'rfm plot'\n"
	"sys.exit(plot.main(sys.argv[1:]))\n";

int cli_run_plot(struct cli *cli, int argc, char **argv)
{
	char *path = NULL;
	const char *python = getenv("RFM_PYTHON");
	const char *old = getenv("PYTHONPATH");
	/* Everything after "plot" goes to the module, which parses its own options. */
	for (int i = 0; i < argc; i++)
		if (cli->want_help || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cli_print_command_help(stdout, cli->command);
			return CLI_EXIT_DONE;
		}
	if (!python || !python[0])
		python = RFM_PYTHON[0] ? RFM_PYTHON : "python3";
	const char *first = cli_in_build_tree() ? RFM_BUILD_PYTHONPATH : RFM_PYTHONDIR;
	const char *second = cli_in_build_tree() ? RFM_PYTHONDIR : "";
	if (asprintf(&path, "%s%s%s%s%s", first, second[0] ? ":" : "", second,
		     old && old[0] ? ":" : "", old && old[0] ? old : "") < 0)
		return cli_error(cli, "out of memory");
	int err = tool_os_setenv("PYTHONPATH", path);
	free(path);
	if (err)
		return cli_error(cli, "cannot set PYTHONPATH: %s", strerror(err));
	char **args = calloc((size_t)argc + 4, sizeof(*args));
	if (!args)
		return cli_error(cli, "out of memory");
	int n = 0;
	args[n++] = (char *)python;
	args[n++] = (char *)"-c";
	args[n++] = (char *)bootstrap;
	for (int i = 1; i < argc; i++)
		args[n++] = argv[i];
	fflush(stdout);
	err = tool_os_exec(python, args, true);
	free(args);
	return cli_error(cli, "cannot run %s for the plot: %s (set RFM_PYTHON to the interpreter)",
			 python, strerror(err));
}

const char cli_help_plot[] =
	"Draw the recorded variables NAME of FILE (an HDF5 recording of rfm\n"
	"record) against time, one panel per variable, into a PNG, with\n"
	"matplotlib (Debian: python3-matplotlib, python3-h5py). NAME is a\n"
	"variable, record (every number in it), region.record.var or a record\n"
	"stream's field; times are seconds from the recording's start (or its\n"
	"trigger). Run by the Python module rfm.plot (python3 -m rfm.plot).\n"
	"\n"
	"Options (the module's):\n"
	"  -o, --output PNG    the picture to write (required)\n"
	"      --from S        start at S seconds\n"
	"      --to S          end at S seconds\n"
	"      --title TEXT    the figure's title (default: the file name)\n"
	"\n"
	"Environment: RFM_PYTHON, the interpreter (default the one configure found).\n";
