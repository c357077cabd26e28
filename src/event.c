/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Network interrupts, the backend-neutral part: handle options, enabling,
 * sending and publishing, counters, and the handle's event state from
 * rfm_open() to rfm_close(). Backends only move records and sleep (see
 * the ev_* ops in internal.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "event-core.h"
#include "rt-internal.h"
#include "futex.h"
#include "os/memory.h"
#include "wait-notify.h"
#include "wire-order.h"

RFM_API uint64_t rfm_event_now_ns(void)
{
	return rfm__now_ns();
}

/* ---- options and the handle's lifetime ---- */

static int parse_spin(const char *text, int64_t *spin_ns)
{
	uint64_t v;

	if (!strcmp(text, "-1")) {
		*spin_ns = -1;
		return 0;
	}
	if (rfm__parse_u64(text, &v) || v > INT64_MAX)
		return RFM_EINVAL;
	*spin_ns = (int64_t)v;
	return 0;
}

int rfm__event_options(struct rfm_node *node, struct rfm_uri *uri)
{
	const char *v;
	int ret;

	node->loopback = false;
	node->spin_ns = RFM_EVENT_SPIN_DEFAULT_NS;
	ret = rfm__uri_take_bool(uri, "loopback", &node->loopback);
	if (ret)
		return ret;
	if ((v = rfm__uri_take(uri, "spin")) && parse_spin(v, &node->spin_ns))
		return rfm__error(RFM_EURI, "%s: spin '%s' must be nanoseconds or -1 (never sleep)",
				  uri->text, v);
	return 0;
}

int rfm__event_init(struct rfm_node *node)
{
	/* Cache-line aligned: the wait slots must not share lines. */
	size_t size = (sizeof(struct rfm_events) + 63) & ~(size_t)63;
	struct rfm_events *ev = rfm__os_aligned_alloc(64, size);

	if (!ev)
		return rfm__error(RFM_ENOMEM, "%s: out of memory", node->uri);
	memset(ev, 0, size);
	pthread_mutex_init(&ev->lock, NULL);
	pthread_cond_init(&ev->cb_cond, NULL);
	ev->ready = RFM_OS_READY_NONE;
	rfm__core(node)->ev = ev;
	return 0;
}

bool rfm__event_close(struct rfm_node *node, void (*free_node)(struct rfm_node *node))
{
	struct rfm_events *ev = rfm__core(node)->ev;

	if (!ev)
		return true;
	if (node->forked) {
		/* Inherited through fork(): the parent's threads do not exist
		 * here and its locks may be held; free our copy, touch nothing. */
		if (ev->ready != RFM_OS_READY_NONE)
			rfm__os_ready_close(ev->ready);
		rfm__os_aligned_free(ev);
		rfm__core(node)->ev = NULL;
		return true;
	}
	pthread_mutex_lock(&ev->lock);
	EV_STORE(ev->closing, 1);
	pthread_cond_broadcast(&ev->cb_cond);
	bool deferred = ev->close_deferred = rfm__event_on_callback_thread(ev);
	ev->free_node = free_node;
	/* A callback running on a receive thread ends first (no new one
	 * starts now that closing is set). */
	while (!deferred && ev->inline_running)
		pthread_cond_wait(&ev->cb_cond, &ev->lock);
	pthread_mutex_unlock(&ev->lock);
	rfm__event_wake_all(node);
	if (deferred)
		return false; /* the dispatcher finishes it when the callback returns */
	rfm__event_stop_threads(node);
	rfm__event_finish_close(node);
	return true;
}

void rfm__event_free(struct rfm_node *node)
{
	struct rfm_events *ev = rfm__core(node)->ev;

	if (!ev)
		return;
	pthread_cond_destroy(&ev->cb_cond);
	pthread_mutex_destroy(&ev->lock);
	rfm__os_aligned_free(ev);
	rfm__core(node)->ev = NULL;
}

RFM_API int rfm_node_set_loopback(rfm_node *node, int enable)
{
	if (!node)
		return rfm__error(RFM_EINVAL, "rfm_node_set_loopback: node is NULL");
	__atomic_store_n(&node->loopback, enable != 0, __ATOMIC_RELAXED);
	return 0;
}

RFM_API int rfm_node_get_loopback(const rfm_node *node)
{
	if (!node)
		return rfm__error(RFM_EINVAL, "rfm_node_get_loopback: node is NULL");
	return __atomic_load_n(&node->loopback, __ATOMIC_RELAXED) ? 1 : 0;
}

RFM_API int rfm_event_set_spin(rfm_node *node, int64_t spin_ns)
{
	if (!node)
		return rfm__error(RFM_EINVAL, "rfm_event_set_spin: node is NULL");
	if (spin_ns < -1)
		return rfm__error(RFM_EINVAL,
				  "rfm_event_set_spin: spin %lld must be >= 0, or -1 (never sleep)",
				  (long long)spin_ns);
	__atomic_store_n(&node->spin_ns, spin_ns, __ATOMIC_RELAXED);
	return 0;
}

/* ---- enabling ---- */

/* The arguments of enable and disable: a node and a mask of types enabled by hand. */
static int check_mask(const char *what, const rfm_node *node, uint32_t mask)
{
	const uint32_t status = RFM_EVENT_BIT(RFM_EVENT_OVERFLOW);
	const uint32_t link = RFM_EVENT_BIT(RFM_EVENT_LINK);

	if (!node)
		return rfm__error(RFM_EINVAL, "%s: node is NULL", what);
	if (mask & ~(RFM_EVENT_MASK_NETWORK | RFM_EVENT_MASK_HEALTH | link | status))
		return rfm__error(RFM_EINVAL, "%s: mask 0x%x has bits of no event type (valid: 0x%x)",
				  what, mask, RFM_EVENT_MASK_NETWORK);
	if (mask & status)
		return rfm__error(RFM_ENOTSUP,
				  "%s: overflow (mask 0x%x) is not enabled by hand: it is always "
				  "delivered",
				  what, mask & status);
	return 0;
}

/* lock=1/prefault=1 (mem-lock.c) for the queue the backend just attached. */
static int lock_queue_memory(rfm_node *node)
{
	void *addr = NULL;
	size_t len = 0;

	if (!node->ops->ev->queue_memory)
		return 0;
	node->ops->ev->queue_memory(node, &addr, &len);
	return rfm__mem_event_queue(node, addr, len);
}

RFM_API int rfm_event_enable(rfm_node *node, uint32_t mask)
{
	struct rfm_events *ev;
	int ret = check_mask("rfm_event_enable", node, mask);

	if (!ret && !mask)
		ret = rfm__error(RFM_EINVAL, "rfm_event_enable: the mask is empty");
	/* No node id, no queue: events are addressed to ids. */
	if (!ret && node->observer)
		ret = rfm__observer_refused(node, "rfm_event_enable");
	ret = rfm__event_enter(node, ret, true, &ev);
	if (ret)
		return ret;
	if (ev->mask & mask) {
		ret = rfm__error(RFM_EBUSY, "%s: event type(s) 0x%x already enabled on this handle",
				 node->uri, ev->mask & mask);
		goto out;
	}
	if (!ev->attached) {
		ret = node->ops->ev->attach(node, &ev->depth);
		if (ret)
			goto out;
		EV_STORE(ev->attached, 1);
		/* lock=1/prefault=1: the queue's pages now, not at the first event. */
		ret = lock_queue_memory(node);
		if (ret)
			goto out;
		/* The dispatcher and the fd watcher wait for a queue to exist. */
		pthread_cond_broadcast(&ev->cb_cond);
		rfm__futex_bump_wake(&ev->drain_gen, false);
	}
	EV_STORE(ev->mask, ev->mask | mask);
	node->ops->ev->set_mask(node, ev->mask);
out:
	pthread_mutex_unlock(&ev->lock);
	return ret;
}

int rfm__event_enable_notify(rfm_node *node, unsigned int type)
{
	uint32_t mask = 0;
	int ret;

	rfm_event_get_enabled(node, &mask);
	if (mask & RFM_EVENT_BIT(type))
		return 0;
	ret = rfm_event_enable(node, RFM_EVENT_BIT(type));
	return ret && ret != RFM_EBUSY ? ret : 1;
}

RFM_API int rfm_event_disable(rfm_node *node, uint32_t mask)
{
	struct rfm_events *ev;
	int ret = rfm__event_enter(node, check_mask("rfm_event_disable", node, mask), false, &ev);

	if (ret)
		return ret;
	EV_STORE(ev->mask, ev->mask & ~mask);
	if (ev->attached)
		node->ops->ev->set_mask(node, ev->mask);
	pthread_mutex_unlock(&ev->lock);
	/* Waits with nothing left to wait for return RFM_ECLOSED. */
	rfm__event_wake_all(node);
	return 0;
}

RFM_API int rfm_event_get_enabled(rfm_node *node, uint32_t *maskp)
{
	if (!node || !maskp)
		return rfm__error(RFM_EINVAL, "rfm_event_get_enabled: NULL argument");
	*maskp = EV_LOAD(rfm__core(node)->ev->mask);
	return 0;
}

/* ---- sending ---- */

static int check_target(rfm_node *node, const char *what, unsigned int to, unsigned int type)
{
	if (!node)
		return rfm__error(RFM_EINVAL, "%s: node is NULL", what);
	if (node->observer)
		return rfm__observer_refused(node, what);
	if (type > RFM_EVENT_INTR4)
		return rfm__error(RFM_EINVAL,
				  "%s: event type %u (%s) can not be sent: use reset or intr1..intr4",
				  what, type, rfm_event_type_name(type));
	if (to > RFM_NODE_ID_MAX && to != RFM_NODE_ALL)
		return rfm__error(RFM_ENODEID, "%s: target node %u is not 0..%d nor RFM_NODE_ALL",
				  what, to, RFM_NODE_ID_MAX);
	if (to == (unsigned int)node->id && !__atomic_load_n(&node->loopback, __ATOMIC_RELAXED))
		return rfm__error(RFM_ESELF,
				  "%s: node %u is this node; enable loopback to send to it", what, to);
	if (!node->ops->ev->send)
		return rfm__error(RFM_ENOTSUP, "%s: the %s: backend has no events", node->uri,
				  node->ops->scheme);
	return 0;
}

static int send_checked(rfm_node *node, unsigned int to, unsigned int type, uint32_t data)
{
	struct rfm_ev_record rec = {
		.type = type,
		.sender = (uint32_t)node->id,
		.data = data,
		.sent_ns = 0, /* read by the backend, see ev_send */
	};

	int ret = node->ops->ev->send(node, to, &rec);

	if (ret >= 0)
		__atomic_fetch_add(&rfm__core(node)->ev_sent, 1, __ATOMIC_RELAXED);
	return ret;
}

int rfm__event_post(rfm_node *node, unsigned int to, unsigned int type, uint32_t sender,
		    uint32_t data)
{
	struct rfm_ev_record rec = { .type = type, .sender = sender, .data = data };

	if (!node->ops->ev->send)
		return RFM_ENOTSUP;
	return node->ops->ev->send(node, to, &rec);
}

RFM_API int rfm_event_send(rfm_node *node, unsigned int to, unsigned int type, uint32_t data)
{
	int ret = check_target(node, "rfm_event_send", to, type);

	return ret ? ret : send_checked(node, to, type, data);
}

RFM_API int rfm_event_publish(rfm_node *node, uint64_t offset, const void *buf, size_t len,
			      uint64_t seq_offset, unsigned int to, unsigned int type,
			      uint32_t *seqp)
{
	int ret = check_target(node, "rfm_event_publish", to, type);

	if (ret)
		return ret;
	if (!buf && len)
		return rfm__error(RFM_EINVAL, "rfm_event_publish: the buffer is NULL");
	if (len > node->size || offset > node->size - len)
		return rfm__error(RFM_ERANGE,
				  "rfm_event_publish: %zu bytes at 0x%llx do not fit the %llu-byte "
				  "window",
				  len, (unsigned long long)offset, (unsigned long long)node->size);
	if (seq_offset > node->size - 4)
		return rfm__error(RFM_ERANGE,
				  "rfm_event_publish: sequence word at 0x%llx is outside the window",
				  (unsigned long long)seq_offset);
	if (seq_offset % 4)
		return rfm__error(RFM_EALIGN,
				  "rfm_event_publish: sequence word at 0x%llx is not 4-byte aligned",
				  (unsigned long long)seq_offset);
	if (len && seq_offset + 4 > offset && seq_offset < offset + len)
		return rfm__error(RFM_EINVAL,
				  "rfm_event_publish: the sequence word at 0x%llx lies inside the data",
				  (unsigned long long)seq_offset);
	/* Refuse before writing anything when the target is absent. */
	if (to != RFM_NODE_ALL && node->ops->ev->node_attached &&
	    !node->ops->ev->node_attached(node, to))
		return rfm__error(RFM_ENODE, "%s: node %u is not attached", node->uri, to);
	if (len)
		memcpy(node->base + offset, buf, len);
	ret = rfm__published(node, node->base + offset, len);
	if (ret)
		return ret;
	/* Data, then the flag (release, little-endian: the wire order), then the event. */
	uint32_t seq = rfm__wadd32_release((uint32_t *)(node->base + seq_offset), 1);
	ret = rfm__published(node, node->base + seq_offset, 4);
	if (ret)
		return ret;
	if (seqp)
		*seqp = seq;
	return send_checked(node, to, type, seq);
}

/* ---- counters ---- */

RFM_API int rfm_event_get_stats(rfm_node *node, struct rfm_event_stats *stats)
{
	struct rfm_event_stats full;
	struct rfm_events *ev;
	int ret;

	ret = rfm__sized_check("rfm_event_get_stats", node, stats, stats ? stats->struct_size : 0,
			     offsetof(struct rfm_event_stats, delivered));
	if (ret)
		return ret;
	ev = rfm__core(node)->ev;
	memset(&full, 0, sizeof(full));
	rfm__lock(&ev->take_lock);
	if (EV_LOAD(ev->attached)) {
		full.depth = ev->depth;
		full.dropped = node->ops->ev->dropped(node);
		full.queued = node->ops->ev->queued(node);
	}
	full.delivered = ev->delivered;
	full.overflows = ev->overflows;
	full.unhandled = EV_LOAD(ev->unhandled);
	rfm__unlock(&ev->take_lock);
	if (node->ops->refused)
		full.refused = node->ops->refused(node);
	if (node->ops->forged)
		full.forged = node->ops->forged(node);
	rfm__sized_fill(stats, &full, sizeof(full));
	return 0;
}
