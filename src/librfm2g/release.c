/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ends of a call and of a handle: rfm2g__put() drops the reference
 * rfm2g__get() took (registry.c), after the register views show the
 * call's effect; rfm2g__destroy() frees a handle that left the registry,
 * from RFM2gClose() or, closed inside a callback, from the dispatcher.
 *
 * Calls only registry.c and views.c, below it.
 */
#include <stdlib.h>

#include "librfm2g/compat.h"

RFM2G_STATUS rfm2g__get_arg(RFM2GHANDLE rh, bool arg_ok, RFM2G_STATUS bad,
			    struct rfm2g_compat **h)
{
	RFM2G_STATUS st = rfm2g__get(rh, h);

	if (st == RFM2G_SUCCESS && !arg_ok) {
		rfm2g__put(*h);
		*h = NULL;
		st = bad;
	}
	return st;
}

void rfm2g__put(struct rfm2g_compat *h)
{
	pthread_mutex_lock(&h->lock);
	rfm2g__views_refresh_locked(h);	/* the register views show every call's effect */
	rfm2g__unref_locked(h);
	pthread_mutex_unlock(&h->lock);
}

void rfm2g__put_wake(struct rfm2g_compat *h)
{
	pthread_mutex_lock(&h->lock);
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	rfm2g__put(h);
}

void rfm2g__destroy(struct rfm2g_compat *h)
{
	/*
	 * A mapping from RFM2gUserMemory() outlives RFM2gClose() with the
	 * vendor driver, so the window stays attached until the process exits
	 * rather than leave the program a dangling pointer.
	 */
	if (h->maps == 0) {
		rfm_close(h->node);	/* after the dispatcher's last call of callbacks.c */
	} else {
		/* The node stays; its records must no longer reach this handle. */
		if (h->routed)
			rfm__event_route(h->node, NULL, NULL);
		rfm_event_disable(h->node, RFM_EVENT_MASK_NETWORK);
	}
	rfm2g__views_release(h);
	h->pub.struct_id = 0;
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
