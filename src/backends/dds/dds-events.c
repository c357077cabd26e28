/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Events on the dds: backend. A send is an EVENT sample on the sender's
 * ordered stream, behind the writes made before it, so a receiver takes
 * the event only after its copy holds that data. The receive thread puts
 * the records for this node into the handle's own queue (event-localq.h:
 * private memory, overflow counted); records for the own node (loopback,
 * health, a ring's consumer beside its producer) go straight into it
 * (rfm__dds_deliver, dds-sample.c).
 */
#include "config.h"

#include <stddef.h>

#include "backends/dds/dds-internal.h"

static int dds_ev_send(struct rfm_node *node, unsigned int to, struct rfm_ev_record *rec)
{
	struct dds_node *d = node->priv;
	bool self = to == (unsigned int)node->id ||
		    (to == RFM_NODE_ALL && __atomic_load_n(&node->loopback, __ATOMIC_RELAXED));
	int ret, n = 0;

	rec->sent_ns = rfm__now_ns();
	if (to != (unsigned int)node->id) {
		rfm_dds_Msg m = {
			.kind = DDS_KIND_EVENT,
			.to = (uint16_t)to,
			.type = rec->type,
			.word = rec->data,
			.stamp = rec->sent_ns,
		};

		if (d->forked)
			return rfm__error(RFM_ECLOSED, "%s: handle inherited through fork()",
					  node->uri);
		/* Writes held back go out with it, as one sample. */
		ret = rfm__dds_lock_to_send(d);
		if (ret)
			return ret;
		if (d->send.batch_len)
			ret = rfm__dds_flush_locked(d, &m);
		else
			ret = rfm__dds_send_locked(d, &m);
		rfm__dds_send_unlock(d);
		if (ret)
			return ret;
		n++; /* on the network; who takes it is not known here */
	}
	if (self) {
		rfm__dds_deliver(node, rec);
		n++;
	}
	return n;
}

/* The queue's ops find it first in struct dds_node. */
_Static_assert(offsetof(struct dds_node, q) == 0, "the event queue begins a dds: handle");

const struct rfm_backend_ev_ops rfm__dds_ev_ops = {
	.send = dds_ev_send,
	.set_mask = rfm__localq_ev_set_mask,
	RFM__LOCALQ_EV_OPS,
};
