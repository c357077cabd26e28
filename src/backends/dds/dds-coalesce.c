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
 *
 * Every sample of the handle goes out through rfm__dds_send_locked() here,
 * so that held writes always go before it; the receiver's side of a BATCH
 * is dds-receive.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "os/byteorder.h"
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
	m.data._maximum = m.data._length = d->send.batch_len;
	m.data._buffer = d->send.batch;
	m.data._release = false;
	__atomic_store_n(&d->send.batch_len, 0, __ATOMIC_RELAXED);
	return rfm__dds_emit_locked(d, &m);
}

bool rfm__dds_hold_write(struct dds_node *d, uint64_t offset, uint64_t len, int *ret)
{
	uint32_t need = len <= RFM_DDS_BATCH_MAX ? piece_size(len) : UINT32_MAX;
	struct dds_piece pc = { .offset = rfm__htole64(offset), .len = rfm__htole32((uint32_t)len) };
	uint8_t *at;

	*ret = 0;
	if (!d->send.coalesce_ns || !d->send.batch || need > RFM_DDS_BATCH_MAX ||
	    __atomic_load_n(&d->send.peer_in_process, __ATOMIC_RELAXED))
		return false;
	if (d->send.batch_len + need > RFM_DDS_BATCH_MAX) {
		*ret = rfm__dds_flush_locked(d, NULL);
		if (*ret)
			return true;
	}
	at = d->send.batch + d->send.batch_len;
	memcpy(at, &pc, sizeof(pc));
	/* A copy now: later stores through the mapping stay local until flushed. */
	memcpy(at + sizeof(pc), d->window + offset, len);
	memset(at + sizeof(pc) + len, 0, need - sizeof(pc) - len);
	if (d->send.batch_len == 0) {
		__atomic_store_n(&d->send.batches, d->send.batches + 1, __ATOMIC_RELAXED);
		if (d->thread_idle) {
			d->thread_idle = false;
			rfm__futex_bump_wake(&d->thread_futex, false);
		}
	}
	__atomic_store_n(&d->send.batch_len, d->send.batch_len + need, __ATOMIC_RELAXED);
	return true;
}

int rfm__dds_send_locked(struct dds_node *d, rfm_dds_Msg *msg)
{
	if (d->send.batch_len && msg->kind != DDS_KIND_BATCH) {
		/* Held writes first: the writer's order. */
		int ret = rfm__dds_flush_locked(d, NULL);

		if (ret)
			return ret;
	}
	return rfm__dds_emit_locked(d, msg);
}

int rfm__dds_send(struct dds_node *d, rfm_dds_Msg *msg)
{
	int ret = rfm__dds_lock_to_send(d);

	if (ret)
		return ret;
	ret = rfm__dds_send_locked(d, msg);
	rfm__dds_send_unlock(d);
	return ret;
}
