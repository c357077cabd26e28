/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a recording holds: names of the layout into streams and columns
 * (rfm_recorder_add...), then at start the frame's shape: which window
 * ranges and records the sampler copies, where each lands in the row,
 * and where each column finds its bytes there.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "layout-internal.h"
#include "recorder-internal.h"

/* Ranges of the window closer than this are copied as one. */
#define MERGE_GAP 64u

/* Column names the frames use for their stamps. */
static const char *const frame_stamps[] = {
	REC_T, REC_T_MONO, REC_T_REAL, "tick", "lag_ns", "event_type", "event_sender",
	"event_data",
};

bool rfm__rec_name_taken(const struct rfm_recorder *r, const char *name)
{
	for (size_t i = 0; i < RFM_ARRAY_SIZE(frame_stamps); i++)
		if (!strcmp(name, frame_stamps[i]))
			return true;
	if (r->frames < 0)
		return false;
	const struct rec_stream *s = &r->streams[r->frames];
	for (uint32_t i = 0; i < s->ncols; i++)
		if (!strcmp(s->cols[i].name, name))
			return true;
	return false;
}

static int grow(void *arrayp, uint32_t count, size_t size)
{
	void **array = arrayp;
	void *p = realloc(*array, (count + 1) * size);

	if (!p)
		return rfm__error(RFM_ENOMEM, "recorder: out of memory");
	*array = p;
	memset((uint8_t *)p + count * size, 0, size);
	return 0;
}

static int new_stream(struct rfm_recorder *r, enum rec_stream_kind kind, const char *group,
		      const char *name)
{
	int ret = grow(&r->streams, r->nstreams, sizeof(*r->streams));

	if (ret)
		return ret;
	if (r->nstreams >= UINT16_MAX)
		return rfm__error(RFM_EINVAL, "recorder: too many streams");
	struct rec_stream *s = &r->streams[r->nstreams];
	if (asprintf(&s->name, "%s%s%s", group, name ? "/" : "", name ? name : "") < 0) {
		s->name = NULL;
		return rfm__error(RFM_ENOMEM, "recorder: out of memory");
	}
	s->kind = kind;
	s->record = -1;
	return (int)r->nstreams++;
}

static int new_column(struct rec_stream *s, const char *name, enum rec_column_kind kind,
		      struct rec_column **colp)
{
	int ret = grow(&s->cols, s->ncols, sizeof(*s->cols));

	if (ret)
		return ret;
	struct rec_column *c = &s->cols[s->ncols];
	c->name = strdup(name);
	if (!c->name)
		return rfm__error(RFM_ENOMEM, "recorder: out of memory");
	c->kind = kind;
	c->record = -1;
	c->writer = UINT32_MAX;
	c->description = "";
	s->ncols++;
	*colp = c;
	return 0;
}

/* Variable @v as field @f; @short_name: its name inside its record. */
static int fill_field(struct rec_field *f, const rfm_layout *l, size_t v, bool short_name)
{
	struct rfm_var_info info;
	const char *name;

	rfm__var_info(l, v, &info);
	name = info.name;
	if (short_name && info.record >= 0)
		name += strlen(l->records[info.record].full) + 1;
	f->name = strdup(name);
	if (!f->name)
		return rfm__error(RFM_ENOMEM, "recorder: out of memory");
	f->type = info.type;
	f->count = info.count;
	f->esize = info.element_size;
	f->order = info.byte_order;
	f->offset = (uint32_t)info.record_offset;
	f->unit = info.unit;
	f->description = info.description;
	f->has_min = info.has_min;
	f->has_max = info.has_max;
	f->min = info.min;
	f->max = info.max;
	return 0;
}

/* The fields of record @rec: its variables in declaration order. */
static int record_fields(struct rec_column *c, const rfm_layout *l, long rec)
{
	for (size_t v = 0; v < l->nvars; v++) {
		if (l->vars[v].record != (uint32_t)rec)
			continue;
		int ret = grow(&c->fields, c->nfields, sizeof(*c->fields));
		if (!ret)
			ret = fill_field(&c->fields[c->nfields], l, v, true);
		if (ret)
			return ret;
		c->nfields++;
	}
	const struct lay_record *def = &l->records[rec];
	c->size = (uint32_t)def->data_size;
	c->window_offset = def->abs + LAY_RECORD_HEADER;
	c->writer = l->regions[def->region].writer;
	c->description = def->description ? def->description : "";
	c->record = rec;
	return 0;
}

static int frames_stream(struct rfm_recorder *r)
{
	if (r->frames < 0) {
		int s = new_stream(r, REC_STREAM_FRAMES, "frames", NULL);
		if (s < 0)
			return s;
		r->frames = s;
	}
	return r->frames;
}

/* A column of the frames named @name, refused when the name is taken. */
static int frame_column(struct rfm_recorder *r, const char *name, enum rec_column_kind kind,
			struct rec_column **colp)
{
	int s;

	if (rfm__rec_name_taken(r, name))
		return rfm__error(RFM_EBUSY, "recorder: '%s' is recorded already, or is a name "
				  "the frames use for their times", name);
	s = frames_stream(r);
	return s < 0 ? s : new_column(&r->streams[s], name, kind, colp);
}

/* On-change: record @rec as a stream of its own (once). */
static int record_stream(struct rfm_recorder *r, long rec)
{
	const rfm_layout *l = r->layout;
	struct rec_column *c;

	for (uint32_t i = 0; i < r->nstreams; i++)
		if (r->streams[i].kind == REC_STREAM_RECORD && r->streams[i].record == rec)
			return 0;
	int s = new_stream(r, REC_STREAM_RECORD, "records", l->records[rec].full);
	if (s < 0)
		return s;
	r->streams[s].record = rec;
	int ret = new_column(&r->streams[s], "data", REC_COL_RECORD, &c);
	if (!ret)
		ret = record_fields(c, l, rec);
	if (!ret)
		r->streams[s].payload = c->size;
	return ret;
}

/* Do records (and their variables) get streams of their own? */
static bool records_on_change(const struct rfm_recorder *r)
{
	return r->cfg.mode == RFM_REC_ON_CHANGE || (r->cfg.flags & RFM_REC_F_RECORDS_ON_CHANGE);
}

static int add_var(struct rfm_recorder *r, long v)
{
	const rfm_layout *l = r->layout;
	const struct lay_var *def = &l->vars[v];
	struct rec_column *c;

	if (def->record != LAY_NO_RECORD && records_on_change(r))
		return record_stream(r, (long)def->record);
	int ret = frame_column(r, def->full, REC_COL_VAR, &c);
	if (ret)
		return ret;
	ret = grow(&c->fields, 0, sizeof(*c->fields));
	if (!ret)
		ret = fill_field(&c->fields[0], l, (size_t)v, false);
	if (ret)
		return ret;
	c->nfields = 1;
	c->fields[0].offset = 0;
	c->size = c->fields[0].count * c->fields[0].esize;
	c->window_offset = def->abs;
	c->writer = l->regions[def->region].writer;
	c->description = def->description ? def->description : "";
	c->record = def->record == LAY_NO_RECORD ? -1 : (long)def->record;
	return 0;
}

static int add_record(struct rfm_recorder *r, long rec)
{
	struct rec_column *c;
	char *seq_name;

	if (records_on_change(r))
		return record_stream(r, rec);
	const char *name = r->layout->records[rec].full;
	int ret = frame_column(r, name, REC_COL_RECORD, &c);
	if (!ret)
		ret = record_fields(c, r->layout, rec);
	if (ret)
		return ret;
	/* Its sequence beside it: a layout name never holds ':'. */
	if (asprintf(&seq_name, "%s:seq", name) < 0)
		return rfm__error(RFM_ENOMEM, "recorder: out of memory");
	ret = frame_column(r, seq_name, REC_COL_SEQ, &c);
	free(seq_name);
	if (ret)
		return ret;
	c->size = 4;
	c->record = rec;
	c->writer = r->layout->regions[r->layout->records[rec].region].writer;
	return 0;
}

static int add_range(struct rfm_recorder *r, const char *name, uint64_t offset, uint64_t len,
		     uint32_t writer, const char *description)
{
	struct rec_column *c;

	if (len > UINT32_MAX / 4)
		return rfm__error(RFM_EINVAL, "recorder: %s: %llu bytes is more than a row may hold",
				  name, (unsigned long long)len);
	int ret = frame_column(r, name, REC_COL_BYTES, &c);
	if (ret)
		return ret;
	c->size = (uint32_t)len;
	c->window_offset = offset;
	c->writer = writer;
	c->description = description;
	return 0;
}

int rfm__rec_plan_add(struct rfm_recorder *r, const char *name)
{
	const rfm_layout *l = r->layout;
	size_t len = strlen(name);
	long i;

	if ((i = rfm__layout_find_var(l, name, len)) >= 0)
		return add_var(r, i);
	if ((i = rfm__layout_find_record(l, name, len)) >= 0)
		return add_record(r, i);
	if ((i = rfm__layout_find_region(l, name, len)) >= 0) {
		const struct lay_region *reg = &l->regions[i];
		return add_range(r, reg->name, reg->offset, reg->size, reg->writer,
				 reg->description ? reg->description : "");
	}
	if (strchr(name, '['))
		return rfm__error(RFM_ENOTFOUND, "recorder: '%s': record whole variables (an array "
				  "is one column), not elements", name);
	return rfm__error(RFM_ENOTFOUND, "recorder: layout %s has no variable, record or region "
			  "named '%s'", l->name, name);
}

int rfm__rec_plan_bytes(struct rfm_recorder *r, const char *name, uint64_t offset, uint64_t len)
{
	return add_range(r, name, offset, len, UINT32_MAX, "");
}

int rfm__rec_plan_ring(struct rfm_recorder *r, const char *name, uint64_t offset)
{
	for (uint32_t i = 0; i < r->nstreams; i++)
		if (r->streams[i].kind == REC_STREAM_RING && !strcmp(r->streams[i].name + 6, name))
			return rfm__error(RFM_EBUSY, "recorder: a ring named '%s' is recorded already",
					  name);
	int s = new_stream(r, REC_STREAM_RING, "rings", name);
	if (s < 0)
		return s;
	r->streams[s].ring_offset = offset;
	return 0;
}

int rfm__rec_plan_events(struct rfm_recorder *r)
{
	if (r->events_stream >= 0)
		return 0;
	int s = new_stream(r, REC_STREAM_EVENTS, "events", NULL);
	if (s < 0)
		return s;
	r->events_stream = s;
	return 0;
}

/* ---- at start ---- */

struct span {
	uint64_t start, end;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int add_copy(struct rfm_recorder *r, const struct rec_copy *copy)
{
	int ret = grow(&r->copies, r->ncopies, sizeof(*r->copies));

	if (!ret)
		r->copies[r->ncopies++] = *copy;
	return ret;
}

/* Record @rec's place in the frame: its copy (opening the record once). */
static int record_copy(struct rfm_recorder *r, long rec, uint32_t *payload, uint32_t *at)
{
	for (uint32_t i = 0; i < r->ncopies; i++)
		if (r->copies[i].record && r->copies[i].window_offset ==
					       r->layout->records[rec].abs) {
			*at = r->copies[i].payload_offset;
			return 0;
		}
	const struct lay_record *def = &r->layout->records[rec];
	struct rec_copy copy = { .window_offset = def->abs, .length = (uint32_t)def->data_size,
				 .payload_offset = *payload };
	int ret = rfm_record_open(r->layout, r->node, def->full, &copy.record);
	if (ret)
		return ret;
	copy.last = calloc(1, 8 + (size_t)copy.length);
	ret = copy.last ? add_copy(r, &copy) : rfm__error(RFM_ENOMEM, "recorder: out of memory");
	if (ret) {
		free(copy.last);
		rfm_record_close(copy.record);
		return ret;
	}
	*at = *payload;
	*payload += (8 + copy.length + 7) & ~7u;
	return 0;
}

/* The frame: records first (each sequence, padding, data), then merged ranges. */
/*
 * The window ranges of @nspans sorted spans, those closer than MERGE_GAP
 * merged, each a copy into the frame after *@payload (which grows).
 */
static int plan_copies(struct rfm_recorder *r, const struct span *spans, uint32_t nspans,
		       uint32_t *payload)
{
	int ret = 0;

	for (uint32_t i = 0; !ret && i < nspans;) {
		struct span merged = spans[i];
		for (i++; i < nspans && spans[i].start <= merged.end + MERGE_GAP; i++)
			if (spans[i].end > merged.end)
				merged.end = spans[i].end;
		if (merged.end - merged.start > UINT32_MAX / 4 ||
		    *payload + (merged.end - merged.start) > UINT32_MAX / 4)
			return rfm__error(RFM_EINVAL, "recorder: a frame of more than 1 GiB");
		struct rec_copy copy = { .window_offset = merged.start,
					 .length = (uint32_t)(merged.end - merged.start),
					 .payload_offset = *payload };
		ret = add_copy(r, &copy);
		*payload += (copy.length + 7) & ~7u;
	}
	return ret;
}

/* Each plain column of @s at its place in the copy of the range that holds it. */
static void place_plain_columns(struct rfm_recorder *r, struct rec_stream *s)
{
	for (uint32_t i = 0; i < s->ncols; i++) {
		struct rec_column *c = &s->cols[i];

		if (c->record >= 0)
			continue;
		for (uint32_t k = 0; k < r->ncopies; k++) {
			const struct rec_copy *cp = &r->copies[k];
			if (!cp->record && c->window_offset >= cp->window_offset &&
			    c->window_offset + c->size <= cp->window_offset + cp->length) {
				c->offset = cp->payload_offset +
					    (uint32_t)(c->window_offset - cp->window_offset);
				break;
			}
		}
	}
}

static int plan_frames(struct rfm_recorder *r)
{
	struct rec_stream *s = &r->streams[r->frames];
	uint32_t payload = 0, nspans = 0;
	struct span *spans = calloc(s->ncols ? s->ncols : 1, sizeof(*spans));
	int ret = 0;

	if (!spans)
		return rfm__error(RFM_ENOMEM, "recorder: out of memory");
	for (uint32_t i = 0; !ret && i < s->ncols; i++) {
		struct rec_column *c = &s->cols[i];
		uint32_t at = 0;

		if (c->record >= 0) {
			ret = record_copy(r, c->record, &payload, &at);
			if (c->kind == REC_COL_SEQ)
				c->offset = at;
			else if (c->kind == REC_COL_RECORD)
				c->offset = at + 8;
			else
				c->offset = at + 8 + c->fields[0].offset;
			continue;
		}
		spans[nspans++] = (struct span){ c->window_offset, c->window_offset + c->size };
	}
	qsort(spans, nspans, sizeof(*spans), cmp_span);
	if (!ret)
		ret = plan_copies(r, spans, nspans, &payload);
	if (!ret)
		place_plain_columns(r, s);
	free(spans);
	s->payload = payload;
	if (!ret && r->cfg.mode == RFM_REC_ON_CHANGE) {
		r->last_frame = calloc(1, payload ? payload : 1);
		r->cur_frame = calloc(1, payload ? payload : 1);
		if (!r->last_frame || !r->cur_frame)
			ret = rfm__error(RFM_ENOMEM, "recorder: out of memory");
	}
	return ret;
}

static int plan_watch(struct rfm_recorder *r, uint32_t stream)
{
	struct rec_stream *s = &r->streams[stream];
	int ret = grow(&r->watches, r->nwatches, sizeof(*r->watches));

	if (ret)
		return ret;
	struct rec_watch *w = &r->watches[r->nwatches];
	ret = rfm_record_open(r->layout, r->node, r->layout->records[s->record].full, &w->record);
	if (ret)
		return ret;
	w->stream = (uint16_t)stream;
	w->size = s->payload;
	r->nwatches++;
	return 0;
}

static int plan_ring(struct rfm_recorder *r, uint32_t stream)
{
	struct rec_stream *s = &r->streams[stream];
	struct rfm_ring_info info = { .struct_size = sizeof(info) };
	struct rec_column *c;
	int ret = grow(&r->rings, r->nrings, sizeof(*r->rings));

	if (ret)
		return ret;
	struct rec_ring *ring = &r->rings[r->nrings];
	/* Newest: the messages from now on; never back-pressure: looking holds nobody back. */
	ret = rfm_ring_consumer_open(r->node, s->ring_offset, RFM_RING_CONSUMER_NEWEST,
				     &ring->cons);
	if (ret)
		return ret;
	r->nrings++;
	ret = rfm_ring_consumer_get_info(ring->cons, &info);
	if (ret)
		return ret;
	ring->stream = (uint16_t)stream;
	ring->slot = info.slot_size;
	s->ring_slot = info.slot_size;
	s->ring_producer = info.producer;
	s->payload = info.slot_size;
	ret = new_column(s, "data", REC_COL_BYTES, &c);
	if (ret)
		return ret;
	c->size = info.slot_size;
	c->window_offset = s->ring_offset;
	c->writer = info.producer;
	return 0;
}

int rfm__rec_plan_open(struct rfm_recorder *r)
{
	int ret = 0;

	r->atomic_copy = rfm__window_filled_by_thread(r->node);
	if (r->frames >= 0)
		ret = plan_frames(r);
	for (uint32_t i = 0; !ret && i < r->nstreams; i++) {
		if (r->streams[i].kind == REC_STREAM_RECORD)
			ret = plan_watch(r, i);
		else if (r->streams[i].kind == REC_STREAM_RING)
			ret = plan_ring(r, i);
	}
	/* A ring message the queue has no room for is still taken (and counted lost). */
	uint32_t scratch = 1;
	for (uint32_t i = 0; i < r->nrings; i++)
		if (r->rings[i].slot > scratch)
			scratch = r->rings[i].slot;
	if (!ret && !(r->scratch = malloc(scratch)))
		ret = rfm__error(RFM_ENOMEM, "recorder: out of memory");
	/* Every row must fit the queue with room to spare. */
	for (uint32_t i = 0; !ret && i < r->nstreams; i++)
		if ((uint64_t)r->streams[i].payload + sizeof(struct rec_entry) + 16 >
		    r->cfg.queue_bytes / 4)
			ret = rfm__error(RFM_EINVAL, "recorder: a row of %s holds %u bytes: give the "
					 "queue at least four times that", r->streams[i].name,
					 r->streams[i].payload);
	return ret;
}

static void free_column(struct rec_column *c)
{
	for (uint32_t i = 0; i < c->nfields; i++)
		free(c->fields[i].name);
	free(c->fields);
	free(c->name);
}

void rfm__rec_plan_free(struct rfm_recorder *r)
{
	for (uint32_t i = 0; i < r->nstreams; i++) {
		for (uint32_t k = 0; k < r->streams[i].ncols; k++)
			free_column(&r->streams[i].cols[k]);
		free(r->streams[i].cols);
		free(r->streams[i].name);
	}
	free(r->streams);
	for (uint32_t i = 0; i < r->ncopies; i++) {
		rfm_record_close(r->copies[i].record);
		free(r->copies[i].last);
	}
	free(r->copies);
	for (uint32_t i = 0; i < r->nwatches; i++)
		rfm_record_close(r->watches[i].record);
	free(r->watches);
	for (uint32_t i = 0; i < r->nrings; i++)
		rfm_ring_consumer_close(r->rings[i].cons);
	free(r->rings);
	free(r->last_frame);
	free(r->cur_frame);
	free(r->scratch);
}
