/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder's parts (recorder.h), each in its own file, top first:
 *
 *   recorder.c          the object: configuration, start, stop, counters
 *   recorder-plan.c     names into streams, columns and what the sampler reads
 *   recorder-sampler.c  the sampler thread: reads, stamps, queues
 *   recorder-writer.c   the writer thread: queue to sink, pre-trigger, flushes
 *   recorder-queue.[ch] the bounded single-producer single-consumer queue
 *   recorder-file.c     the output file, through the OS layer (os/file.h)
 *   recorder-csv.c      the CSV sink
 *   recorder-module.[ch] the HDF5 sink: the module that has it, opened when needed
 *   recorder-hdf5.c     the HDF5 sink itself, in that module (rfm-hdf5.so), with
 *   recorder-hdf5-module.c  the module's entry and its way to librfm's services
 *
 * A *stream* is what has one time base: the frames (variables, records
 * and regions sampled together), each record of an on-change recording,
 * each ring, the events. A stream's rows are its *columns* (a dataset
 * each in HDF5) beside its stamps. The sampler puts rows into the queue
 * as an entry header and the raw bytes it read (in the window's byte
 * order); the writer turns them into columns.
 */
#ifndef RFM_RECORDER_INTERNAL_H
#define RFM_RECORDER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#include <rfm/recorder.h>
#include <rfm/ring.h>

#include "recorder-queue.h"
#include "window-copy.h"

enum rec_stream_kind {
	REC_STREAM_FRAMES,
	REC_STREAM_RECORD,	/* one record, every publish (on-change) */
	REC_STREAM_RING,
	REC_STREAM_EVENTS,
};

enum rec_column_kind {
	REC_COL_VAR,		/* one variable: one field */
	REC_COL_RECORD,		/* a record: a compound of its variables */
	REC_COL_BYTES,		/* a region or a raw range: bytes */
	REC_COL_SEQ,		/* frames: a record's sequence word (u32, the record's byte order) */
};

/* One typed piece of a row: a variable (or a record's member). */
struct rec_field {
	char *name;		/* full name for a column of its own, short in a record */
	int type;		/* enum rfm_type */
	uint32_t count;		/* elements (bytes for string/bytes) */
	uint32_t esize;		/* bytes per element */
	uint32_t order;		/* enum rfm_byte_order of the raw bytes */
	uint32_t offset;	/* in the column's bytes */
	const char *unit, *description; /* the layout's, for attributes */
	bool has_min, has_max;
	double min, max;
};

struct rec_column {
	char *name;		/* dataset name in its stream's group */
	enum rec_column_kind kind;
	uint32_t offset;	/* in the entry's payload */
	uint32_t size;		/* bytes a row */
	struct rec_field *fields;
	uint32_t nfields;
	/* Facts for the attributes. */
	uint64_t window_offset;
	uint32_t writer;	/* the region's writer node; UINT32_MAX: none (raw bytes) */
	const char *description;
	long record;		/* frames: the layout record it is read with, or -1 */
	void *sink;		/* the sink's state for this column */
};

struct rec_stream {
	char *name;		/* group: "frames", "records/R", "rings/N", "events" */
	enum rec_stream_kind kind;
	struct rec_column *cols;
	uint32_t ncols;
	uint32_t payload;	/* payload bytes of a full row */
	/* A ring's facts. */
	uint64_t ring_offset;
	uint32_t ring_slot;
	uint32_t ring_producer;
	/* A record stream's record (index into the layout's records). */
	long record;
	uint64_t rows;		/* written so far */
	uint64_t lost;		/* its loss counter for the attributes */
	void *sink;		/* the sink's state for this stream */
};

/* Entry flags. */
#define REC_E_TRIGGER 0x1u	/* the trigger fired at this row */
#define REC_E_INITIAL 0x2u	/* the state at the start, not a publish seen */

/*
 * The header of a queued row; the payload follows it. The meaning of
 * a, b, c by stream: frames: tick, lag (ns), on-event: the event's
 * sender << 8 | type in c, data in d; record: seq, missed; ring: message
 * number, lost, length in c; events: handle seq, sent_ns, type | sender
 * << 8 in c, data in d.
 */
struct rec_entry {
	uint32_t len;		/* payload bytes */
	uint16_t stream;
	uint16_t flags;
	uint64_t t_mono;
	int64_t t_real;
	uint64_t a, b;
	uint32_t c, d;
};

/* What the sampler copies into a frame: a window range, or a record read. */
struct rec_copy {
	uint64_t window_offset;
	uint32_t length;
	uint32_t payload_offset;
	rfm_record *record;	/* non-NULL: read consistently, sequence at payload_offset */
	uint8_t *last;		/* a record's last consistent read (sequence, pad, data) */
	bool have_last;
};

/* A record stream as the sampler sees it (on-change). */
struct rec_watch {
	rfm_record *record;
	uint16_t stream;
	bool seen;
	uint32_t last;		/* sequence of the last row queued */
	uint32_t size;
};

struct rec_ring {
	rfm_ring_consumer *cons;
	uint16_t stream;
	uint32_t slot;
	uint64_t pending_lost;	/* lost in rows the queue had no room for */
};

/* How a file is written: created whole, rows appended, flushed, closed. */
struct rec_sink_ops {
	const char *name;
	/* Create the file with every stream, column and attribute. */
	int (*open)(struct rfm_recorder *r);
	/* Take one row of @s. */
	int (*append)(struct rfm_recorder *r, struct rec_stream *s, const struct rec_entry *e,
		      const uint8_t *payload);
	/* Everything taken into the file, as far as a crash must find it. */
	int (*flush)(struct rfm_recorder *r);
	/* Close; @clean: a normal end (final attributes, format conversion). */
	int (*close)(struct rfm_recorder *r, bool clean);
};

/*
 * The HDF5 sink is librfm's rfm__rec_hdf5_module_sink (recorder-module.c):
 * it opens the recorder's HDF5 module, whose rfm__rec_hdf5_sink
 * (recorder-hdf5.c) then takes the recording.
 */
extern const struct rec_sink_ops rfm__rec_hdf5_module_sink;
extern const struct rec_sink_ops rfm__rec_hdf5_sink;
extern const struct rec_sink_ops rfm__rec_csv_sink;

/* Counters the threads update and rfm_recorder_get_stats() reads (atomics). */
struct rec_counters {
	uint64_t samples, rows_written, queue_drops, late_ticks, missed_updates, ring_lost,
		event_overflow, torn_reads, pre_lost, file_bytes, lag_max_ns, start_ns,
		trigger_ns, flushed_ns;
	int32_t error;
	uint32_t state;
};

struct rfm_recorder {
	rfm_node *node;
	rfm_layout *layout;	/* referenced, or NULL */
	char *path;
	struct rfm_recorder_config cfg;
	const struct rec_sink_ops *sink;
	void *sink_state;

	/* What to record (recorder-plan.c). */
	struct rec_stream *streams;
	uint32_t nstreams;
	int frames;		/* index of the frames stream, -1 until one is needed */
	struct rec_copy *copies;
	uint32_t ncopies;
	uint8_t *last_frame;	/* on-change: the frame last queued */
	uint8_t *cur_frame;	/* on-change: the frame just read */
	uint8_t *scratch;	/* a ring message the queue had no room for */
	struct rec_watch *watches;
	uint32_t nwatches;
	struct rec_ring *rings;
	uint32_t nrings;
	int events_stream;	/* -1: events not recorded */
	uint32_t event_mask;	/* recorded types */
	bool atomic_copy;	/* a backend thread fills the window (window-copy.h) */
	uint32_t enabled_mask;	/* what start enabled on the node */

	/* The trigger. */
	int trigger_kind;	/* 0 none, 1 event, 2 variable */
	unsigned int trigger_type;
	rfm_var *trigger_var;
	int trigger_cmp;
	double trigger_value;
	uint64_t pre_ns;
	char *trigger_text;	/* for the attribute: "intr3", "sim.temp > 100" */

	/* Run time. */
	struct rec_queue queue;
	pthread_t sampler, writer;
	bool started, joined;
	int stop;		/* atomic: stop asked */
	int sampler_done;	/* atomic: the sampler queued its last row */
	int writer_done;	/* atomic: the writer closed the file */
	int result;		/* after both ended */
	uint64_t origin_ns;	/* t = 0: the start, or the trigger */
	int64_t origin_real_ns;
	struct rec_counters n;
};

/* Atomic counter helpers. */
#define REC_ADD(field, v) __atomic_add_fetch(&(field), (v), __ATOMIC_RELAXED)
#define REC_SET(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)
#define REC_GET(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

/* ---- recorder-plan.c ---- */
int rfm__rec_plan_add(struct rfm_recorder *r, const char *name);
int rfm__rec_plan_bytes(struct rfm_recorder *r, const char *name, uint64_t offset, uint64_t len);
int rfm__rec_plan_ring(struct rfm_recorder *r, const char *name, uint64_t offset);
int rfm__rec_plan_events(struct rfm_recorder *r);
/* At start: open records and rings, lay out the frame. */
int rfm__rec_plan_open(struct rfm_recorder *r);
void rfm__rec_plan_free(struct rfm_recorder *r);
/* Is @name taken by a column of the frames, or a name the frames use themselves? */
bool rfm__rec_name_taken(const struct rfm_recorder *r, const char *name);

/* ---- recorder-file.c: the output file, for the sinks ---- */

/* Create (or, with RFM_REC_F_OVERWRITE, truncate) the file: its fd, or an rfm error. */
int rfm__rec_create_file(struct rfm_recorder *r);
/*
 * An empty file beside the path to build the file in (*@tmpp, freed by the
 * caller), after refusing an existing path without RFM_REC_F_OVERWRITE.
 */
int rfm__rec_temp_path(struct rfm_recorder *r, char **tmpp);
/*
 * Give the built file @tmp the recording's path (replacing only with
 * RFM_REC_F_OVERWRITE): 0, after which @tmp is gone, or an rfm error,
 * after which the caller removes @tmp.
 */
int rfm__rec_put_in_place(struct rfm_recorder *r, const char *tmp);
/* Remove a file the recording made and will not keep; errno is left as it was. */
void rfm__rec_remove_file(const char *path);
/* The size of file @path in bytes: 0 or -1 with errno. */
int rfm__rec_file_size(const char *path, uint64_t *size);

/* The free space of the file's file system, as last seen (zero at first). */
struct rec_room {
	uint64_t free;		/* bytes the disk was last seen to have for us */
};
/*
 * Room for @bytes more and @margin beyond (a sink's metadata) beside
 * @path? The file system is asked again only once the room seen last is
 * used up to eight margins: asking per write would cost more than it
 * saves. 0, or RFM_ENOSPC saying so.
 */
int rfm__rec_room_check(struct rec_room *room, const char *path, uint64_t bytes, uint64_t margin);

/* ---- recorder-sampler.c / recorder-writer.c: thread bodies ---- */
void *rfm__rec_sampler_main(void *arg);
void *rfm__rec_writer_main(void *arg);
/* The writer ended the recording with @err (a full disk...): tell the sampler. */
void rfm__rec_fail(struct rfm_recorder *r, int err);

/* Stamp columns every stream has, and those of each kind (sinks name them alike). */
#define REC_T "t"
#define REC_T_MONO "t_mono_ns"
#define REC_T_REAL "t_real_ns"

/* The row's time as seconds from the recording's origin. */
static inline double rfm__rec_t(const struct rfm_recorder *r, uint64_t t_mono)
{
	return (double)(int64_t)(t_mono - r->origin_ns) * 1e-9;
}


#endif /* RFM_RECORDER_INTERNAL_H */
