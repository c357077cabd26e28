/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Opening nodes by URI, choosing the backend by scheme; node facts. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health-table.h"
#include "rt-internal.h"

/* Detach from the backend and free the handle. */
static void node_free(struct rfm_node *node);

/*
 * RFM_NO_DDS_BACKEND: the copy of the core inside the static librfm2g.a,
 * which must link with -lpthread alone, leaves out dds: (it needs Cyclone
 * DDS's shared library; src/librfm2g/local.mk).
 */
#if defined(HAVE_DDS) && !defined(RFM_NO_DDS_BACKEND)
#define WITH_DDS_BACKEND 1
#endif

/* The backends this build has: dev: and rfm2g: where their drivers exist
 * (configure: Linux), dds: where Cyclone DDS was found. */
static const struct rfm_backend_ops *const backends[] = {
	&rfm__shm_ops,
#ifdef HAVE_DEV_BACKEND
	&rfm__dev_ops,
#endif
#ifdef HAVE_RFM2G_BACKEND
	&rfm__rfm2g_ops,
#endif
#ifdef WITH_DDS_BACKEND
	&rfm__dds_ops,
#endif
};

static int find_backend(const struct rfm_uri *uri, const struct rfm_backend_ops **opsp)
{
	char expected[128] = "";
	size_t n = RFM_ARRAY_SIZE(backends);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(backends[i]->scheme, uri->scheme)) {
			*opsp = backends[i];
			return 0;
		}
	for (size_t i = 0; i < n; i++)
		snprintf(expected + strlen(expected), sizeof(expected) - strlen(expected), "%s%s:",
			 i == 0 ? "" : i + 1 < n ? ", " : " or ", backends[i]->scheme);
	return rfm__error(RFM_ESCHEME, "%s: unknown scheme '%s:' (expected %s%s)", uri->text,
			  uri->scheme, expected,
#ifdef WITH_DDS_BACKEND
			  ""
#elif defined(HAVE_DDS)
			  "; dds: is not in the static librfm2g.a: link the shared librfm2g for it"
#else
			  "; dds: needs a build with Cyclone DDS"
#endif
	);
}

static int open_node(const char *uri_text, const struct rfm_open_options *options,
		     rfm_node **nodep)
{
	const struct rfm_backend_ops *ops = NULL; /* set when find_backend() returns 0 */
	struct rfm_uri uri;
	struct rfm_node_alloc *alloc;
	struct rfm_node *node;
	int ret;

	if (!nodep)
		return rfm__error(RFM_EINVAL, "rfm_open: nodep is NULL");
	ret = rfm__uri_parse(rfm__default_uri(uri_text), &uri);
	if (ret)
		return ret;
	ret = find_backend(&uri, &ops);
	if (ret)
		goto out_uri;

	/* The handle with the core's own part after it (internal.h). */
	alloc = calloc(1, sizeof(*alloc));
	node = alloc ? &alloc->node : NULL;
	if (!node) {
		ret = rfm__error(RFM_ENOMEM, "%s: out of memory", uri.text);
		goto out_uri;
	}
	node->ops = ops;
	ret = rfm__attach_options(node, &uri, options);
	if (!ret)
		ret = rfm__event_options(node, &uri);
	if (!ret)
		ret = rfm__hb_options(node, &uri);
	if (!ret)
		ret = rfm__rt_options(node, &uri, options);
	/* Before the backend: its receive threads may offer records to
	 * callbacks as soon as it runs (rfm__event_claim_inline). */
	if (!ret)
		ret = rfm__event_init(node);
	if (!ret)
		ret = ops->open(node, &uri);
	if (ret) {
		rfm__event_free(node);
		free(rfm__core(node)->rt);
		free(node);
		goto out_uri;
	}
	ret = rfm__mem_window(node);
	if (ret) {
		node_free(node);
		goto out_uri;
	}
	rfm__node_register(node);
	*nodep = node;
out_uri:
	rfm__uri_free(&uri);
	return ret;
}

RFM_API int rfm_open(const char *uri_text, rfm_node **nodep)
{
	return open_node(uri_text, NULL, nodep);
}

RFM_API int rfm_open_with_options(const char *uri_text, const struct rfm_open_options *options,
				  rfm_node **nodep)
{
	return open_node(uri_text, options, nodep);
}

static void node_free(struct rfm_node *node)
{
	node->ops->close(node);
	/* Only now: the backend's threads are gone (they may look at it). */
	rfm__event_free(node);
	free(rfm__core(node)->rt);
	free(node->uri);
	free(node);
}

RFM_API void rfm_close(rfm_node *node)
{
	if (!node)
		return;
	rfm__node_unregister(node);
	/* Threads first: nothing may touch the backend once it is closed. */
	rfm__health_close(node);
	if (rfm__event_close(node, node_free))
		node_free(node);
}

RFM_API int rfm_node_id(const rfm_node *node)
{
	if (!node)
		return rfm__error(RFM_EINVAL, "rfm_node_id: node is NULL");
	if (node->id < 0)
		return rfm__error(RFM_ENODEID, "%s: an observer holds no node id", node->uri);
	return node->id;
}

RFM_API uint64_t rfm_node_size(const rfm_node *node)
{
	return node ? node->size : 0;
}

RFM_API const char *rfm_node_backend(const rfm_node *node)
{
	return node ? node->ops->scheme : "";
}

RFM_API const char *rfm_node_uri(const rfm_node *node)
{
	return node && node->uri ? node->uri : "";
}

RFM_API int rfm_node_get_info(const rfm_node *node, struct rfm_node_info *info)
{
	struct rfm_node_info full;
	int ret;

	ret = rfm__sized_check("rfm_node_get_info", node, info, info ? info->struct_size : 0,
			     offsetof(struct rfm_node_info, size));
	if (ret)
		return ret;
	memset(&full, 0, sizeof(full));
	full.node_id = node->id;
	full.size = node->size;
	full.max_nodes = RFM_MAX_NODES;
	full.incarnation = node->incarnation;
	full.attach = rfm__attach_mode(node);
	strncpy(full.backend, node->ops->scheme, sizeof(full.backend) - 1);
	strncpy(full.uri, rfm_node_uri(node), sizeof(full.uri) - 1);
	if (node->ops->get_info)
		node->ops->get_info(node, &full);
	if (node->ops->link_status)
		full.link = node->ops->link_status((struct rfm_node *)node);
	/* Fill only what the caller's (possibly older, smaller) struct holds. */
	rfm__sized_fill(info, &full, sizeof(full));
	return 0;
}

RFM_API int rfm_network_destroy(const char *uri_text, unsigned int flags)
{
	const struct rfm_backend_ops *ops = NULL; /* set when find_backend() returns 0 */
	struct rfm_uri uri;
	int ret;

	if (flags & ~RFM_DESTROY_FORCE)
		return rfm__error(RFM_EINVAL, "rfm_network_destroy: unknown flags 0x%x", flags);
	ret = rfm__uri_parse(rfm__default_uri(uri_text), &uri);
	if (ret)
		return ret;
	ret = find_backend(&uri, &ops);
	rfm__rt_uri_ignore(&uri); /* options of a node, not of the network */
	rfm__uri_take(&uri, "observe");
	rfm__uri_take(&uri, "tool");
	if (!ret && !ops->destroy)
		ret = rfm__error(RFM_ENOTSUP, "%s: the %s: backend has no network to remove",
				 uri.text, ops->scheme);
	if (!ret)
		ret = ops->destroy(&uri, flags);
	rfm__uri_free(&uri);
	return ret;
}
