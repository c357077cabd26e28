/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The dev: backend's private state, shared by dev.c (open, memory, info)
 * and dev-events.c (network interrupts over read/poll/ioctl).
 */
#ifndef RFM_DEV_INTERNAL_H
#define RFM_DEV_INTERNAL_H

#include <pthread.h>
#include <rfm/uapi/rfm_dev.h>

#include "internal.h"

/* A thread sleeping in ev_sleep (thread-local, one sleep at a time). */
struct rfm_dev_sleeper {
	int efd;			/* this thread's eventfd, woken by ev_wake */
	struct rfm_dev_sleeper *next;
};

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

	pthread_mutex_t sleep_lock;	/* guards sleepers and wake_gen writes */
	struct rfm_dev_sleeper *sleepers;
	uint32_t wake_gen;		/* bumped by ev_wake (atomic) */
};

/* An rfm_error for a failed device call (errno), with a message. */
int rfm__dev_sys_error(const struct rfm_node *node, const char *what, int err);

int rfm__dev_ev_send(struct rfm_node *node, unsigned int to, struct rfm_ev_record *rec);
int rfm__dev_ev_attach(struct rfm_node *node, uint32_t *depth);
void rfm__dev_ev_set_mask(struct rfm_node *node, uint32_t mask);
unsigned int rfm__dev_ev_take(struct rfm_node *node, struct rfm_ev_record *recs, unsigned int max);
uint64_t rfm__dev_ev_dropped(struct rfm_node *node);
bool rfm__dev_ev_ready(struct rfm_node *node);
uint64_t rfm__dev_ev_queued(struct rfm_node *node);
uint32_t rfm__dev_ev_sleep_prepare(struct rfm_node *node);
void rfm__dev_ev_sleep(struct rfm_node *node, uint32_t token, uint64_t deadline_ns);
void rfm__dev_ev_sleep_finish(struct rfm_node *node);
void rfm__dev_ev_wake(struct rfm_node *node);
void rfm__dev_ev_queue_memory(struct rfm_node *node, void **addr, size_t *len);

#endif /* RFM_DEV_INTERNAL_H */
