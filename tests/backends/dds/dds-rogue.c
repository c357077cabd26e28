/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stranger on the DDS domain, built from src/backends/dds/dds-wire.idl
 * with idlc as anyone could: it publishes on a network's stream topic
 * with librfm's QoS, without being a node. The tests run it against real
 * nodes and assert what the victims did with its samples.
 *
 *   dds-rogue DOMAIN NETWORK WRITER INC SEQ OFFSET TEXT
 *
 * writes one WRITE sample "from" node WRITER (incarnation INC, sequence
 * SEQ) of TEXT at OFFSET, once a reader matches, and waits until every
 * reader acknowledged it. Exit 0, or 1 with the reason on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>

#include "backends/dds/dds-wire.h"

static int fail(const char *what, dds_return_t rc)
{
	fprintf(stderr, "dds-rogue: %s: %s\n", what, dds_strretcode(rc));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr, "usage: %s DOMAIN NETWORK WRITER INC SEQ OFFSET TEXT\n", argv[0]);
		return 2;
	}
	const char *part = argv[2];
	dds_entity_t pp = dds_create_participant((dds_domainid_t)atoi(argv[1]), NULL, NULL);
	if (pp < 0)
		return fail("participant", pp);
	dds_entity_t topic = dds_create_topic(pp, &rfm_dds_Msg_desc, "rfm_stream", NULL, NULL);
	if (topic < 0)
		return fail("topic", topic);
	dds_qos_t *q = dds_create_qos();
	dds_qset_partition(q, 1, &part);
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	dds_entity_t w = dds_create_writer(pp, topic, q, NULL);
	dds_delete_qos(q);
	if (w < 0)
		return fail("writer", w);

	/* Wait for a victim's reader: a waitset on the match, with a deadline. */
	dds_entity_t ws = dds_create_waitset(pp);
	dds_set_status_mask(w, DDS_PUBLICATION_MATCHED_STATUS);
	dds_waitset_attach(ws, w, w);
	dds_publication_matched_status_t st = { 0 };
	dds_time_t end = dds_time() + DDS_SECS(20);
	while (dds_get_publication_matched_status(w, &st) == 0 && st.current_count == 0 &&
	       dds_time() < end)
		dds_waitset_wait_until(ws, NULL, 0, end);
	if (st.current_count == 0)
		return fail("no node's reader matched", DDS_RETCODE_TIMEOUT);

	const char *text = argv[7];
	rfm_dds_Msg m = {
		.inc = (uint32_t)strtoul(argv[4], NULL, 0),
		.seq = strtoull(argv[5], NULL, 0),
		.kind = 1, /* DDS_KIND_WRITE */
		.writer = (uint8_t)atoi(argv[3]),
		.to = 0xffff,
		.offset = strtoull(argv[6], NULL, 0),
		.data = { ._maximum = (uint32_t)strlen(text), ._length = (uint32_t)strlen(text),
			  ._buffer = (uint8_t *)text },
	};
	dds_return_t rc = dds_write(w, &m);
	if (rc < 0)
		return fail("write", rc);
	rc = dds_wait_for_acks(w, DDS_SECS(10));
	if (rc < 0)
		return fail("waiting for the readers' acks", rc);
	dds_delete(pp);
	return 0;
}
