/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HDF5 sink of a librfm built without libhdf5 (configure
 * --without-hdf5, or no libhdf5-dev found; Windows builds for now): the
 * recorder's functions are all there, and an HDF5 file is refused with
 * RFM_ENOTSUP saying how to get one. CSV files work.
 */
#include "config.h"

#include "internal.h"
#include "recorder-internal.h"

static int h5_missing(struct rfm_recorder *r)
{
	return rfm__error(RFM_ENOTSUP,
			  "%s: this librfm was built without HDF5 (configure --without-hdf5, or "
			  "no libhdf5 found; Debian: libhdf5-dev, then configure --with-hdf5): "
			  "record to a .csv file, or use a build with HDF5", r->path);
}

static int h5_none(struct rfm_recorder *r)
{
	(void)r;
	return 0;
}

static int h5_no_append(struct rfm_recorder *r, struct rec_stream *s, const struct rec_entry *e,
			const uint8_t *payload)
{
	(void)s;
	(void)e;
	(void)payload;
	return h5_missing(r);
}

static int h5_no_close(struct rfm_recorder *r, bool clean)
{
	(void)r;
	(void)clean;
	return 0;
}

const struct rec_sink_ops rfm__rec_hdf5_sink = {
	.name = "hdf5 (not built)",
	.open = h5_missing,
	.append = h5_no_append,
	.flush = h5_none,
	.close = h5_no_close,
};
