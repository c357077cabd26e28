/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Records: groups of variables published atomically with a sequence lock
 * (see seqlock.h for the protocol and layout-internal.h for the layout:
 * sequence word, reserved word, data).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "layout-internal.h"
#include "seqlock.h"
#include "wait-notify.h"
#include "window-copy.h"

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_ORDER RFM_ORDER_BIG
#else
#define HOST_ORDER RFM_ORDER_LITTLE
#endif

/*
 * Hook run after every successful publish: a record whose layout has a
 * `notify` type broadcasts it with the new sequence (the data is already
 * visible: interrupts follow the data).
 */
static inline int after_publish(rfm_record *rec, uint32_t sequence)
{
	if (rec->notify) {
		/* Nobody listening, or a backend without events, is not an error. */
		int ret = rfm_event_send(rec->node, RFM_NODE_ALL, rec->notify, sequence);

		return ret < 0 && ret != RFM_ENOTSUP ? ret : 0;
	}
	return 0;
}

RFM_API int rfm_record_open(rfm_layout *layout, rfm_node *node, const char *name,
			    rfm_record **recp)
{
	rfm_record *rec;
	int ret = rfm__layout_open_check("rfm_record_open", layout, node, name, recp);

	if (ret)
		return ret;
	long i = rfm__layout_find_record(layout, name, strlen(name));
	if (i < 0)
		return rfm__error(RFM_ENOTFOUND, "%s: no record named '%s'", layout->name, name);
	const struct lay_record *def = &layout->records[i];
	rec = calloc(1, sizeof(*rec));
	if (!rec || !(rec->image = calloc(1, def->data_size ? def->data_size : 1))) {
		free(rec);
		return rfm__error(RFM_ENOMEM, "%s: out of memory", name);
	}
	rec->seq = node->base + def->abs;
	rec->data = rec->seq + LAY_RECORD_HEADER;
	rec->size = def->data_size;
	rec->swap = def->byte_order != HOST_ORDER;
	/* dds:'s thread stores peers' words into this copy of the window
	 * (and loads ours to send them): the data is moved as words there. */
	rec->atomic_copy = rfm__window_filled_by_thread(node);
	rfm__lay_handle_init(&rec->lh, layout, (size_t)i, def->region, node);
	rec->node = node;
	rec->notify = def->notify;
	*recp = rec;
	return 0;
}

RFM_API void rfm_record_close(rfm_record *rec)
{
	if (!rec)
		return;
	rfm__lay_handle_release(&rec->lh);
	free(rec->image);
	free(rec);
}

RFM_API size_t rfm_record_size(const rfm_record *rec)
{
	return rec ? rec->size : 0;
}

RFM_API int rfm_record_get_info(const rfm_record *rec, struct rfm_record_info *info)
{
	struct rfm_record_info full;
	int ret = rfm__sized_check("rfm_record_get_info", rec, info, info ? info->struct_size : 0,
				 LAY_RECORD_INFO_SIZE_1_0);

	if (ret)
		return ret;
	rfm__record_info(rec->lh.layout, rec->lh.index, &full);
	rfm__sized_fill(info, &full, sizeof(full));
	return 0;
}

RFM_API int rfm_record_set_max_tries(rfm_record *rec, uint32_t tries)
{
	if (!rec || tries == 0)
		return rfm__error(RFM_EINVAL, "rfm_record_set_max_tries: %s",
				  rec ? "tries must be at least 1" : "rec is NULL");
	rec->lh.max_tries = tries;
	return 0;
}

RFM_API int rfm_record_set_owner_check(rfm_record *rec, bool enforce)
{
	if (!rec)
		return rfm__error(RFM_EINVAL, "rfm_record_set_owner_check: rec is NULL");
	rec->lh.enforce_owner = enforce;
	return 0;
}

static const char *rec_name(const rfm_record *rec)
{
	return rec->lh.layout->records[rec->lh.index].full;
}

__attribute__((cold, noinline))
static int io_error(const rfm_record *rec, const void *buf, size_t len, const char *what)
{
	if (!rec || !buf)
		return rfm__error(RFM_EINVAL, "%s: NULL argument", what);
	return rfm__error(RFM_EINVAL, "%s: %s holds %zu bytes of data, not %zu", what,
			  rec_name(rec), rec->size, len);
}

RFM_API int rfm_record_read(rfm_record *rec, void *buf, size_t len, uint32_t *seqp)
{
	if (RFM_UNLIKELY(!rec || !buf || len != rec->size))
		return io_error(rec, buf, len, "rfm_record_read");
	for (uint32_t tries = 0; tries < rec->lh.max_tries; tries++) {
		uint32_t start = rfm__seq_read_begin(rec->seq, rec->swap);

		if (RFM_LIKELY(!(start & 1))) {
			rfm__window_copy(rec->atomic_copy, buf, rec->data, len);
			if (RFM_LIKELY(!rfm__seq_read_retry(rec->seq, rec->swap, start))) {
				if (seqp)
					*seqp = start;
				if (RFM_UNLIKELY(tries))
					rfm__count_record_retry(tries);
				return (int)tries;
			}
		}
		rfm__cpu_relax();
	}
	return rfm__error(RFM_ETORN,
			  "%s: a publish was in progress during all %u tries (is its writer "
			  "alive? raise rfm_record_set_max_tries())",
			  rec_name(rec), rec->lh.max_tries);
}

__attribute__((cold, noinline))
static int owner_error(const rfm_record *rec)
{
	const rfm_layout *l = rec->lh.layout;
	const struct lay_region *r = &l->regions[l->records[rec->lh.index].region];

	if (rec->lh.observer)
		return rfm__error(RFM_EPERM, "%s: opened through an observer (observe=1), which "
				  "never writes", rec_name(rec));
	return rfm__error(RFM_EOWNER,
			  "%s: region %s is written by node %u only, this is node %d (relax "
			  "with rfm_record_set_owner_check())",
			  rec_name(rec), r->name, r->writer, rec->node->id);
}

RFM_API int rfm_record_write(rfm_record *rec, const void *buf, size_t len)
{
	if (RFM_UNLIKELY(!rec || !buf || len != rec->size))
		return io_error(rec, buf, len, "rfm_record_write");
	if (RFM_UNLIKELY(!rfm__lay_handle_may_write(&rec->lh)))
		return owner_error(rec);
	uint32_t even = rfm__seq_write_begin(rec->seq, rec->swap);
	/* A copy per node (dds:): odd sequence, data, even sequence, in order. */
	int ret = rfm__published(rec->node, rec->seq, 4);
	rfm__window_store(rec->atomic_copy, rec->data, buf, len);
	if (!ret)
		ret = rfm__published(rec->node, rec->data, len);
	rfm__seq_write_end(rec->seq, rec->swap, even);
	if (!ret)
		ret = rfm__published(rec->node, rec->seq, 4);
	return ret ? ret : after_publish(rec, even);
}

RFM_API int rfm_record_fetch(rfm_record *rec)
{
	if (!rec)
		return rfm__error(RFM_EINVAL, "rfm_record_fetch: rec is NULL");
	return rfm_record_read(rec, rec->image, rec->size, NULL);
}

RFM_API int rfm_record_publish(rfm_record *rec)
{
	if (!rec)
		return rfm__error(RFM_EINVAL, "rfm_record_publish: rec is NULL");
	return rfm_record_write(rec, rec->image, rec->size);
}

RFM_API int rfm_record_sequence(const rfm_record *rec, uint32_t *seqp)
{
	if (!rec || !seqp)
		return rfm__error(RFM_EINVAL, "rfm_record_sequence: NULL argument");
	*seqp = rfm__seq_read_begin(rec->seq, rec->swap);
	return 0;
}

RFM_API int rfm_record_var(rfm_record *rec, const char *name, rfm_var **varp)
{
	char *full;
	size_t len;
	bool has_index;
	uint32_t element;
	int ret;

	if (!rec || !name || !varp)
		return rfm__error(RFM_EINVAL, "rfm_record_var: NULL argument");
	if (rfm__split_index(name, &len, &has_index, &element))
		return rfm__error(RFM_EINVAL, "rfm_record_var: '%s' is not a name such as var or var[2]",
				  name);
	if (asprintf(&full, "%s.%s", rec_name(rec), name) < 0)
		return rfm__error(RFM_ENOMEM, "%s: out of memory", rec_name(rec));
	rfm_layout *layout = rec->lh.layout;
	long i = rfm__layout_find_var(layout, full, strlen(rec_name(rec)) + 1 + len);
	if (i < 0 || layout->vars[i].record != rec->lh.index) {
		ret = rfm__error(RFM_ENOTFOUND, "%s: record %s has no variable '%.*s'",
				 layout->name, rec_name(rec), (int)len, name);
		goto out;
	}
	const struct lay_var *def = &layout->vars[i];
	uint32_t first = 0, count = def->count;
	if (has_index) {
		if (element >= def->count || def->type == RFM_TYPE_STRING) {
			ret = rfm__error(RFM_ENOTFOUND, "%s: %s has no element [%u]",
					 layout->name, def->full, element);
			goto out;
		}
		first = element;
		count = 1;
	}
	unsigned int esize = rfm__type_size(def->type);
	ret = rfm__var_new(layout, (size_t)i, NULL, first, count,
			   rec->image + def->offset + (uint64_t)first * esize, full, varp);
	if (!ret)
		rfm__var_update_flags(*varp);
out:
	free(full);
	return ret;
}

/* How long a wait yields before it sleeps. */
#define YIELD_NS 100000u

struct seq_spin {
	rfm_record *rec;
	uint32_t last;
	uint32_t seq; /* the sequence last seen */
};

/* Published since @last, and no publish under way? */
static bool seq_ready(void *arg)
{
	struct seq_spin *s = arg;

	s->seq = rfm__seq_read_begin(s->rec->seq, s->rec->swap);
	return !(s->seq & 1) && s->seq != s->last;
}

static int seq_spin_over(void *arg, unsigned int turn)
{
	(void)arg;
	return rfm__spin_turns_over(turn, 64);
}

/* The time left before @deadline (0: none) in *@left (-1: no limit), or RFM_ETIMEDOUT. */
static int time_left(const rfm_record *rec, uint64_t deadline, int64_t *left)
{
	uint64_t now;

	*left = -1;
	if (!deadline)
		return 0;
	now = rfm_event_now_ns();
	if (now >= deadline)
		return rfm__error(RFM_ETIMEDOUT, "%s: nothing published in time", rec_name(rec));
	*left = (int64_t)(deadline - now);
	return 0;
}

/*
 * Whether a wait polls rather than sleeps on the record's event: there is
 * none (no notify, or an observer, which has no queue), or a publish is
 * under way (@seq odd) and @waited is short: its end sends the event, so
 * past the yields a writer that died mid-publish leaves us asleep, not
 * spinning a core until its timeout.
 */
static bool record_polls(const rfm_record *rec, uint32_t seq, uint64_t waited)
{
	return !rec->notify || rec->lh.observer || (seq & 1 && waited < YIELD_NS);
}

RFM_API int rfm_record_wait(rfm_record *rec, uint32_t last, int64_t timeout_ns, uint32_t *seqp)
{
	uint64_t deadline = 0, start = 0;
	unsigned int polls = 0;
	bool enabled = false;

	if (!rec)
		return rfm__error(RFM_EINVAL, "rfm_record_wait: rec is NULL");
	if (timeout_ns > 0)
		deadline = rfm_event_now_ns() + (uint64_t)timeout_ns;
	struct seq_spin spin = { rec, last, 0 };
	if (seq_ready(&spin))
		goto done;
	if (timeout_ns == 0)
		return RFM_EAGAIN;
	/* A publish in progress ends in a moment: spin first. */
	if (!rfm__spin_until(seq_ready, seq_spin_over, &spin))
		goto done;
	for (;;) {
		int64_t left;
		int ret;

		if (seq_ready(&spin))
			goto done;
		ret = time_left(rec, deadline, &left);
		if (!ret)
			ret = rfm__event_poll_stop(rec->node);
		if (ret)
			return ret;
		uint64_t now = rfm_event_now_ns();
		if (!start)
			start = now;
		if (record_polls(rec, spin.seq, now - start)) {
			/* Yield, then poll sleeping up to 1 ms at a time. */
			if (now - start < YIELD_NS)
				rfm__os_yield();
			else
				rfm__backoff_sleep(polls++, deadline);
			continue;
		}
		if (!enabled) {
			ret = rfm__event_enable_notify(rec->node, rec->notify);
			if (ret < 0)
				return ret;
			enabled = true;
			/* Enabled now: a publish before this was not queued, look again. */
			if (ret)
				continue;
		}
		ret = rfm__event_sleep(rec->node, left);
		if (ret && ret != RFM_ETIMEDOUT)
			return ret;
	}
done:
	if (seqp)
		*seqp = spin.seq;
	return 0;
}
