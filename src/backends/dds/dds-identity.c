/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who wrote a sample: the DDS participant and the partitions of the
 * writer behind a SampleInfo's publication handle, as discovery told us.
 * A node id is bound to the participant that claimed it (dds-presence.c),
 * and a sample naming that id from any other participant is refused; so
 * each sample's writer must be known, cheaply. Cyclone answers
 * dds_get_matched_publication_data() only while the writer is matched,
 * and a writer's last samples may be taken after it is gone: the
 * identities are therefore also learnt when a writer matches, and kept in
 * a small cache (a handle is never reused, so an entry never lies; the
 * oldest is replaced when the cache is full).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "backends/dds/dds-internal.h"

static struct dds_writer_entry *cached(struct dds_node *d, dds_instance_handle_t h)
{
	for (unsigned int i = 0; i < RFM_DDS_WRITERS_MAX; i++)
		if (d->recv.writers[i].handle == h)
			return &d->recv.writers[i];
	return NULL;
}

/* The node id every one of the writer's partitions names (-1: none, or
 * not one for all). A writer in two networks' partitions is read in
 * both, so one naming another network's node names none of ours. */
static void note_partitions(const struct dds_node *d, const dds_qos_t *qos,
			    struct dds_writer_id *id)
{
	uint32_t n = 0;
	char **ps = NULL;

	id->node = -1;
	if (!qos || !dds_qget_partition(qos, &n, &ps))
		return;
	for (uint32_t i = 0; i < n; i++) {
		int node = rfm__dds_partition_node(d, ps[i]);

		id->node = i == 0 || node == id->node ? node : -1;
		if (id->node < 0)
			break;
	}
	for (uint32_t i = 0; i < n; i++)
		dds_free(ps[i]);
	dds_free(ps);
}

bool rfm__dds_writer_identity(struct dds_node *d, dds_entity_t reader, bool stream,
			      dds_instance_handle_t h, struct dds_writer_id *out)
{
	struct dds_writer_entry *e = h ? cached(d, h) : NULL;

	if (!h)
		return false;
	if (!e) {
		dds_builtintopic_endpoint_t *ep = dds_get_matched_publication_data(reader, h);

		if (!ep)
			return false; /* gone before we learnt it */
		e = &d->recv.writers[d->recv.writers_next++ % RFM_DDS_WRITERS_MAX];
		e->handle = h;
		e->id.stream = stream;
		e->id.participant = ep->participant_key;
		note_partitions(d, ep->qos, &e->id);
		dds_builtintopic_free_endpoint(ep);
	}
	if (out)
		*out = e->id;
	return true;
}

bool rfm__dds_writer_cached(struct dds_node *d, dds_instance_handle_t h, struct dds_writer_id *out)
{
	struct dds_writer_entry *e = h ? cached(d, h) : NULL;

	if (e && out)
		*out = e->id;
	return e != NULL;
}

bool rfm__dds_stream_writer_of(const struct dds_node *d, const dds_guid_t *who)
{
	for (unsigned int i = 0; i < RFM_DDS_WRITERS_MAX; i++)
		if (d->recv.writers[i].handle && d->recv.writers[i].id.stream &&
		    rfm__dds_same_participant(&d->recv.writers[i].id.participant, who))
			return true;
	return false;
}

bool rfm__dds_same_participant(const dds_guid_t *a, const dds_guid_t *b)
{
	return !memcmp(a, b, sizeof(*a));
}

bool rfm__dds_guid_known(const dds_guid_t *g)
{
	static const dds_guid_t unknown;

	return !rfm__dds_same_participant(g, &unknown);
}

bool rfm__dds_matches(dds_entity_t e, bool writer, const dds_guid_t *who)
{
	dds_instance_handle_t h[2 * RFM_MAX_NODES];
	dds_return_t n = writer ? dds_get_matched_subscriptions(e, h, RFM_ARRAY_SIZE(h))
				: dds_get_matched_publications(e, h, RFM_ARRAY_SIZE(h));
	bool found = false;

	for (dds_return_t i = 0; i < n && i < (dds_return_t)RFM_ARRAY_SIZE(h) && !found; i++) {
		dds_builtintopic_endpoint_t *ep = writer
			? dds_get_matched_subscription_data(e, h[i])
			: dds_get_matched_publication_data(e, h[i]);

		if (ep) {
			found = rfm__dds_same_participant(&ep->participant_key, who);
			dds_builtintopic_free_endpoint(ep);
		}
	}
	return found;
}
