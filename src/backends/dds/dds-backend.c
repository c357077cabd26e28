/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The dds: backend: a reflective-memory network over Eclipse Cyclone DDS,
 * for hosts without cards. URI:
 *
 *   dds:NAME?node=N&size=BYTES&domain=D&lease=MS&join=MS&depth=N&coalesce=NS
 *       &callbacks=receive|dispatcher&security=DIR
 *
 * NAME is the network (a DDS partition), D the DDS domain (0..230), N
 * this node's id, DIR the node's DDS Security files (dds-security.c).
 * Cyclone itself (interfaces, peers, multicast) is set up through its own
 * CYCLONEDDS_URI environment variable (docs/dds.md).
 *
 * Each node holds its own copy of the window in private memory. What the
 * library writes is replicated by dds-publish.c; stores through the
 * mapped pointer stay local until rfm_mem_flush() publishes them, as on a
 * card they would go out at once. See dds-internal.h for the files: this
 * one is the top of the stack (open/close, the entities, the ops table).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/clock.h"
#include "os/map.h"
#include "os/process.h"
#include "backends/dds/dds-internal.h"

struct dds_params {
	int node_id;		/* -1: the first free one */
	uint64_t size;		/* 0: the network's, or the default when alone */
	uint32_t domain;
	uint32_t lease_ms;
	uint32_t join_ms;
	uint32_t depth;
	uint64_t coalesce_ns;
	bool callbacks_receive;
	const char *security;	/* in the URI's storage */
};

static bool valid_name(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > RFM_DDS_NAME_MAX || name[0] == '.' || name[0] == '-')
		return false;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-' && *c != '.')
			return false;
	return true;
}

/* A number parameter in [min, max] into *out (untouched when absent). */
static int take_number(struct rfm_uri *uri, const char *key, uint64_t min, uint64_t max,
		       const char *what, uint64_t *out)
{
	const char *v = rfm__uri_take(uri, key);
	uint64_t n;

	if (!v)
		return 0;
	if (rfm__parse_u64(v, &n) || n < min || n > max)
		return rfm__error(RFM_EURI, "%s: %s '%s' must be %s %llu..%llu", uri->text, key, v,
				  what, (unsigned long long)min, (unsigned long long)max);
	*out = n;
	return 0;
}

/* node= (-1 without it) and size= (0: the network's, or the default). */
static int parse_identity(struct rfm_uri *uri, struct dds_params *p)
{
	const char *v;
	uint64_t n;

	p->node_id = -1;
	if ((v = rfm__uri_take(uri, "node"))) {
		if (rfm__parse_u64(v, &n))
			return rfm__error(RFM_EURI, "%s: node '%s' is not a number", uri->text, v);
		if (n > RFM_NODE_ID_MAX)
			return rfm__error(RFM_ENODEID, "%s: node id %s is outside 0..%d", uri->text,
					  v, RFM_NODE_ID_MAX);
		p->node_id = (int)n;
	}
	p->size = 0;
	if ((v = rfm__uri_take(uri, "size"))) {
		if (rfm__parse_size(v, &p->size))
			return rfm__error(RFM_EURI, "%s: size '%s' is not a byte count", uri->text, v);
		if (p->size < 4096 || p->size > (UINT64_C(1) << 32) || p->size % 8)
			return rfm__error(RFM_ESIZE,
					  "%s: size %llu must be a multiple of 8 from 4 KiB to 4 GiB",
					  uri->text, (unsigned long long)p->size);
	}
	return 0;
}

/* callbacks=receive|dispatcher and security=DIR. */
static int parse_callbacks_security(struct rfm_uri *uri, struct dds_params *p)
{
	const char *v;

	p->callbacks_receive = false;
	if ((v = rfm__uri_take(uri, "callbacks"))) {
		if (!strcmp(v, "receive"))
			p->callbacks_receive = true;
		else if (strcmp(v, "dispatcher"))
			return rfm__error(RFM_EURI,
					  "%s: callbacks '%s' must be receive (on the thread that "
					  "receives the event) or dispatcher (the default)",
					  uri->text, v);
	}
	p->security = rfm__uri_take(uri, "security");
	if (p->security && !*p->security)
		return rfm__error(RFM_EURI, "%s: security= names no directory", uri->text);
	return 0;
}

static int parse_params(struct rfm_uri *uri, struct dds_params *p)
{
	uint64_t n;
	int ret;

	if (!valid_name(uri->path))
		return rfm__error(RFM_EURI,
				  "%s: network name '%s' must be 1-%d characters of A-Z a-z 0-9 _ - . "
				  "not starting with '.' or '-'",
				  uri->text, uri->path, RFM_DDS_NAME_MAX);
	ret = parse_identity(uri, p);
	if (ret)
		return ret;
	n = 0;
	ret = take_number(uri, "domain", 0, RFM_DDS_DOMAIN_MAX, "a DDS domain id", &n);
	if (ret)
		return ret;
	p->domain = (uint32_t)n;
	n = RFM_DDS_LEASE_DEFAULT_MS;
	ret = take_number(uri, "lease", 10, 3600000, "a liveliness lease in ms,", &n);
	if (ret)
		return ret;
	p->lease_ms = (uint32_t)n;
	n = RFM_DDS_JOIN_DEFAULT_MS;
	ret = take_number(uri, "join", 0, 60000, "a discovery wait in ms,", &n);
	if (ret)
		return ret;
	p->join_ms = (uint32_t)n;
	n = RFM_EVENT_QUEUE_MIN;
	ret = take_number(uri, "depth", RFM_EVENT_QUEUE_MIN, RFM_DDS_QUEUE_MAX,
			  "an event queue depth", &n);
	if (ret)
		return ret;
	p->depth = (uint32_t)n;
	p->coalesce_ns = RFM_DDS_COALESCE_DEFAULT_NS;
	ret = take_number(uri, "coalesce", 0, 1000000000, "how long a write may wait, in ns,",
			  &p->coalesce_ns);
	if (ret)
		return ret;
	ret = parse_callbacks_security(uri, p);
	if (ret)
		return ret;
	return rfm__uri_check_all_used(uri);
}

/* An observer's parameters: no id to name; security= binds writers to ids. */
static int check_observer(struct rfm_node *node, const struct rfm_uri *uri,
			  const struct dds_params *p)
{
	if (!node->observer)
		return 0;
	if (p->node_id >= 0)
		return rfm__error(RFM_EURI, "%s: observe=1 takes no node=: an observer holds no "
				  "node id", uri->text);
	if (p->security)
		return rfm__error(RFM_ENOTSUP,
				  "%s: observe=1 with security=: DDS Security binds every writer "
				  "to a node id's partition, and an observer has none; open a node "
				  "id given to monitors instead",
				  uri->text);
	return 0;
}

/*
 * Topic @name of type @desc into *@topic (an error naming @what), and in
 * *@qp the qos its reader and writer start from: the network's partition,
 * reliable.
 */
static int create_topic(struct rfm_node *node, const struct rfm_uri *uri,
			const dds_topic_descriptor_t *desc, const char *name, const char *what,
			dds_entity_t *topic, dds_qos_t **qp)
{
	struct dds_node *d = node->priv;
	dds_entity_t e = dds_create_topic(d->participant, desc, name, NULL, NULL);
	const char *part = d->name;

	if (e < 0)
		return rfm__dds_fail(uri, e, what);
	*topic = e;
	*qp = dds_create_qos();
	dds_qset_partition(*qp, 1, &part);
	dds_qset_reliability(*qp, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
	return 0;
}

/*
 * The reader of @topic with qos @q (released here) and our listener, the
 * stream's or the presence's (@stream); then whether it and its @writer
 * were made, as an error naming @what.
 */
static int create_reader(struct rfm_node *node, const struct rfm_uri *uri, dds_entity_t topic,
			 dds_qos_t *q, bool stream, dds_entity_t writer, dds_entity_t *reader,
			 const char *what)
{
	struct dds_node *d = node->priv;
	dds_listener_t *l = rfm__dds_listener(node, stream);

	*reader = dds_create_reader(d->participant, topic, q, l);
	dds_delete_listener(l);
	dds_delete_qos(q);
	dds_return_t rc = writer < 0 ? writer : *reader;

	if (rc == DDS_RETCODE_NOT_ALLOWED_BY_SECURITY)
		return rfm__dds_security_refused(d, uri->text, rc, true);
	if (rc < 0)
		return rfm__dds_fail(uri, rc, what);
	return 0;
}

/* Create both topics, their readers (with listeners) and writers. */
static int create_entities(struct rfm_node *node, const struct rfm_uri *uri)
{
	struct dds_node *d = node->priv;
	dds_qos_t *q;
	int ret;

	ret = create_topic(node, uri, &rfm_dds_Node_desc, "rfm_node", "creating the node topic",
			   &d->node_topic, &q);
	if (ret)
		return ret;
	dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
	dds_qset_liveliness(q, DDS_LIVELINESS_AUTOMATIC, DDS_MSECS(d->lease_ms));
	rfm__dds_security_partition(d, q, true);
	d->node_writer = dds_create_writer(d->participant, d->node_topic, q, NULL);
	/* Any lease is accepted from others: ours is what we promise. */
	dds_qset_liveliness(q, DDS_LIVELINESS_AUTOMATIC, DDS_INFINITY);
	rfm__dds_security_partition(d, q, false);
	ret = create_reader(node, uri, d->node_topic, q, false, d->node_writer, &d->node_reader,
			    "creating the node reader and writer");
	if (ret)
		return ret;

	ret = create_topic(node, uri, &rfm_dds_Msg_desc, "rfm_stream", "creating the stream topic",
			   &d->topic, &q);
	if (ret)
		return ret;
	/* Keep every sample until each reader has it: order and no loss. */
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	dds_qset_ignorelocal(q, DDS_IGNORELOCAL_PARTICIPANT);
	/* A write waits briefly for room (with callbacks=receive never):
	 * what Cyclone cannot take then waits in the backlog (dds-backlog.c). */
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE,
			     d->callbacks_receive ? 0 : (dds_duration_t)RFM_DDS_WRITE_BLOCK_NS);
	dds_listener_t *wl = rfm__dds_match_listener(node);
	if (!wl) {
		dds_delete_qos(q);
		return rfm__error(RFM_ENOMEM, "%s: out of memory", uri->text);
	}
	ret = rfm__dds_route_init(d, q, wl); /* for the writers that may replace it */
	rfm__dds_security_partition(d, q, true);
	d->writer = dds_create_writer(d->participant, d->topic, q, wl);
	dds_delete_listener(wl);
	if (ret) {
		dds_delete_qos(q);
		return ret;
	}
	/* The network's partition, and ours by node id and incarnation: a
	 * writer that leaves out a node reported down still reaches us
	 * (dds-route.c). */
	rfm__dds_stream_reader_partitions(d, q);
	return create_reader(node, uri, d->topic, q, true, d->writer, &d->reader,
			     "creating the stream reader and writer");
}

/*
 * Our participant in the DDS domain, the handle's thread (the listeners
 * may wake it as soon as the readers exist) and both topics' readers and
 * writers.
 */
static int open_entities(struct rfm_node *node, const struct rfm_uri *uri)
{
	struct dds_node *d = node->priv;
	dds_qos_t *pq;
	int ret;

	ret = rfm__dds_security_qos(d, uri->text, &pq);
	if (ret)
		return ret;
	dds_entity_t e = dds_create_participant((dds_domainid_t)d->domain, pq, NULL);
	if (pq)
		dds_delete_qos(pq);
	if (e < 0 && d->security)
		return rfm__dds_security_refused(d, uri->text, e, false);
	if (e < 0)
		return rfm__dds_fail(uri, e, "joining the DDS domain");
	d->participant = e;
	ret = rfm__dds_start_thread(node);
	if (!ret)
		ret = create_entities(node, uri);
	if (ret)
		return ret;
	pthread_mutex_lock(&d->lock); /* the stream's listener may take presence now */
	d->presence_reader = d->node_reader;
	pthread_mutex_unlock(&d->lock);
	return 0;
}

static uint32_t new_incarnation(void)
{
	uint64_t ns = rfm__os_realtime_ns();
	uint32_t x;

	/* A token, not a count: nodes on other hosts share no counter. */
	x = (uint32_t)(ns % 1000000000u) ^ (uint32_t)(ns / 1000000000u) * 2654435761u ^
	    (uint32_t)rfm__os_pid() << 16;
	return x ? x : 1;
}

static void dds_release(struct dds_node *d)
{
	rfm__dds_stop_thread(d); /* held and queued writes go out before we leave */
	if (!d->forked) {
		/* Deleting the participant disposes our presence: NODE_DOWN at once. */
		if (d->announced)
			dds_unregister_instance(d->node_writer,
						&(rfm_dds_Node){ .id = (uint8_t)d->id, .inc = d->inc });
		if (d->participant > 0)
			dds_delete(d->participant);
		/*
		 * Cyclone returns once our listeners are done; taking each lock
		 * they take once more makes that order visible to checkers that
		 * cannot see into Cyclone (TSan with tests/dds/tsan.supp).
		 */
		pthread_mutex_lock(&d->lock);
		pthread_mutex_unlock(&d->lock);
		pthread_mutex_lock(&d->q.lock);
		pthread_mutex_unlock(&d->q.lock);
		rfm__dds_send_lock(d);
		rfm__dds_send_unlock(d);
	}
	rfm__dds_route_fini(d);
	if (d->window)
		rfm__os_unmap_private(d->window, d->size);
	rfm__dds_held_free(d);
	free(d->join.snap_vec);
	free(d->answer.own);
	rfm__localq_destroy(&d->q);
	free(d->security);
	rfm__dds_send_lock_destroy(d);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->cond);
	pthread_cond_destroy(&d->send.backlog_cond);
	free(d);
}

/* Did the URI say spin=NS? (The event core took it already.) */
static bool spin_given(const struct rfm_uri *uri)
{
	for (unsigned int i = 0; i < uri->nparams; i++)
		if (!strcmp(uri->params[i].key, "spin"))
			return true;
	return false;
}

/* A node's state from its parameters, before it meets the network; NULL: no memory. */
static struct dds_node *dds_node_new(const struct rfm_node *node, const struct rfm_uri *uri,
				     const struct dds_params *p)
{
	struct dds_node *d = calloc(1, sizeof(*d));
	pthread_condattr_t ca;

	if (!d || (p->security && !(d->security = strdup(p->security)))) {
		free(d);
		rfm__error(RFM_ENOMEM, "%s: out of memory", uri->text);
		return NULL;
	}
	snprintf(d->name, sizeof(d->name), "%s", uri->path);
	d->domain = p->domain;
	d->lease_ms = p->lease_ms;
	d->join_ms = p->join_ms;
	d->send.coalesce_ns = p->coalesce_ns;
	d->callbacks_receive = p->callbacks_receive;
	d->inc = new_incarnation();
	d->send.digest = rfm__dds_digest_start(d->inc); /* our stream's, before its first sample */
	d->id = p->node_id;
	d->observer = node->observer;
	d->tool = node->tool;
	d->join.snap_from = -1;
	d->join.held_tail = &d->join.held;
	d->send.backlog_tail = &d->send.backlog;
	rfm__dds_send_lock_init(d);
	pthread_mutex_init(&d->lock, NULL);
	rfm__localq_init(&d->q, p->depth);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the waits' deadlines */
	pthread_cond_init(&d->cond, &ca);
	pthread_cond_init(&d->send.backlog_cond, &ca);
	pthread_condattr_destroy(&ca);
	return d;
}

/* The node's copy of the window, @size bytes, and its map of own words. */
static int map_window(struct dds_node *d, const struct rfm_uri *uri, uint64_t size)
{
	void *window = rfm__os_map_private(size);

	if (!window)
		return rfm__error(RFM_ENOMEM, "%s: no memory for a %llu-byte window", uri->text,
				  (unsigned long long)size);
	pthread_mutex_lock(&d->lock); /* what the listeners read */
	d->window = window;
	d->size = size;
	d->answer.own = calloc((size / 8 + 63) / 64, sizeof(*d->answer.own));
	pthread_mutex_unlock(&d->lock);
	if (!d->answer.own)
		return rfm__error(RFM_ENOMEM, "%s: out of memory", uri->text);
	return 0;
}

/* The handle's canonical URI: what another program opens to be this node again. */
static int name_uri(struct rfm_node *node, const struct dds_node *d, const struct rfm_uri *uri)
{
	int n = d->observer ? asprintf(&node->uri, "dds:%s?observe=1&size=%llu&domain=%u", d->name,
				       (unsigned long long)d->size, d->domain)
			    : asprintf(&node->uri, "dds:%s?node=%d&size=%llu&domain=%u%s%s",
				       d->name, d->id, (unsigned long long)d->size, d->domain,
				       d->security ? "&security=" : "",
				       d->security ? d->security : "");

	if (n < 0) {
		node->uri = NULL;
		return rfm__error(RFM_ENOMEM, "%s: out of memory", uri->text);
	}
	return 0;
}

static int dds_open_node(struct rfm_node *node, struct rfm_uri *uri)
{
	struct dds_params p;
	struct dds_node *d;
	int ret;

	ret = parse_params(uri, &p);
	if (!ret)
		ret = check_observer(node, uri, &p);
	if (ret)
		return ret;
	/*
	 * A wait sleeps at once unless spin=NS says otherwise: an event from
	 * another host takes tens of µs, so the library's default spin
	 * rarely catches one, and spinning takes the CPU from the receive
	 * thread that brings it (bench-dds: P50 round trip 80 µs with the
	 * 20 µs spin, 30 µs without, on 2 CPUs).
	 */
	if (!spin_given(uri))
		__atomic_store_n(&node->spin_ns, 0, __ATOMIC_RELAXED);
	d = dds_node_new(node, uri, &p);
	if (!d)
		return RFM_ENOMEM;
	/* Release: Cyclone's threads call our listeners with @node, through
	 * hand-offs of their own that ThreadSanitizer cannot see. */
	__atomic_store_n(&node->priv, d, __ATOMIC_RELEASE);

	uint64_t size = p.size;
	ret = open_entities(node, uri);
	/* An observer claims no id: it finds the nodes there are, and their size. */
	if (!ret)
		ret = d->observer ? rfm__dds_find_size(node, uri, &size, p.size != 0)
				  : rfm__dds_claim(node, uri, &size, p.size != 0);
	if (!ret)
		ret = map_window(d, uri, size);
	if (ret)
		goto fail;
	node->base = d->window;
	node->size = size;
	node->id = d->id;
	/* An observer's incarnation only tells its copy's answers apart. */
	node->incarnation = d->observer ? 0 : d->inc;
	ret = rfm__dds_join(node);
	if (!ret)
		ret = name_uri(node, d, uri);
	if (ret)
		goto fail;
	return 0;
fail:
	dds_release(d);
	node->priv = NULL;
	node->base = NULL;
	return ret;
}

static void dds_close_node(struct rfm_node *node)
{
	if (node->priv)
		dds_release(node->priv);
	node->priv = NULL;
}

/* In a fork()ed child, Cyclone's threads are gone: never call into it there. */
static void dds_forget(struct rfm_node *node)
{
	struct dds_node *d = node->priv;

	d->forked = true;
}

static void dds_get_info(const struct rfm_node *node, struct rfm_node_info *info)
{
	struct dds_node *d = node->priv;
	uint32_t n = d->observer ? 0 : 1; /* ourselves, unless we only look */

	pthread_mutex_lock(&d->lock);
	for (int id = 0; id < RFM_MAX_NODES; id++)
		if (id != d->id && rfm__dds_peer_up(d, id))
			n++;
	pthread_mutex_unlock(&d->lock);
	info->nodes_attached = n;
}

/* A dds: network lives as long as its nodes: there is nothing to remove. */
static int dds_destroy(struct rfm_uri *uri, unsigned int flags)
{
	static const char *const keys[] = { "node", "size", "domain", "lease", "join",
					    "depth", "loopback", "spin", "coalesce", "callbacks",
					    "security" };

	(void)flags;
	if (!valid_name(uri->path))
		return rfm__error(RFM_EURI, "%s: bad network name '%s'", uri->text, uri->path);
	for (size_t i = 0; i < RFM_ARRAY_SIZE(keys); i++)
		rfm__uri_take(uri, keys[i]);
	return rfm__uri_check_all_used(uri);
}

const struct rfm_backend_ops rfm__dds_ops = {
	.scheme = "dds",
	/* Several hosts, each with its own copy, filled by the receive thread;
	 * observers. */
	.caps = RFM__CAP_WINDOW_THREAD | RFM__CAP_OBSERVE,
	.open = dds_open_node,
	.close = dds_close_node,
	.get_info = dds_get_info,
	.destroy = dds_destroy,
	.forget = dds_forget,
	.ev = &rfm__dds_ev_ops,
	.node_facts = rfm__dds_node_facts,
	.node_alive = rfm__dds_node_alive,
	.peer_verdict = rfm__dds_route_verdict,
	.publish = rfm__dds_publish,
	.refused = rfm__dds_refused,
	.forged = rfm__dds_forged,
};
