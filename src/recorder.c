/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder object (recorder.h): its configuration, what it records,
 * start, stop and counters. The work is done by recorder-plan.c (what
 * to read), the sampler and writer threads and a sink (the file format).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "layout-internal.h"
#include "os/clock.h"
#include "recorder-internal.h"
#include "rt-internal.h"
#include "wait-notify.h"

/* The fields of struct rfm_recorder_stats every caller has (RFM_1.2). */
#define STATS_SIZE_1_2 sizeof(struct rfm_recorder_stats)
/* Of struct rfm_recorder_config. */
#define CONFIG_SIZE_1_2 sizeof(struct rfm_recorder_config)

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcasecmp(s + n - k, suffix);
}

static int check_config(const struct rfm_recorder_config *c)
{
	if (c->format > RFM_REC_FORMAT_CSV)
		return rfm__error(RFM_EINVAL, "rfm_recorder_new: unknown format %u", c->format);
	if (c->mode > RFM_REC_ON_EVENT)
		return rfm__error(RFM_EINVAL, "rfm_recorder_new: unknown mode %u", c->mode);
	if (c->mode == RFM_REC_RATE && !c->period_ns)
		return rfm__error(RFM_EINVAL, "rfm_recorder_new: a rate recording needs a period");
	if (c->mode == RFM_REC_ON_EVENT && c->event_type > RFM_EVENT_INTR4)
		return rfm__error(RFM_EINVAL, "rfm_recorder_new: event type %u cannot be sent, so "
				  "cannot sample (RESET, INTR1..INTR4)", c->event_type);
	if (c->flags & ~(RFM_REC_F_OVERWRITE | RFM_REC_F_SPIN | RFM_REC_F_NO_CONVERT |
			 RFM_REC_F_RECORDS_ON_CHANGE))
		return rfm__error(RFM_EINVAL, "rfm_recorder_new: unknown flags 0x%x", c->flags);
	if (!rfm__all_zero(c->reserved, sizeof(c->reserved)))
		return rfm__error(RFM_EINVAL, "rfm_recorder_new: reserved fields must be zero");
	return 0;
}

RFM_API int rfm_recorder_new(rfm_node *node, rfm_layout *layout, const char *path,
			     const struct rfm_recorder_config *config, rfm_recorder **recp)
{
	struct rfm_recorder_config cfg = { .struct_size = sizeof(cfg), .period_ns = 1000000 };
	struct rfm_recorder *r;
	int ret;

	if (!node || !path || !recp || !path[0])
		return rfm__error(RFM_EINVAL, "rfm_recorder_new: NULL argument");
	if (config) {
		ret = rfm__sized_check("rfm_recorder_new", node, config, config->struct_size,
				       CONFIG_SIZE_1_2);
		if (ret)
			return ret;
		cfg = *config;
	}
	if ((ret = check_config(&cfg)))
		return ret;
	if (layout && !layout->finished)
		return rfm__error(RFM_EINVAL, "rfm_recorder_new: the layout is not finished");
	if (!cfg.poll_ns)
		cfg.poll_ns = RFM_REC_DEFAULT_POLL_NS;
	if (!cfg.queue_bytes)
		cfg.queue_bytes = RFM_REC_DEFAULT_QUEUE_BYTES;
	if (!cfg.flush_ns)
		cfg.flush_ns = RFM_REC_DEFAULT_FLUSH_NS;
	if (cfg.format == RFM_REC_FORMAT_AUTO)
		cfg.format = ends_with(path, ".csv") ? RFM_REC_FORMAT_CSV : RFM_REC_FORMAT_HDF5;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->path = strdup(path))) {
		free(r);
		return rfm__error(RFM_ENOMEM, "rfm_recorder_new: out of memory");
	}
	r->node = node;
	if (layout) {
		__atomic_add_fetch(&layout->refs, 1, __ATOMIC_RELAXED);
		r->layout = layout;
	}
	r->cfg = cfg;
	r->sink = cfg.format == RFM_REC_FORMAT_CSV ? &rfm__rec_csv_sink : &rfm__rec_hdf5_module_sink;
	r->frames = -1;
	r->events_stream = -1;
	*recp = r;
	return 0;
}

static int check_new(const struct rfm_recorder *r, const char *fn, bool need_layout)
{
	if (!r)
		return rfm__error(RFM_EINVAL, "%s: rec is NULL", fn);
	if (r->started)
		return rfm__error(RFM_EINVAL, "%s: the recording has started: add before "
				  "rfm_recorder_start()", fn);
	if (need_layout && !r->layout)
		return rfm__error(RFM_EINVAL, "%s: the recorder has no layout to find names in", fn);
	return 0;
}

RFM_API int rfm_recorder_add(rfm_recorder *rec, const char *name)
{
	int ret = check_new(rec, "rfm_recorder_add", true);

	if (!ret && !name)
		ret = rfm__error(RFM_EINVAL, "rfm_recorder_add: name is NULL");
	return ret ? ret : rfm__rec_plan_add(rec, name);
}

RFM_API int rfm_recorder_add_bytes(rfm_recorder *rec, const char *name, uint64_t offset,
				   uint64_t length)
{
	int ret = check_new(rec, "rfm_recorder_add_bytes", false);

	if (ret)
		return ret;
	if (!name || !rfm__valid_name(name) || !length)
		return rfm__error(RFM_EINVAL, "rfm_recorder_add_bytes: %s", !length ? "empty range" :
				  "the name must be an identifier ([A-Za-z][A-Za-z0-9_]*)");
	uint64_t size = rfm_node_size(rec->node);
	if (offset > size || length > size - offset)
		return rfm__error(RFM_ERANGE, "rfm_recorder_add_bytes: %s: 0x%llx + %llu bytes "
				  "leaves the window of %llu bytes", name, (unsigned long long)offset,
				  (unsigned long long)length, (unsigned long long)size);
	return rfm__rec_plan_bytes(rec, name, offset, length);
}

RFM_API int rfm_recorder_add_ring(rfm_recorder *rec, const char *name, uint64_t offset)
{
	int ret = check_new(rec, "rfm_recorder_add_ring", false);

	if (ret)
		return ret;
	if (!name || !rfm__valid_name(name))
		return rfm__error(RFM_EINVAL, "rfm_recorder_add_ring: the name must be an "
				  "identifier ([A-Za-z][A-Za-z0-9_]*)");
	return rfm__rec_plan_ring(rec, name, offset);
}

RFM_API int rfm_recorder_add_events(rfm_recorder *rec, uint32_t mask)
{
	int ret = check_new(rec, "rfm_recorder_add_events", false);

	if (ret)
		return ret;
	if (!mask || (mask & ~RFM_EVENT_MASK_NETWORK))
		return rfm__error(RFM_EINVAL, "rfm_recorder_add_events: the mask must name network "
				  "types (RESET, INTR1..INTR4) only");
	rec->event_mask |= mask;
	return rfm__rec_plan_events(rec);
}

static int check_trigger(const struct rfm_recorder *r, const char *fn)
{
	int ret = check_new(r, fn, false);

	if (!ret && r->trigger_kind)
		ret = rfm__error(RFM_EINVAL, "%s: the recording has a trigger already", fn);
	return ret;
}

RFM_API int rfm_recorder_set_trigger_event(rfm_recorder *rec, unsigned int type, uint64_t pre_ns)
{
	int ret = check_trigger(rec, "rfm_recorder_set_trigger_event");

	if (ret)
		return ret;
	if (type > RFM_EVENT_INTR4)
		return rfm__error(RFM_EINVAL, "rfm_recorder_set_trigger_event: type %u cannot be "
				  "sent (RESET, INTR1..INTR4)", type);
	rec->trigger_text = strdup(rfm_event_type_name(type));
	if (!rec->trigger_text)
		return rfm__error(RFM_ENOMEM, "rfm_recorder_set_trigger_event: out of memory");
	rec->trigger_kind = 1;
	rec->trigger_type = type;
	rec->pre_ns = pre_ns;
	return 0;
}

RFM_API int rfm_recorder_set_trigger_var(rfm_recorder *rec, const char *name, int compare,
					 double threshold, uint64_t pre_ns)
{
	static const char *const ops[] = { "", ">", ">=", "<", "<=", "==", "!=" };
	struct rfm_var_info info = { .struct_size = sizeof(info) };
	int ret = check_trigger(rec, "rfm_recorder_set_trigger_var");
	rfm_var *var;

	if (!ret && !rec->layout)
		ret = rfm__error(RFM_EINVAL, "rfm_recorder_set_trigger_var: the recorder has no "
				 "layout to find names in");
	if (ret)
		return ret;
	if (!name || compare < RFM_REC_GT || compare > RFM_REC_NE)
		return rfm__error(RFM_EINVAL, "rfm_recorder_set_trigger_var: %s",
				  name ? "unknown comparison" : "name is NULL");
	ret = rfm_var_open(rec->layout, rec->node, name, &var);
	if (ret)
		return ret;
	rfm_var_get_info(var, &info);
	if (info.count != 1 || info.type == RFM_TYPE_STRING || info.type == RFM_TYPE_BYTES) {
		rfm_var_close(var);
		return rfm__error(RFM_EINVAL, "rfm_recorder_set_trigger_var: %s is not one number "
				  "(name an element: %s[0])", name, name);
	}
	if (asprintf(&rec->trigger_text, "%s %s %.17g", name, ops[compare], threshold) < 0) {
		rec->trigger_text = NULL;
		rfm_var_close(var);
		return rfm__error(RFM_ENOMEM, "rfm_recorder_set_trigger_var: out of memory");
	}
	rec->trigger_kind = 2;
	rec->trigger_var = var;
	rec->trigger_cmp = compare;
	rec->trigger_value = threshold;
	rec->pre_ns = pre_ns;
	return 0;
}

static uint32_t events_needed(const struct rfm_recorder *r)
{
	uint32_t mask = r->event_mask;

	if (r->cfg.mode == RFM_REC_ON_EVENT)
		mask |= RFM_EVENT_BIT(r->cfg.event_type);
	if (r->trigger_kind == 1)
		mask |= RFM_EVENT_BIT(r->trigger_type);
	return mask;
}

/* Undo what start did before a failure. */
static void unstart(struct rfm_recorder *r, bool sink_open)
{
	if (sink_open)
		r->sink->close(r, false);
	if (r->enabled_mask)
		rfm_event_disable(r->node, r->enabled_mask);
	r->enabled_mask = 0;
	rfm__rec_q_free(&r->queue);
}

RFM_API int rfm_recorder_start(rfm_recorder *rec)
{
	int ret = check_new(rec, "rfm_recorder_start", false);

	if (ret)
		return ret;
	struct rfm_recorder *r = rec;
	if (!r->nstreams)
		return rfm__error(RFM_EINVAL, "rfm_recorder_start: nothing to record: add "
				  "variables, records, regions, byte ranges, rings or events");
	if (r->cfg.mode == RFM_REC_ON_EVENT && r->frames < 0)
		return rfm__error(RFM_EINVAL, "rfm_recorder_start: sampling on an event needs "
				  "variables, records or regions to sample");
	if ((ret = rfm__rec_plan_open(r)))
		return ret;
	if ((ret = rfm__rec_q_init(&r->queue, r->cfg.queue_bytes)))
		return ret;
	uint32_t mask = events_needed(r);
	if (mask && (ret = rfm_event_enable(r->node, mask))) {
		if (ret == RFM_EBUSY)
			ret = rfm__error(RFM_EBUSY, "recorder: an event type it takes is enabled on "
					 "this node handle already: give the recorder a handle of "
					 "its own (shm: shared=1)");
		unstart(r, false);
		return ret;
	}
	r->enabled_mask = mask;
	r->origin_ns = rfm__now_ns();
	r->origin_real_ns = (int64_t)rfm__os_realtime_ns();
	REC_SET(r->n.start_ns, r->origin_ns);
	if ((ret = r->sink->open(r))) {
		unstart(r, false);
		return ret;
	}
	REC_SET(r->n.state, r->trigger_kind ? RFM_REC_STATE_ARMED : RFM_REC_STATE_RECORDING);
	r->started = true;
	ret = rfm__rt_thread_create(r->node, &r->writer, rfm__rec_writer_main, r, "recorder writer");
	if (ret) {
		r->started = false;
		unstart(r, true);
		return ret;
	}
	ret = rfm__rt_thread_create(r->node, &r->sampler, rfm__rec_sampler_main, r,
				    "recorder sampler");
	if (ret) {
		/* The writer ends as soon as it sees the sampler done and nothing queued. */
		__atomic_store_n(&r->sampler_done, 1, __ATOMIC_RELEASE);
		pthread_join(r->writer, NULL);
		r->started = false;
		if (r->enabled_mask)
			rfm_event_disable(r->node, r->enabled_mask);
		r->enabled_mask = 0;
		rfm__rec_q_free(&r->queue);
		return ret;
	}
	return 0;
}

RFM_API int rfm_recorder_wait(rfm_recorder *rec, int64_t timeout_ns)
{
	uint64_t deadline = 0;
	unsigned int step = 0;

	if (!rec || !rec->started)
		return rfm__error(RFM_EINVAL, "rfm_recorder_wait: %s", rec ? "not started" :
				  "rec is NULL");
	if (timeout_ns > 0)
		deadline = rfm__now_ns() + (uint64_t)timeout_ns;
	for (;;) {
		if (__atomic_load_n(&rec->writer_done, __ATOMIC_ACQUIRE))
			return 0;
		if (timeout_ns == 0)
			return RFM_EAGAIN;
		if (deadline && rfm__now_ns() >= deadline)
			return rfm__error(RFM_ETIMEDOUT, "%s: still recording", rec->path);
		rfm__backoff_sleep(step++, deadline);
	}
}

RFM_API int rfm_recorder_stop(rfm_recorder *rec)
{
	if (!rec || !rec->started)
		return rfm__error(RFM_EINVAL, "rfm_recorder_stop: %s", rec ? "not started" :
				  "rec is NULL");
	if (!rec->joined) {
		__atomic_store_n(&rec->stop, 1, __ATOMIC_RELEASE);
		pthread_join(rec->sampler, NULL);
		pthread_join(rec->writer, NULL);
		rec->joined = true;
		if (rec->enabled_mask)
			rfm_event_disable(rec->node, rec->enabled_mask);
		rec->enabled_mask = 0;
		rfm__rec_q_free(&rec->queue);
		REC_SET(rec->n.state, RFM_REC_STATE_ENDED);
		rec->result = REC_GET(rec->n.error);
	}
	if (rec->result)
		return rfm__error(rec->result, "%s: the recording ended early: %s", rec->path,
				  rec->result == RFM_ENOSPC ? "the disk is full; the file holds "
				  "what was flushed before" : rfm_strerror(rec->result));
	return 0;
}

RFM_API int rfm_recorder_get_stats(rfm_recorder *rec, struct rfm_recorder_stats *stats)
{
	struct rfm_recorder_stats full;
	int ret = rfm__sized_check("rfm_recorder_get_stats", rec, stats,
				   stats ? stats->struct_size : 0, STATS_SIZE_1_2);

	if (ret)
		return ret;
	const struct rec_counters *n = &rec->n;
	memset(&full, 0, sizeof(full));
	full.struct_size = sizeof(full);
	full.state = REC_GET(n->state);
	full.samples = REC_GET(n->samples);
	full.rows_written = REC_GET(n->rows_written);
	full.queue_drops = REC_GET(n->queue_drops);
	full.late_ticks = REC_GET(n->late_ticks);
	full.missed_updates = REC_GET(n->missed_updates);
	full.ring_lost = REC_GET(n->ring_lost);
	full.event_overflow = REC_GET(n->event_overflow);
	full.torn_reads = REC_GET(n->torn_reads);
	full.pre_lost = REC_GET(n->pre_lost);
	full.file_bytes = REC_GET(n->file_bytes);
	full.lag_max_ns = REC_GET(n->lag_max_ns);
	full.start_ns = REC_GET(n->start_ns);
	full.trigger_ns = REC_GET(n->trigger_ns);
	full.flushed_ns = REC_GET(n->flushed_ns);
	full.error = REC_GET(n->error);
	rfm__sized_fill(stats, &full, sizeof(full));
	return 0;
}

RFM_API void rfm_recorder_free(rfm_recorder *rec)
{
	if (!rec)
		return;
	if (rec->started)
		rfm_recorder_stop(rec);
	rfm__rec_plan_free(rec);
	rfm_var_close(rec->trigger_var);
	free(rec->trigger_text);
	free(rec->path);
	if (rec->layout)
		rfm__layout_unref(rec->layout);
	free(rec);
}
