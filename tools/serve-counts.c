/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: event records counted by sending node and type, with rates
 * the server computes from the counters' deltas (once a second or less
 * often, so a rate is never a fraction of one 10 Hz sample), and the
 * sequence words of the layout's records, read from the window (callers
 * hold s->lock).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "serve.h"

/* Rates are recomputed when this much time has passed since the last. */
#define RATE_WINDOW_NS 1000000000ull

struct serve_counts {
	uint64_t count[RFM_MAX_NODES][32];	/* since the start */
	uint64_t prev[RFM_MAX_NODES][32];	/* at the last rate update */
	double rate[RFM_MAX_NODES][32];		/* records a second */
	uint64_t rate_ns;			/* our clock at the last rate update */
};

int serve_counts_init(struct serve *s)
{
	s->counts = calloc(1, sizeof(*s->counts));
	if (!s->counts)
		return -1;
	s->counts->rate_ns = rfm_event_now_ns();
	return 0;
}

void serve_counts_free(struct serve *s)
{
	free(s->counts);
	s->counts = NULL;
}

void serve_count_event(struct serve *s, const struct rfm_event *ev)
{
	s->received[ev->type & 31]++;
	/* Status records (overflow) carry our own id; other senders are ids. */
	if (s->counts && ev->sender < RFM_MAX_NODES)
		s->counts->count[ev->sender][ev->type & 31]++;
}

void serve_update_rates(struct serve *s, uint64_t now_ns)
{
	struct serve_counts *c = s->counts;

	if (!c || now_ns - c->rate_ns < RATE_WINDOW_NS)
		return;
	double dt = (double)(now_ns - c->rate_ns) / 1e9;
	for (unsigned int n = 0; n < RFM_MAX_NODES; n++)
		for (unsigned int t = 0; t < 32; t++) {
			c->rate[n][t] = (double)(c->count[n][t] - c->prev[n][t]) / dt;
			c->prev[n][t] = c->count[n][t];
		}
	c->rate_ns = now_ns;
}

void serve_each_count(struct serve *s,
		      void (*fn)(void *arg, unsigned int node, const char *type, uint64_t count,
				 double rate),
		      void *arg)
{
	struct serve_counts *c = s->counts;

	if (!c)
		return;
	for (unsigned int n = 0; n < RFM_MAX_NODES; n++)
		for (unsigned int t = 0; t < 32; t++)
			if (c->count[n][t])
				fn(arg, n, rfm_event_type_name(t), c->count[n][t], c->rate[n][t]);
}

int serve_record_seq(struct serve *s, size_t index, const char **name, uint32_t *seq)
{
	struct rfm_record_info info = { .struct_size = sizeof(info) };
	uint8_t b[4];

	if (rfm_layout_record_info(s->layout, index, &info) ||
	    rfm_mem_read(s->cli->node, info.offset, b, sizeof(b)))
		return -1;
	*name = info.name;
	/* The sequence word in the record's byte order. */
	*seq = info.byte_order == RFM_ORDER_BIG
		       ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
		       : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	return 0;
}
