/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where a node's heartbeat table is: the URI's heartbeat=OFFSET, else the
 * last RFM_HEALTH_TABLE_SIZE bytes of the window. Only checked when health
 * is used, so that a window too small for it still opens.
 */
#include "config.h"

#include "health-table.h"
#include "internal.h"

int rfm__hb_options(struct rfm_node *node, struct rfm_uri *uri)
{
	const char *v = rfm__uri_take(uri, "heartbeat");

	rfm__core(node)->hb_offset = RFM__HB_DEFAULT;
	if (!v)
		return 0;
	if (rfm__parse_size(v, &rfm__core(node)->hb_offset) ||
	    rfm__core(node)->hb_offset == RFM__HB_DEFAULT)
		return rfm__error(RFM_EURI, "%s: heartbeat '%s' must be a byte offset in the window",
				  uri->text, v);
	if (rfm__core(node)->hb_offset % RFM_HEALTH_SLOT_SIZE)
		return rfm__error(RFM_EURI, "%s: heartbeat offset 0x%llx is not a multiple of %u",
				  uri->text, (unsigned long long)rfm__core(node)->hb_offset,
				  RFM_HEALTH_SLOT_SIZE);
	return 0;
}

int rfm__hb_table(struct rfm_node *node, struct rfm_hb_slot **tablep)
{
	uint64_t off = rfm__core(node)->hb_offset;

	if (node->size < RFM_HEALTH_TABLE_SIZE)
		return rfm__error(RFM_ESIZE,
				  "%s: the %llu-byte window has no room for the %u-byte heartbeat table",
				  node->uri, (unsigned long long)node->size, RFM_HEALTH_TABLE_SIZE);
	if (off == RFM__HB_DEFAULT)
		off = node->size - RFM_HEALTH_TABLE_SIZE;
	else if (off > node->size - RFM_HEALTH_TABLE_SIZE)
		return rfm__error(RFM_ERANGE,
				  "%s: the heartbeat table at 0x%llx (heartbeat=) does not fit the "
				  "%llu-byte window",
				  node->uri, (unsigned long long)off, (unsigned long long)node->size);
	*tablep = (struct rfm_hb_slot *)(node->base + off);
	return 0;
}
