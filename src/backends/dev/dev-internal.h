/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The dev: backend's private state, shared by dev.c (open, memory, info)
 * and dev-events.c (network interrupts over read/poll/ioctl).
 */
#ifndef RFM_DEV_INTERNAL_H
#define RFM_DEV_INTERNAL_H

#include <pthread.h>
#include <rfm/uapi/rfm_dev.h>

#include "backend.h"

/* A thread sleeping in ev_sleep (thread-local, one sleep at a time). */
struct rfm_dev_sleeper {
	int efd;			/* this thread's eventfd, woken by ev_wake */
	unsigned int forks;		/* the process's fork count when it was made */
	struct rfm_dev_sleeper *next;
};

/* Library-made records a handle holds before it takes them. */
#define DEV_LOCAL_MAX 64u

struct dev_node {
	int fd;				/* the open device file, O_NONBLOCK */
	struct rfm_dev_info info;	/* RFM_IOC_GET_INFO at open */
	uint32_t want_depth;		/* URI depth=, 0 = the driver's default */
	uint64_t bulk_min;		/* reads/writes this long use RFM_IOC_DMA */

	/* Records read but not yet taken: buf[head .. head+count), guarded by
	 * the core's take lock; count is also read by ev_ready from other
	 * threads (atomic). Room for the driver's whole queue and its
	 * overflow record, so one read(2) learns of every drop queued. */
	struct rfm_dev_event *buf;
	uint32_t cap;
	uint32_t head;
	uint32_t count;
	uint64_t dropped;		/* sum of the overflow records read (atomic) */

	/* Records the library makes for this handle (health: NODE_UP,
	 * NODE_DOWN, LINK), which the card cannot carry: a small ring under
	 * local_lock, taken before the driver's. mask: the handle's types. */
	pthread_mutex_t local_lock;
	struct rfm_ev_record local[DEV_LOCAL_MAX];
	uint32_t local_head;
	uint32_t local_count;		/* also read by ev_ready (atomic) */
	uint32_t mask;			/* atomic */

	pthread_mutex_t sleep_lock;	/* guards sleepers and wake_gen writes */
	struct rfm_dev_sleeper *sleepers;
	uint32_t wake_gen;		/* bumped by ev_wake (atomic) */
};

/* dev-error.c: an rfm_error for a failed device call (errno), with a message. */
int rfm__dev_sys_error(const struct rfm_node *node, const char *what, int err);

/* dev-events.c: the event ops of the backend */
extern const struct rfm_backend_ev_ops rfm__dev_ev_ops;

#endif /* RFM_DEV_INTERNAL_H */
