/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * State of a shm: handle, shared by the backend's files: shm.c (segment,
 * node ids) and shm-events.c (event queues).
 */
#ifndef RFM_SHM_INTERNAL_H
#define RFM_SHM_INTERNAL_H

#include "backend.h"
#include "os/lock.h"
#include "backends/shm/shm-segment.h"

struct shm_node {
	int fd;			/* the lock file: every flock and OFD lock is taken here */
	int seg_fd;		/* the segment: size, reservations */
	uint8_t *segment;	/* header, node table, window (populated) */
	uint64_t seg_len;	/* bytes of that mapping: up to the window when it is
				 * in huge pages, else up to the event area */
	uint64_t map_size;	/* where the event area starts in the segment file */
	uint8_t *huge;		/* the window in huge pages (shm-huge.c), or NULL */
	uint64_t huge_len;
	bool huge_created;	/* this open made the hugetlbfs file: undo on failure */
	uint8_t *events;	/* the event slabs (mapped apart, up to the largest size) */
	uint64_t events_size;
	uint64_t events_known;	/* bytes of slabs known to exist in the file (atomic) */
	uint64_t damaged;	/* sends that met a queue pointing at no valid slab (atomic) */
	struct rfm_shm_header *header;
	struct rfm_shm_node_entry *nodes;
	/* Copied from the validated header: never re-read from the segment. */
	uint32_t depth;
	uint32_t stride;
	int id;

	/* Receiving: the queue this handle owns, or -1, and its slab. */
	int queue;
	int slab;
	struct rfm_shm_queue *q;
	struct rfm_shm_slot *slots;
	uint64_t head;		/* next position to take (atomic: read by watchers) */
	uint64_t drop_base;	/* the queue's drop counter when we took it over */
	uint64_t skipped;	/* records we had to skip (stalled sender, corrupt slot) */
	uint64_t stall_pos;	/* position seen unfinished since stall_since */
	uint64_t stall_since;
	uint64_t empty_takes;	/* takes that found nothing (stall checks are sampled) */

	/* Sending: per slab, positions below limit[k] are known to be free
	 * (0: this handle has not sent into that slab yet). */
	uint64_t *limits;
	/* prefault=1 or lock=1: a slab's pages are mapped at the first send into
	 * it, not faulted in one by one during the first lap. */
	bool prefault_sends;
};

/* shm-events.c: the event ops of the backend */
extern const struct rfm_backend_ev_ops rfm__shm_ev_ops;
/* Free the queues of node @id whose receiver has died. The segment lock is held. */
void rfm__shm_reclaim_queues(struct shm_node *shm, int id);
/* Give up the handle's queue. The segment lock is held if @locked. */
void rfm__shm_release_queue(struct shm_node *shm, bool locked);

/* shm-names.c: a network name shm: accepts (1-64 of A-Z a-z 0-9 _ - ., not .- first). */
bool rfm__shm_valid_name(const char *name);

/* shm-observe.c: open @uri as an observer (node->observer): read-only,
 * nothing taken, nothing made; and its close. It waits for a network being
 * made up to this long, as an opener waits for the open lock (shm-lock.c). */
#define RFM_SHM_OPEN_WAIT_MS 5000
int rfm__shm_observe_open(struct rfm_node *node, struct rfm_uri *uri);
void rfm__shm_observe_close(struct rfm_node *node);

/* shm-health.c */
int rfm__shm_node_facts(struct rfm_node *node, unsigned int id, struct rfm_node_facts *facts);
/* Whether a live process holds node @id (its lock; an observer that may
 * not read the lock file asks whether the entry's process runs). */
bool rfm__shm_id_held(const struct shm_node *shm, unsigned int id);
bool rfm__shm_node_alive(struct rfm_node *node, unsigned int id, uint32_t incarnation);

/* shm-huge.c: the window in huge pages (format version 4). */
/*
 * Create the window of network @name, @size bytes, on a hugetlbfs mount
 * with the default huge page size, mode @mode, and map it to shm->huge.
 * *page_kib receives the page size. RFM_ENOTSUP without a mount,
 * RFM_ENOMEM (needed, free, how to reserve) when the pool is short.
 * Nothing is left behind on failure.
 */
int rfm__shm_huge_create(struct shm_node *shm, const char *uri, const char *name, uint64_t size,
			 unsigned int mode, uint32_t *page_kib);
/* Map the window of an existing version-4 network whose segment @seg_fd is. */
int rfm__shm_huge_attach(struct shm_node *shm, const char *uri, const char *name, uint64_t size,
			 uint32_t page_kib);
/* Remove the hugetlbfs file of network @name if the owner of the open file
 * @owner_fd (-1: this process's user) owns it (destroy). */
void rfm__shm_huge_remove(const char *name, int owner_fd);

/* shm-names.c: "no network 'x'", with the names that do exist. */
int rfm__shm_no_network(const char *uri, const char *name);

/*
 * shm-room.c: RFM_ENOSPC for @err from a reservation of @needed bytes,
 * with the size of /dev/shm, the bytes free and a fix that can work. With
 * @overhead (bytes beside the window: header, node table, a queue) the fix
 * names a window that fits; 0: nothing can be made smaller.
 */
int rfm__shm_no_room(const char *uri, int err, uint64_t needed, uint64_t overhead,
		     const char *what);
/* The largest valid window that fits @avail bytes beside @overhead, or 0. */
uint64_t rfm__shm_window_that_fits(uint64_t avail, uint64_t overhead);

/* shm-lock.c: the open lock (the file lock, with a deadline), by URI or
 * URI text; released with rfm__os_file_unlock(). */
int rfm__shm_lock_open(int fd, const struct rfm_uri *uri);
int rfm__shm_lock(int fd, const char *uri);
/* Is @byte locked by some other open of the lock file? */
bool rfm__shm_byte_locked(int fd, uint64_t byte);
/* Make our lock on node @id's byte @kind (RFM_OS_LOCK_EXCL to own it
 * alone, RFM_OS_LOCK_SHARED to share): 0 or -errno (-EAGAIN: held). */
int rfm__shm_try_lock_node(int fd, int id, enum rfm_os_lock kind);

/* shm-events.c: re-read the segment's size: the slabs that exist now. */
void rfm__shm_refresh_size(struct shm_node *shm);

#endif /* RFM_SHM_INTERNAL_H */
