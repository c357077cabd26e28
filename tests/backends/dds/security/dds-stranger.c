/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stranger on a secure DDS domain, built from src/backends/dds/dds-wire.idl
 * with idlc as anyone could: it publishes on a network's stream topic
 * with librfm's QoS, without being a node, with or without DDS Security
 * files of its own (test-dds-security.py). tests/backends/dds/dds-rogue
 * is the stranger of the plain network's forgeries.
 *
 *   dds-stranger DOMAIN NETWORK WRITER INC SEQ OFFSET TEXT
 *
 * writes one WRITE sample "from" node WRITER (incarnation INC, sequence
 * SEQ) of TEXT at OFFSET, once a reader matches, and waits until every
 * reader acknowledged it. Exit 0, or 1 with the reason on stderr, or 3
 * when no node's reader matched it within the wait.
 *
 * From the environment, for the secure networks' tests:
 *   RFM_ROGUE_SECURITY=DIR   its participant uses DDS Security with DIR's
 *                            files, named as security=DIR's (ca.pem,
 *                            node.pem, node.key, governance.p7s,
 *                            permissions.p7s); RFM_ROGUE_PERMISSIONS_CA
 *                            names another permissions CA file
 *   RFM_ROGUE_PARTITION=P    publish in partition P, not NETWORK
 *   RFM_ROGUE_WAIT_MS=MS     how long to wait for a match (20000)
 *   RFM_ROGUE_READERS=N      wait for N readers, not 1 (a sample is only
 *                            for the readers matched when it is written)
 *   RFM_ROGUE_EVENT=TYPE     send an EVENT of TYPE to every node instead,
 *                            its data word TEXT (a number)
 *   RFM_ROGUE_PRESENCE=SIZE  first claim node WRITER on the presence topic
 *                            (incarnation INC, a SIZE-byte window), from
 *                            the participant of the stream writer; then
 *                            (TEXT "-": no sample) print "claimed" and hold
 *                            the claim until stdin ends
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dds/dds.h>

#include "backends/dds/dds-wire.h"

static int fail(const char *what, dds_return_t rc)
{
	fprintf(stderr, "dds-stranger: %s: %s\n", what, dds_strretcode(rc));
	return 1;
}

static void prop_file(dds_qos_t *q, const char *prop, const char *dir, const char *file)
{
	char v[4200];

	snprintf(v, sizeof(v), "file:%s/%s", dir, file);
	dds_qset_prop(q, prop, v);
}

/* The participant's qos with DDS Security from @dir's files, as a node's. */
static dds_qos_t *security_qos(const char *dir)
{
	static const char *const plugin[][3] = {
		{ "auth", "libdds_security_auth.so", "authentication" },
		{ "crypto", "libdds_security_crypto.so", "crypto" },
		{ "access", "libdds_security_ac.so", "access_control" },
	};
	dds_qos_t *q = dds_create_qos();
	const char *pca = getenv("RFM_ROGUE_PERMISSIONS_CA");
	char lib[4096] = ".", key[64], v[4200];
	Dl_info info;

	/* Cyclone's plugins: in Debian's directory beside libddsc, else beside it. */
	if (dladdr((void *)dds_create_participant, &info) && strrchr(info.dli_fname, '/'))
		snprintf(lib, sizeof(lib), "%.*s", (int)(strrchr(info.dli_fname, '/') - info.dli_fname),
			 info.dli_fname);
	snprintf(v, sizeof(v), "%s/libddsc0debian/%s", lib, plugin[0][1]);
	if (access(v, R_OK) == 0)
		strcat(lib, "/libddsc0debian");
	for (int i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "dds.sec.%s.library.path", plugin[i][0]);
		snprintf(v, sizeof(v), "%s/%s", lib, plugin[i][1]);
		dds_qset_prop(q, key, v);
		snprintf(key, sizeof(key), "dds.sec.%s.library.init", plugin[i][0]);
		snprintf(v, sizeof(v), "init_%s", plugin[i][2]);
		dds_qset_prop(q, key, v);
		snprintf(key, sizeof(key), "dds.sec.%s.library.finalize", plugin[i][0]);
		snprintf(v, sizeof(v), "finalize_%s", plugin[i][2]);
		dds_qset_prop(q, key, v);
	}
	prop_file(q, "dds.sec.auth.identity_ca", dir, "ca.pem");
	prop_file(q, "dds.sec.auth.identity_certificate", dir, "node.pem");
	prop_file(q, "dds.sec.auth.private_key", dir, "node.key");
	if (pca) {
		snprintf(v, sizeof(v), "file:%s", pca);
		dds_qset_prop(q, "dds.sec.access.permissions_ca", v);
	} else {
		prop_file(q, "dds.sec.access.permissions_ca", dir, "ca.pem");
	}
	prop_file(q, "dds.sec.access.governance", dir, "governance.p7s");
	prop_file(q, "dds.sec.access.permissions", dir, "permissions.p7s");
	return q;
}

/* Wait for @readers of the victims to match @w; 0, or 3 at the deadline. */
static int wait_match(dds_entity_t pp, dds_entity_t w, uint32_t readers, long wait_ms)
{
	dds_entity_t ws = dds_create_waitset(pp);
	dds_publication_matched_status_t st = { 0 };
	dds_time_t end = dds_time() + DDS_MSECS(wait_ms);

	dds_set_status_mask(w, DDS_PUBLICATION_MATCHED_STATUS);
	dds_waitset_attach(ws, w, w);
	while (dds_get_publication_matched_status(w, &st) == 0 && st.current_count < readers &&
	       dds_time() < end)
		dds_waitset_wait_until(ws, NULL, 0, end);
	if (st.current_count < readers) {
		fail("no node's reader matched", DDS_RETCODE_TIMEOUT);
		return 3;
	}
	return 0;
}

/* A writer of @topic in partition @part, reliable, with @durability and history @keep (0: all). */
static dds_entity_t make_writer(dds_entity_t topic, const char *part,
				dds_durability_kind_t durability, int keep)
{
	dds_qos_t *q = dds_create_qos();

	dds_qset_partition(q, 1, &part);
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
	dds_qset_durability(q, durability);
	if (keep)
		dds_qset_history(q, DDS_HISTORY_KEEP_LAST, keep);
	else
		dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_entity_t w = dds_create_writer(dds_get_participant(topic), topic, q, NULL);
	dds_delete_qos(q);
	return w;
}

/* A presence claim of node @id, held (not pending), as a node announces itself. */
static int claim(dds_entity_t pp, const char *part, uint32_t readers, long wait_ms, int id,
		 uint32_t inc, uint64_t size)
{
	dds_entity_t topic = dds_create_topic(pp, &rfm_dds_Node_desc, "rfm_node", NULL, NULL);
	if (topic < 0)
		return fail("node topic", topic);
	dds_entity_t w = make_writer(topic, part, DDS_DURABILITY_TRANSIENT_LOCAL, 1);
	if (w < 0)
		return fail("node writer", w);
	int ret = wait_match(pp, w, readers, wait_ms);
	if (ret)
		return ret;
	rfm_dds_Node me = { .id = (uint8_t)id, .inc = inc, .pid = 1, .size = size, .host = "rogue" };
	dds_return_t rc = dds_write(w, &me);
	if (rc < 0)
		return fail("claim", rc);
	rc = dds_wait_for_acks(w, DDS_SECS(10));
	if (rc < 0)
		return fail("waiting for the readers' acks", rc);
	return 0;
}

/* The stream sample of argv (a WRITE, or an EVENT with RFM_ROGUE_EVENT) on @w. */
static int send_sample(dds_entity_t w, char **argv)
{
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
	if (getenv("RFM_ROGUE_EVENT")) {
		m.kind = 2; /* DDS_KIND_EVENT */
		m.type = (uint32_t)atoi(getenv("RFM_ROGUE_EVENT"));
		m.word = (uint32_t)strtoul(text, NULL, 0);
		m.data._length = m.data._maximum = 0;
		m.data._buffer = NULL;
	}
	dds_return_t rc = dds_write(w, &m);
	if (rc < 0)
		return fail("write", rc);
	rc = dds_wait_for_acks(w, DDS_SECS(10));
	if (rc < 0)
		return fail("waiting for the readers' acks", rc);
	return 0;
}

static long env_number(const char *name, long dflt)
{
	const char *v = getenv(name);

	return v ? strtol(v, NULL, 0) : dflt;
}

int main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr, "usage: %s DOMAIN NETWORK WRITER INC SEQ OFFSET TEXT\n", argv[0]);
		return 2;
	}
	const char *part = getenv("RFM_ROGUE_PARTITION") ? getenv("RFM_ROGUE_PARTITION") : argv[2];
	const char *sec = getenv("RFM_ROGUE_SECURITY");
	const char *presence = getenv("RFM_ROGUE_PRESENCE");
	uint32_t readers = (uint32_t)env_number("RFM_ROGUE_READERS", 1);
	long wait_ms = env_number("RFM_ROGUE_WAIT_MS", 20000);
	dds_qos_t *pq = sec ? security_qos(sec) : NULL;
	dds_entity_t pp = dds_create_participant((dds_domainid_t)atoi(argv[1]), pq, NULL);
	if (pq)
		dds_delete_qos(pq);
	if (pp < 0)
		return fail("participant", pp);
	/* The stream writer first: a claim counts once its participant has one. */
	dds_entity_t topic = dds_create_topic(pp, &rfm_dds_Msg_desc, "rfm_stream", NULL, NULL);
	dds_entity_t w = topic < 0 ? topic : make_writer(topic, part, DDS_DURABILITY_VOLATILE, 0);
	/* Wait for the victims' readers: a waitset on the match, with a deadline. */
	int ret = w < 0 ? fail(topic < 0 ? "topic" : "writer", w) : wait_match(pp, w, readers, wait_ms);
	if (!ret && presence)
		ret = claim(pp, part, readers, wait_ms, atoi(argv[3]),
			    (uint32_t)strtoul(argv[4], NULL, 0), strtoull(presence, NULL, 0));
	if (!ret && strcmp(argv[7], "-"))
		ret = send_sample(w, argv);
	if (!ret && presence) {
		printf("claimed\n");
		fflush(stdout);
		while (getchar() != EOF)
			;
	}
	/* On every way out: under TSan, exiting with the participant open
	 * after a refused writer crashed in Cyclone's exit handler. */
	dds_delete(pp);
	return ret;
}
