/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder's sampler thread. Each pass reads what is due straight
 * into the queue (a reservation, filled in place, committed), stamps it
 * with both clocks, and sleeps to the next deadline. Per row nothing is
 * allocated, locked or asked of the kernel: window reads are copies,
 * records are seqlock reads, rings are consumer takes, stamps come from
 * the vDSO clock. A row that finds the queue full is dropped and counted.
 */
#include "config.h"

#include <string.h>

#include "internal.h"
#include "layout-internal.h"
#include "os/clock.h"
#include "os/thread.h"
#include "recorder-internal.h"
#include "rt-internal.h"
#include "seqlock.h"
#include "wait-notify.h"

/* Events taken from the node's queue per fetch; ring messages per ring per pass. */
#define EVENT_BATCH 64
#define RING_BATCH 256
/* The longest sleep, so that a stop is seen soon. */
#define MAX_SLEEP_NS 20000000u

struct sampler {
	struct rfm_recorder *r;
	uint64_t start, end;	/* end: 0 until known */
	uint64_t tick, next_tick;
	bool triggered;
	uint64_t frames_kept;	/* on-change */
	uint8_t *scratch;	/* where a ring message goes when the queue is full */
	struct rfm_event evs[EVENT_BATCH];
};

static struct rec_entry *reserve(struct rfm_recorder *r, uint32_t payload, uint16_t stream,
				 uint64_t now)
{
	struct rec_entry *e = rfm__rec_q_reserve(&r->queue, (uint32_t)sizeof(*e) + payload);

	if (!e) {
		REC_ADD(r->n.queue_drops, 1);
		return NULL;
	}
	e->len = payload;
	e->stream = stream;
	e->flags = 0;
	e->t_mono = now;
	e->t_real = (int64_t)rfm__os_realtime_ns();
	e->a = e->b = 0;
	e->c = e->d = 0;
	return e;
}

static void commit(struct rfm_recorder *r)
{
	rfm__rec_q_commit(&r->queue);
	REC_ADD(r->n.samples, 1);
}

/*
 * A consistent copy of @rec's data into @dst (the seqlock read of
 * rfm_record_read(), copying with rfm__window_copy(), atomic where a
 * backend's thread fills the window): 0 with its sequence in *@seqp, or
 * -1 when a publish was under way at every try.
 */
static int read_record(const struct rfm_recorder *r, const rfm_record *rec, void *dst,
		       uint32_t *seqp)
{
	for (uint32_t tries = 0; tries < rec->lh.max_tries; tries++) {
		uint32_t start = rfm__seq_read_begin(rec->seq, rec->swap);

		if (!(start & 1)) {
			rfm__window_copy(r->atomic_copy, dst, rec->data, rec->size);
			if (!rfm__seq_read_retry(rec->seq, rec->swap, start)) {
				*seqp = start;
				return 0;
			}
		}
		rfm__cpu_relax();
	}
	return -1;
}

/* Read the frame's copies into @pl. */
static void read_frame(struct rfm_recorder *r, uint8_t *pl)
{
	for (uint32_t i = 0; i < r->ncopies; i++) {
		const struct rec_copy *c = &r->copies[i];


		if (!c->record) {
			/* In the window: checked when the recording was planned. */
			rfm__window_copy(r->atomic_copy, pl + c->payload_offset,
					 r->node->base + c->window_offset, c->length);
			continue;
		}
		struct rec_copy *cw = &r->copies[i];
		uint32_t seq;
		uint8_t *at = pl + c->payload_offset;
		if (read_record(r, c->record, at + 8, &seq) == 0) {
			memcpy(at, &seq, 4);
			memset(at + 4, 0, 4);
			memcpy(cw->last, at, 8 + (size_t)c->length);
			cw->have_last = true;
			continue;
		}
		/*
		 * A publish under way for every try (where copies replicate, a
		 * publish spans the network's latency): the last consistent read,
		 * its sequence saying which publish it is; none yet: zeros and a
		 * sequence of all ones. Counted either way.
		 */
		REC_ADD(r->n.torn_reads, 1);
		if (cw->have_last) {
			memcpy(at, cw->last, 8 + (size_t)c->length);
		} else {
			seq = UINT32_MAX;
			memcpy(at, &seq, 4);
			memset(at + 4, 0, 4 + (size_t)c->length);
		}
	}
}

/*
 * One frame: @a is the tick (rate) or the frame's number, @b the lag.
 * On-change, only a frame that differs from the last one queued is kept.
 */
static void frame(struct sampler *sp, uint64_t now, uint64_t a, uint64_t b, uint32_t c,
		  uint32_t d)
{
	struct rfm_recorder *r = sp->r;
	struct rec_stream *s = &r->streams[r->frames];
	struct rec_entry *e;

	if (r->last_frame) {
		/* On-change: read aside, queue only what differs from the last frame queued. */
		read_frame(r, r->cur_frame);
		if (sp->frames_kept && !memcmp(r->cur_frame, r->last_frame, s->payload))
			return;
		e = reserve(r, s->payload, (uint16_t)r->frames, now);
		if (!e)
			return;	/* still different next pass: queued late, not lost */
		memcpy(e + 1, r->cur_frame, s->payload);
		memcpy(r->last_frame, r->cur_frame, s->payload);
		sp->frames_kept++;
	} else {
		e = reserve(r, s->payload, (uint16_t)r->frames, now);
		if (!e)
			return;
		read_frame(r, (uint8_t *)(e + 1));
	}
	e->a = a;
	e->b = b;
	e->c = c;
	e->d = d;
	commit(r);
}

/* On-change: every record whose sequence moved. */
static void watch_records(struct sampler *sp, uint64_t now)
{
	struct rfm_recorder *r = sp->r;

	for (uint32_t i = 0; i < r->nwatches; i++) {
		struct rec_watch *w = &r->watches[i];
		uint32_t seq, got;

		rfm_record_sequence(w->record, &seq);
		if (seq & 1 || (w->seen && seq == w->last))
			continue;
		struct rec_entry *e = reserve(r, w->size, w->stream, now);
		if (!e)
			continue;	/* the next row counts this publish as missed */
		if (read_record(r, w->record, e + 1, &got)) {
			REC_ADD(r->n.torn_reads, 1);
			continue;
		}
		/* Each publish adds 2; a writer restarted mid-publish adds 1 once. */
		uint32_t missed = w->seen ? ((got - w->last + 1) / 2) - 1 : 0;
		e->a = got;
		e->b = missed;
		e->flags = w->seen ? 0 : REC_E_INITIAL;
		w->seen = true;
		w->last = got;
		if (missed)
			REC_ADD(r->n.missed_updates, missed);
		commit(r);
	}
}

static void take_rings(struct sampler *sp, uint64_t now)
{
	struct rfm_recorder *r = sp->r;

	for (uint32_t i = 0; i < r->nrings; i++) {
		struct rec_ring *ring = &r->rings[i];

		for (int k = 0; k < RING_BATCH; k++) {
			struct rfm_ring_msg msg;
			struct rec_entry *e = rfm__rec_q_reserve(&r->queue,
								 (uint32_t)sizeof(*e) + ring->slot);
			void *buf = e ? (void *)(e + 1) : sp->scratch;
			int ret = rfm_ring_consume(ring->cons, buf, ring->slot, &msg, 0);

			if (ret == RFM_ECORRUPT)
				continue;	/* skipped; counted in the next message's lost */
			if (ret < 0)
				break;
			REC_ADD(r->n.ring_lost, msg.lost);
			if (!e) {
				REC_ADD(r->n.queue_drops, 1);
				ring->pending_lost += msg.lost + 1;
				continue;
			}
			e->len = ring->slot;
			e->stream = ring->stream;
			e->flags = 0;
			e->t_mono = now;
			e->t_real = (int64_t)rfm__os_realtime_ns();
			e->a = msg.seq;
			e->b = msg.lost + ring->pending_lost;
			e->c = msg.len;
			e->d = 0;
			ring->pending_lost = 0;
			commit(r);
		}
	}
}

static void fire_trigger(struct sampler *sp, uint64_t now)
{
	struct rfm_recorder *r = sp->r;

	sp->triggered = true;
	REC_SET(r->n.trigger_ns, now);
	REC_SET(r->n.state, RFM_REC_STATE_RECORDING);
	if (r->cfg.duration_ns)
		sp->end = now + r->cfg.duration_ns;
}

static void on_event(struct sampler *sp, const struct rfm_event *ev, uint64_t now)
{
	struct rfm_recorder *r = sp->r;

	if (ev->type == RFM_EVENT_OVERFLOW)
		REC_ADD(r->n.event_overflow, ev->data);
	if (r->trigger_kind == 1 && !sp->triggered && ev->type == r->trigger_type)
		fire_trigger(sp, now);
	if (r->events_stream >= 0 && (ev->type == RFM_EVENT_OVERFLOW ||
				      (r->event_mask & RFM_EVENT_BIT(ev->type)))) {
		struct rec_entry *e = reserve(r, 0, (uint16_t)r->events_stream, now);
		if (e) {
			e->a = ev->seq;
			e->b = ev->sent_ns;
			e->c = ev->type | ev->sender << 8;
			e->d = ev->data;
			commit(r);
		}
	}
	if (r->cfg.mode == RFM_REC_ON_EVENT && ev->type == r->cfg.event_type && r->frames >= 0)
		frame(sp, now, sp->tick++, 0, ev->type | ev->sender << 8, ev->data);
}

/* Take what the node's event queue holds, waiting up to @timeout_ns for the first. */
static void take_events(struct sampler *sp, int64_t timeout_ns)
{
	struct rfm_recorder *r = sp->r;
	int n = rfm_event_fetch(r->node, sp->evs, EVENT_BATCH, timeout_ns);

	while (n > 0) {
		uint64_t now = rfm__now_ns();

		for (int i = 0; i < n; i++)
			on_event(sp, &sp->evs[i], now);
		if (n < EVENT_BATCH)
			break;
		n = rfm_event_fetch(r->node, sp->evs, EVENT_BATCH, 0);
	}
}

/* The trigger variable's value as a double: 0, or an error of its getter. */
static int trigger_value(rfm_var *var, double *value)
{
	struct rfm_var_info info = { .struct_size = sizeof(info) };
	union { uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; int8_t i8; int16_t i16;
		int32_t i32; int64_t i64; float f32; double f64; bool b; } v;
	int ret;

	rfm_var_get_info(var, &info);
	switch (info.type) {
	case RFM_TYPE_U8: ret = rfm_var_get_u8(var, 0, &v.u8); *value = v.u8; break;
	case RFM_TYPE_U16: ret = rfm_var_get_u16(var, 0, &v.u16); *value = v.u16; break;
	case RFM_TYPE_U32: ret = rfm_var_get_u32(var, 0, &v.u32); *value = v.u32; break;
	case RFM_TYPE_U64: ret = rfm_var_get_u64(var, 0, &v.u64); *value = (double)v.u64; break;
	case RFM_TYPE_I8: ret = rfm_var_get_i8(var, 0, &v.i8); *value = v.i8; break;
	case RFM_TYPE_I16: ret = rfm_var_get_i16(var, 0, &v.i16); *value = v.i16; break;
	case RFM_TYPE_I32: ret = rfm_var_get_i32(var, 0, &v.i32); *value = v.i32; break;
	case RFM_TYPE_I64: ret = rfm_var_get_i64(var, 0, &v.i64); *value = (double)v.i64; break;
	case RFM_TYPE_F32: ret = rfm_var_get_f32(var, 0, &v.f32); *value = v.f32; break;
	case RFM_TYPE_F64: ret = rfm_var_get_f64(var, 0, &v.f64); *value = v.f64; break;
	default: ret = rfm_var_get_bool(var, 0, &v.b); *value = v.b; break;
	}
	return ret;
}

static bool trigger_holds(const struct rfm_recorder *r)
{
	double v;

	if (trigger_value(r->trigger_var, &v))
		return false;
	switch (r->trigger_cmp) {
	case RFM_REC_GT: return v > r->trigger_value;
	case RFM_REC_GE: return v >= r->trigger_value;
	case RFM_REC_LT: return v < r->trigger_value;
	case RFM_REC_LE: return v <= r->trigger_value;
	case RFM_REC_EQ: return v == r->trigger_value;
	default: return v != r->trigger_value;
	}
}

/* The samples due at @now. */
static void pass(struct sampler *sp, uint64_t now)
{
	struct rfm_recorder *r = sp->r;
	uint64_t period = r->cfg.period_ns;

	if (r->trigger_kind == 2 && !sp->triggered && trigger_holds(r))
		fire_trigger(sp, now);
	if (r->frames >= 0 && r->cfg.mode == RFM_REC_RATE && now >= sp->next_tick) {
		uint64_t lag = now - sp->next_tick;
		uint64_t skipped = lag / period;

		if (skipped) {
			/* Woken past later ticks: they are lost, not made up. */
			REC_ADD(r->n.late_ticks, skipped);
			sp->tick += skipped;
			lag -= skipped * period;
		}
		if (lag > REC_GET(r->n.lag_max_ns))
			REC_SET(r->n.lag_max_ns, lag);
		frame(sp, now, sp->tick, lag, 0, 0);
		sp->tick++;
		sp->next_tick = sp->start + sp->tick * period;
	} else if (r->frames >= 0 && r->cfg.mode == RFM_REC_ON_CHANGE) {
		frame(sp, now, sp->tick++, 0, 0, 0);
	}
	watch_records(sp, now);
	take_rings(sp, now);
}

/* When the next pass is due after one at @now. */
static uint64_t next_wake(struct sampler *sp, uint64_t now, uint64_t last_wake)
{
	struct rfm_recorder *r = sp->r;
	uint64_t wake = now + MAX_SLEEP_NS;
	bool events_only = r->frames < 0 && !r->nwatches && !r->nrings && r->trigger_kind != 2;
	bool polls = r->nwatches || r->nrings || (r->enabled_mask && !events_only) ||
		     r->cfg.mode == RFM_REC_ON_CHANGE || r->trigger_kind == 2;

	/* At a rate polled no more often than its ticks, the ticks are the polls. */
	if (r->cfg.mode == RFM_REC_RATE && r->frames >= 0 && r->cfg.poll_ns >= r->cfg.period_ns)
		polls = false;
	if (polls && r->cfg.mode != RFM_REC_ON_EVENT) {
		uint64_t poll = last_wake + r->cfg.poll_ns;
		wake = poll > now ? poll : now;
	}
	if (r->frames >= 0 && r->cfg.mode == RFM_REC_RATE && sp->next_tick < wake)
		wake = sp->next_tick;
	if (sp->end && sp->end < wake)
		wake = sp->end;
	return wake;
}

static void wait_until(struct sampler *sp, uint64_t wake)
{
	struct rfm_recorder *r = sp->r;

	/*
	 * Events sample, or events are all there is to take: sleep on the
	 * node's event queue, so a frame (a row) follows its event at once and
	 * nothing polls meanwhile.
	 */
	bool events_only = r->frames < 0 && !r->nwatches && !r->nrings && r->trigger_kind != 2;
	if (r->enabled_mask && (r->cfg.mode == RFM_REC_ON_EVENT || events_only)) {
		uint64_t now = rfm__now_ns();
		take_events(sp, wake > now ? (int64_t)(wake - now) : 0);
		return;
	}
	if (r->cfg.flags & RFM_REC_F_SPIN) {
		while (rfm__now_ns() < wake && !__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
			rfm__cpu_relax();
	} else {
		rfm__os_sleep_until_ns(wake);
	}
	if (r->enabled_mask)
		take_events(sp, 0);
}

void *rfm__rec_sampler_main(void *arg)
{
	struct rfm_recorder *r = arg;
	struct sampler sp = { .r = r };
	uint64_t last_wake;

	sp.scratch = r->scratch;
	rfm__os_thread_precise_timers();
	/* Ticks count from the thread's first pass: its start-up is not lateness. */
	sp.start = rfm__now_ns();
	sp.next_tick = sp.start;
	sp.triggered = !r->trigger_kind;
	if (r->cfg.duration_ns && sp.triggered)
		sp.end = sp.start + r->cfg.duration_ns;
	last_wake = sp.start;
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		uint64_t now = rfm__now_ns();

		if (sp.end && now >= sp.end)
			break;
		pass(&sp, now);
		uint64_t wake = next_wake(&sp, now, last_wake);
		last_wake = wake;
		wait_until(&sp, wake);
	}
	/* Stopped: what was published, sent or queued up to now is still taken. */
	uint64_t now = rfm__now_ns();
	if (r->enabled_mask)
		take_events(&sp, 0);
	watch_records(&sp, now);
	take_rings(&sp, now);
	__atomic_store_n(&r->sampler_done, 1, __ATOMIC_RELEASE);
	return NULL;
}
