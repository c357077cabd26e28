/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder's HDF5 module (recorder-module.h), rfm-hdf5.so: what it
 * tells librfm about itself, and the functions of librfm the HDF5 sink
 * (recorder-hdf5.c) calls that librfm does not export, each passing the
 * call on to the services librfm lends at init. Built into the module
 * only, never into librfm; hidden, as every function of the module but
 * its entry.
 */
#include "config.h"

#include <hdf5.h>
#include <stdarg.h>

#include "internal.h"
#include "os/clock.h"
#include "os/process.h"
#include "recorder-module.h"
#include "recorder-module-id.h"

static const struct rec_module_services *svc;

int rfm__error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = svc->verror(code, fmt, ap);
	va_end(ap);
	return code;
}

int rfm__errno_code(int err)
{
	return svc->errno_code(err);
}

void rfm__os_hostname(char *buf, size_t len)
{
	svc->hostname(buf, len);
}

uint64_t rfm__os_realtime_ns(void)
{
	return svc->realtime_ns();
}

int rfm__rec_temp_path(struct rfm_recorder *r, char **tmpp)
{
	return svc->temp_path(r, tmpp);
}

int rfm__rec_put_in_place(struct rfm_recorder *r, const char *tmp)
{
	return svc->put_in_place(r, tmp);
}

void rfm__rec_remove_file(const char *path)
{
	svc->remove_file(path);
}

int rfm__rec_file_size(const char *path, uint64_t *size)
{
	return svc->file_size(path, size);
}

int rfm__rec_room_check(struct rec_room *room, const char *path, uint64_t bytes, uint64_t margin)
{
	return svc->room_check(room, path, bytes, margin);
}

static int init(const struct rec_module_services *services)
{
	/* librfm checked that we are of its build: its table is ours. */
	svc = services;
	if (H5open() < 0)
		return rfm__error(RFM_ENOTSUP, "recorder: HDF5's library did not start (H5open)");
	return 0;
}

RFM_API const struct rec_module *rfm_recorder_module(void);

RFM_API const struct rec_module *rfm_recorder_module(void)
{
	static const struct rec_module module = {
		.abi = RFM_REC_MODULE_ABI,
		.version = PACKAGE_VERSION,
		.build = RFM_REC_MODULE_ID,
		.sizes = RFM_REC_MODULE_SIZES,
		.init = init,
		.sink = &rfm__rec_hdf5_sink,
	};

	return &module;
}
