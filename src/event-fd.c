/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a program's own event loop waits on for a handle's queue: a
 * pollable descriptor (rfm_event_fd(), an eventfd on Linux) or a waitable
 * handle (rfm_event_handle(), an event on Windows): the OS's readiness
 * object (os/ready.h). Senders in other processes cannot signal our
 * objects, so a watcher thread sleeps on the queue like a waiter (without
 * taking anything) and sets the object when records arrive; a take that
 * finds the queue empty afterwards clears it and bumps drain_gen, which
 * sends the watcher back to watching. Setting and clearing both happen
 * under the take lock, so the object is ready exactly while records are
 * queued (or a record was just taken by a wait that raced with the
 * watcher).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "event-core.h"
#include "futex.h"
#include "os/ready.h"
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
	struct rfm_events *ev = rfm__core(node)->ev;

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
			rfm__os_ready_set(ev->ready);
			EV_STORE(ev->fd_signalled, 1);
		}
		rfm__unlock(&ev->take_lock);
		if (ready)
			wait_drained(ev, gen);
	}
	return NULL;
}

/*
 * The handle's readiness object (os/ready.h) in *@obj, made with its watcher
 * on the first call, for @fn, which wants one of @kind. 0 or the rfm error.
 */
static int ready_object(rfm_node *node, const char *fn, enum rfm_os_ready_kind kind,
			intptr_t *obj)
{
	struct rfm_events *ev;
	int ret = rfm__event_enter(node, node ? 0 : rfm__error(RFM_EINVAL, "%s: node is NULL", fn),
				   true, &ev);

	if (ret)
		return ret;
	if (rfm__os_ready_kind != kind) {
		ret = rfm__error(RFM_ENOTSUP, "%s: %s: %s", node->uri, fn,
				 kind == RFM_OS_READY_FD ? "this OS has no pollable descriptors; "
							   "rfm_event_handle() gives a waitable "
							   "handle"
							 : "this OS has no waitable handles; "
							   "rfm_event_fd() gives a pollable "
							   "descriptor");
		goto out;
	}
	if (ev->ready != RFM_OS_READY_NONE) {
		*obj = ev->ready;
		goto out;
	}
	int err = rfm__os_ready_create(obj);
	if (err) {
		ret = rfm__error(rfm__errno_code(-err), "%s: %s: %s", node->uri, fn,
				 strerror(-err));
		goto out;
	}
	EV_STORE(ev->ready, *obj);
	err = rfm__rt_thread_create(node, &ev->watcher, watcher_main, node, "event-fd watcher");
	if (err) {
		EV_STORE(ev->ready, RFM_OS_READY_NONE);
		rfm__os_ready_close(*obj);
		ret = err;
		goto out;
	}
	ev->watcher_started = true;
out:
	pthread_mutex_unlock(&ev->lock);
	return ret;
}

RFM_API int rfm_event_fd(rfm_node *node)
{
	intptr_t obj;
	int ret = ready_object(node, "rfm_event_fd", RFM_OS_READY_FD, &obj);

	return ret ? ret : (int)obj;
}

RFM_API int rfm_event_handle(rfm_node *node, void **handle)
{
	intptr_t obj;
	int ret;

	if (!handle)
		return rfm__error(RFM_EINVAL, "rfm_event_handle: handle is NULL");
	*handle = NULL;
	ret = ready_object(node, "rfm_event_handle", RFM_OS_READY_HANDLE, &obj);
	if (!ret)
		*handle = (void *)obj;
	return ret;
}
