/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The registry of open handles: the first thing every RFM2g call does is
 * find its handle here and take a reference, so stale, freed or made-up
 * pointers get an error instead of a dereference.
 *
 * The bottom of librfm2g's stack: this file calls no other file of
 * librfm2g. Open and close (open.c) list and unlist handles; the end of
 * every call (release.c) drops the reference.
 */
#include <stdio.h>
#include <string.h>

#include "librfm2g/compat.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rfm2g_compat *registry;

void rfm2g__init_cond(pthread_cond_t *cond)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);	/* timed waits use it */
	pthread_cond_init(cond, &ca);
	pthread_condattr_destroy(&ca);
}

void rfm2g__registry_forget_threads(void)
{
	pthread_mutex_init(&registry_lock, NULL);
	for (struct rfm2g_compat *h = registry; h; h = h->next) {
		pthread_mutex_init(&h->lock, NULL);
		rfm2g__init_cond(&h->cond);	/* its waiters were the parent's threads */
		h->refs = 0;
		h->taking = false;
		h->routed = false;	/* librfm's dispatcher did not come along either */
		h->cb_running = 0;
		for (unsigned int i = 0; i < RFM2G_COMPAT_NEVENTS; i++) {
			h->ev[i].waiting = false;
			h->ev[i].cb_set = false;
			h->ev[i].cb = NULL;
			h->pub.callbackInfo[i].Callback = NULL;
		}
	}
}

RFM2G_STATUS rfm2g__get(RFM2GHANDLE rh, struct rfm2g_compat **out)
{
	struct rfm2g_compat *h;

	*out = NULL;
	if (!rh)
		return RFM2G_NULL_DESCRIPTOR;
	pthread_mutex_lock(&registry_lock);
	for (h = registry; h; h = h->next)
		if (&h->pub == rh)
			break;
	if (h) {
		pthread_mutex_lock(&h->lock);
		h->refs++;
		pthread_mutex_unlock(&h->lock);
	}
	pthread_mutex_unlock(&registry_lock);
	if (!h)
		return RFM2G_BAD_PARAMETER_1;
	*out = h;
	return RFM2G_SUCCESS;
}

void rfm2g__unref_locked(struct rfm2g_compat *h)
{
	h->refs--;
	if (h->closing)
		pthread_cond_broadcast(&h->cond);	/* RFM2gClose() waits for refs 0 */
}

void rfm2g__registry_add(struct rfm2g_compat *h)
{
	pthread_mutex_lock(&registry_lock);
	h->next = registry;
	registry = h;
	pthread_mutex_unlock(&registry_lock);
}

struct rfm2g_compat *rfm2g__registry_remove(RFM2GHANDLE rh)
{
	struct rfm2g_compat *h, **pp;

	pthread_mutex_lock(&registry_lock);
	for (pp = &registry; *pp; pp = &(*pp)->next)
		if (&(*pp)->pub == rh)
			break;
	h = *pp;
	if (h)
		*pp = h->next;	/* new calls on it now fail */
	pthread_mutex_unlock(&registry_lock);
	return h;
}

int rfm2g__registry_node_of(const char *uri)
{
	int node = -1;

	pthread_mutex_lock(&registry_lock);
	for (struct rfm2g_compat *h = registry; h; h = h->next)
		if (!strcmp(h->uri, uri)) {
			node = h->pub.Config.NodeId;
			break;
		}
	pthread_mutex_unlock(&registry_lock);
	return node;
}
