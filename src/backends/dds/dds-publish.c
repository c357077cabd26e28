/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The writes of the dds: backend's handle: what the library wrote into
 * our copy goes out on the stream, held in the batch (dds-coalesce.c) or
 * in pieces of at most RFM_DDS_CHUNK bytes serialised from the window
 * itself. The words written are marked as ours, for a resync
 * (dds-answer.c).
 */
#include "config.h"

#include "backends/dds/dds-internal.h"

/*
 * Mark the words of [offset, offset+len) as ours, for a resync: 64 words
 * per bitmap word, and no atomic at all when they are marked already (a
 * writer rewrites the same places; one locked OR per 8 bytes was a fifth
 * of a 4 KiB write's time).
 */
static void mark_own(struct dds_node *d, uint64_t offset, uint64_t len)
{
	uint64_t w = offset / 8, end = (offset + len + 7) / 8;

	while (w < end) {
		uint64_t bit = w % 64, n = end - w < 64 - bit ? end - w : 64 - bit;
		uint64_t mask = (n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1) << bit;
		uint64_t *word = &d->answer.own[w / 64];

		if ((__atomic_load_n(word, __ATOMIC_RELAXED) & mask) != mask)
			__atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
		w += n;
	}
}

int rfm__dds_publish(struct rfm_node *node, uint64_t offset, uint64_t len)
{
	struct dds_node *d = node->priv;
	int ret;

	if (d->forked)
		return rfm__error(RFM_ECLOSED, "%s: handle inherited through fork()", node->uri);
	if (!len)
		return 0; /* nothing to send, as before batches */
	mark_own(d, offset, len);
	ret = rfm__dds_lock_to_send(d);
	if (ret)
		return ret;
	if (rfm__dds_hold_write(d, offset, len, &ret)) {
		rfm__dds_send_unlock(d);
		return ret;
	}
	while (len && !ret) {
		uint32_t n = len < RFM_DDS_CHUNK ? (uint32_t)len : RFM_DDS_CHUNK;
		/* Serialised from the window itself: no copy. */
		rfm_dds_Msg m = {
			.kind = DDS_KIND_WRITE,
			.to = RFM_NODE_ALL,
			.offset = offset,
			.data = { ._maximum = n, ._length = n, ._buffer = d->window + offset },
		};

		ret = rfm__dds_send_locked(d, &m);
		offset += n;
		len -= n;
	}
	rfm__dds_send_unlock(d);
	return ret;
}
