/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder's CSV sink, for small captures: one table (one stream),
 * a header line of column names, then a line per row. Arrays take a
 * column per element (`name[0]`...), a record's variables a column each
 * (`record.var`); strings are quoted, bytes are hex. Rows are buffered
 * and written at each flush, whole lines only, after a check that the
 * disk has room for them: a full disk ends the file at a line's end.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "layout-internal.h"
#include "os/file.h"
#include "recorder-internal.h"
#include "textbuf.h"

struct csv_file {
	FILE *fp;
	struct rfm_textbuf rows;	/* rows since the last flush */
	struct rec_room room;
};

static int csv_error(const char *path, int err)
{
	if (rfm__errno_code(err) == RFM_ENOSPC)	/* ENOSPC, EDQUOT, EFBIG */
		return rfm__error(RFM_ENOSPC, "%s: the disk is full; the file holds the rows "
				  "flushed before", path);
	return rfm__error(RFM_ESYS, "%s: %s", path, strerror(err));
}

static void header_field(struct rfm_textbuf *f, const char *prefix, const struct rec_field *fl)
{
	const char *sep = prefix[0] ? "." : "";

	if (fl->type == RFM_TYPE_STRING || fl->type == RFM_TYPE_BYTES || fl->count <= 1) {
		rfm__textbuf_printf(f, ",%s%s%s", prefix, sep, fl->name);
		return;
	}
	for (uint32_t i = 0; i < fl->count; i++)
		rfm__textbuf_printf(f, ",%s%s%s[%u]", prefix, sep, fl->name, i);
}

static void header(struct rfm_textbuf *f, const struct rfm_recorder *r, const struct rec_stream *s)
{
	rfm__textbuf_puts(f, REC_T "," REC_T_MONO "," REC_T_REAL);
	switch (s->kind) {
	case REC_STREAM_FRAMES:
		rfm__textbuf_puts(f, ",tick");
		if (r->cfg.mode == RFM_REC_RATE)
			rfm__textbuf_puts(f, ",lag_ns");
		if (r->cfg.mode == RFM_REC_ON_EVENT)
			rfm__textbuf_puts(f, ",event_type,event_sender,event_data");
		break;
	case REC_STREAM_RECORD: rfm__textbuf_puts(f, ",seq,missed"); break;
	case REC_STREAM_RING: rfm__textbuf_puts(f, ",seq,lost,len,data"); break;
	case REC_STREAM_EVENTS: rfm__textbuf_puts(f, ",type,sender,data,seq,sent_ns"); break;
	}
	for (uint32_t i = 0; i < s->ncols; i++) {
		const struct rec_column *c = &s->cols[i];
		if (s->kind == REC_STREAM_RING)
			break;
		if (c->kind == REC_COL_VAR)
			header_field(f, "", &c->fields[0]);
		else if (c->kind == REC_COL_RECORD)
			for (uint32_t k = 0; k < c->nfields; k++)
				header_field(f, s->kind == REC_STREAM_RECORD ? "" : c->name,
					     &c->fields[k]);
		else
			rfm__textbuf_printf(f, ",%s", c->name);
	}
	rfm__textbuf_putc(f, '\n');
}

static uint64_t load(const uint8_t *p, unsigned int size, uint32_t order)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < size; i++) {
		unsigned int at = order == RFM_ORDER_BIG ? i : size - 1 - i;
		v = v << 8 | p[at];
	}
	return v;
}

static void element(struct rfm_textbuf *f, int type, const uint8_t *p, uint32_t order)
{
	uint64_t v = load(p, rfm__type_size(type), order);
	union { uint32_t u; float f; } f32;
	union { uint64_t u; double d; } f64;

	switch (type) {
	case RFM_TYPE_U8: case RFM_TYPE_U16: case RFM_TYPE_U32: case RFM_TYPE_U64:
		rfm__textbuf_printf(f, "%" PRIu64, v);
		break;
	case RFM_TYPE_I8: rfm__textbuf_printf(f, "%d", (int8_t)v); break;
	case RFM_TYPE_I16: rfm__textbuf_printf(f, "%d", (int16_t)v); break;
	case RFM_TYPE_I32: rfm__textbuf_printf(f, "%" PRId32, (int32_t)v); break;
	case RFM_TYPE_I64: rfm__textbuf_printf(f, "%" PRId64, (int64_t)v); break;
	case RFM_TYPE_F32: f32.u = (uint32_t)v; rfm__textbuf_printf(f, "%.9g", f32.f); break;
	case RFM_TYPE_F64: f64.u = v; rfm__textbuf_printf(f, "%.17g", f64.d); break;
	default: rfm__textbuf_puts(f, v ? "true" : "false"); break;
	}
}

static void hex(struct rfm_textbuf *f, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		rfm__textbuf_printf(f, "%02x", p[i]);
}

/* Each value is written after its separator: the line starts with t. */
static void field(struct rfm_textbuf *f, const struct rec_field *fl, const uint8_t *p)
{
	if (fl->type == RFM_TYPE_STRING) {
		rfm__textbuf_puts(f, ",\"");
		for (uint32_t i = 0; i < fl->count && p[i]; i++) {
			if (p[i] == '"')
				rfm__textbuf_putc(f, '"');
			rfm__textbuf_putc(f, p[i]);
		}
		rfm__textbuf_putc(f, '"');
		return;
	}
	if (fl->type == RFM_TYPE_BYTES) {
		rfm__textbuf_putc(f, ',');
		hex(f, p, fl->count);
		return;
	}
	for (uint32_t i = 0; i < (fl->count ? fl->count : 1); i++) {
		rfm__textbuf_putc(f, ',');
		element(f, fl->type, p + (size_t)i * fl->esize, fl->order);
	}
}

static int csv_append(struct rfm_recorder *r, struct rec_stream *s, const struct rec_entry *e,
		      const uint8_t *payload)
{
	struct csv_file *cf = r->sink_state;
	struct rfm_textbuf *f = &cf->rows;

	rfm__textbuf_printf(f, "%.9f,%" PRIu64 ",%" PRId64, rfm__rec_t(r, e->t_mono), e->t_mono, e->t_real);
	switch (s->kind) {
	case REC_STREAM_FRAMES:
		rfm__textbuf_printf(f, ",%" PRIu64, e->a);
		if (r->cfg.mode == RFM_REC_RATE)
			rfm__textbuf_printf(f, ",%" PRIu64, e->b);
		if (r->cfg.mode == RFM_REC_ON_EVENT)
			rfm__textbuf_printf(f, ",%s,%u,%u", rfm_event_type_name(e->c & 0xff), e->c >> 8, e->d);
		break;
	case REC_STREAM_RECORD:
		rfm__textbuf_printf(f, ",%" PRIu32 ",%" PRIu64, (uint32_t)e->a, e->b);
		break;
	case REC_STREAM_RING:
		rfm__textbuf_printf(f, ",%" PRIu64 ",%" PRIu64 ",%u,", e->a, e->b, e->c);
		hex(f, payload, e->c < e->len ? e->c : e->len);
		break;
	case REC_STREAM_EVENTS:
		rfm__textbuf_printf(f, ",%s,%u,%u,%" PRIu64 ",%" PRIu64, rfm_event_type_name(e->c & 0xff),
			e->c >> 8, e->d, e->a, e->b);
		break;
	}
	for (uint32_t i = 0; s->kind != REC_STREAM_RING && i < s->ncols; i++) {
		const struct rec_column *c = &s->cols[i];
		const uint8_t *p = payload + c->offset;

		if (c->kind == REC_COL_VAR) {
			field(f, &c->fields[0], p);
		} else if (c->kind == REC_COL_RECORD) {
			for (uint32_t k = 0; k < c->nfields; k++)
				field(f, &c->fields[k], p + c->fields[k].offset);
		} else if (c->kind == REC_COL_SEQ) {
			uint32_t seq;
			memcpy(&seq, p, 4);
			rfm__textbuf_printf(f, ",%" PRIu32, seq);
		} else {
			rfm__textbuf_putc(f, ',');
			hex(f, p, c->size);
		}
	}
	rfm__textbuf_putc(f, '\n');
	s->rows++;
	return f->nomem ? rfm__error(RFM_ENOMEM, "%s: out of memory", r->path) : 0;
}

static int csv_flush(struct rfm_recorder *r)
{
	struct csv_file *cf = r->sink_state;
	size_t len = cf->rows.len;

	if (!len)
		return 0;
	int ret = rfm__rec_room_check(&cf->room, r->path, len, 4096);
	if (ret)
		return ret;
	errno = 0;
	if (fwrite(cf->rows.text, 1, len, cf->fp) != len || fflush(cf->fp))
		return csv_error(r->path, errno ? errno : EIO);
	rfm__textbuf_clear(&cf->rows);
	long size = ftell(cf->fp);
	if (size >= 0)
		REC_SET(r->n.file_bytes, (uint64_t)size);
	return 0;
}

static int csv_close(struct rfm_recorder *r, bool clean);

static int csv_open(struct rfm_recorder *r)
{
	if (r->nstreams != 1)
		return rfm__error(RFM_EINVAL, "recorder: a CSV file holds one table, and this "
				  "recording has %u streams (frames, each on-change record, each "
				  "ring, events): record them into HDF5", r->nstreams);
	int fd = rfm__rec_create_file(r);
	if (fd < 0)
		return fd;
	struct csv_file *cf = calloc(1, sizeof(*cf));
	if (!cf || !(cf->fp = fdopen(fd, "wb"))) {
		rfm__os_close(fd);
		free(cf);
		rfm__rec_remove_file(r->path);
		return rfm__error(RFM_ENOMEM, "recorder: out of memory");
	}
	r->sink_state = cf;
	header(&cf->rows, r, &r->streams[0]);
	int ret = cf->rows.nomem ? rfm__error(RFM_ENOMEM, "recorder: out of memory")
				 : csv_flush(r);
	if (ret) {
		csv_close(r, false);
		rfm__rec_remove_file(r->path);
	}
	return ret;
}

static int csv_close(struct rfm_recorder *r, bool clean)
{
	struct csv_file *cf = r->sink_state;
	int ret = 0;

	if (!cf)
		return 0;
	if (clean)
		ret = csv_flush(r);
	rfm__textbuf_free(&cf->rows);
	if (fclose(cf->fp) && !ret && clean)
		ret = csv_error(r->path, errno);
	free(cf);
	r->sink_state = NULL;
	return ret;
}

const struct rec_sink_ops rfm__rec_csv_sink = {
	.name = "csv",
	.open = csv_open,
	.append = csv_append,
	.flush = csv_flush,
	.close = csv_close,
};
