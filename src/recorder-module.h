/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder's HDF5 writer as a module of its own (docs/recording.md,
 * "How librfm depends on HDF5"): librfm does not link libhdf5, so a
 * process that never writes an HDF5 recording never loads it and the 31
 * libraries it needs. recorder-module.c finds the module, opens it (the
 * OS layer's os/module.h) when an HDF5 recording starts, checks that it
 * is this build's, and hands it the services below; the module
 * (recorder-hdf5.c and recorder-hdf5-module.c, linked with libhdf5 and
 * librfm's public API) gives back its sink.
 *
 * The module reaches into the recorder's structures (recorder-internal.h,
 * layout-internal.h), so module and library must come from one build:
 * the module says which build it is (librfm's version and the identity
 * of the headers both sides compile, RFM_REC_MODULE_ID, made by make
 * from their text), the sizes of the structures it reaches, and the
 * version of this interface; librfm refuses anything else, saying so.
 */
#ifndef RFM_RECORDER_MODULE_H
#define RFM_RECORDER_MODULE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "layout-internal.h"
#include "recorder-internal.h"

/* This interface's version: raise it with any change to the two structures below. */
#define RFM_REC_MODULE_ABI 1

/* The module's file, without the OS's ending (os/module.h), and its one exported symbol. */
#define RFM_REC_MODULE_HDF5 "rfm-hdf5"
#define RFM_REC_MODULE_ENTRY "rfm_recorder_module"

/*
 * What librfm lends the module: its internal functions, which librfm does
 * not export. Each is the function of the same name in librfm (error.c,
 * os/, recorder-file.c); recorder-hdf5-module.c gives the module
 * functions of those names that call these.
 */
struct rec_module_services {
	uint32_t size;		/* sizeof(struct rec_module_services) */
	int (*verror)(int code, const char *fmt, va_list ap);
	int (*errno_code)(int err);
	void (*hostname)(char *buf, size_t len);
	uint64_t (*realtime_ns)(void);
	int (*temp_path)(struct rfm_recorder *r, char **tmpp);
	int (*put_in_place)(struct rfm_recorder *r, const char *tmp);
	void (*remove_file)(const char *path);
	int (*file_size)(const char *path, uint64_t *size);
	int (*room_check)(struct rec_room *room, const char *path, uint64_t bytes,
			  uint64_t margin);
};

/* The structures both sides use, measured where each was compiled. */
struct rec_module_sizes {
	uint32_t recorder, stream, column, field, entry, counters, config, layout, services;
};

#define RFM_REC_MODULE_SIZES                                                              \
	{                                                                                 \
		sizeof(struct rfm_recorder), sizeof(struct rec_stream),                   \
		sizeof(struct rec_column), sizeof(struct rec_field),                      \
		sizeof(struct rec_entry), sizeof(struct rec_counters),                    \
		sizeof(struct rfm_recorder_config), sizeof(struct rfm_layout),            \
		sizeof(struct rec_module_services)                                        \
	}

/* What RFM_REC_MODULE_ENTRY returns: the module, as it was built. */
struct rec_module {
	uint32_t abi;		/* RFM_REC_MODULE_ABI */
	const char *version;	/* librfm's PACKAGE_VERSION */
	const char *build;	/* RFM_REC_MODULE_ID: the headers' identity */
	struct rec_module_sizes sizes;
	/* Take librfm's services (they outlive the module): 0 or an RFM_E* code. */
	int (*init)(const struct rec_module_services *services);
	const struct rec_sink_ops *sink;
};

/* The entry's type: a function, so that reading the module's description is a call. */
typedef const struct rec_module *(*rec_module_entry)(void);

#endif /* RFM_RECORDER_MODULE_H */
