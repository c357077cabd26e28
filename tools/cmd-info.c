/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rfm info: what the node is and which network it is on. */
#include "config.h"

#include "cli.h"
#include "os/tool-seg.h"

static void print_size(uint64_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	const char *unit = NULL;
	uint64_t scaled = size;

	/* A readable size beside the exact count, when it is a whole unit. */
	for (unsigned int i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (scaled == 0 || scaled % 1024)
			break;
		scaled /= 1024;
		unit = units[i];
	}
	if (unit)
		printf("window size:    %llu bytes (%llu %s)\n", (unsigned long long)size,
		       (unsigned long long)scaled, unit);
	else
		printf("window size:    %llu bytes\n", (unsigned long long)size);
}

int cli_run_info(struct cli *cli, int argc, char **argv)
{
	struct rfm_node_info info = { .struct_size = sizeof(info) };
	int ret;

	ret = cli_parse_args(cli, argc, argv, 0, 0);
	if (!ret)
		ret = cli_open(cli);
	if (ret)
		return ret;
	if (rfm_node_get_info(cli->node, &info))
		return cli_fail(cli);
	/* shm: what the network costs in the segment directory ("shm:NAME?..." names the file). */
	uint64_t footprint = 0;
	char name[80];
	bool has_footprint = sscanf(rfm_node_uri(cli->node), "shm:%79[^?]", name) == 1 &&
			     cli_shm_footprint(name, &footprint) == 0;

	if (cli->json) {
		struct json_object *obj = json_object_new_object();

		/* -1: an observer, which holds no node id (rfm info only looks). */
		cli_json_add_int(obj, "node_id", info.node_id);
		cli_json_add_string(obj, "attach", info.attach == RFM_ATTACH_OBSERVER ? "observer"
						   : info.attach == RFM_ATTACH_TOOL ? "tool"
										   : "node");
		cli_json_add_u64(obj, "size", info.size);
		cli_json_add_string(obj, "backend", info.backend);
		cli_json_add_string(obj, "uri", rfm_node_uri(cli->node));
		cli_json_add_u64(obj, "max_nodes", info.max_nodes);
		cli_json_add_u64(obj, "nodes_attached", info.nodes_attached);
		cli_json_add_u64(obj, "incarnation", info.incarnation);
		/* The card's status bits (RFM_LINK_*); null: no card status (shm:). */
		if (info.link & RFM_LINK_KNOWN)
			cli_json_add_u64(obj, "link", info.link);
		else
			json_object_object_add(obj, "link", NULL);
		cli_json_add_string(obj, "version", rfm_version_string());
		if (has_footprint)
			cli_json_add_u64(obj, "footprint", footprint);
		cli_json_print(obj);
		return CLI_EXIT_OK;
	}
	if (info.node_id < 0)
		printf("node id:        none (an observer: rfm info only looks)\n");
	else
		printf("node id:        %d%s\n", info.node_id,
		       info.attach == RFM_ATTACH_OBSERVER ? " (the card's; an observer)" : "");
	print_size(info.size);
	printf("backend:        %s\n", info.backend);
	printf("uri:            %s\n", rfm_node_uri(cli->node));
	printf("nodes attached: %u of %u\n", info.nodes_attached, info.max_nodes);
	printf("incarnation:    %u\n", info.incarnation);
	if (info.link & RFM_LINK_KNOWN)
		printf("link:           %s%s%s%s%s\n",
		       (info.link & RFM_LINK_SIGNAL) && !(info.link & RFM_LINK_SYNC_LOST) ? "up"
											 : "down",
		       info.link & RFM_LINK_OWN_DATA ? ", ring closed (own data returns)" : "",
		       info.link & RFM_LINK_SYNC_LOST ? ", sync lost" : "",
		       info.link & RFM_LINK_BAD_DATA ? ", bad data" : "",
		       info.link & RFM_LINK_RXFIFO_FULL ? ", receive FIFO full" : "");
	printf("librfm:         %s\n", rfm_version_string());
	if (has_footprint)
		printf("footprint:      %llu bytes in %s (window, header pages and one "
		       "queue per receiving handle)\n",
		       (unsigned long long)footprint, tool_seg_dir());
	return CLI_EXIT_OK;
}

const char cli_help_info[] =
	"Open the node named by --uri and describe it: node id, window size,\n"
	"backend, canonical URI, attached nodes, how many times this node id\n"
	"has been attached (incarnation), the card's link status where the card\n"
	"reports one (dev:) and the library version.\n"
	"For an emulated (shm:) network, also the bytes it occupies in /dev/shm.\n"
	"A shm: network that does not exist is created only when the URI gives\n"
	"its size= (else the command fails: \"no network 'NAME'\").\n"
	"\n"
	"JSON keys: node_id, size, backend, uri, max_nodes, nodes_attached,\n"
	"incarnation, link (RFM_LINK_* bits of node.h; null: no card status),\n"
	"version, footprint (shm: only).\n";
