/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm replay: reading a recording. A file that is not HDF5, or not a
 * recording of rfm record, is refused with what it is; a file left by a
 * killed recorder (still marked open for single-writer mode) is read
 * as a SWMR reader reads it. Each stream holds as many rows as its
 * shortest dataset (a crash can leave one ahead of another).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"

static bool has(hid_t loc, const char *name)
{
	return H5Lexists(loc, name, H5P_DEFAULT) > 0;
}

char *replay_attr_text(hid_t obj, const char *name)
{
	char *out = NULL;

	if (H5Aexists(obj, name) <= 0)
		return NULL;
	hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
	hid_t t = H5Aget_type(a);
	if (H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0) {
		char *v = NULL;
		hid_t mt = H5Tcopy(H5T_C_S1);
		H5Tset_size(mt, H5T_VARIABLE);
		H5Tset_cset(mt, H5Tget_cset(t));
		if (H5Aread(a, mt, &v) >= 0 && v) {
			out = strdup(v);
			H5free_memory(v);
		}
		H5Tclose(mt);
	} else if (H5Tget_class(t) == H5T_STRING) {
		size_t n = H5Tget_size(t);
		out = calloc(1, n + 1);
		if (out && H5Aread(a, t, out) < 0) {
			free(out);
			out = NULL;
		}
	}
	H5Tclose(t);
	H5Aclose(a);
	return out;
}

static bool attr_int(hid_t obj, const char *name, int64_t *v)
{
	if (H5Aexists(obj, name) <= 0)
		return false;
	hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
	bool ok = H5Aread(a, H5T_NATIVE_INT64, v) >= 0;
	H5Aclose(a);
	return ok;
}

static uint64_t rows_of(hid_t d)
{
	hsize_t dims[2] = { 0, 0 };
	hid_t sp = H5Dget_space(d);

	H5Sget_simple_extent_dims(sp, dims, NULL);
	H5Sclose(sp);
	return dims[0];
}

static int add_track(struct cli *cli, struct rstream *s, enum track_kind kind, const char *name,
		     hid_t dset, struct track **tp)
{
	struct track *p = realloc(s->tracks, (s->ntracks + 1) * sizeof(*p));

	if (!p)
		return cli_error(cli, "out of memory");
	s->tracks = p;
	struct track *t = &p[s->ntracks++];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->name = strdup(name);
	t->dset = dset;
	t->mtype = H5I_INVALID_HID;
	t->sender = t->data = t->len = H5I_INVALID_HID;
	t->writer = -1;
	if (!t->name)
		return cli_error(cli, "out of memory");
	int64_t v;
	if (attr_int(dset, "offset", &v))
		t->offset = (uint64_t)v;
	if (attr_int(dset, "size", &v))
		t->size = (uint64_t)v;
	if (attr_int(dset, "writer", &v))
		t->writer = v;
	s->rows = s->rows < rows_of(dset) ? s->rows : rows_of(dset);
	*tp = t;
	return 0;
}

static int new_stream(struct cli *cli, struct replay *rp, hid_t group, const char *path,
		      struct rstream **sp)
{
	struct rstream *p = realloc(rp->streams, (rp->nstreams + 1) * sizeof(*p));

	if (!p)
		return cli_error(cli, "out of memory");
	rp->streams = p;
	struct rstream *s = &p[rp->nstreams++];
	memset(s, 0, sizeof(*s));
	s->group = strdup(path);
	s->t_mono = H5Dopen2(group, "t_mono_ns", H5P_DEFAULT);
	s->t = H5Dopen2(group, "t", H5P_DEFAULT);
	if (!s->group || s->t_mono < 0 || s->t < 0)
		return cli_error(cli, "%s: %s lacks its time columns: not a recording of rfm record",
				 rp->path, path);
	s->rows = rows_of(s->t_mono) < rows_of(s->t) ? rows_of(s->t_mono) : rows_of(s->t);
	*sp = s;
	return 0;
}

struct walk {
	struct cli *cli;
	struct replay *rp;
	const char *parent;
	int ret;
};

static herr_t frame_member(hid_t g, const char *name, const H5L_info_t *info, void *arg)
{
	struct walk *w = arg;
	struct rstream *s = &w->rp->streams[w->rp->nstreams - 1];
	struct track *t;
	(void)info;

	hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
	if (d < 0)
		return 0;
	char *kind = replay_attr_text(d, "kind");
	enum track_kind k = TRACK_VAR;
	bool use = kind && (!strcmp(kind, "variable") || !strcmp(kind, "record") ||
			    !strcmp(kind, "bytes"));
	if (use && !strcmp(kind, "record"))
		k = TRACK_RECORD;
	else if (use && !strcmp(kind, "bytes"))
		k = TRACK_BYTES;
	free(kind);
	if (!use) {
		H5Dclose(d);
		return 0;
	}
	w->ret = add_track(w->cli, s, k, name, d, &t);
	return w->ret ? -1 : 0;
}

static int open_frames(struct cli *cli, struct replay *rp)
{
	struct rstream *s;
	struct walk w = { cli, rp, "frames", 0 };
	hid_t g = H5Gopen2(rp->file, "frames", H5P_DEFAULT);
	int ret = new_stream(cli, rp, g, "frames", &s);

	if (!ret && H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, frame_member, &w) < 0)
		ret = w.ret ? w.ret : cli_error(cli, "%s: cannot read the frames", rp->path);
	H5Gclose(g);
	return ret;
}

static herr_t sub_stream(hid_t parent, const char *name, const H5L_info_t *info, void *arg)
{
	struct walk *w = arg;
	struct rstream *s;
	struct track *t;
	char path[1024];
	(void)info;

	snprintf(path, sizeof(path), "%s/%s", w->parent, name);
	hid_t g = H5Gopen2(parent, name, H5P_DEFAULT);
	if (g < 0)
		return 0;
	w->ret = new_stream(w->cli, w->rp, g, path, &s);
	if (!w->ret) {
		hid_t d = H5Dopen2(g, "data", H5P_DEFAULT);
		bool ring = !strcmp(w->parent, "rings");
		char *rec = ring ? NULL : replay_attr_text(g, "record");
		w->ret = add_track(w->cli, s, ring ? TRACK_RING : TRACK_RECORD,
				   ring ? name : rec ? rec : name, d, &t);
		free(rec);
		if (!w->ret && ring) {
			int64_t v;
			t->len = H5Dopen2(g, "len", H5P_DEFAULT);
			if (attr_int(g, "producer", &v))
				t->writer = v;
			if (attr_int(g, "offset", &v))
				t->offset = (uint64_t)v;
			s->rows = s->rows < rows_of(t->len) ? s->rows : rows_of(t->len);
		}
	}
	H5Gclose(g);
	return w->ret ? -1 : 0;
}

static int open_group_of_streams(struct cli *cli, struct replay *rp, const char *name)
{
	struct walk w = { cli, rp, name, 0 };
	hid_t g = H5Gopen2(rp->file, name, H5P_DEFAULT);

	H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, sub_stream, &w);
	H5Gclose(g);
	return w.ret;
}

static int open_events(struct cli *cli, struct replay *rp)
{
	struct rstream *s;
	struct track *t;
	hid_t g = H5Gopen2(rp->file, "events", H5P_DEFAULT);
	int ret = new_stream(cli, rp, g, "events", &s);

	if (!ret)
		ret = add_track(cli, s, TRACK_EVENTS, "events", H5Dopen2(g, "type", H5P_DEFAULT), &t);
	if (!ret) {
		t->sender = H5Dopen2(g, "sender", H5P_DEFAULT);
		t->data = H5Dopen2(g, "data", H5P_DEFAULT);
		if (t->sender < 0 || t->data < 0)
			ret = cli_error(cli, "%s: the events lack their sender or data", rp->path);
	}
	if (!ret) {
		s->rows = s->rows < rows_of(t->sender) ? s->rows : rows_of(t->sender);
		s->rows = s->rows < rows_of(t->data) ? s->rows : rows_of(t->data);
	}
	H5Gclose(g);
	return ret;
}

int replay_open(struct cli *cli, struct replay *rp, const char *path)
{
	int ret = 0;

	memset(rp, 0, sizeof(*rp));
	rp->path = path;
	rp->file = H5I_INVALID_HID;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (access(path, R_OK) != 0)
		return cli_error(cli, "%s: %s", path, strerror(errno));
	if (H5Fis_hdf5(path) <= 0)
		return cli_error(cli, "%s is not an HDF5 file: rfm replay reads the HDF5 recordings "
				 "of rfm record (a CSV recording cannot be replayed)", path);
	rp->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (rp->file < 0) /* left open by a killed recorder: read it as SWMR readers do */
		rp->file = H5Fopen(path, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT);
	if (rp->file < 0)
		return cli_error(cli, "%s: HDF5 cannot open it", path);
	if (H5Aexists(rp->file, "rfm_recording") <= 0)
		return cli_error(cli, "%s is an HDF5 file, but not a recording of rfm record (no "
				 "rfm_recording attribute)", path);
	rp->layout_text = replay_attr_text(rp->file, "layout");
	if (rp->layout_text && !rp->layout_text[0]) {
		free(rp->layout_text);
		rp->layout_text = NULL;
	}
	rp->recorded_node = -1;
	attr_int(rp->file, "node_id", &rp->recorded_node);
	if (has(rp->file, "frames"))
		ret = open_frames(cli, rp);
	if (!ret && has(rp->file, "records"))
		ret = open_group_of_streams(cli, rp, "records");
	if (!ret && has(rp->file, "rings"))
		ret = open_group_of_streams(cli, rp, "rings");
	if (!ret && has(rp->file, "events"))
		ret = open_events(cli, rp);
	return ret;
}

/* The first row of @s whose t is at least @t (t rises with the rows). */
static uint64_t first_at(struct rstream *s, double t)
{
	uint64_t lo = 0, hi = s->rows;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		hsize_t start = mid, count = 1;
		double v = 0;
		hid_t fs = H5Dget_space(s->t), ms = H5Screate_simple(1, &count, NULL);
		H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
		H5Dread(s->t, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, &v);
		H5Sclose(ms);
		H5Sclose(fs);
		if (v < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int replay_select_time(struct cli *cli, struct replay *rp, double from, double to)
{
	(void)cli;
	for (size_t i = 0; i < rp->nstreams; i++) {
		struct rstream *s = &rp->streams[i];
		s->first = first_at(s, from);
		s->end = to < 0 ? s->rows : first_at(s, to + 1e-12);
		if (s->end < s->first)
			s->end = s->first;
	}
	return 0;
}

static int read_rows(hid_t d, hid_t mtype, uint64_t at, uint32_t n, void *buf)
{
	hsize_t dims[2] = { 0, 0 };
	hid_t fs = H5Dget_space(d);
	int rank = H5Sget_simple_extent_dims(fs, dims, NULL);
	hsize_t start[2] = { at, 0 }, count[2] = { n, dims[1] };
	hid_t ms = H5Screate_simple(rank, count, NULL);

	H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
	herr_t h = H5Dread(d, mtype, ms, fs, H5P_DEFAULT, buf);
	H5Sclose(ms);
	H5Sclose(fs);
	return h < 0 ? -1 : 0;
}

int replay_load(struct cli *cli, struct replay *rp, struct rstream *s, uint64_t row)
{
	uint32_t n = (uint32_t)(s->end - row < REPLAY_BLOCK ? s->end - row : REPLAY_BLOCK);
	int bad = read_rows(s->t_mono, H5T_NATIVE_UINT64, row, n, s->times);

	for (size_t i = 0; !bad && i < s->ntracks; i++) {
		struct track *t = &s->tracks[i];
		if (!t->selected)
			continue;
		bad = read_rows(t->dset, t->mtype, row, n, t->buf);
		if (!bad && t->kind == TRACK_EVENTS)
			bad = read_rows(t->sender, H5T_NATIVE_UINT32, row, n, t->sender_buf) ||
			      read_rows(t->data, H5T_NATIVE_UINT32, row, n, t->data_buf);
		if (!bad && t->kind == TRACK_RING)
			bad = read_rows(t->len, H5T_NATIVE_UINT32, row, n, t->len_buf);
	}
	if (bad)
		return cli_error(cli, "%s: reading the rows of %s failed", rp->path, s->group);
	s->block_at = row;
	s->block_len = n;
	return 0;
}

void replay_close(struct replay *rp)
{
	for (size_t i = 0; i < rp->nstreams; i++) {
		struct rstream *s = &rp->streams[i];
		for (size_t k = 0; k < s->ntracks; k++) {
			struct track *t = &s->tracks[k];
			hid_t ids[] = { t->dset, t->sender, t->data, t->len };
			for (size_t j = 0; j < sizeof(ids) / sizeof(ids[0]); j++)
				if (ids[j] >= 0)
					H5Dclose(ids[j]);
			if (t->mtype >= 0)
				H5Tclose(t->mtype);
			free(t->buf);
			free(t->sender_buf);
			free(t->data_buf);
			free(t->len_buf);
			free(t->name);
		}
		free(s->tracks);
		if (s->t_mono >= 0)
			H5Dclose(s->t_mono);
		if (s->t >= 0)
			H5Dclose(s->t);
		free(s->group);
	}
	free(rp->streams);
	free(rp->layout_text);
	if (rp->file >= 0)
		H5Fclose(rp->file);
}
