/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The object a program's own event loop waits on to learn that a handle
 * has events (the OS layer; docs/architecture.md, "The OS layer"): an
 * eventfd on Linux, which poll()/epoll take (rfm_event_fd()), a
 * manual-reset event on Windows, which WaitForMultipleObjects() takes
 * (rfm_event_handle()). event-fd.c makes it ready exactly while records
 * are queued; this says how.
 *
 * An object is held in an intptr_t: the descriptor, or the HANDLE.
 */
#ifndef RFM_OS_READY_H
#define RFM_OS_READY_H

#include <stdint.h>

/* What this OS's objects are: a descriptor, or a HANDLE. */
enum rfm_os_ready_kind {
	RFM_OS_READY_FD,
	RFM_OS_READY_HANDLE,
};
extern const enum rfm_os_ready_kind rfm__os_ready_kind;

/* No object: what a handle holds before rfm_event_fd() or rfm_event_handle(). */
#define RFM_OS_READY_NONE ((intptr_t)-1)

/* A new object, not ready, in *@obj: 0 or -errno. */
int rfm__os_ready_create(intptr_t *obj);
/* Make it ready (readable, signalled). Several calls before a clear count once. */
void rfm__os_ready_set(intptr_t obj);
/* Make it not ready again. */
void rfm__os_ready_clear(intptr_t obj);
void rfm__os_ready_close(intptr_t obj);

#endif /* RFM_OS_READY_H */
