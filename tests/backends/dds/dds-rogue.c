/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stranger on the DDS domain, built from src/backends/dds/dds-wire.idl
 * with idlc as anyone could: it publishes on a network's topics with
 * librfm's QoS, without being a node. The tests run it against real
 * nodes and assert what the victims did with its samples.
 *
 *   dds-rogue DOMAIN NETWORK stream KEY=VALUE...
 *     one sample of the stream topic, or count= of them (seq, word + 1
 *     each): writer= inc= seq= kind= (1 write, 2 event, 3 snapshot
 *     request, 4 snapshot piece, 6 batch) to= type= word= offset= extra=,
 *     its data text=, or hex= (bytes in hex: a batch's pieces), or len=N
 *     (N bytes of a pattern); pace_ms=MS between two of them;
 *     claim=ID first writes a held presence claim of ID (incarnation inc=)
 *     from the same participant; listen=MS then reads the stream for MS
 *     and prints "answers SAMPLES BYTES requests N": the snapshot pieces
 *     sent to node writer= (their data bytes), and the resync requests
 *     for its own words asked of it (never answered).
 *   dds-rogue DOMAIN NETWORK answer KEY=VALUE...
 *     a forged answer to a joiner's snapshot request: prints "ready" once
 *     readers= readers matched, waits for one more (the joiner's), then
 *     (up to listen= ms, 20 s unless given) for a copy request, and
 *     answers it at once, as the node asked
 *     and with the request's nonce (both on the wire): a header (window
 *     size size=, 64 KiB unless given), one chunk of text= at offset=, an
 *     end; prints "answered N" (the requester's id) once its readers
 *     acknowledged them.
 *   dds-rogue DOMAIN NETWORK presence KEY=VALUE...
 *     one sample of the node topic: id= inc= pending=0|1 size= pid=, or
 *     dispose=1: dispose the instance (id, inc); stay=1: print "ready"
 *     and keep the participant until SIGTERM.
 *
 * Every sample is written once readers= readers match (1 unless given),
 * and the program waits until every reader acknowledged it. Exit 0, or 1 with the reason on
 * stderr.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dds/dds.h>

#include "backends/dds/dds-wire.h"

static int argc_;
static char **argv_;

static int fail(const char *what, dds_return_t rc)
{
	fprintf(stderr, "dds-rogue: %s: %s\n", what, dds_strretcode(rc));
	return 1;
}

/* The value of KEY= among the arguments after the action, or @def. */
static const char *opt(const char *key, const char *def)
{
	size_t n = strlen(key);

	for (int i = 4; i < argc_; i++)
		if (!strncmp(argv_[i], key, n) && argv_[i][n] == '=')
			return argv_[i] + n + 1;
	return def;
}

static unsigned long long num(const char *key, unsigned long long def)
{
	const char *v = opt(key, NULL);

	return v ? strtoull(v, NULL, 0) : def;
}

static dds_qos_t *base_qos(const char *part)
{
	dds_qos_t *q = dds_create_qos();

	dds_qset_partition(q, 1, &part);
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
	return q;
}

/*
 * Wait (with a deadline) until readers= readers (1 unless given) match
 * writer @w: a sample reaches only the readers matched when it is
 * written, so a test with several victims names how many there are.
 */
static int wait_matches(dds_entity_t pp, dds_entity_t w, uint32_t want)
{
	dds_entity_t ws = dds_create_waitset(pp);
	dds_publication_matched_status_t st = { 0 };
	dds_time_t end = dds_time() + DDS_SECS(20);

	dds_set_status_mask(w, DDS_PUBLICATION_MATCHED_STATUS);
	dds_waitset_attach(ws, w, w);
	while (dds_get_publication_matched_status(w, &st) == 0 && st.current_count < want &&
	       dds_time() < end)
		dds_waitset_wait_until(ws, NULL, 0, end);
	dds_delete(ws);
	return st.current_count < want ? fail("not every node's reader matched", DDS_RETCODE_TIMEOUT)
				       : 0;
}

static int wait_match(dds_entity_t pp, dds_entity_t w)
{
	return wait_matches(pp, w, (uint32_t)strtoul(opt("readers", "1"), NULL, 0));
}

static dds_entity_t node_writer(dds_entity_t pp, const char *part)
{
	dds_entity_t topic = dds_create_topic(pp, &rfm_dds_Node_desc, "rfm_node", NULL, NULL);
	dds_qos_t *q = base_qos(part);

	dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
	dds_entity_t w = topic < 0 ? topic : dds_create_writer(pp, topic, q, NULL);
	dds_delete_qos(q);
	return w;
}

static int presence(dds_entity_t pp, const char *part)
{
	dds_entity_t w = node_writer(pp, part);
	char host[64] = "rogue";
	rfm_dds_Node n = {
		.id = (uint8_t)num("id", 9),
		.inc = (uint32_t)num("inc", 1),
		.pending = num("pending", 0) != 0,
		.pid = (int32_t)num("pid", (unsigned long long)getpid()),
		.size = num("size", 64 * 1024),
		.host = host,
	};
	dds_return_t rc;

	if (w < 0)
		return fail("node writer", w);
	if (wait_match(pp, w))
		return 1;
	rc = num("dispose", 0) ? dds_writedispose(w, &n) : dds_write(w, &n);
	if (rc < 0)
		return fail("presence", rc);
	rc = dds_wait_for_acks(w, DDS_SECS(10));
	if (rc < 0)
		return fail("waiting for the readers' acks", rc);
	if (num("stay", 0)) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause(); /* SIGTERM ends us */
	}
	return 0;
}

/* Read the stream for @ms: the snapshot pieces sent to node @to, and
 * the resync requests (its own words) asked of it. */
static void listen(dds_entity_t reader, unsigned int to, unsigned long long ms)
{
	unsigned long long samples = 0, bytes = 0, requests = 0;
	dds_time_t end = dds_time() + DDS_MSECS((int64_t)ms);

	while (dds_time() < end) {
		void *s[16] = { NULL };
		dds_sample_info_t info[16];
		int n = dds_take(reader, s, info, 16, 16);

		for (int i = 0; i < n; i++) {
			const rfm_dds_Msg *m = s[i];

			if (info[i].valid_data && m->kind == 4 && m->to == to) {
				samples++;
				bytes += m->data._length;
			} else if (info[i].valid_data && m->kind == 3 && m->type == 1 && m->to == to) {
				requests++;
			}
		}
		if (n > 0)
			dds_return_loan(reader, s, n);
		else
			dds_sleepfor(DDS_MSECS(5));
	}
	printf("answers %llu %llu requests %llu\n", samples, bytes, requests);
}

/*
 * The stream topic's writer and reader with librfm's QoS (our own reader
 * ignores our writer, so it never counts as a node's); 0, or 1 on failure.
 */
static int stream_endpoints(dds_entity_t pp, const char *part, dds_entity_t *w, dds_entity_t *r)
{
	dds_entity_t topic = dds_create_topic(pp, &rfm_dds_Msg_desc, "rfm_stream", NULL, NULL);

	if (topic < 0)
		return fail("topic", topic);
	dds_qos_t *q = base_qos(part);
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	dds_qset_ignorelocal(q, DDS_IGNORELOCAL_PARTICIPANT);
	*w = dds_create_writer(pp, topic, q, NULL);
	*r = dds_create_reader(pp, topic, q, NULL);
	dds_delete_qos(q);
	if (*w < 0 || *r < 0)
		return fail("writer", *w < 0 ? *w : *r);
	return 0;
}

/*
 * The wire's snapshot numbers, as docs/dds.md and dds-wire.idl's comments
 * give them to anyone: kind 3 a request (to = the node asked, word = its
 * nonce, type 0 a whole copy), kind 4 an answer piece (type 0 the header,
 * whose data is every writer's incarnation and last sequence number, 256
 * of each; 1 a chunk; 2 the end).
 */
enum { KIND_SNAP_REQ = 3, KIND_SNAP = 4, REQ_COPY = 0 };
enum { SNAP_HEADER = 0, SNAP_CHUNK = 1, SNAP_END = 2 };
#define SNAP_VECTOR_BYTES (256 * (sizeof(uint32_t) + sizeof(uint64_t)))

/* The next copy request on the stream, within @ms; false if none came. */
static bool next_copy_request(dds_entity_t pp, dds_entity_t reader, unsigned long long ms,
			      rfm_dds_Msg *req)
{
	dds_entity_t ws = dds_create_waitset(pp);
	dds_entity_t rc = dds_create_readcondition(reader, DDS_ANY_STATE);
	dds_time_t end = dds_time() + DDS_MSECS((int64_t)ms);
	bool found = false;

	dds_waitset_attach(ws, rc, rc);
	while (!found && dds_time() < end) {
		void *s[16] = { NULL };
		dds_sample_info_t info[16];
		int n = dds_take(reader, s, info, 16, 16);

		for (int i = 0; i < n && !found; i++) {
			const rfm_dds_Msg *m = s[i];

			if (info[i].valid_data && m->kind == KIND_SNAP_REQ && m->type == REQ_COPY) {
				*req = *m;
				req->data = (dds_sequence_octet){ 0 };
				found = true;
			}
		}
		if (n > 0)
			dds_return_loan(reader, s, n);
		else if (!found)
			dds_waitset_wait_until(ws, NULL, 0, end);
	}
	dds_delete(rc);
	dds_delete(ws);
	return found;
}

static int answer(dds_entity_t pp, const char *part)
{
	static uint8_t vector[SNAP_VECTOR_BYTES];
	dds_entity_t w, r;
	rfm_dds_Msg req;
	const char *text = opt("text", "EVIL");
	uint32_t want = (uint32_t)strtoul(opt("readers", "1"), NULL, 0);

	if (stream_endpoints(pp, part, &w, &r) || wait_match(pp, w))
		return 1;
	printf("ready\n");
	fflush(stdout);
	/* The joiner's reader first, so that our answer can go out at once. */
	if (wait_matches(pp, w, want + 1))
		return 1;
	if (!next_copy_request(pp, r, num("listen", 20000), &req))
		return fail("no copy request came", DDS_RETCODE_TIMEOUT);

	rfm_dds_Msg m = { .inc = (uint32_t)num("inc", 1), .seq = num("seq", 1),
			  .kind = KIND_SNAP, .writer = (uint8_t)req.to, .to = req.writer,
			  .word = req.word };
	m.type = SNAP_HEADER;
	m.extra = num("size", 64 * 1024);
	m.data = (dds_sequence_octet){ ._maximum = sizeof(vector), ._length = sizeof(vector),
				       ._buffer = vector };
	dds_return_t rc = dds_write(w, &m);
	m.seq++;
	m.type = SNAP_CHUNK;
	m.offset = num("offset", 0);
	m.extra = 0;
	m.data = (dds_sequence_octet){ ._maximum = (uint32_t)strlen(text),
				       ._length = (uint32_t)strlen(text),
				       ._buffer = (uint8_t *)text };
	if (rc >= 0)
		rc = dds_write(w, &m);
	m.seq++;
	m.type = SNAP_END;
	m.offset = 0;
	m.data = (dds_sequence_octet){ 0 };
	if (rc >= 0)
		rc = dds_write(w, &m);
	if (rc >= 0)
		rc = dds_wait_for_acks(w, DDS_SECS(10));
	if (rc < 0)
		return fail("answering", rc);
	printf("answered %u\n", (unsigned int)req.writer);
	return 0;
}

/* The sample's data: hex=, len= bytes of a pattern, or text=; NULL: no
 * memory or bad hex (the caller frees it). */
static uint8_t *sample_data(uint32_t *len)
{
	const char *hex = opt("hex", NULL), *text = opt("text", "");
	size_t n = hex ? strlen(hex) / 2 : opt("len", NULL) ? num("len", 0) : strlen(text);
	uint8_t *data = malloc(n ? n : 1);

	if (!data || (hex && strlen(hex) % 2)) {
		free(data);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned int byte = (unsigned int)(i * 7 + 1) & 0xff;

		if (hex && sscanf(hex + 2 * i, "%2x", &byte) != 1) {
			free(data);
			return NULL;
		}
		data[i] = hex || opt("len", NULL) ? (uint8_t)byte : (uint8_t)text[i];
	}
	*len = (uint32_t)n;
	return data;
}

static int stream(dds_entity_t pp, const char *part)
{
	if (opt("claim", NULL)) {
		dds_entity_t nw = node_writer(pp, part);
		char host[64] = "rogue";
		rfm_dds_Node n = { .id = (uint8_t)num("claim", 9), .inc = (uint32_t)num("inc", 1),
				   .pid = (int32_t)getpid(), .size = num("size", 64 * 1024),
				   .host = host };

		if (nw < 0 || wait_match(pp, nw) || dds_write(nw, &n) < 0 ||
		    dds_wait_for_acks(nw, DDS_SECS(10)) < 0)
			return fail("claiming", DDS_RETCODE_ERROR);
	}
	dds_entity_t w, r;

	if (stream_endpoints(pp, part, &w, &r) || wait_match(pp, w))
		return 1;

	uint32_t len = 0;
	uint8_t *data = sample_data(&len);
	rfm_dds_Msg m = {
		.inc = (uint32_t)num("inc", 1),
		.seq = num("seq", 1),
		.kind = (uint8_t)num("kind", 1),
		.writer = (uint8_t)num("writer", 9),
		.to = (uint16_t)num("to", 0xffff),
		.type = (uint32_t)num("type", 0),
		.word = (uint32_t)num("word", 0),
		.offset = num("offset", 0),
		.extra = num("extra", 0),
		.data = { ._maximum = len, ._length = len, ._buffer = data },
	};
	if (!data)
		return fail("out of memory or bad hex=", DDS_RETCODE_BAD_PARAMETER);
	for (unsigned long long i = 0, count = num("count", 1); i < count; i++) {
		dds_return_t rc = dds_write(w, &m);

		if (rc < 0) {
			free(data);
			return fail("write", rc);
		}
		m.seq++;
		m.word++;
		if (opt("pace_ms", NULL))
			dds_sleepfor(DDS_MSECS((int64_t)num("pace_ms", 0)));
	}
	free(data);
	dds_return_t rc = dds_wait_for_acks(w, DDS_SECS(10));
	if (rc < 0)
		return fail("waiting for the readers' acks", rc);
	if (opt("listen", NULL))
		listen(r, m.writer, num("listen", 0));
	return 0;
}

int main(int argc, char **argv)
{
	argc_ = argc;
	argv_ = argv;
	if (argc < 4 || (strcmp(argv[3], "stream") && strcmp(argv[3], "presence") &&
			 strcmp(argv[3], "answer"))) {
		fprintf(stderr, "usage: %s DOMAIN NETWORK stream|answer|presence KEY=VALUE...\n",
			argv[0]);
		return 2;
	}
	signal(SIGTERM, SIG_DFL);
	dds_entity_t pp = dds_create_participant((dds_domainid_t)atoi(argv[1]), NULL, NULL);
	if (pp < 0)
		return fail("participant", pp);
	int ret = !strcmp(argv[3], "stream")   ? stream(pp, argv[2])
		  : !strcmp(argv[3], "answer") ? answer(pp, argv[2])
					       : presence(pp, argv[2]);
	dds_delete(pp);
	return ret;
}
