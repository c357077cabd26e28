// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One side of the mixed Windows/Linux exchange of librfm's dds: wire types
 * (src/backends/dds/dds-wire.idl), on Cyclone DDS alone: built natively and
 * with mingw-w64 against the cross-built Cyclone (build-aux/win-deps.sh),
 * one copy runs on Linux and one under wine (test-dds-wire-mixed.sh).
 *
 * Both sides use the backend's topics and QoS: rfm_node (transient-local,
 * one sample per instance, liveliness) and rfm_stream (reliable, keep-all,
 * volatile), in the network's partition, or with DDS Security in the
 * partitions docs/security.md's permissions grant (writers in
 * NET.node.ID, readers in NET.node.*). Each side
 *   1. publishes NODES claims on rfm_node (its id, incarnations 1..NODES);
 *   2. waits until its stream writer and reader are matched with the peer's;
 *   3. writes COUNT stream samples whose every field and data byte is a
 *      function of the sample's seq (every 97th carries 70000 bytes, more
 *      than a datagram, so DDSI fragments it);
 *   4. checks every sample it takes from the peer: the next seq (none lost,
 *      none out of order, none twice), every field, every byte; and every
 *      claim the peer published;
 *   5. when it has all of them, says so with one more sample (kind
 *      KIND_GOT_ALL, word = how many it got), and ends when the peer has
 *      said the same, after its own writes are acknowledged.
 * Exit 0 with a summary line, 1 naming the first difference or what was
 * missing at the deadline, 2 for bad arguments or a DDS call that failed.
 *
 * Usage: dds-wire-peer DOMAIN NETWORK SELF PEER COUNT NODES [SECURITY_DIR]
 * SECURITY_DIR holds docs/security.md's node files (ca.pem, node.pem,
 * node.key, governance.p7s, permissions.p7s) of node SELF.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>

#include "dds-wire.h"

enum {
	KIND_DATA_FIRST = 1, /* kinds 1..5 carry data, as the backend's do */
	KIND_GOT_ALL = 0xEE,
	BIG_EVERY = 97,
	BIG_LEN = 70000,
	MAX_NODES = 64,
	DEADLINE_SECONDS = 180,
};

struct peer {
	unsigned self, peer;
	uint64_t count;
	unsigned nodes;
	dds_entity_t participant, node_writer, node_reader, writer, reader;
	uint64_t next_seq;	  /* the peer's next stream seq we expect */
	uint64_t bytes;		  /* data bytes taken from the peer */
	bool node_seen[MAX_NODES];
	unsigned nodes_seen;
	bool sent_got_all, peer_got_all;
};

static void fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("dds-wire-peer: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(code);
}

static dds_entity_t check(dds_entity_t e, const char *what)
{
	if (e < 0)
		fail(2, "%s: %s", what, dds_strretcode(e));
	return e;
}

/* ---- the content both sides agree on ------------------------------------ */

static uint32_t msg_data_len(uint64_t seq)
{
	return seq % BIG_EVERY == 0 ? BIG_LEN : (uint32_t)(seq * 13 % 257);
}

static uint8_t msg_data_byte(unsigned writer, uint64_t seq, uint32_t i)
{
	return (uint8_t)(seq * 7 + i * 31 + writer);
}

static void msg_fill(rfm_dds_Msg *m, unsigned writer, uint64_t seq)
{
	m->inc = 0x5EED0000u | writer;
	m->seq = seq;
	m->kind = (uint8_t)(KIND_DATA_FIRST + seq % 5);
	m->writer = (uint8_t)writer;
	m->to = (uint16_t)(seq * 3);
	m->type = (uint32_t)(seq * 0x9E3779B1u);
	m->word = ~(uint32_t)seq;
	m->offset = seq * UINT64_C(0x100000001);
	m->stamp = seq << 32 | writer;
	m->extra = UINT64_C(0xA5A5A5A5A5A5A5A5) ^ seq;
	m->data._length = m->data._maximum = msg_data_len(seq);
	m->data._buffer = m->data._length ? dds_sequence_octet_allocbuf(m->data._length) : NULL;
	m->data._release = true;
	for (uint32_t i = 0; i < m->data._length; i++)
		m->data._buffer[i] = msg_data_byte(writer, seq, i);
}

/* The first field of @got that differs from what @writer's sample @seq
 * holds, or NULL. */
static const char *msg_differs(const rfm_dds_Msg *got, unsigned writer, uint64_t seq)
{
	if (got->inc != (0x5EED0000u | writer))
		return "inc";
	if (got->kind != KIND_DATA_FIRST + seq % 5)
		return "kind";
	if (got->to != (uint16_t)(seq * 3))
		return "to";
	if (got->type != (uint32_t)(seq * 0x9E3779B1u))
		return "type";
	if (got->word != ~(uint32_t)seq)
		return "word";
	if (got->offset != seq * UINT64_C(0x100000001))
		return "offset";
	if (got->stamp != (seq << 32 | writer))
		return "stamp";
	if (got->extra != (UINT64_C(0xA5A5A5A5A5A5A5A5) ^ seq))
		return "extra";
	if (got->data._length != msg_data_len(seq))
		return "data length";
	for (uint32_t i = 0; i < got->data._length; i++)
		if (got->data._buffer[i] != msg_data_byte(writer, seq, i))
			return "data bytes";
	return NULL;
}

/* Claim @inc (1..) of node @id: every field a function of both. */
static void node_fill(rfm_dds_Node *n, char *host, size_t hostsize, unsigned id, unsigned inc)
{
	n->id = (uint8_t)id;
	n->inc = 0xC1A10000u + inc;
	n->pending = inc % 2;
	n->pid = (int32_t)(1000 * id + inc);
	n->size = (UINT64_C(1) << 20) * inc + id;
	/* Non-ASCII too: the string travels as UTF-8 bytes either way. */
	snprintf(host, hostsize, "wire-peer-%u-%u-\xc3\xa9\xe2\x82\xac", id, inc);
	n->host = host;
}

static const char *node_differs(const rfm_dds_Node *got, unsigned id, unsigned *inc)
{
	rfm_dds_Node want;
	char host[64];

	if (got->inc <= 0xC1A10000u || got->inc > 0xC1A10000u + MAX_NODES)
		return "inc";
	*inc = got->inc - 0xC1A10000u;
	node_fill(&want, host, sizeof(host), id, *inc);
	if (got->pending != want.pending)
		return "pending";
	if (got->pid != want.pid)
		return "pid";
	if (got->size != want.size)
		return "size";
	if (!got->host || strcmp(got->host, want.host))
		return "host";
	return NULL;
}

/* ---- entities -------------------------------------------------------------- */

static dds_qos_t *participant_qos(const char *dir)
{
	static const struct {
		const char *name, *file;
	} files[] = {
		{ "dds.sec.auth.identity_ca", "ca.pem" },
		{ "dds.sec.auth.identity_certificate", "node.pem" },
		{ "dds.sec.auth.private_key", "node.key" },
		{ "dds.sec.access.permissions_ca", "ca.pem" },
		{ "dds.sec.access.governance", "governance.p7s" },
		{ "dds.sec.access.permissions", "permissions.p7s" },
	};
	/* Cyclone adds the platform's prefix and suffix to a bare name
	 * (lib*.so here, *.dll on Windows). */
	static const char *const plugins[][4] = {
		{ "auth", "dds_security_auth", "init_authentication", "finalize_authentication" },
		{ "crypto", "dds_security_crypto", "init_crypto", "finalize_crypto" },
		{ "access", "dds_security_ac", "init_access_control", "finalize_access_control" },
	};
	dds_qos_t *q = dds_create_qos();
	char key[64], value[1024];

	if (!dir)
		return q;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(value, sizeof(value), "file:%s/%s", dir, files[i].file);
		dds_qset_prop(q, files[i].name, value);
	}
	for (size_t i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++) {
		snprintf(key, sizeof(key), "dds.sec.%s.library.path", plugins[i][0]);
		dds_qset_prop(q, key, plugins[i][1]);
		snprintf(key, sizeof(key), "dds.sec.%s.library.init", plugins[i][0]);
		dds_qset_prop(q, key, plugins[i][2]);
		snprintf(key, sizeof(key), "dds.sec.%s.library.finalize", plugins[i][0]);
		dds_qset_prop(q, key, plugins[i][3]);
	}
	return q;
}

/* The partition of a writer (ours) or a reader, as the backend picks it. */
static void set_partition(dds_qos_t *q, const char *net, unsigned self, bool secure, bool writer)
{
	char part[256];
	const char *p = part;

	if (!secure)
		p = net;
	else if (writer)
		snprintf(part, sizeof(part), "%s.node.%u", net, self);
	else
		snprintf(part, sizeof(part), "%s.node.*", net);
	dds_qset_partition(q, 1, &p);
}

static void create_entities(struct peer *p, dds_domainid_t domain, const char *net, const char *secdir)
{
	bool secure = secdir != NULL;
	dds_qos_t *q = participant_qos(secdir);
	dds_entity_t topic;

	p->participant = check(dds_create_participant(domain, q, NULL), "creating the participant");
	dds_delete_qos(q);

	topic = check(dds_create_topic(p->participant, &rfm_dds_Node_desc, "rfm_node", NULL, NULL),
		      "creating rfm_node");
	q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
	dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
	dds_qset_liveliness(q, DDS_LIVELINESS_AUTOMATIC, DDS_SECS(10));
	set_partition(q, net, p->self, secure, true);
	p->node_writer = check(dds_create_writer(p->participant, topic, q, NULL), "creating the node writer");
	dds_qset_liveliness(q, DDS_LIVELINESS_AUTOMATIC, DDS_INFINITY);
	set_partition(q, net, p->self, secure, false);
	p->node_reader = check(dds_create_reader(p->participant, topic, q, NULL), "creating the node reader");
	dds_delete_qos(q);

	topic = check(dds_create_topic(p->participant, &rfm_dds_Msg_desc, "rfm_stream", NULL, NULL),
		      "creating rfm_stream");
	q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	dds_qset_ignorelocal(q, DDS_IGNORELOCAL_PARTICIPANT);
	set_partition(q, net, p->self, secure, true);
	p->writer = check(dds_create_writer(p->participant, topic, q, NULL), "creating the stream writer");
	set_partition(q, net, p->self, secure, false);
	p->reader = check(dds_create_reader(p->participant, topic, q, NULL), "creating the stream reader");
	dds_delete_qos(q);
}

/* ---- the exchange ------------------------------------------------------- */

static void publish_nodes(struct peer *p)
{
	for (unsigned inc = 1; inc <= p->nodes; inc++) {
		rfm_dds_Node n;
		char host[64];

		node_fill(&n, host, sizeof(host), p->self, inc);
		check(dds_write(p->node_writer, &n), "writing a node claim");
	}
}

/* Until both our stream writer and reader see the peer's. */
static void wait_matched(struct peer *p, dds_time_t deadline)
{
	dds_entity_t ws = check(dds_create_waitset(p->participant), "creating a waitset");

	check(dds_set_status_mask(p->writer, DDS_PUBLICATION_MATCHED_STATUS), "status mask");
	check(dds_set_status_mask(p->reader, DDS_SUBSCRIPTION_MATCHED_STATUS), "status mask");
	check(dds_waitset_attach(ws, p->writer, 0), "attaching the writer");
	check(dds_waitset_attach(ws, p->reader, 1), "attaching the reader");
	for (;;) {
		dds_publication_matched_status_t pm;
		dds_subscription_matched_status_t sm;

		check(dds_get_publication_matched_status(p->writer, &pm), "publication matched");
		check(dds_get_subscription_matched_status(p->reader, &sm), "subscription matched");
		if (pm.current_count > 0 && sm.current_count > 0)
			break;
		if (dds_time() >= deadline)
			fail(1, "node %u: the peer's stream reader and writer were not matched in %d s (writer %" PRIu32
			     ", reader %" PRIu32 " matched)", p->self, DEADLINE_SECONDS, pm.current_count, sm.current_count);
		dds_waitset_wait_until(ws, NULL, 0, deadline);
	}
	dds_delete(ws);
}

static void write_stream(struct peer *p)
{
	for (uint64_t seq = 1; seq <= p->count; seq++) {
		rfm_dds_Msg m;

		msg_fill(&m, p->self, seq);
		check(dds_write(p->writer, &m), "writing a stream sample");
		dds_sample_free(&m, &rfm_dds_Msg_desc, DDS_FREE_CONTENTS);
	}
}

static void send_got_all(struct peer *p)
{
	rfm_dds_Msg m = { 0 };

	m.inc = 0x5EED0000u | p->self;
	m.seq = p->count + 1;
	m.kind = KIND_GOT_ALL;
	m.writer = (uint8_t)p->self;
	m.word = (uint32_t)(p->next_seq - 1);
	check(dds_write(p->writer, &m), "writing the got-all sample");
	p->sent_got_all = true;
}

static void take_stream(struct peer *p)
{
	void *samples[64] = { NULL };
	dds_sample_info_t infos[64];
	int n;

	while ((n = dds_take(p->reader, samples, infos, 64, 64)) > 0) {
		for (int i = 0; i < n; i++) {
			const rfm_dds_Msg *m = samples[i];
			const char *what;

			if (!infos[i].valid_data)
				continue;
			if (m->writer != p->peer)
				fail(1, "node %u: a stream sample from node %u, not the peer %u", p->self, m->writer, p->peer);
			if (m->kind == KIND_GOT_ALL) {
				if (m->seq != p->count + 1 || m->word != p->count)
					fail(1, "node %u: the peer says it got %" PRIu32 " of %" PRIu64 " samples (its seq %" PRIu64 ")",
					     p->self, m->word, p->count, m->seq);
				p->peer_got_all = true;
				continue;
			}
			if (m->seq > p->count)
				fail(1, "node %u: stream sample seq %" PRIu64 " from node %u, past the %" PRIu64 " agreed",
				     p->self, m->seq, p->peer, p->count);
			if (m->seq != p->next_seq)
				fail(1, "node %u: stream sample seq %" PRIu64 " from node %u where %" PRIu64 " was next (%s)",
				     p->self, m->seq, p->peer, p->next_seq,
				     m->seq > p->next_seq ? "samples lost" : "out of order or twice");
			what = msg_differs(m, p->peer, m->seq);
			if (what)
				fail(1, "node %u: stream sample seq %" PRIu64 " from node %u differs in %s", p->self, m->seq,
				     p->peer, what);
			p->bytes += m->data._length;
			p->next_seq++;
		}
		dds_return_loan(p->reader, samples, n);
	}
	check(n, "taking stream samples");
}

static void take_nodes(struct peer *p)
{
	void *samples[16] = { NULL };
	dds_sample_info_t infos[16];
	int n;

	while ((n = dds_take(p->node_reader, samples, infos, 16, 16)) > 0) {
		for (int i = 0; i < n; i++) {
			const rfm_dds_Node *c = samples[i];
			const char *what;
			unsigned inc = 0;

			/* Our own claims come back too (no ignorelocal
			 * on rfm_node, as in the backend). */
			if (!infos[i].valid_data || c->id == p->self)
				continue;
			if (c->id != p->peer)
				fail(1, "node %u: a claim of node %u, not the peer %u", p->self, c->id, p->peer);
			what = node_differs(c, p->peer, &inc);
			if (what)
				fail(1, "node %u: the peer's claim %u differs in %s", p->self, inc, what);
			if (inc > p->nodes)
				fail(1, "node %u: the peer's claim %u of %u", p->self, inc, p->nodes);
			if (!p->node_seen[inc - 1]) {
				p->node_seen[inc - 1] = true;
				p->nodes_seen++;
			}
		}
		dds_return_loan(p->node_reader, samples, n);
	}
	check(n, "taking node claims");
}

static void exchange(struct peer *p, dds_time_t deadline)
{
	dds_entity_t ws = check(dds_create_waitset(p->participant), "creating a waitset");
	dds_entity_t rc_stream = check(dds_create_readcondition(p->reader, DDS_ANY_STATE), "read condition");
	dds_entity_t rc_nodes = check(dds_create_readcondition(p->node_reader, DDS_ANY_STATE), "read condition");

	check(dds_waitset_attach(ws, rc_stream, 0), "attaching");
	check(dds_waitset_attach(ws, rc_nodes, 1), "attaching");
	while (!(p->sent_got_all && p->peer_got_all)) {
		take_stream(p);
		take_nodes(p);
		if (!p->sent_got_all && p->next_seq == p->count + 1 && p->nodes_seen == p->nodes)
			send_got_all(p);
		if (p->sent_got_all && p->peer_got_all)
			break;
		if (dds_time() >= deadline)
			fail(1, "node %u: after %d s, %" PRIu64 " of %" PRIu64 " stream samples and %u of %u claims from node %u; "
			     "it %s all of ours", p->self, DEADLINE_SECONDS, p->next_seq - 1, p->count, p->nodes_seen, p->nodes,
			     p->peer, p->peer_got_all ? "has" : "has not said it has");
		dds_waitset_wait_until(ws, NULL, 0, deadline);
	}
	dds_delete(ws);
}

static unsigned long parse(const char *s, unsigned long max, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > max)
		fail(2, "%s must be a number up to %lu, not '%s'", what, max, s);
	return v;
}

int main(int argc, char **argv)
{
	struct peer p = { .next_seq = 1 };
	dds_time_t deadline = dds_time() + DDS_SECS(DEADLINE_SECONDS);

	if (argc != 7 && argc != 8)
		fail(2, "usage: dds-wire-peer DOMAIN NETWORK SELF PEER COUNT NODES [SECURITY_DIR]");
	dds_domainid_t domain = (dds_domainid_t)parse(argv[1], 230, "DOMAIN");
	p.self = (unsigned)parse(argv[3], 255, "SELF");
	p.peer = (unsigned)parse(argv[4], 255, "PEER");
	p.count = parse(argv[5], 1000000, "COUNT");
	p.nodes = (unsigned)parse(argv[6], MAX_NODES, "NODES");
	if (p.self == p.peer || p.count == 0 || p.nodes == 0)
		fail(2, "SELF and PEER must differ, COUNT and NODES be at least 1");

	create_entities(&p, domain, argv[2], argc == 8 ? argv[7] : NULL);
	publish_nodes(&p);
	wait_matched(&p, deadline);
	write_stream(&p);
	exchange(&p, deadline);
	/* The got-all sample, and all before it, acknowledged (or the peer
	 * already gone, having had them all, which its got-all said). */
	dds_wait_for_acks(p.writer, DDS_SECS(10));
	printf("node %u: %" PRIu64 " of %" PRIu64 " stream samples (%" PRIu64 " data bytes) and %u of %u claims from node %u "
	       "intact and in order; it got all %" PRIu64 " of ours\n",
	       p.self, p.next_seq - 1, p.count, p.bytes, p.nodes_seen, p.nodes, p.peer, p.count);
	fflush(stdout);
	dds_delete(p.participant);
	return 0;
}
