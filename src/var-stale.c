/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether a variable's data is stale: the node that writes it (its
 * region's writer) is down. Read from the node table, as rfm serve shows
 * it; a reader, it writes nothing to the window.
 */
#include "config.h"

#include <stdlib.h>

#include "layout-internal.h"

RFM_API int rfm_var_stale(rfm_node *node, const rfm_var *var)
{
	struct rfm_var_info info;
	struct rfm_node_status *rows;
	int n, stale = 1;

	if (!node || !var)
		return rfm__error(RFM_EINVAL, "rfm_var_stale: %s is NULL", node ? "var" : "node");
	rfm__var_info(var->lh.layout, var->lh.index, &info);
	if (info.writer >= RFM_MAX_NODES)
		return rfm__error(RFM_EINVAL, "rfm_var_stale: %s has no writer node", var->name);
	/* The table is read whole (rows by id); on the heap, as it is 35 KiB. */
	rows = calloc(RFM_MAX_NODES, sizeof(*rows));
	if (!rows)
		return rfm__error(RFM_ENOMEM, "rfm_var_stale: out of memory");
	n = rfm_health_nodes(node, rows, RFM_MAX_NODES);
	if (n < 0) {
		free(rows);
		return n;
	}
	for (int i = 0; i < n && i < RFM_MAX_NODES; i++)
		if (rows[i].id == info.writer) {
			/* Attached and never beat: nothing says it stopped. */
			stale = !rows[i].attached || (rows[i].period_ns && !rows[i].alive);
			break;
		}
	free(rows);
	return stale;
}
