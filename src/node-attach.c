/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How a handle attaches (node.h, "Observers and tools"): as a node, as an
 * observer that reads and holds no id (observe=1, RFM_ATTACH_OBSERVER), or
 * as a tool that takes an id of the tool range (tool=1, RFM_ATTACH_TOOL);
 * and the one refusal every write, event and heartbeat of an observer
 * gets, so that looking never changes what is looked at.
 */
#include "config.h"

#include <stddef.h>

#include <rfm/realtime.h>

#include "internal.h"

int rfm__attach_options(struct rfm_node *node, struct rfm_uri *uri,
			const struct rfm_open_options *options)
{
	uint32_t attach = RFM_ATTACH_NODE;
	bool observe = false, tool = false;
	int ret;

	/* A struct from before RFM_1.2 stops before the field: a node. */
	if (options && options->struct_size >= offsetof(struct rfm_open_options, attach) +
							sizeof(options->attach))
		attach = options->attach;
	if (attach > RFM_ATTACH_TOOL)
		return rfm__error(RFM_EINVAL, "rfm_open_with_options: unknown attach %u", attach);
	ret = rfm__uri_take_bool(uri, "observe", &observe);
	if (!ret)
		ret = rfm__uri_take_bool(uri, "tool", &tool);
	if (ret)
		return ret;
	if (observe && tool)
		return rfm__error(RFM_EURI, "%s: observe=1 and tool=1 exclude each other: an "
				  "observer holds no node id, a tool holds one", uri->text);
	if (observe || tool)
		attach = observe ? RFM_ATTACH_OBSERVER : RFM_ATTACH_TOOL;
	node->observer = attach == RFM_ATTACH_OBSERVER;
	node->tool = attach == RFM_ATTACH_TOOL;
	if (node->observer && !(node->ops->caps & RFM__CAP_OBSERVE))
		return rfm__error(RFM_ENOTSUP, "%s: the %s: backend has no observers (observe=1)",
				  uri->text, node->ops->scheme);
	return 0;
}

uint32_t rfm__attach_mode(const struct rfm_node *node)
{
	return node->observer ? RFM_ATTACH_OBSERVER : node->tool ? RFM_ATTACH_TOOL
							   : RFM_ATTACH_NODE;
}

int rfm__observer_refused(const struct rfm_node *node, const char *what)
{
	return rfm__error(RFM_EPERM,
			  "%s: %s observes (observe=1): it reads the network and never writes, "
			  "sends, receives or beats; open it as a node (node=N) to %s",
			  what, node->uri ? node->uri : "this handle",
			  "act as one");
}
