/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file recorder.h
 * @brief Recording a run: variables, records, regions, rings and events into HDF5 or CSV.
 *
 * @defgroup recorder Recorder
 * @{
 * A recorder samples what a program names — variables, records and
 * regions of a layout, raw byte ranges, ring channels, events — and writes
 * it to a file that numpy, pandas and MATLAB read (docs/recording.md gives
 * the file's layout).
 *
 * **When.** One of three modes (rfm_recorder_config::mode):
 * - ::RFM_REC_RATE: a *frame* of every variable, record and region every
 *   period, at absolute ticks; a tick the sampler wakes too late for is
 *   not made up, it is counted (rfm_recorder_stats::late_ticks);
 * - ::RFM_REC_ON_CHANGE: every publish of each record, found by its
 *   sequence word: a publish that the sampler did not see (the writer
 *   published twice between two looks) is counted exactly, per row
 *   (`missed`) and in rfm_recorder_stats::missed_updates; variables and
 *   regions outside records make a frame when their bytes changed;
 * - ::RFM_REC_ON_EVENT: a frame each time an event of one type arrives.
 *
 * Ring channels are read as a consumer (every message, or a loss counted
 * from the ring's stamps) and events as they arrive, in every mode.
 * A trigger (rfm_recorder_set_trigger_event(),
 * rfm_recorder_set_trigger_var()) holds the recording back until an
 * event or a condition on a variable, keeping the samples of the time
 * before it (the pre-trigger buffer).
 *
 * **Stamps.** Every row carries the reader's CLOCK_MONOTONIC and
 * CLOCK_REALTIME times in nanoseconds, taken when the sampler read it;
 * records their sequence word, rings their message number, events their
 * sender. The writer node of a variable, record or region is its
 * region's one writer (an attribute of its dataset).
 *
 * **Threads.** rfm_recorder_start() starts two threads of the library:
 * the *sampler*, which reads the window and allocates, locks and calls
 * the system for nothing per sample but its sleep between passes, and
 * the *writer*, which takes the samples from a bounded queue and writes
 * the file. When the queue is full the sample is dropped and counted
 * (rfm_recorder_stats::queue_drops), never waited for. Both threads take
 * the node's real-time options (realtime.h).
 *
 * **The file.** HDF5, written in single-writer/multiple-reader mode: a
 * crash, a kill or a full disk leaves a file readable up to the last
 * flush (every rfm_recorder_config::flush_ns), and readers (h5py's
 * `swmr=True`) may watch it grow. A recording that ends cleanly is
 * converted to the HDF5 1.8 file format, which every reader since HDF5
 * 1.8 (MATLAB before R2021b included) opens. librfm does not link
 * libhdf5: its HDF5 writer is a module (`rfm-hdf5.so`, Debian package
 * librfm1-hdf5) that the first HDF5 recording of a process opens, so a
 * process that never writes HDF5 never loads it. Without the module (or
 * in a build without libhdf5), HDF5 files are answered ::RFM_ENOTSUP;
 * CSV, for small captures of one stream, always works.
 *
 * **Handles.** The recorder uses the node (reads, its event queue when
 * events are recorded or sampled on, ring consumers) and the layout from
 * its threads until it is stopped: keep both open until
 * rfm_recorder_free(), and give it a node handle of its own when it
 * takes events (they are taken from the handle's queue).
 *
 * @par Thread safety
 * Configure, start, stop and free a recorder from one thread at a time;
 * rfm_recorder_get_stats() and rfm_recorder_wait() may be called from any
 * thread while it runs.
 *
 * @sa rfm(1), librfm(7)
 */
#ifndef RFM_RECORDER_H
#define RFM_RECORDER_H

#include <rfm/common.h>
#include <rfm/layout.h>

RFM_BEGIN_DECLS

/** @brief A recording in preparation, running or ended. Opaque; freed by rfm_recorder_free(). */
typedef struct rfm_recorder rfm_recorder;

/** File formats (rfm_recorder_config::format). Values are stable ABI. */
enum rfm_rec_format {
	RFM_REC_FORMAT_AUTO = 0,	/**< By the file name: `.csv` is CSV, anything else HDF5. */
	RFM_REC_FORMAT_HDF5 = 1,	/**< HDF5 (docs/recording.md). */
	RFM_REC_FORMAT_CSV = 2,		/**< One CSV table: one stream only. */
};

/** When samples are taken (rfm_recorder_config::mode). Values are stable ABI. */
enum rfm_rec_mode {
	RFM_REC_RATE = 0,	/**< A frame every rfm_recorder_config::period_ns. */
	RFM_REC_ON_CHANGE = 1,	/**< Every publish of a record; a frame when plain values changed. */
	RFM_REC_ON_EVENT = 2,	/**< A frame per event of rfm_recorder_config::event_type. */
};

/** Replace an existing file (default: ::RFM_ESYS with errno EEXIST, the file untouched). */
#define RFM_REC_F_OVERWRITE 0x1u
/** Spin, not sleep, between passes: the lowest jitter, at the price of a core. */
#define RFM_REC_F_SPIN 0x2u
/** Leave a finished HDF5 file in the 1.10 format (skip the conversion for HDF5 1.8 readers). */
#define RFM_REC_F_NO_CONVERT 0x4u
/**
 * ::RFM_REC_RATE and ::RFM_REC_ON_EVENT: records (and variables in them)
 * get streams of their own with every publish, as in ::RFM_REC_ON_CHANGE,
 * while the other names make the frames; one sampler does both, looking
 * for publishes every rfm_recorder_config::poll_ns.
 */
#define RFM_REC_F_RECORDS_ON_CHANGE 0x8u

/** The default of rfm_recorder_config::poll_ns: 50 microseconds. */
#define RFM_REC_DEFAULT_POLL_NS 50000u
/** The default of rfm_recorder_config::queue_bytes: 64 MiB. */
#define RFM_REC_DEFAULT_QUEUE_BYTES (64u << 20)
/** The default of rfm_recorder_config::flush_ns: one second. */
#define RFM_REC_DEFAULT_FLUSH_NS 1000000000u

/** What and how to record; set @c struct_size, zero what you do not set. */
struct rfm_recorder_config {
	uint32_t struct_size;	/**< sizeof(struct rfm_recorder_config). */
	uint32_t format;	/**< ::rfm_rec_format. */
	uint32_t mode;		/**< ::rfm_rec_mode. */
	uint32_t event_type;	/**< ::RFM_REC_ON_EVENT: the event type (RESET, INTR1..INTR4) that samples. */
	uint64_t period_ns;	/**< ::RFM_REC_RATE: nanoseconds between frames (100000: 10 kHz). */
	/** How often the sampler looks for record publishes, ring messages and
	 *  events, and for changed values in ::RFM_REC_ON_CHANGE
	 *  (0: ::RFM_REC_DEFAULT_POLL_NS). */
	uint64_t poll_ns;
	/** Recording time in nanoseconds, counted from the trigger when there
	 *  is one (0: until rfm_recorder_stop()). */
	uint64_t duration_ns;
	/** Bytes of the queue between sampler and writer, allocated and
	 *  prefaulted by rfm_recorder_start() (0: ::RFM_REC_DEFAULT_QUEUE_BYTES). */
	uint64_t queue_bytes;
	/** Nanoseconds between flushes of the file: what a crash can lose
	 *  (0: ::RFM_REC_DEFAULT_FLUSH_NS). */
	uint64_t flush_ns;
	/** ::RFM_REC_F_OVERWRITE, ::RFM_REC_F_SPIN, ::RFM_REC_F_NO_CONVERT,
	 *  ::RFM_REC_F_RECORDS_ON_CHANGE. */
	uint32_t flags;
	uint32_t reserved[9];	/**< Zero. */
};

/** Comparisons of a trigger condition (rfm_recorder_set_trigger_var()). Stable ABI. */
enum rfm_rec_compare {
	RFM_REC_GT = 1,	/**< value > threshold */
	RFM_REC_GE,	/**< value >= threshold */
	RFM_REC_LT,	/**< value < threshold */
	RFM_REC_LE,	/**< value <= threshold */
	RFM_REC_EQ,	/**< value == threshold */
	RFM_REC_NE,	/**< value != threshold */
};

/** The life of a recording (rfm_recorder_stats::state). Stable ABI. */
enum rfm_rec_state {
	RFM_REC_STATE_NEW = 0,		/**< Configured, not started. */
	RFM_REC_STATE_ARMED = 1,	/**< Sampling into the pre-trigger buffer, waiting for the trigger. */
	RFM_REC_STATE_RECORDING = 2,	/**< Writing the file. */
	RFM_REC_STATE_ENDED = 3,	/**< Stopped, by the duration, rfm_recorder_stop() or an error. */
};

/** Counters of a recording; filled by rfm_recorder_get_stats(). */
struct rfm_recorder_stats {
	uint32_t struct_size;	/**< Set by the caller: sizeof(struct rfm_recorder_stats). */
	uint32_t state;		/**< ::rfm_rec_state. */
	uint64_t samples;	/**< Rows the sampler took, every stream together. */
	uint64_t rows_written;	/**< Rows handed to the file (flushed or not). */
	uint64_t queue_drops;	/**< Rows lost because the queue was full (the writer was too slow). */
	uint64_t late_ticks;	/**< ::RFM_REC_RATE: ticks lost because the sampler woke too late. */
	uint64_t missed_updates; /**< Record publishes not seen (from their sequence words). */
	uint64_t ring_lost;	/**< Ring messages overwritten before they were read. */
	uint64_t event_overflow; /**< Events dropped by the handle's full event queue. */
	uint64_t torn_reads;	/**< Record reads that stayed torn (::RFM_ETORN): not recorded. */
	uint64_t pre_lost;	/**< Rows of the pre-trigger time that did not fit the buffer. */
	uint64_t file_bytes;	/**< Size of the file at its last flush. */
	uint64_t lag_max_ns;	/**< ::RFM_REC_RATE: the latest the sampler woke after a tick. */
	uint64_t start_ns;	/**< CLOCK_MONOTONIC when sampling started (0: not yet). */
	uint64_t trigger_ns;	/**< CLOCK_MONOTONIC of the trigger (0: none yet, or no trigger). */
	uint64_t flushed_ns;	/**< CLOCK_MONOTONIC of the last flush (0: none yet). */
	int32_t error;		/**< The rfm error that ended the recording; 0 when none. */
	uint32_t reserved[9];	/**< Zero. */
};

/**
 * @brief Prepare a recording of @p node into the file @p path.
 *
 * Nothing is opened yet: add what to record, then rfm_recorder_start().
 * @param node The handle to read through; must stay open until rfm_recorder_free().
 * @param layout The layout names resolve in (referenced until
 *        rfm_recorder_free()); NULL when only byte ranges, rings and events
 *        are recorded.
 * @param path The file to write.
 * @param config The settings; NULL: HDF5 (or CSV by the name), ::RFM_REC_RATE at 1 kHz.
 * @param[out] recp Receives the recorder; free it with rfm_recorder_free().
 * @return 0 on success, or a negative ::rfm_error code:
 * @retval RFM_EINVAL NULL argument, struct_size too small, unknown format,
 *         mode or flag, a rate mode without a period, an event type that
 *         cannot be sent.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_recorder_new(rfm_node *node, rfm_layout *layout, const char *path,
			     const struct rfm_recorder_config *config, rfm_recorder **recp);

/**
 * @brief Record a variable (`region.var`, `region.record.var`), a record
 *        (`region.record`) or a whole region (`region`) of the layout.
 *
 * In ::RFM_REC_ON_CHANGE (or with ::RFM_REC_F_RECORDS_ON_CHANGE) a record,
 * or a variable in one, is a stream of its own (every publish);
 * everything else goes into the frames.
 * @param rec The recorder, not started.
 * @param name The name; copied.
 * @return 0 on success, or a negative ::rfm_error code:
 * @retval RFM_EINVAL NULL argument, no layout, the recorder already started.
 * @retval RFM_ENOTFOUND No variable, record or region of that name (the
 *         message names the nearest one).
 * @retval RFM_EBUSY The name is recorded already, or clashes with a
 *         column the recording uses itself.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_recorder_add(rfm_recorder *rec, const char *name);

/**
 * @brief Record @p length raw bytes at window offset @p offset, as @p name.
 * @param rec The recorder, not started.
 * @param name The dataset's name: an identifier, not a name the frames use
 *        for their times (t, t_mono_ns, t_real_ns, tick, lag_ns...); copied.
 * @param offset Where the bytes start in the window.
 * @param length How many; in the window.
 * @return 0 on success, or a negative ::rfm_error code:
 * @retval RFM_EINVAL NULL argument, empty length, a name that is not an
 *         identifier, the recorder already started.
 * @retval RFM_ERANGE The range leaves the window.
 * @retval RFM_EBUSY The name is taken.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_recorder_add_bytes(rfm_recorder *rec, const char *name, uint64_t offset,
				   uint64_t length);

/**
 * @brief Record every message of the ring channel at window offset @p offset, as @p name.
 * @param rec The recorder, not started.
 * @param name The stream's name (`/rings/NAME`): an identifier; copied.
 * @param offset The ring's offset in the window.
 *
 * The recorder reads as a consumer that starts at the newest point and
 * never holds the producer back; a message overwritten before it was read
 * is counted in the next row's `lost`. The ring is opened by
 * rfm_recorder_start() (its errors: those of rfm_ring_consumer_open()).
 * @return 0 on success, or a negative ::rfm_error code:
 * @retval RFM_EINVAL NULL argument, a name that is not an identifier, the recorder already started.
 * @retval RFM_EBUSY The name is taken.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_recorder_add_ring(rfm_recorder *rec, const char *name, uint64_t offset);

/**
 * @brief Record the events of @p mask (network types RESET, INTR1..INTR4)
 *        that reach the node, with their sender, data and sequence.
 * @param rec The recorder, not started.
 * @param mask RFM_EVENT_BIT() of the types; adds to those added before.
 *
 * The types are enabled on the node by rfm_recorder_start() and disabled
 * again when the recording ends.
 * @return 0 on success, or a negative ::rfm_error code:
 * @retval RFM_EINVAL NULL argument, an empty mask or a type that cannot be
 *         sent, the recorder already started.
 */
RFM_API int rfm_recorder_add_events(rfm_recorder *rec, uint32_t mask);

/**
 * @brief Start writing the file when an event of @p type arrives; keep the
 *        @p pre_ns nanoseconds before it.
 * @param rec The recorder, not started.
 * @param type RESET or INTR1..INTR4 (enabled on the node by rfm_recorder_start()).
 * @param pre_ns The time before the trigger to keep: rows of it are held
 *        in a buffer as large as the queue (rfm_recorder_stats::pre_lost
 *        counts those that did not fit).
 * @return 0 on success, or a negative ::rfm_error code:
 * @retval RFM_EINVAL NULL argument, a type that cannot be sent, a trigger
 *         set already, the recorder already started.
 */
RFM_API int rfm_recorder_set_trigger_event(rfm_recorder *rec, unsigned int type, uint64_t pre_ns);

/**
 * @brief Start writing the file at the first sample at which variable
 *        @p name compares to @p threshold as @p compare says; keep the
 *        @p pre_ns nanoseconds before it.
 *
 * The variable (a number or bool, one element: `region.var[2]` for an
 * array) is read at every pass of the sampler, whether it is recorded or not.
 * @param rec The recorder, not started, with a layout.
 * @param name The variable; copied.
 * @param compare An ::rfm_rec_compare.
 * @param threshold The value compared with (the variable's, as a double).
 * @param pre_ns As rfm_recorder_set_trigger_event().
 * @return 0 on success, or a negative ::rfm_error code:
 * @retval RFM_EINVAL NULL argument, no layout, an unknown comparison, a
 *         string, bytes or several elements, a trigger set already, the
 *         recorder already started.
 * @retval RFM_ENOTFOUND No such variable.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_recorder_set_trigger_var(rfm_recorder *rec, const char *name, int compare,
					 double threshold, uint64_t pre_ns);

/**
 * @brief Create the file and start the sampler and writer threads.
 * @param rec The recorder, with something to record, not started.
 *
 * The file is complete in structure when this returns (every dataset and
 * attribute exists, empty), so a reader may open it at once. It may also
 * fail as rfm_ring_consumer_open() and rfm_event_enable() do, for the
 * rings and events it records.
 * @return 0 on success, or a negative ::rfm_error code:
 * @retval RFM_EINVAL Nothing to record, started already, a CSV file for
 *         more than one stream.
 * @retval RFM_ENOTSUP HDF5 asked, and librfm's HDF5 module is missing, cannot
 *         be loaded (HDF5's library missing) or is another build's, or
 *         this build has none; the message says what to install. CSV works.
 * @retval RFM_ESYS The file cannot be created (errno EEXIST: it exists and
 *         ::RFM_REC_F_OVERWRITE is not set).
 * @retval RFM_EBUSY An event type to take is enabled on the node already.
 * @retval RFM_ENOMEM The queue or the file's buffers cannot be allocated.
 * @retval RFM_EPERM The node's real-time options cannot be given to the threads.
 */
RFM_API int rfm_recorder_start(rfm_recorder *rec);

/**
 * @brief Wait until the recording ends by itself (its duration passed, or
 *        an error such as a full disk stopped it).
 * @param rec The recorder, started.
 * @param timeout_ns 0: only look; < 0: for ever; else nanoseconds.
 * @return 0 when it ended (rfm_recorder_stop() then returns how), or a
 *         negative ::rfm_error code:
 * @retval RFM_ETIMEDOUT Still recording.
 * @retval RFM_EAGAIN @p timeout_ns was 0 and it still records.
 * @retval RFM_EINVAL NULL, or never started.
 */
RFM_API int rfm_recorder_wait(rfm_recorder *rec, int64_t timeout_ns);

/**
 * @brief End the recording: stop sampling, write what is queued, close the file.
 *
 * What was published, sent or queued up to the call is still taken.
 * Calling it on a recording that ended by itself, or again, only returns
 * its result.
 * @param rec The recorder, started.
 * @return 0 when the file holds everything sampled, or the error that ended
 *         the recording early:
 * @retval RFM_ENOSPC The disk filled; the file holds what was flushed before.
 * @retval RFM_ESYS Writing the file failed otherwise (the message says how).
 * @retval RFM_EINVAL NULL, or never started.
 */
RFM_API int rfm_recorder_stop(rfm_recorder *rec);

/**
 * @brief Copy the recording's counters into @p stats.
 *
 * Thread-safe: may be called while the recording runs (the counters are
 * read one by one, each exact, not all at one instant).
 * @param rec The recorder.
 * @param[out] stats Set its @c struct_size first; filled as far as it reaches.
 * @return 0 on success, or a negative ::rfm_error code:
 * @retval RFM_EINVAL NULL, or struct_size smaller than the first version's.
 */
RFM_API int rfm_recorder_get_stats(rfm_recorder *rec, struct rfm_recorder_stats *stats);

/**
 * @brief Stop the recording if it runs (as rfm_recorder_stop()) and free it.
 * @param rec The recorder; NULL is ignored. Its layout reference is dropped.
 */
RFM_API void rfm_recorder_free(rfm_recorder *rec);

RFM_END_DECLS

/** @} */
#endif /* RFM_RECORDER_H */
