/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: whether a variable or record is fresh. Stale when its writer
 * is down, or when the layout sets stale_after and nothing new arrived for
 * that long. A record's sequence word advances with every publish, so for
 * a record "nothing new" is exact; a plain variable carries no write stamp,
 * so the sampler can only see that its bytes did not change (a writer that
 * re-writes the same value looks stale). Callers hold s->lock.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "serve.h"

int serve_fresh_init(struct serve *s)
{
	size_t n = s->layout ? rfm_layout_record_count(s->layout) : 0;

	for (size_t i = 0; i < s->nvars; i++) {
		struct serve_var *v = &s->vars[i];

		/* Only what the layout gives a period is watched: the last
		 * value and, behind it, the room one new read needs. */
		if (!v->info.stale_after_ms || !v->info.size)
			continue;
		v->last = malloc(2 * v->info.size);
		if (!v->last)
			return cli_error(s->cli, "out of memory");
	}
	if (!n)
		return 0;
	s->records = calloc(n, sizeof(*s->records));
	if (!s->records)
		return cli_error(s->cli, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct rfm_record_info rec = { .struct_size = sizeof(rec) };
		struct rfm_region_info reg = { .struct_size = sizeof(reg) };

		if (rfm_layout_record_info(s->layout, i, &rec) ||
		    rfm_layout_region_info(s->layout, rec.region, &reg))
			return cli_fail(s->cli);
		s->records[i].stale_after_ms = rec.stale_after_ms;
		s->records[i].writer = reg.writer;
	}
	s->nrecords = n;
	return 0;
}

void serve_fresh_free(struct serve *s)
{
	for (size_t i = 0; i < s->nvars; i++) {
		free(s->vars[i].last);
		s->vars[i].last = NULL;
	}
	free(s->records);
	s->records = NULL;
	s->nrecords = 0;
}

/*
 * What the window holds is only known from the first sample on: the
 * server cannot tell when it was written before it started, so the period
 * counts from its first look.
 */
void serve_fresh_sample(struct serve *s, uint64_t now_ns)
{
	for (size_t i = 0; i < s->nvars; i++) {
		struct serve_var *v = &s->vars[i];
		uint8_t *now = v->last + v->info.size;

		if (!v->last || rfm_mem_read(s->cli->node, v->info.offset, now, v->info.size))
			continue;
		if (!v->seen || memcmp(v->last, now, v->info.size)) {
			memcpy(v->last, now, v->info.size);
			v->changed_ns = now_ns;
			v->seen = true;
		}
	}
	for (size_t i = 0; i < s->nrecords; i++) {
		struct serve_record *r = &s->records[i];
		const char *name;
		uint32_t seq;

		if (!r->stale_after_ms || serve_record_seq(s, i, &name, &seq))
			continue;
		if (!r->seen || seq != r->seq) {
			r->seq = seq;
			r->changed_ns = now_ns;
			r->seen = true;
		}
	}
}

/* The rule for both: the writer first, then the period. */
static const char *reason(const uint8_t states[RFM_MAX_NODES], uint32_t writer,
			  uint32_t stale_after_ms, bool seen, uint64_t changed_ns, uint64_t now_ns,
			  struct serve_reason *out)
{
	if (serve_writer_stale(states, writer)) {
		/* Why: the writer left, crashed, went silent, or was never seen. */
		snprintf(out->text, sizeof(out->text), "writer %s",
			 states[writer] == SERVE_NODE_ABSENT
				 ? "not on the network"
				 : serve_node_state_name((enum serve_node_state)states[writer]));
		return out->text;
	}
	if (!stale_after_ms || !seen || now_ns < changed_ns ||
	    now_ns - changed_ns <= (uint64_t)stale_after_ms * 1000000u)
		return NULL;
	snprintf(out->text, sizeof(out->text), "not written for %.1f s",
		 (double)(now_ns - changed_ns) / 1e9);
	return out->text;
}

const char *serve_var_stale(const struct serve_var *v, const uint8_t states[RFM_MAX_NODES],
			    uint64_t now_ns, struct serve_reason *out)
{
	return reason(states, v->info.writer, v->last ? v->info.stale_after_ms : 0, v->seen,
		      v->changed_ns, now_ns, out);
}

const char *serve_record_stale(const struct serve *s, size_t index,
			       const uint8_t states[RFM_MAX_NODES], uint64_t now_ns,
			       struct serve_reason *out)
{
	const struct serve_record *r = &s->records[index];

	return reason(states, r->writer, r->stale_after_ms, r->seen, r->changed_ns, now_ns, out);
}
