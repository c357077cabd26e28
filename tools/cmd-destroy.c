/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rfm destroy: remove the network named by the URI. */
#include "config.h"

#include "cli.h"

static const struct option destroy_options[] = {
	{ "force", no_argument, NULL, 'f' },
	{ NULL, 0, NULL, 0 },
};

int cli_run_destroy(struct cli *cli, int argc, char **argv)
{
	unsigned int flags = 0;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "f", destroy_options)) > 0)
		if (opt == 'f')
			flags |= RFM_DESTROY_FORCE;
	ret = cli_options_end(cli, opt, argc, argv, 0, 0);
	if (ret)
		return ret;
	/* No node is opened: that would attach to (or create) the network. */
	if (rfm_network_destroy(cli->uri, flags))
		return cli_fail(cli);
	if (cli->json) {
		struct json_object *obj = json_object_new_object();

		cli_json_add_string(obj, "uri", cli_effective_uri(cli));
		cli_json_add_bool(obj, "destroyed", true);
		cli_json_add_bool(obj, "forced", flags & RFM_DESTROY_FORCE);
		cli_json_print(obj);
	}
	return CLI_EXIT_OK;
}

const char cli_help_destroy[] =
	"Remove the network of the URI (for shm:, its shared-memory segment);\n"
	"the node and size parameters of the URI are ignored. A network with\n"
	"attached nodes is refused unless --force is given: its nodes keep\n"
	"their copy but no longer reach nodes that open the name afterwards.\n"
	"Prints nothing on success.\n"
	"\n"
	"Options:\n"
	"  -f, --force    remove it even while nodes are attached\n"
	"\n"
	"JSON keys: uri, destroyed, forced.\n";
