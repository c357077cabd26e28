/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A pollable descriptor for a handle's queue. Senders in other processes
 * cannot write to our descriptors, so a watcher thread sleeps on the
 * queue like a waiter (without taking anything) and makes an eventfd
 * readable when records arrive; a take that finds the queue empty
 * afterwards reads the eventfd back to "not readable" and bumps
 * drain_gen, which sends the watcher back to watching. Signalling and
 * draining both happen under the take lock, so the descriptor is readable
 * exactly while records are queued (or a record was just taken by a wait
 * that raced with the watcher).
 */
#include "config.h"

#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "event-core.h"
#include "futex.h"
#include "rt-internal.h"

static void wait_drained(struct rfm_events *ev, uint32_t gen)
{
	while (!EV_LOAD(ev->closing) && EV_LOAD(ev->drain_gen) == gen)
		rfm__futex_wait(&ev->drain_gen, gen, 0, false);
}

static void *watcher_main(void *arg)
{
	struct rfm_node *node = arg;
	const struct rfm_backend_ops *ops = node->ops;
	struct rfm_events *ev = node->ev;

	while (!EV_LOAD(ev->closing)) {
		uint32_t gen = EV_LOAD(ev->drain_gen);

		if (!EV_LOAD(ev->attached)) {
			wait_drained(ev, gen); /* enabling bumps drain_gen */
			continue;
		}
		while (!EV_LOAD(ev->closing) && !ops->ev->ready(node)) {
			uint32_t token = ops->ev->sleep_prepare(node);
			if (!EV_LOAD(ev->closing) && !ops->ev->ready(node))
				ops->ev->sleep(node, token, 0);
			ops->ev->sleep_finish(node);
		}
		if (EV_LOAD(ev->closing))
			break;
		/* Under the take lock, so that a take sees the fd signalled and
		 * flagged together, or neither. */
		rfm__lock(&ev->take_lock);
		bool ready = ops->ev->ready(node);
		if (ready) {
			uint64_t one = 1;
			if (write(ev->efd, &one, sizeof(one)) < 0) {
				/* cannot overflow: every drain reads it back to 0 */
			}
			EV_STORE(ev->fd_signalled, 1);
		}
		rfm__unlock(&ev->take_lock);
		if (ready)
			wait_drained(ev, gen);
	}
	return NULL;
}

RFM_API int rfm_event_fd(rfm_node *node)
{
	struct rfm_events *ev;
	int ret = rfm__event_enter(
		node, node ? 0 : rfm__error(RFM_EINVAL, "rfm_event_fd: node is NULL"), true, &ev);

	if (ret)
		return ret;
	ret = ev->efd;
	if (ret >= 0)
		goto out;
	int efd = rfm__fd_keep_off_std(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	if (efd < 0) {
		ret = rfm__error(rfm__errno_code(errno), "%s: eventfd: %s", node->uri,
				 strerror(errno));
		goto out;
	}
	EV_STORE(ev->efd, efd);
	int err = rfm__rt_thread_create(node, &ev->watcher, watcher_main, node, "event-fd watcher");
	if (err) {
		EV_STORE(ev->efd, -1);
		close(efd);
		ret = err;
		goto out;
	}
	ev->watcher_started = true;
	ret = efd;
out:
	pthread_mutex_unlock(&ev->lock);
	return ret;
}
