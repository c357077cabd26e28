/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder's HDF5 sink (docs/recording.md has the file's layout).
 *
 * The whole structure (groups, datasets, attributes) is made before the
 * file enters single-writer/multiple-reader mode (H5Fstart_swmr_write):
 * from then on only rows are appended. Every dataset is chunked with an
 * unlimited first dimension; rows are buffered per dataset a chunk at a
 * time and appended (H5Dset_extent, then a hyperslab write); a flush
 * writes the partial chunks and H5Fflush()es, after which a reader, or
 * the file left by a crash, holds every row up to it. Before each write
 * the free space of the file system is checked: a full disk ends the
 * recording before HDF5 is left with half a write.
 *
 * A clean end closes the file, opens it again outside SWMR mode to add
 * the final attributes (complete, counters), and converts its chunk
 * indexes and superblock to the HDF5 1.8 format (H5Dformat_convert,
 * H5Fformat_convert), so older readers (MATLAB before R2021b) open it.
 */
#include "config.h"

#include <errno.h>
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "cpu-clock.h"
#include "layout-internal.h"
#include "os/clock.h"
#include "os/process.h"
#include "recorder-internal.h"

/* A chunk holds about this many bytes, and between these many rows. */
#define CHUNK_BYTES (32u << 10)
#define CHUNK_ROWS_MIN 16u
#define CHUNK_ROWS_MAX 4096u
/* Space kept free on the disk beyond what a write needs: HDF5's metadata. */
#define DISK_MARGIN (1u << 20)

/* Where a dataset's row comes from. */
enum h5_src {
	SRC_T, SRC_MONO, SRC_REAL, SRC_A, SRC_B, SRC_C, SRC_D, SRC_TYPE, SRC_SENDER,
	SRC_PAYLOAD,
};

struct h5_out {
	hid_t dset;
	hid_t mtype;		/* the buffered bytes' type (the window's byte order) */
	enum h5_src src;
	uint32_t offset;	/* SRC_PAYLOAD: in the payload */
	uint32_t row;		/* bytes a row */
	uint32_t rank;		/* 1, or 2 for arrays and bytes */
	hsize_t cols;		/* rank 2: the second dimension */
	char *path;		/* "/group/name", for the conversion at the end */
	uint8_t *buf;
	uint32_t cap, n;	/* rows buffered, room for */
	hsize_t written;	/* rows in the dataset */
};

struct h5_stream {
	const char *name;	/* the group's path */
	hid_t group;
	struct h5_out *outs;
	uint32_t nouts;
};

struct h5_file {
	hid_t file;
	struct h5_stream *streams;
	uint64_t pending;	/* bytes buffered, not yet written */
	struct rec_room room;	/* the disk's free space */
};

static hid_t le_int(int type)
{
	switch (type) {
	case RFM_TYPE_U8: case RFM_TYPE_BOOL: return H5T_STD_U8LE;
	case RFM_TYPE_U16: return H5T_STD_U16LE;
	case RFM_TYPE_U32: return H5T_STD_U32LE;
	case RFM_TYPE_U64: return H5T_STD_U64LE;
	case RFM_TYPE_I8: return H5T_STD_I8LE;
	case RFM_TYPE_I16: return H5T_STD_I16LE;
	case RFM_TYPE_I32: return H5T_STD_I32LE;
	case RFM_TYPE_I64: return H5T_STD_I64LE;
	case RFM_TYPE_F32: return H5T_IEEE_F32LE;
	case RFM_TYPE_F64: return H5T_IEEE_F64LE;
	default: return H5T_STD_U8LE;
	}
}

static hid_t be_int(int type)
{
	switch (type) {
	case RFM_TYPE_U16: return H5T_STD_U16BE;
	case RFM_TYPE_U32: return H5T_STD_U32BE;
	case RFM_TYPE_U64: return H5T_STD_U64BE;
	case RFM_TYPE_I8: return H5T_STD_I8BE;
	case RFM_TYPE_I16: return H5T_STD_I16BE;
	case RFM_TYPE_I32: return H5T_STD_I32BE;
	case RFM_TYPE_I64: return H5T_STD_I64BE;
	case RFM_TYPE_F32: return H5T_IEEE_F32BE;
	case RFM_TYPE_F64: return H5T_IEEE_F64BE;
	default: return H5T_STD_U8BE;
	}
}

/*
 * The HDF5 type of one element of @f: in the file (little-endian) or as
 * the window holds it (@raw: the variable's byte order). Strings are
 * fixed-length, NUL-padded; bytes are u8 (an array of them in a record).
 * A new type the caller closes.
 */
static hid_t field_type(const struct rec_field *f, bool raw, bool in_record)
{
	hid_t base;

	if (f->type == RFM_TYPE_STRING) {
		base = H5Tcopy(H5T_C_S1);
		H5Tset_size(base, f->count ? f->count : 1);
		H5Tset_strpad(base, H5T_STR_NULLPAD);
		return base;
	}
	base = H5Tcopy(raw && f->order == RFM_ORDER_BIG ? be_int(f->type) : le_int(f->type));
	if (in_record && f->count > 1) {
		hsize_t dim = f->count;
		hid_t arr = H5Tarray_create2(base, 1, &dim);
		H5Tclose(base);
		return arr;
	}
	return base;
}

/* A record's compound type: members at their offsets in the record's data. */
static hid_t record_type(const struct rec_column *c, bool raw)
{
	hid_t t = H5Tcreate(H5T_COMPOUND, c->size ? c->size : 1);

	for (uint32_t i = 0; i < c->nfields; i++) {
		hid_t ft = field_type(&c->fields[i], raw, true);
		H5Tinsert(t, c->fields[i].name, c->fields[i].offset, ft);
		H5Tclose(ft);
	}
	return t;
}

static int h5_error(const char *path, const char *what)
{
	int err = errno;

	if (rfm__errno_code(err) == RFM_ENOSPC)	/* ENOSPC, EDQUOT, EFBIG */
		return rfm__error(RFM_ENOSPC, "%s: %s: the disk is full", path, what);
	return rfm__error(RFM_ESYS, "%s: %s failed (HDF5%s%s)", path, what, err ? ": " : "",
			  err ? strerror(err) : "");
}

/* ---- attributes ---- */

static void attr_string(hid_t obj, const char *name, const char *value)
{
	hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);

	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0) {
		H5Awrite(a, t, &value);
		H5Aclose(a);
	}
	H5Sclose(sp);
	H5Tclose(t);
}

static void attr_num(hid_t obj, const char *name, hid_t ftype, hid_t mtype, const void *v)
{
	hid_t sp = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);

	if (a >= 0) {
		H5Awrite(a, mtype, v);
		H5Aclose(a);
	}
	H5Sclose(sp);
}

static void attr_i64(hid_t obj, const char *name, int64_t v)
{
	attr_num(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

static void attr_u64(hid_t obj, const char *name, uint64_t v)
{
	attr_num(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &v);
}

static void attr_f64(hid_t obj, const char *name, double v)
{
	attr_num(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

static void field_attrs(hid_t d, const struct rec_field *f)
{
	attr_string(d, "rfm_type", rfm_type_name(f->type));
	attr_string(d, "byte_order", f->order == RFM_ORDER_BIG ? "big" : "little");
	attr_i64(d, "count", f->count);
	attr_string(d, "unit", f->unit ? f->unit : "");
	if (f->has_min)
		attr_f64(d, "min", f->min);
	if (f->has_max)
		attr_f64(d, "max", f->max);
}

static const char *const column_kinds[] = {
	[REC_COL_VAR] = "variable", [REC_COL_RECORD] = "record", [REC_COL_BYTES] = "bytes",
	[REC_COL_SEQ] = "sequence",
};

static void column_attrs(hid_t d, const struct rec_column *c)
{
	attr_string(d, "kind", column_kinds[c->kind]);
	attr_i64(d, "writer", c->writer == UINT32_MAX ? -1 : (int64_t)c->writer);
	attr_u64(d, "offset", c->window_offset);
	attr_i64(d, "size", c->size);
	attr_string(d, "description", c->description ? c->description : "");
	if (c->kind == REC_COL_VAR)
		field_attrs(d, &c->fields[0]);
}

/* ---- datasets ---- */

static int add_out(struct h5_stream *hs, hid_t group, const char *name, hid_t ftype, hid_t mtype,
		   enum h5_src src, uint32_t offset, hsize_t cols, struct h5_out **outp)
{
	struct h5_out *p = realloc(hs->outs, (hs->nouts + 1) * sizeof(*p));

	if (!p)
		return rfm__error(RFM_ENOMEM, "recorder: out of memory");
	hs->outs = p;
	struct h5_out *o = &p[hs->nouts];
	memset(o, 0, sizeof(*o));
	o->src = src;
	o->offset = offset;
	o->rank = cols ? 2 : 1;
	o->cols = cols;
	o->row = (uint32_t)(H5Tget_size(mtype) * (cols ? cols : 1));
	o->cap = CHUNK_BYTES / (o->row ? o->row : 1);
	if (o->cap < CHUNK_ROWS_MIN)
		o->cap = CHUNK_ROWS_MIN;
	if (o->cap > CHUNK_ROWS_MAX)
		o->cap = CHUNK_ROWS_MAX;
	o->buf = malloc((size_t)o->cap * o->row);
	o->mtype = H5Tcopy(mtype);
	o->dset = H5I_INVALID_HID;
	hs->nouts++;
	if (!o->buf || asprintf(&o->path, "%s/%s", hs->name, name) < 0) {
		o->path = NULL;
		return rfm__error(RFM_ENOMEM, "recorder: out of memory");
	}
	hsize_t dims[2] = { 0, cols }, maxd[2] = { H5S_UNLIMITED, cols },
		chunk[2] = { o->cap, cols };
	hid_t sp = H5Screate_simple((int)o->rank, dims, maxd);
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_chunk(dcpl, (int)o->rank, chunk);
	hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
	/* Room in the chunk cache for the one partial chunk a flush rewrites. */
	H5Pset_chunk_cache(dapl, 101, 2 * (size_t)o->cap * o->row + 4096, 1.0);
	o->dset = H5Dcreate2(group, name, ftype, sp, H5P_DEFAULT, dcpl, dapl);
	H5Pclose(dapl);
	H5Pclose(dcpl);
	H5Sclose(sp);
	if (o->dset < 0)
		return rfm__error(RFM_ESYS, "recorder: cannot create the dataset %s", name);
	*outp = o;
	return 0;
}

static int stamp_out(struct h5_stream *hs, const char *name, hid_t ftype, hid_t mtype,
		     enum h5_src src, const char *unit)
{
	struct h5_out *o;
	int ret = add_out(hs, hs->group, name, ftype, mtype, src, 0, 0, &o);

	if (!ret) {
		attr_string(o->dset, "kind", "stamp");
		attr_string(o->dset, "unit", unit);
	}
	return ret;
}

static int column_out(struct h5_stream *hs, const struct rec_column *c)
{
	hid_t ft, mt;
	hsize_t cols = 0;
	struct h5_out *o;
	int ret;

	switch (c->kind) {
	case REC_COL_RECORD:
		ft = record_type(c, false);
		mt = record_type(c, true);
		break;
	case REC_COL_BYTES:
		ft = H5Tcopy(H5T_STD_U8LE);
		mt = H5Tcopy(H5T_NATIVE_UINT8);
		cols = c->size;
		break;
	case REC_COL_SEQ:
		ft = H5Tcopy(H5T_STD_U32LE);
		mt = H5Tcopy(H5T_NATIVE_UINT32);
		break;
	default: {
		const struct rec_field *f = &c->fields[0];
		ft = field_type(f, false, false);
		mt = field_type(f, true, false);
		if (f->type != RFM_TYPE_STRING && f->count > 1)
			cols = f->count;
	}
	}
	ret = add_out(hs, hs->group, c->name, ft, mt, SRC_PAYLOAD, c->offset, cols, &o);
	H5Tclose(ft);
	H5Tclose(mt);
	if (!ret)
		column_attrs(o->dset, c);
	return ret;
}

static const char *const stream_kinds[] = {
	[REC_STREAM_FRAMES] = "frames", [REC_STREAM_RECORD] = "record",
	[REC_STREAM_RING] = "ring", [REC_STREAM_EVENTS] = "events",
};

/* A frames stream's own columns: the tick, and the lag or the event of each frame. */
static int frame_outs(struct rfm_recorder *r, struct h5_stream *hs)
{
	int ret = stamp_out(hs, "tick", H5T_STD_U64LE, H5T_NATIVE_UINT64, SRC_A, "");

	if (!ret && r->cfg.mode == RFM_REC_RATE)
		ret = stamp_out(hs, "lag_ns", H5T_STD_U64LE, H5T_NATIVE_UINT64, SRC_B, "ns");
	if (!ret && r->cfg.mode == RFM_REC_ON_EVENT) {
		ret = stamp_out(hs, "event_type", H5T_STD_U8LE, H5T_NATIVE_UINT8, SRC_TYPE, "");
		if (!ret)
			ret = stamp_out(hs, "event_sender", H5T_STD_U32LE, H5T_NATIVE_UINT32,
					SRC_SENDER, "");
		if (!ret)
			ret = stamp_out(hs, "event_data", H5T_STD_U32LE, H5T_NATIVE_UINT32, SRC_D,
					"");
	}
	return ret;
}

/* A record stream's columns (sequence, misses) and attributes (record, writer). */
static int record_outs(struct rfm_recorder *r, struct rec_stream *s, struct h5_stream *hs)
{
	const struct lay_record *rec = &r->layout->records[s->record];
	int ret = stamp_out(hs, "seq", H5T_STD_U32LE, H5T_NATIVE_UINT32, SRC_A, "");

	if (!ret)
		ret = stamp_out(hs, "missed", H5T_STD_U32LE, H5T_NATIVE_UINT32, SRC_B, "");
	attr_string(hs->group, "record", rec->full);
	attr_i64(hs->group, "writer", r->layout->regions[rec->region].writer);
	return ret;
}

/* A ring stream's columns (message number, losses, length) and its ring's shape. */
static int ring_outs(struct rec_stream *s, struct h5_stream *hs)
{
	int ret = stamp_out(hs, "seq", H5T_STD_U64LE, H5T_NATIVE_UINT64, SRC_A, "");

	if (!ret)
		ret = stamp_out(hs, "lost", H5T_STD_U64LE, H5T_NATIVE_UINT64, SRC_B, "");
	if (!ret)
		ret = stamp_out(hs, "len", H5T_STD_U32LE, H5T_NATIVE_UINT32, SRC_C, "bytes");
	attr_u64(hs->group, "offset", s->ring_offset);
	attr_i64(hs->group, "slot_size", s->ring_slot);
	attr_i64(hs->group, "producer", s->ring_producer);
	return ret;
}

/* The events stream's columns: what struct rfm_event holds. */
static int event_outs(struct h5_stream *hs)
{
	int ret = stamp_out(hs, "type", H5T_STD_U8LE, H5T_NATIVE_UINT8, SRC_TYPE, "");

	if (!ret)
		ret = stamp_out(hs, "sender", H5T_STD_U32LE, H5T_NATIVE_UINT32, SRC_SENDER, "");
	if (!ret)
		ret = stamp_out(hs, "data", H5T_STD_U32LE, H5T_NATIVE_UINT32, SRC_D, "");
	if (!ret)
		ret = stamp_out(hs, "seq", H5T_STD_U64LE, H5T_NATIVE_UINT64, SRC_A, "");
	if (!ret)
		ret = stamp_out(hs, "sent_ns", H5T_STD_U64LE, H5T_NATIVE_UINT64, SRC_B, "ns");
	return ret;
}

static int stream_outs(struct rfm_recorder *r, struct rec_stream *s, struct h5_stream *hs)
{
	int ret = 0;

	attr_string(hs->group, "kind", stream_kinds[s->kind]);
	ret = stamp_out(hs, REC_T, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, SRC_T, "s");
	if (!ret)
		ret = stamp_out(hs, REC_T_MONO, H5T_STD_U64LE, H5T_NATIVE_UINT64, SRC_MONO, "ns");
	if (!ret)
		ret = stamp_out(hs, REC_T_REAL, H5T_STD_I64LE, H5T_NATIVE_INT64, SRC_REAL, "ns");
	if (ret)
		return ret;
	switch (s->kind) {
	case REC_STREAM_FRAMES: ret = frame_outs(r, hs); break;
	case REC_STREAM_RECORD: ret = record_outs(r, s, hs); break;
	case REC_STREAM_RING: ret = ring_outs(s, hs); break;
	case REC_STREAM_EVENTS: ret = event_outs(hs); break;
	}
	for (uint32_t i = 0; !ret && i < s->ncols; i++)
		ret = column_out(hs, &s->cols[i]);
	return ret;
}

/* FNV-1a, 64 bits: the layout text's identity (not a security hash). */
static uint64_t fnv1a64(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (size_t i = 0; i < len; i++) {
		h ^= (uint8_t)p[i];
		h *= 0x100000001b3u;
	}
	return h;
}

static const char *const mode_names[] = { "rate", "on-change", "on-event" };

/* The layout text to store, or NULL (a layout built in code). */
static const char *layout_text(const struct rfm_recorder *r, size_t *len)
{
	if (!r->layout || !r->layout->text)
		return NULL;
	*len = r->layout->text_len;
	return r->layout->text;
}

static void root_attrs(struct rfm_recorder *r, hid_t f)
{
	char buf[64];
	size_t len = 0;
	const char *text = layout_text(r, &len);
	time_t secs = (time_t)(r->origin_real_ns / 1000000000);
	struct tm tm;

	attr_i64(f, "rfm_recording", 1);
	attr_string(f, "rfm_version", rfm_version_string());
	attr_string(f, "uri", rfm_node_uri(r->node));
	attr_string(f, "backend", rfm_node_backend(r->node));
	/* -1: recorded by an observer, which holds no node id. */
	struct rfm_node_info ni = { .struct_size = sizeof(ni) };
	rfm_node_get_info(r->node, &ni);
	attr_i64(f, "node_id", ni.node_id);
	attr_u64(f, "window_size", rfm_node_size(r->node));
	gmtime_r(&secs, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ".%09lldZ",
		 (long long)(r->origin_real_ns % 1000000000));
	attr_string(f, "start_time", buf);
	attr_i64(f, "start_real_ns", r->origin_real_ns);
	attr_u64(f, "start_mono_ns", r->origin_ns);
	attr_string(f, "mode", mode_names[r->cfg.mode]);
	attr_u64(f, "period_ns", r->cfg.mode == RFM_REC_RATE ? r->cfg.period_ns : 0);
	attr_u64(f, "poll_ns", r->cfg.poll_ns);
	attr_u64(f, "flush_ns", r->cfg.flush_ns);
	attr_string(f, "event_type", r->cfg.mode == RFM_REC_ON_EVENT ?
		    rfm_event_type_name(r->cfg.event_type) : "");
	attr_string(f, "trigger", r->trigger_text ? r->trigger_text : "");
	attr_u64(f, "pre_trigger_ns", r->pre_ns);
	rfm__os_hostname(buf, sizeof(buf));
	if (buf[0])
		attr_string(f, "host", buf);
	if (r->layout) {
		attr_string(f, "layout_name", rfm_layout_name(r->layout));
		attr_string(f, "layout", text ? text : "");
		if (text) {
			snprintf(buf, sizeof(buf), "fnv1a64:%016llx",
				 (unsigned long long)fnv1a64(text, len));
			attr_string(f, "layout_hash", buf);
		}
	}
}

static void free_file(struct h5_file *hf, uint32_t nstreams)
{
	if (!hf)
		return;
	for (uint32_t i = 0; hf->streams && i < nstreams; i++) {
		struct h5_stream *hs = &hf->streams[i];
		for (uint32_t k = 0; k < hs->nouts; k++) {
			if (hs->outs[k].dset >= 0)
				H5Dclose(hs->outs[k].dset);
			H5Tclose(hs->outs[k].mtype);
			free(hs->outs[k].buf);
			free(hs->outs[k].path);
		}
		free(hs->outs);
		if (hs->group >= 0)
			H5Gclose(hs->group);
	}
	free(hf->streams);
	if (hf->file >= 0)
		H5Fclose(hf->file);
	free(hf);
}

/* A group a stream, with its datasets, in the new file. */
static int create_streams(struct rfm_recorder *r, struct h5_file *hf)
{
	hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
	int ret = 0;

	H5Pset_create_intermediate_group(lcpl, 1);
	for (uint32_t i = 0; !ret && i < r->nstreams; i++) {
		struct h5_stream *hs = &hf->streams[i];
		hs->name = r->streams[i].name;
		hs->group = H5Gcreate2(hf->file, r->streams[i].name, lcpl, H5P_DEFAULT,
				       H5P_DEFAULT);
		if (hs->group < 0)
			ret = h5_error(r->path, "creating a group");
		else
			ret = stream_outs(r, &r->streams[i], hs);
	}
	H5Pclose(lcpl);
	return ret;
}

static int h5_open(struct rfm_recorder *r)
{
	H5E_auto2_t old_fn;
	void *old_data;
	char *tmp = NULL;
	int ret = rfm__rec_temp_path(r, &tmp);

	if (ret)
		return ret;
	struct h5_file *hf = calloc(1, sizeof(*hf));
	if (!hf || !(hf->streams = calloc(r->nstreams, sizeof(*hf->streams)))) {
		free(hf);
		rfm__rec_remove_file(tmp);
		free(tmp);
		return rfm__error(RFM_ENOMEM, "recorder: out of memory");
	}
	for (uint32_t i = 0; i < r->nstreams; i++)
		hf->streams[i].group = H5I_INVALID_HID;
	/* HDF5 prints its error stacks by default: this thread's messages are ours. */
	H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	/* SWMR needs the 1.10 format; a clean end converts it back for 1.8 readers. */
	H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
	errno = 0;
	hf->file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	H5Pclose(fapl);
	if (hf->file < 0) {
		ret = h5_error(r->path, "creating the HDF5 file");
		goto fail;
	}
	root_attrs(r, hf->file);
	ret = create_streams(r, hf);
	if (!ret && H5Fstart_swmr_write(hf->file) < 0)
		ret = h5_error(r->path, "starting single-writer/multiple-reader mode");
	if (!ret)
		ret = rfm__rec_put_in_place(r, tmp);
	if (ret)
		goto fail;
	free(tmp);
	r->sink_state = hf;
	hsize_t size = 0;
	if (H5Fget_filesize(hf->file, &size) >= 0)
		REC_SET(r->n.file_bytes, (uint64_t)size);
	H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
	return 0;
fail:
	free_file(hf, r->nstreams);
	rfm__rec_remove_file(tmp);
	free(tmp);
	H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
	return ret;
}

/* Is there room on the disk for @bytes more (and HDF5's metadata)? */
static int check_room(struct rfm_recorder *r, struct h5_file *hf, uint64_t bytes)
{
	return rfm__rec_room_check(&hf->room, r->path, bytes, DISK_MARGIN);
}

static int write_out(struct rfm_recorder *r, struct h5_file *hf, struct h5_out *o)
{
	if (!o->n)
		return 0;
	int ret = check_room(r, hf, (uint64_t)o->n * o->row);
	if (ret)
		return ret;
	hsize_t size[2] = { o->written + o->n, o->cols };
	hsize_t start[2] = { o->written, 0 }, count[2] = { o->n, o->cols };
	errno = 0;
	if (H5Dset_extent(o->dset, size) < 0)
		return h5_error(r->path, "extending a dataset");
	hid_t fs = H5Dget_space(o->dset);
	hid_t ms = H5Screate_simple((int)o->rank, count, NULL);
	H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
	herr_t h = H5Dwrite(o->dset, o->mtype, ms, fs, H5P_DEFAULT, o->buf);
	H5Sclose(ms);
	H5Sclose(fs);
	if (h < 0)
		return h5_error(r->path, "writing rows");
	hf->pending -= (uint64_t)o->n * o->row;
	o->written += o->n;
	o->n = 0;
	return 0;
}

/* Output @o's value of entry @e (and its @payload) into its next row, @dst. */
static void fill_cell(struct rfm_recorder *r, const struct rec_stream *s, const struct h5_out *o,
		      const struct rec_entry *e, const uint8_t *payload, uint8_t *dst)
{
	uint32_t v;

	switch (o->src) {
	case SRC_T: {
		double t = rfm__rec_t(r, e->t_mono);
		memcpy(dst, &t, 8);
		break;
	}
	case SRC_MONO: memcpy(dst, &e->t_mono, 8); break;
	case SRC_REAL: memcpy(dst, &e->t_real, 8); break;
	case SRC_A:
	case SRC_B: {
		uint64_t w = o->src == SRC_A ? e->a : e->b;
		if (o->row == 4) {
			v = (uint32_t)w;
			memcpy(dst, &v, 4);
		} else {
			memcpy(dst, &w, 8);
		}
		break;
	}
	case SRC_C: memcpy(dst, &e->c, 4); break;
	case SRC_D: memcpy(dst, &e->d, 4); break;
	case SRC_TYPE: *dst = (uint8_t)e->c; break;
	case SRC_SENDER:
		v = e->c >> 8;
		memcpy(dst, &v, 4);
		break;
	case SRC_PAYLOAD:
		if (o->offset + o->row <= e->len)
			memcpy(dst, payload + o->offset, o->row);
		else	/* a ring message shorter than its slot: the rest zero */
			memset(dst, 0, o->row);
		if (s->kind == REC_STREAM_RING && e->c < o->row)
			memset(dst + e->c, 0, o->row - e->c);
		break;
	}
}

static int h5_append(struct rfm_recorder *r, struct rec_stream *s, const struct rec_entry *e,
		     const uint8_t *payload)
{
	struct h5_file *hf = r->sink_state;
	struct h5_stream *hs = &hf->streams[e->stream];

	for (uint32_t i = 0; i < hs->nouts; i++) {
		struct h5_out *o = &hs->outs[i];
		fill_cell(r, s, o, e, payload, o->buf + (size_t)o->n * o->row);
		o->n++;
		hf->pending += o->row;
		if (o->n == o->cap) {
			int ret = write_out(r, hf, o);
			if (ret)
				return ret;
		}
	}
	s->rows++;
	return 0;
}

static int h5_flush(struct rfm_recorder *r)
{
	struct h5_file *hf = r->sink_state;
	int ret = check_room(r, hf, hf->pending);

	for (uint32_t i = 0; !ret && i < r->nstreams; i++)
		for (uint32_t k = 0; !ret && k < hf->streams[i].nouts; k++)
			ret = write_out(r, hf, &hf->streams[i].outs[k]);
	if (ret)
		return ret;
	errno = 0;
	if (H5Fflush(hf->file, H5F_SCOPE_GLOBAL) < 0)
		return h5_error(r->path, "flushing the file");
	hsize_t size = 0;
	if (H5Fget_filesize(hf->file, &size) >= 0)
		REC_SET(r->n.file_bytes, (uint64_t)size);
	return 0;
}

/* The final attributes and the conversion for HDF5 1.8 readers, on the closed file. */
static int finish(struct rfm_recorder *r, struct h5_file *hf)
{
	hid_t f = H5Fopen(r->path, H5F_ACC_RDWR, H5P_DEFAULT);
	const struct rec_counters *n = &r->n;
	int ret = 0;

	if (f < 0)
		return h5_error(r->path, "opening the file to finish it");
	attr_i64(f, "complete", 1);
	attr_u64(f, "end_mono_ns", rfm__now_ns());
	attr_i64(f, "end_real_ns", (int64_t)rfm__os_realtime_ns());
	attr_u64(f, "trigger_mono_ns", REC_GET(n->trigger_ns));
	attr_u64(f, "samples", REC_GET(n->samples));
	attr_u64(f, "rows_written", REC_GET(n->rows_written));
	attr_u64(f, "queue_drops", REC_GET(n->queue_drops));
	attr_u64(f, "late_ticks", REC_GET(n->late_ticks));
	attr_u64(f, "missed_updates", REC_GET(n->missed_updates));
	attr_u64(f, "ring_lost", REC_GET(n->ring_lost));
	attr_u64(f, "event_overflow", REC_GET(n->event_overflow));
	attr_u64(f, "torn_reads", REC_GET(n->torn_reads));
	attr_u64(f, "pre_lost", REC_GET(n->pre_lost));
	for (uint32_t i = 0; !ret && !(r->cfg.flags & RFM_REC_F_NO_CONVERT) && i < r->nstreams;
	     i++) {
		const struct h5_stream *hs = &hf->streams[i];
		for (uint32_t k = 0; !ret && k < hs->nouts; k++) {
			hid_t d = H5Dopen2(f, hs->outs[k].path, H5P_DEFAULT);
			if (d < 0 || H5Dformat_convert(d) < 0)
				ret = h5_error(r->path, "converting a dataset to the 1.8 format");
			if (d >= 0)
				H5Dclose(d);
		}
	}
	if (!ret && !(r->cfg.flags & RFM_REC_F_NO_CONVERT) && H5Fformat_convert(f) < 0)
		ret = h5_error(r->path, "converting the superblock to the 1.8 format");
	if (H5Fclose(f) < 0 && !ret)
		ret = h5_error(r->path, "closing the finished file");
	return ret;
}

static int h5_close(struct rfm_recorder *r, bool clean)
{
	struct h5_file *hf = r->sink_state;
	int ret = 0;

	if (!hf)
		return 0;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	/* Close every object, then the file (it closes once its last object is). */
	for (uint32_t i = 0; i < r->nstreams; i++) {
		struct h5_stream *hs = &hf->streams[i];
		for (uint32_t k = 0; k < hs->nouts; k++) {
			if (hs->outs[k].dset >= 0)
				H5Dclose(hs->outs[k].dset);
			hs->outs[k].dset = H5I_INVALID_HID;
		}
		if (hs->group >= 0)
			H5Gclose(hs->group);
		hs->group = H5I_INVALID_HID;
	}
	if (H5Fclose(hf->file) < 0)
		ret = h5_error(r->path, "closing the file");
	hf->file = H5I_INVALID_HID;
	if (clean && !ret)
		ret = finish(r, hf);
	free_file(hf, r->nstreams);
	r->sink_state = NULL;
	uint64_t size;
	if (rfm__rec_file_size(r->path, &size) == 0)
		REC_SET(r->n.file_bytes, size);
	return clean ? ret : 0;
}

const struct rec_sink_ops rfm__rec_hdf5_sink = {
	.name = "hdf5",
	.open = h5_open,
	.append = h5_append,
	.flush = h5_flush,
	.close = h5_close,
};
