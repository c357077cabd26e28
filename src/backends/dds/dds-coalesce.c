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
	__atomic_store_n(&d->batch_len, 0, __ATOMIC_RELAXED);
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
		__atomic_store_n(&d->batches, d->batches + 1, __ATOMIC_RELAXED);
		if (d->flusher_idle) {
			d->flusher_idle = false;
			rfm__futex_bump_wake(&d->batch_futex, false);
		}
	}
	__atomic_store_n(&d->batch_len, d->batch_len + need, __ATOMIC_RELAXED);
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
 * longer than a tick. With callbacks=receive the flusher also sends the
 * backlog (dds-backlog.c), trying again after 50 us, then twice as long
 * each time, up to 5 ms, while Cyclone has no room.
 *
 * The tick looks before it locks: pub_lock is held for a whole
 * dds_write(), and a flusher blocked on it costs the sender a futex wake
 * when it lets go, on every tick that meets a send. Where events follow
 * the writes (a request and its interrupt) the batch is nearly always
 * empty at the tick, so the lock is taken only to flush, to stop, and to
 * fall asleep. Returns when to tick next (0: when woken).
 */
struct flusher {
	uint32_t seen;		/* batches begun at the last tick */
	uint32_t quiet;		/* ticks since one began */
	uint32_t retry_us;	/* the backlog's next pause */
};

static uint64_t flusher_tick(struct dds_node *d, struct flusher *f)
{
	uint32_t begun = __atomic_load_n(&d->batches, __ATOMIC_RELAXED);
	bool idle = false, left = false;

	f->quiet = begun == f->seen ? f->quiet + 1 : 0;
	f->seen = begun;
	if (!__atomic_load_n(&d->batch_len, __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&d->backlog_bytes, __ATOMIC_RELAXED) && f->quiet < IDLE_TICKS)
		return rfm__now_ns() + d->coalesce_ns;
	pthread_mutex_lock(&d->pub_lock);
	if (d->batch_len)
		/* A failure loses a sequence number: receivers see a gap. */
		rfm__dds_flush_locked(d, NULL);
	if (d->backlog)
		left = rfm__dds_backlog_send_locked(d);
	/* Asleep only if nothing is left and no batch began since the look:
	 * the next batch or backlog wakes us. */
	if (!left && f->quiet >= IDLE_TICKS && d->batches == f->seen)
		idle = d->flusher_idle = true;
	pthread_mutex_unlock(&d->pub_lock);
	if (left) {
		uint64_t at = rfm__now_ns() + (uint64_t)f->retry_us * 1000;

		f->retry_us = f->retry_us < 2500 ? f->retry_us * 2 : 5000;
		return at;
	}
	f->retry_us = 50;
	return idle ? 0 : rfm__now_ns() + d->coalesce_ns;
}

static void *flusher_main(void *arg)
{
	struct dds_node *d = arg;
	struct flusher f = { .retry_us = 50 };

	for (;;) {
		uint32_t token = __atomic_load_n(&d->batch_futex, __ATOMIC_SEQ_CST);

		if (__atomic_load_n(&d->batch_stop, __ATOMIC_ACQUIRE))
			return NULL;
		rfm__futex_wait(&d->batch_futex, token, flusher_tick(d, &f), false);
	}
}

int rfm__dds_coalesce_start(struct rfm_node *node)
{
	struct dds_node *d = node->priv;
	int ret;

	/* callbacks=receive needs it for the backlog, without coalescing too. */
	if (!d->coalesce_ns && !d->callbacks_receive)
		return 0;
	if (d->coalesce_ns) {
		d->batch = malloc(RFM_DDS_BATCH_MAX);
		if (!d->batch)
			return rfm__error(RFM_ENOMEM, "dds:%s: out of memory", d->name);
	}
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
		pthread_mutex_unlock(&d->pub_lock);
		rfm__dds_backlog_drain(d); /* sent by the flusher, still running */
		pthread_mutex_lock(&d->pub_lock);
		__atomic_store_n(&d->batch_stop, true, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&d->pub_lock);
		rfm__futex_bump_wake(&d->batch_futex, false);
		pthread_join(d->flusher, NULL);
	}
	d->flusher_started = false;
	rfm__dds_backlog_discard(d); /* left by a fork, or the drain's deadline */
	free(d->batch);
	d->batch = NULL;
}
