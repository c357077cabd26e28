/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm replay: what a recording may write, and into what. Each recorded
 * variable, record and region must be what the network's layout says
 * it is (type, elements, byte order, offset, size): a recording made
 * under another layout is refused with the first difference. The
 * replaying node writes only what its own regions hold (the one-writer
 * rule): another node's items are skipped when the whole file is
 * replayed and refused when named, unless --force, as rfm set has it.
 * Events are re-sent as the replaying node; those another node sent are
 * skipped the same way.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "replay.h"

static int mismatch(struct cli *cli, struct replay *rp, const char *what, const char *name,
		    const char *detail)
{
	return cli_error(cli, "%s does not match the network's layout: %s %s %s (record again, "
			 "or replay with the layout it was recorded with: --layout)",
			 rp->path, what, name, detail);
}

/* A scalar's or array's element type, as HDF5 stores it in the window's byte order. */
static hid_t window_type(int type, uint32_t order, uint32_t count, bool in_record)
{
	hid_t base;

	if (type == RFM_TYPE_STRING) {
		base = H5Tcopy(H5T_C_S1);
		H5Tset_size(base, count ? count : 1);
		H5Tset_strpad(base, H5T_STR_NULLPAD);
		return base;
	}
	switch (type) {
	case RFM_TYPE_U16: base = H5Tcopy(H5T_STD_U16LE); break;
	case RFM_TYPE_U32: base = H5Tcopy(H5T_STD_U32LE); break;
	case RFM_TYPE_U64: base = H5Tcopy(H5T_STD_U64LE); break;
	case RFM_TYPE_I8: base = H5Tcopy(H5T_STD_I8LE); break;
	case RFM_TYPE_I16: base = H5Tcopy(H5T_STD_I16LE); break;
	case RFM_TYPE_I32: base = H5Tcopy(H5T_STD_I32LE); break;
	case RFM_TYPE_I64: base = H5Tcopy(H5T_STD_I64LE); break;
	case RFM_TYPE_F32: base = H5Tcopy(H5T_IEEE_F32LE); break;
	case RFM_TYPE_F64: base = H5Tcopy(H5T_IEEE_F64LE); break;
	default: base = H5Tcopy(H5T_STD_U8LE); break;
	}
	if (order == RFM_ORDER_BIG)
		H5Tset_order(base, H5T_ORDER_BE);
	if (in_record && count > 1) {
		hsize_t dim = count;
		hid_t arr = H5Tarray_create2(base, 1, &dim);
		H5Tclose(base);
		return arr;
	}
	return base;
}

static int check_var(struct cli *cli, struct replay *rp, rfm_layout *layout, struct track *t)
{
	struct rfm_var_info info = { .struct_size = sizeof(info) };
	char detail[256];
	rfm_var *var;

	if (!layout)
		return cli_error(cli, "%s holds no layout: give the network's with --layout", rp->path);
	if (rfm_var_open(layout, cli->node, t->name, &var))
		return mismatch(cli, rp, "variable", t->name, "is not in it");
	rfm_var_get_info(var, &info);
	char *type = replay_attr_text(t->dset, "rfm_type"), *order = replay_attr_text(t->dset, "byte_order");
	bool same = type && !strcmp(type, rfm_type_name(info.type)) && order &&
		    !strcmp(order, info.byte_order == RFM_ORDER_BIG ? "big" : "little") &&
		    t->offset == info.offset && t->size == info.size;
	snprintf(detail, sizeof(detail), "was %s (%s-endian) of %llu bytes at 0x%llx, is %s "
		 "(%s-endian) of %llu bytes at 0x%llx", type ? type : "?", order ? order : "?",
		 (unsigned long long)t->size, (unsigned long long)t->offset,
		 rfm_type_name(info.type), info.byte_order == RFM_ORDER_BIG ? "big" : "little",
		 (unsigned long long)info.size, (unsigned long long)info.offset);
	free(type);
	free(order);
	if (!same) {
		rfm_var_close(var);
		return mismatch(cli, rp, "variable", t->name, detail);
	}
	t->var = var;
	t->writer = info.writer;
	/* In memory: host order, as rfm_var_set_array() takes it. */
	hid_t ft = H5Dget_type(t->dset);
	t->mtype = info.type == RFM_TYPE_STRING ? H5Tcopy(ft) : H5Tget_native_type(ft, H5T_DIR_ASCEND);
	H5Tclose(ft);
	t->row = info.size;
	return 0;
}

static int check_record(struct cli *cli, struct replay *rp, rfm_layout *layout, struct track *t)
{
	struct rfm_record_info info = { .struct_size = sizeof(info) };
	char detail[256];
	rfm_record *rec;

	if (!layout)
		return cli_error(cli, "%s holds no layout: give the network's with --layout", rp->path);
	if (rfm_record_open(layout, cli->node, t->name, &rec))
		return mismatch(cli, rp, "record", t->name, "is not in it");
	rfm_record_get_info(rec, &info);
	hid_t ft = H5Dget_type(t->dset);
	hid_t mt = H5Tcreate(H5T_COMPOUND, info.data_size ? info.data_size : 1);
	int members = H5Tget_nmembers(ft), matched = 0;
	size_t prefix = strlen(info.name) + 1;
	int ret = 0;

	/* Every variable of the record, by name, at its place in the record's data. */
	for (size_t i = 0; i < rfm_layout_var_count(layout); i++) {
		struct rfm_var_info v = { .struct_size = sizeof(v) };
		if (rfm_layout_var_info(layout, i, &v) || strncmp(v.name, info.name, prefix - 1) ||
		    v.name[prefix - 1] != '.' || strchr(v.name + prefix, '.'))
			continue;
		int idx = H5Tget_member_index(ft, v.name + prefix);
		if (idx < 0) {
			snprintf(detail, sizeof(detail), "has a variable %s the recording lacks",
				 v.name + prefix);
			ret = mismatch(cli, rp, "record", t->name, detail);
			break;
		}
		size_t at = H5Tget_member_offset(ft, (unsigned int)idx);
		if (at != v.record_offset) {
			snprintf(detail, sizeof(detail), "holds %s at byte %zu, the recording at %zu",
				 v.name + prefix, (size_t)v.record_offset, at);
			ret = mismatch(cli, rp, "record", t->name, detail);
			break;
		}
		hid_t wt = window_type(v.type, v.byte_order, v.count, true);
		H5Tinsert(mt, v.name + prefix, v.record_offset, wt);
		H5Tclose(wt);
		matched++;
	}
	if (!ret && (matched != members || info.data_offset != t->offset ||
		     info.data_size != t->size)) {
		snprintf(detail, sizeof(detail), "was %d variables in %llu bytes at 0x%llx, is %d in "
			 "%llu bytes at 0x%llx", members, (unsigned long long)t->size,
			 (unsigned long long)t->offset, matched, (unsigned long long)info.data_size,
			 (unsigned long long)info.data_offset);
		ret = mismatch(cli, rp, "record", t->name, detail);
	}
	H5Tclose(ft);
	if (ret) {
		H5Tclose(mt);
		rfm_record_close(rec);
		return ret;
	}
	t->rec = rec;
	t->mtype = mt;
	t->row = info.data_size;
	struct rfm_region_info reg = { .struct_size = sizeof(reg) };
	if (!rfm_layout_region_info(layout, info.region, &reg))
		t->writer = reg.writer;
	return 0;
}

static int check_bytes(struct cli *cli, struct replay *rp, rfm_layout *layout, struct track *t)
{
	uint64_t size = rfm_node_size(cli->node);

	if (t->offset > size || t->size > size - t->offset) {
		char detail[128];
		snprintf(detail, sizeof(detail), "lies at 0x%llx + %llu, outside this window of "
			 "%llu bytes", (unsigned long long)t->offset, (unsigned long long)t->size,
			 (unsigned long long)size);
		return mismatch(cli, rp, "range", t->name, detail);
	}
	for (size_t i = 0; layout && i < rfm_layout_region_count(layout); i++) {
		struct rfm_region_info reg = { .struct_size = sizeof(reg) };
		if (rfm_layout_region_info(layout, i, &reg) || strcmp(reg.name, t->name))
			continue;
		if (reg.offset != t->offset || reg.size != t->size)
			return mismatch(cli, rp, "region", t->name, "moved or changed size");
		t->writer = reg.writer;
	}
	t->mtype = H5Tcopy(H5T_NATIVE_UINT8);
	t->row = t->size;
	return 0;
}

static bool named(char **names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static int alloc_rows(struct cli *cli, struct track *t)
{
	t->buf = malloc((size_t)REPLAY_BLOCK * (t->row ? t->row : 1));
	if (t->kind == TRACK_EVENTS) {
		t->sender_buf = malloc(REPLAY_BLOCK * sizeof(uint32_t));
		t->data_buf = malloc(REPLAY_BLOCK * sizeof(uint32_t));
	}
	if (t->kind == TRACK_RING)
		t->len_buf = malloc(REPLAY_BLOCK * sizeof(uint32_t));
	if (!t->buf || (t->kind == TRACK_EVENTS && (!t->sender_buf || !t->data_buf)) ||
	    (t->kind == TRACK_RING && !t->len_buf))
		return cli_error(cli, "out of memory");
	return 0;
}

/* Match one track and open what writes it. */
static int prepare_track(struct cli *cli, struct replay *rp, rfm_layout *layout, struct track *t)
{
	int ret = 0;

	switch (t->kind) {
	case TRACK_VAR: ret = check_var(cli, rp, layout, t); break;
	case TRACK_RECORD: ret = check_record(cli, rp, layout, t); break;
	case TRACK_BYTES: ret = check_bytes(cli, rp, layout, t); break;
	case TRACK_RING: {
		hid_t ft = H5Dget_type(t->dset);
		hsize_t dims[2] = { 0, 0 };
		hid_t sp = H5Dget_space(t->dset);
		H5Sget_simple_extent_dims(sp, dims, NULL);
		H5Sclose(sp);
		H5Tclose(ft);
		t->mtype = H5Tcopy(H5T_NATIVE_UINT8);
		t->row = dims[1];
		break;
	}
	case TRACK_EVENTS:
		t->mtype = H5Tcopy(H5T_NATIVE_UINT8);
		t->row = 1;
		break;
	}
	return ret ? ret : alloc_rows(cli, t);
}

int replay_prepare(struct cli *cli, struct replay *rp, rfm_layout *layout, char **names,
		   int nnames, bool force)
{
	int self = rfm_node_id(cli->node), chosen = 0, ret = 0;

	for (int i = 0; i < nnames; i++) {
		bool found = false;
		for (size_t s = 0; s < rp->nstreams; s++)
			for (size_t k = 0; k < rp->streams[s].ntracks; k++)
				found |= !strcmp(rp->streams[s].tracks[k].name, names[i]);
		if (!found)
			return cli_error(cli, "%s holds nothing named '%s' (rfm replay takes the "
					 "names of recorded variables, records, regions, rings, "
					 "and 'events')", rp->path, names[i]);
	}
	for (size_t s = 0; !ret && s < rp->nstreams; s++) {
		for (size_t k = 0; !ret && k < rp->streams[s].ntracks; k++) {
			struct track *t = &rp->streams[s].tracks[k];
			if (nnames && !named(names, nnames, t->name))
				continue;
			ret = prepare_track(cli, rp, layout, t);
			if (ret)
				break;
			/* Events carry their sender per row; everything else one writer. */
			if (t->kind != TRACK_EVENTS && t->writer != self && !force) {
				if (nnames)
					return cli_error(cli, "refusing to replay %s: it is written by "
							 "node %lld, this is node %d (replay as that "
							 "node with -u URI?node=%lld, or --force)",
							 t->name, (long long)t->writer, self,
							 (long long)t->writer);
				fprintf(stderr, "rfm: replay: skipping %s (written by node %lld, this "
					"is node %d)\n", t->name, (long long)t->writer, self);
				continue;
			}
			t->selected = true;
			chosen++;
		}
	}
	if (!ret && !chosen)
		ret = cli_error(cli, "nothing in %s is written by node %d: replay as the node that "
				"wrote it (-u URI?node=N), or --force", rp->path, self);
	/* Writers for the chosen tracks. */
	for (size_t s = 0; !ret && s < rp->nstreams; s++)
		for (size_t k = 0; !ret && k < rp->streams[s].ntracks; k++) {
			struct track *t = &rp->streams[s].tracks[k];
			if (!t->selected)
				continue;
			if (force && t->var)
				rfm_var_set_owner_check(t->var, false);
			if (force && t->rec)
				rfm_record_set_owner_check(t->rec, false);
			if (t->kind == TRACK_RING && rfm_ring_attach(cli->node, t->offset, &t->ring))
				ret = cli_fail(cli);
		}
	return ret;
}

static uint8_t *row_of(struct track *t, struct rstream *s, uint64_t row)
{
	return t->buf + (size_t)(row - s->block_at) * t->row;
}

int replay_apply(struct cli *cli, struct replay *rp, struct rstream *s, uint64_t row, bool force,
		 uint64_t *events_sent)
{
	int self = rfm_node_id(cli->node);
	(void)rp;

	for (size_t k = 0; k < s->ntracks; k++) {
		struct track *t = &s->tracks[k];
		uint8_t *p;
		int ret = 0;

		if (!t->selected)
			continue;
		p = row_of(t, s, row);
		switch (t->kind) {
		case TRACK_VAR: {
			struct rfm_var_info info = { .struct_size = sizeof(info) };
			rfm_var_get_info(t->var, &info);
			ret = rfm_var_set_array(t->var, 0, info.count, p, t->row);
			break;
		}
		case TRACK_RECORD: ret = rfm_record_write(t->rec, p, t->row); break;
		case TRACK_BYTES: ret = rfm_mem_write(cli->node, t->offset, p, t->row); break;
		case TRACK_RING: {
			uint32_t len = t->len_buf[row - s->block_at];
			ret = rfm_ring_publish(t->ring, p, len < t->row ? len : t->row, 0);
			break;
		}
		case TRACK_EVENTS: {
			size_t i = (size_t)(row - s->block_at);
			unsigned int type = t->buf[i];
			if (type > RFM_EVENT_INTR4 || ((int)t->sender_buf[i] != self && !force)) {
				t->skipped++;
				break;
			}
			ret = rfm_event_send(cli->node, RFM_NODE_ALL, type, t->data_buf[i]);
			if (ret >= 0) {
				(*events_sent)++;
				ret = 0;
			} else if (ret == RFM_ENODE) {
				ret = 0; /* nobody listens: as the original sender, not an error */
			}
			break;
		}
		}
		if (ret < 0)
			return cli_fail(cli);
	}
	return 0;
}

void replay_release(struct replay *rp)
{
	for (size_t s = 0; s < rp->nstreams; s++)
		for (size_t k = 0; k < rp->streams[s].ntracks; k++) {
			struct track *t = &rp->streams[s].tracks[k];
			rfm_var_close(t->var);
			rfm_record_close(t->rec);
			rfm_ring_close(t->ring);
			t->var = NULL;
			t->rec = NULL;
			t->ring = NULL;
		}
}
