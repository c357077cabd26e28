/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HDF5 sink of librfm itself: it finds the recorder's HDF5 module
 * (recorder-module.h), opens it when the first HDF5 recording of the
 * process starts, and hands the recording to the module's sink. librfm
 * does not link libhdf5; the module does.
 *
 * Where it looks: only in $RFM_MODULE_DIR when that is set (tests; a
 * module kept elsewhere; ignored in set-uid programs, os/process.h);
 * otherwise beside the library's own file (a build tree: src/.libs, so
 * make check and a fresh clone work uninstalled), then in the directory
 * it was installed for, $(pkglibdir). The first file found is the one:
 * a module that cannot be loaded, or is another build's, is refused
 * with RFM_ENOTSUP saying what to install; CSV recordings never need it.
 * Once loaded, the module stays for the life of the process.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "os/clock.h"
#include "os/file.h"
#include "os/module.h"
#include "os/process.h"
#include "recorder-module.h"
#include "recorder-module-id.h"

/* What to install, in the messages (configure: RFM_HDF5_RUNTIME_PACKAGE). */
#define MODULE_PACKAGE "librfm1-hdf5"

static const struct rec_module_services services = {
	.size = sizeof(struct rec_module_services),
	.verror = rfm__verror,
	.errno_code = rfm__errno_code,
	.hostname = rfm__os_hostname,
	.realtime_ns = rfm__os_realtime_ns,
	.temp_path = rfm__rec_temp_path,
	.put_in_place = rfm__rec_put_in_place,
	.remove_file = rfm__rec_remove_file,
	.file_size = rfm__rec_file_size,
	.room_check = rfm__rec_room_check,
};

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct rec_sink_ops *loaded;	/* the module's sink, once loaded */

/* @dir/rfm-hdf5.so into @file: false when it does not fit. */
static bool module_file(char *file, size_t len, const char *dir)
{
	int n = snprintf(file, len, "%s/%s%s", dir, RFM_REC_MODULE_HDF5, rfm__os_module_suffix());

	return n > 0 && (size_t)n < len;
}

static bool sizes_equal(const struct rec_module_sizes *a, const struct rec_module_sizes *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* Is @m this build's module? 0, or RFM_ENOTSUP saying whose it is. */
static int check(const char *path, const char *file, const struct rec_module *m)
{
	static const struct rec_module_sizes ours = RFM_REC_MODULE_SIZES;

	/* The interface's version first: the rest is laid out as it says. */
	if (m->abi == RFM_REC_MODULE_ABI && m->version && m->build &&
	    !strcmp(m->version, PACKAGE_VERSION) && !strcmp(m->build, RFM_REC_MODULE_ID) &&
	    sizes_equal(&m->sizes, &ours) && m->init && m->sink)
		return 0;
	if (m->abi != RFM_REC_MODULE_ABI)
		return rfm__error(RFM_ENOTSUP, "%s: librfm's HDF5 module %s is of another librfm "
				  "(its interface %u, this librfm's %u): install the module of this "
				  "librfm %s (Debian: %s of the same version as librfm1)", path,
				  file, m->abi, RFM_REC_MODULE_ABI, PACKAGE_VERSION, MODULE_PACKAGE);
	return rfm__error(RFM_ENOTSUP, "%s: librfm's HDF5 module %s is of another build of "
			  "librfm (the module's %s, this librfm's %s): install the module of "
			  "this librfm (Debian: %s of the same version as librfm1), or make "
			  "both in one build", path, file, m->build ? m->build : "unknown",
			  RFM_REC_MODULE_ID, MODULE_PACKAGE);
}

/* Open module file @file and take its sink: 0, or RFM_ENOTSUP saying why not. */
static int load(const char *path, const char *file)
{
	char why[512];
	void *mod = rfm__os_module_open(file, why, sizeof(why));

	if (!mod)
		return rfm__error(RFM_ENOTSUP, "%s: librfm's HDF5 module %s cannot be loaded: %s "
				  "(Debian: apt install --reinstall %s %s, the module and HDF5's "
				  "library)", path, file, why, MODULE_PACKAGE,
				  RFM_HDF5_RUNTIME_PACKAGE);
	void *sym = rfm__os_module_symbol(mod, RFM_REC_MODULE_ENTRY);
	if (!sym) {
		rfm__os_module_close(mod);
		return rfm__error(RFM_ENOTSUP, "%s: %s is not a librfm module (it has no %s)",
				  path, file, RFM_REC_MODULE_ENTRY);
	}
	rec_module_entry entry;
	memcpy(&entry, &sym, sizeof(entry));	/* a data pointer to a function's */
	const struct rec_module *m = entry();
	int ret = check(path, file, m);
	if (!ret)
		ret = m->init(&services);
	if (ret) {
		rfm__os_module_close(mod);
		return ret;
	}
	__atomic_store_n(&loaded, m->sink, __ATOMIC_RELEASE);
	return 0;
}

/* Find the module and load it: 0, or RFM_ENOTSUP saying what to install. */
static int find_and_load(const char *path)
{
	char file[4096], self[4096];
	const char *env = rfm__os_getenv("RFM_MODULE_DIR");
	const char *dirs[2];
	size_t ndirs = 0;

	if (!RFM_HDF5_MODULE_BUILT)
		return rfm__error(RFM_ENOTSUP,
				  "%s: this librfm was built without HDF5 (configure --without-hdf5, "
				  "or no libhdf5 found; Debian: libhdf5-dev, then configure "
				  "--with-hdf5): record to a .csv file, or use a build with HDF5",
				  path);
	if (env && env[0]) {
		dirs[ndirs++] = env;
	} else {
		if (rfm__os_module_self_dir(self, sizeof(self)) == 0)
			dirs[ndirs++] = self;
		dirs[ndirs++] = RFM_PKGLIBDIR;
	}
	for (size_t i = 0; i < ndirs; i++)
		if (module_file(file, sizeof(file), dirs[i]) && rfm__os_path_taken(file))
			return load(path, file);
	if (env && env[0])
		return rfm__error(RFM_ENOTSUP, "%s: HDF5 recordings need librfm's HDF5 module "
				  "%s%s, and $RFM_MODULE_DIR (%s) has none; CSV recordings work "
				  "without it", path, RFM_REC_MODULE_HDF5, rfm__os_module_suffix(),
				  env);
	if (ndirs == 1)
		return rfm__error(RFM_ENOTSUP, "%s: HDF5 recordings need librfm's HDF5 module "
				  "%s%s, not found in %s (Debian: install %s); CSV recordings work "
				  "without it", path, RFM_REC_MODULE_HDF5, rfm__os_module_suffix(),
				  dirs[0], MODULE_PACKAGE);
	return rfm__error(RFM_ENOTSUP, "%s: HDF5 recordings need librfm's HDF5 module %s%s, "
			  "found neither beside librfm (%s) nor in %s (Debian: install %s); CSV "
			  "recordings work without it", path, RFM_REC_MODULE_HDF5,
			  rfm__os_module_suffix(), dirs[0], dirs[1], MODULE_PACKAGE);
}

/* The module's sink, loaded on first use: 0, or RFM_ENOTSUP saying why not. */
static int module_sink(const char *path, const struct rec_sink_ops **ops)
{
	int ret = 0;

	*ops = __atomic_load_n(&loaded, __ATOMIC_ACQUIRE);
	if (*ops)
		return 0;
	/* A failure is not kept: the module may be installed before the next try. */
	pthread_mutex_lock(&load_lock);
	if (!__atomic_load_n(&loaded, __ATOMIC_ACQUIRE))
		ret = find_and_load(path);
	pthread_mutex_unlock(&load_lock);
	*ops = __atomic_load_n(&loaded, __ATOMIC_ACQUIRE);
	return ret;
}

static int hdf5_open(struct rfm_recorder *r)
{
	const struct rec_sink_ops *ops;
	int ret = module_sink(r->path, &ops);

	if (ret)
		return ret;
	/* From here on the recording is the module's: appends, flushes, close. */
	r->sink = ops;
	return ops->open(r);
}

/* Before the module is loaded nothing is open: nothing to write, flush or close. */
static int hdf5_not_open(struct rfm_recorder *r)
{
	return rfm__error(RFM_EINVAL, "%s: the HDF5 file is not open", r->path);
}

static int hdf5_no_append(struct rfm_recorder *r, struct rec_stream *s, const struct rec_entry *e,
			  const uint8_t *payload)
{
	(void)s;
	(void)e;
	(void)payload;
	return hdf5_not_open(r);
}

static int hdf5_no_close(struct rfm_recorder *r, bool clean)
{
	(void)r;
	(void)clean;
	return 0;
}

const struct rec_sink_ops rfm__rec_hdf5_module_sink = {
	.name = "hdf5",
	.open = hdf5_open,
	.append = hdf5_no_append,
	.flush = hdf5_not_open,
	.close = hdf5_no_close,
};
