/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Coalescing on the dds: backend. A write is usually followed by the event
 * that announces it (rfm_mem_write() then rfm_event_send(), or
 * rfm_event_publish()'s data, sequence word and interrupt), or by more
 * writes. Sent one by one, that is a sample and a UDP packet each; here
 * the writes wait in the handle's batch and go out as ONE sample (BATCH),
 * with the event when one comes. The receiver applies the pieces in order,
 * each highest address first, then delivers the event: writer order and
 * "interrupts follow the data" hold, and a batch takes one sequence number
 * like any sample, so gaps are still seen.
 *
 * A write waits at most coalesce_ns (URI parameter coalesce=NS, 0: never):
 * while batches come, the flusher thread wakes once per coalesce_ns and
 * sends the one no event took along. Arming a timer per batch would be
 * cheaper in theory, but reprogramming the CPU's timer costs several µs
 * in a VM, more than the packet saved; a tick costs nothing on the
 * writer's path. The flusher sleeps without a deadline once batches stop,
 * and the first batch after that wakes it. Any other sample of the handle
 * sends the batch first. Writes are never held while a peer lives in this
 * process, whose copy is promised the data when the call returns.
 */
#include "config.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-clock.h"
#include "futex.h"
#include "rt-internal.h"
#include "backends/dds/dds-internal.h"

/* Ticks without a batch before the flusher sleeps without a deadline. */
#define IDLE_TICKS 8u

static uint32_t piece_size(uint64_t len)
{
	return (uint32_t)(sizeof(struct dds_piece) + ((len + 7) & ~UINT64_C(7)));
}

int rfm__dds_flush_locked(struct dds_node *d, const rfm_dds_Msg *ev)
{
	rfm_dds_Msg m = { .to = RFM_NODE_ALL };

	if (ev)
		m = *ev;
	m.kind = DDS_KIND_BATCH;
	m.extra = ev ? DDS_BATCH_EVENT : 0;
	m.offset = 0;
	/* Serialised by dds_write() before it returns: the buffer is free after. */
	m.data._maximum = m.data._length = d->batch_len;
	m.data._buffer = d->batch;
	m.data._release = false;
	d->batch_len = 0;
	return rfm__dds_send_locked(d, &m);
}

bool rfm__dds_hold_write(struct dds_node *d, uint64_t offset, uint64_t len, int *ret)
{
	uint32_t need = len <= RFM_DDS_BATCH_MAX ? piece_size(len) : UINT32_MAX;
	struct dds_piece pc = { .offset = htole64(offset), .len = htole32((uint32_t)len) };
	uint8_t *at;

	*ret = 0;
	if (!d->coalesce_ns || !d->batch || need > RFM_DDS_BATCH_MAX ||
	    __atomic_load_n(&d->peer_in_process, __ATOMIC_RELAXED))
		return false;
	if (d->batch_len + need > RFM_DDS_BATCH_MAX) {
		*ret = rfm__dds_flush_locked(d, NULL);
		if (*ret)
			return true;
	}
	at = d->batch + d->batch_len;
	memcpy(at, &pc, sizeof(pc));
	/* A copy now: later stores through the mapping stay local until flushed. */
	memcpy(at + sizeof(pc), d->window + offset, len);
	memset(at + sizeof(pc) + len, 0, need - sizeof(pc) - len);
	if (d->batch_len == 0) {
		d->batches++;
		if (d->flusher_idle) {
			d->flusher_idle = false;
			rfm__futex_bump_wake(&d->batch_futex, false);
		}
	}
	d->batch_len += need;
	return true;
}

/* Check a BATCH's pieces all fit, before applying any. */
static bool batch_valid(const struct dds_node *d, const uint8_t *p, uint32_t n)
{
	uint32_t at = 0;

	while (at < n) {
		struct dds_piece pc;
		uint64_t off, len;

		if (n - at < sizeof(pc))
			return false;
		memcpy(&pc, p + at, sizeof(pc));
		off = le64toh(pc.offset);
		len = le32toh(pc.len);
		at += sizeof(pc);
		if (((len + 7) & ~UINT64_C(7)) > n - at || off > d->size || len > d->size - off)
			return false;
		at += (uint32_t)((len + 7) & ~UINT64_C(7));
	}
	return true;
}

bool rfm__dds_apply_batch(struct dds_node *d, const rfm_dds_Msg *m)
{
	const uint8_t *p = m->data._buffer;
	uint32_t n = m->data._length, at = 0;

	if (!batch_valid(d, p, n))
		return false;
	while (at < n) {
		struct dds_piece pc;

		memcpy(&pc, p + at, sizeof(pc));
		at += sizeof(pc);
		/* Piece by piece in the writer's order, each highest address first. */
		rfm__dds_store(d, le64toh(pc.offset), p + at, le32toh(pc.len));
		at += (uint32_t)((le32toh(pc.len) + UINT64_C(7)) & ~UINT64_C(7));
	}
	return true;
}

/*
 * Once per coalesce_ns while batches come: send the batch no event took
 * along. A batch begun since the last tick may go out early; none waits
 * longer than a tick.
 */
static void *flusher_main(void *arg)
{
	struct dds_node *d = arg;
	uint32_t seen = 0, quiet = 0;

	for (;;) {
		uint32_t token = __atomic_load_n(&d->batch_futex, __ATOMIC_SEQ_CST);
		uint64_t deadline = 0;

		pthread_mutex_lock(&d->pub_lock);
		if (d->batch_stop) {
			pthread_mutex_unlock(&d->pub_lock);
			return NULL;
		}
		if (d->batch_len)
			/* A failure loses a sequence number: receivers see a gap. */
			rfm__dds_flush_locked(d, NULL);
		quiet = d->batches == seen ? quiet + 1 : 0;
		seen = d->batches;
		d->flusher_idle = quiet >= IDLE_TICKS;
		if (!d->flusher_idle)
			deadline = rfm__now_ns() + d->coalesce_ns;
		pthread_mutex_unlock(&d->pub_lock);
		rfm__futex_wait(&d->batch_futex, token, deadline, false);
	}
}

int rfm__dds_coalesce_start(struct rfm_node *node)
{
	struct dds_node *d = node->priv;
	int ret;

	if (!d->coalesce_ns)
		return 0;
	d->batch = malloc(RFM_DDS_BATCH_MAX);
	if (!d->batch)
		return rfm__error(RFM_ENOMEM, "dds:%s: out of memory", d->name);
	d->flusher_idle = true;
	ret = rfm__rt_thread_create(node, &d->flusher, flusher_main, d, "dds flusher");
	if (ret)
		return ret;
	d->flusher_started = true;
	return 0;
}

void rfm__dds_coalesce_stop(struct dds_node *d)
{
	if (d->flusher_started && !d->forked) {
		pthread_mutex_lock(&d->pub_lock);
		if (d->batch_len)
			rfm__dds_flush_locked(d, NULL); /* what was written goes out */
		d->batch_stop = true;
		pthread_mutex_unlock(&d->pub_lock);
		rfm__futex_bump_wake(&d->batch_futex, false);
		pthread_join(d->flusher, NULL);
	}
	d->flusher_started = false;
	free(d->batch);
	d->batch = NULL;
}
