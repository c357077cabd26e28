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
 * while batches come, the handle's thread (dds-thread.c) wakes once per
 * coalesce_ns and sends the one no event took along. Arming a timer per
 * batch would be cheaper in theory, but reprogramming the CPU's timer
 * costs several µs in a VM, more than the packet saved; a tick costs
 * nothing on the writer's path. The thread sleeps without a deadline once
 * batches stop, and the first batch after that wakes it. Any other sample
 * of the handle sends the batch first. Writes are never held while a peer lives in this
 * process, whose copy is promised the data when the call returns.
 */
#include "config.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "futex.h"
#include "backends/dds/dds-internal.h"

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
		if (d->thread_idle) {
			d->thread_idle = false;
			rfm__futex_bump_wake(&d->thread_futex, false);
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
