/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bottom of the dds: backend: one sample to Cyclone, one piece into
 * our copy of the window, and the few facts every layer above asks about
 * the calling thread. Nothing here calls another file of the backend.
 *
 * The three thread-local modes live here because a layer below the one
 * that sets a mode must read it: the send side (dds-backlog.c) asks
 * whether it runs on a receive thread, which the receive side
 * (dds-receive.c) marks; the receive side asks whether it runs inside a
 * write, which rfm__dds_write() marks. dds-internal.h says what each mode
 * changes.
 */
#include "config.h"

#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "os/random.h"
#include "backends/dds/dds-internal.h"

/* Inside a dds_write() of this process: a reader of this process may be
 * applying the sample on this thread (the writer's), which may hold its
 * handle's send lock and be inside another callback. */
static _Thread_local unsigned int writing;
/* Inside a listener of ours: on one of Cyclone's receive threads. */
static _Thread_local unsigned int receiving;
/* The handle's thread (dds-thread.c): the one that sends the backlog. */
static _Thread_local bool handle_thread;

dds_return_t rfm__dds_write(struct dds_node *d, const rfm_dds_Msg *m)
{
	dds_return_t rc;

	writing++;
	rc = dds_write(d->writer, m);
	writing--;
	return rc;
}

bool rfm__dds_in_write(void)
{
	return writing != 0;
}

void rfm__dds_receiving(bool on)
{
	receiving += on ? 1 : (unsigned int)-1;
}

bool rfm__dds_in_receive(void)
{
	return receiving != 0;
}

void rfm__dds_on_handle_thread(void)
{
	handle_thread = true;
}

bool rfm__dds_in_handle_thread(void)
{
	return handle_thread;
}

/*
 * A bump of the futex the handle's thread sleeps on: the lower layers
 * (the backlog, the receive side) give it work without calling up into
 * dds-thread.c, which only ever waits on this word.
 */
void rfm__dds_thread_wake(struct dds_node *d)
{
	rfm__futex_bump_wake(&d->thread_futex, false);
}

void rfm__dds_store(struct dds_node *d, uint64_t off, const uint8_t *src, uint64_t len)
{
	uint8_t *dst = d->window + off;
	uint64_t i = len;

	/*
	 * Highest address first, each store a release: a guard word placed
	 * before its data (a ring slot's stamp, a record's sequence) lands
	 * after the data, as the writer's own stores did.
	 */
	while (i && ((uintptr_t)(dst + i) & 7))
		i--, __atomic_store_n(dst + i, src[i], __ATOMIC_RELEASE);
	while (i >= 8) {
		uint64_t v;

		i -= 8;
		memcpy(&v, src + i, 8);
		__atomic_store_n((uint64_t *)(void *)(dst + i), v, __ATOMIC_RELEASE);
	}
	while (i)
		i--, __atomic_store_n(dst + i, src[i], __ATOMIC_RELEASE);
}

struct dds_held *rfm__dds_held_new(const rfm_dds_Msg *m)
{
	struct dds_held *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->msg = *m;
	h->msg.data._buffer = NULL;
	h->msg.data._release = false;
	h->msg.data._maximum = m->data._length;
	if (m->data._length) {
		h->msg.data._buffer = malloc(m->data._length);
		if (!h->msg.data._buffer) {
			free(h);
			return NULL;
		}
		memcpy(h->msg.data._buffer, m->data._buffer, m->data._length);
	}
	return h;
}

void rfm__dds_deliver(struct rfm_node *node, const struct rfm_ev_record *rec)
{
	struct dds_node *d = node->priv;

	rfm__localq_push(&d->q, rec);
}

void rfm__dds_refuse(struct dds_node *d)
{
	__atomic_fetch_add(&d->recv.refused, 1, __ATOMIC_RELAXED);
}

uint64_t rfm__dds_refused(struct rfm_node *node)
{
	struct dds_node *d = node->priv;

	return __atomic_load_n(&d->recv.refused, __ATOMIC_RELAXED);
}

uint64_t rfm__dds_forged(struct rfm_node *node)
{
	struct dds_node *d = node->priv;

	return __atomic_load_n(&d->recv.forged, __ATOMIC_RELAXED);
}

int rfm__dds_fail(const struct rfm_uri *uri, dds_return_t rc, const char *what)
{
	return rfm__error(RFM_EIO, "%s: %s: %s (Cyclone DDS; see CYCLONEDDS_URI in docs/dds.md)",
			  uri->text, what, dds_strretcode(rc));
}

uint32_t rfm__dds_nonce(void)
{
	uint32_t n = 0;

	/* Unguessable: a stranger who sees one request's nonce learns nothing
	 * of the next one. */
	if (rfm__os_random(&n, sizeof(n)))
		n = (uint32_t)rfm__now_ns(); /* no entropy: still unique, no longer secret */
	return n ? n : 1;
}
