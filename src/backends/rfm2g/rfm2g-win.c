/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rfm2g: backend on Windows: a 5565-family card through GE's RFM2g
 * Windows driver, reached with GE's own DLL (rfm2gdll_stdc_64.dll, the
 * name of GE's 64-bit Windows package), loaded when the first rfm2g: node
 * opens, so that librfm needs nothing of GE's to build or to run other
 * backends. URI: rfm2g:\\.\rfm2g0 (GE's device name); RFM_RFM2G_DLL names
 * another DLL of the same API (a path, or a name Windows looks for).
 *
 * Memory: the window GE's RFM2gUserMemory() maps. Events: for each
 * enabled network type a thread of this handle waits in
 * RFM2gWaitForEvent() and moves every interrupt into this handle's own
 * deep queue (event-localq.h), which the core drains like any other
 * backend's; disabling a type stops its thread with
 * RFM2gCancelWaitForEvent(). The board controls librfm2g uses on Linux
 * (LCSR, registers, DMA) are not reached through GE's DLL: librfm2g keeps
 * an emulated board's soft state for them. No card was tried: the tests
 * stand librfm2g's own rfm2g.dll in for GE's.
 */
#include "config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rfm2g/rfm2g_api.h>

#include "backend.h"
#include "os/module.h"

#define R2G_DLL "rfm2gdll_stdc_64.dll"
#define R2G_NET_TYPES 5		/* RESET, INTR1..INTR4 */
/*
 * How long one RFM2gWaitForEvent() waits before the waiter looks whether
 * it is being stopped. RFM2gCancelWaitForEvent() wakes a thread that waits
 * already; one called while the waiter is between two waits is lost, and
 * an endless wait then never ends (a close hung under load). An event
 * still ends the wait at once: this bounds only how long a stop takes.
 */
#define R2G_WAIT_SLICE_MS 100

/* The calls of GE's DLL this backend makes (the API of rfm2g_api.h). */
struct r2g_api {
	RFM2G_STATUS (*Open)(char *path, RFM2GHANDLE *rh);
	RFM2G_STATUS (*Close)(RFM2GHANDLE *rh);
	RFM2G_STATUS (*GetConfig)(RFM2GHANDLE rh, RFM2GCONFIG *cfg);
	RFM2G_STATUS (*UserMemory)(RFM2GHANDLE rh, volatile void **ptr, RFM2G_UINT64 offset,
				   RFM2G_UINT32 pages);
	RFM2G_STATUS (*UnMapUserMemory)(RFM2GHANDLE rh, volatile void **ptr, RFM2G_UINT32 pages);
	RFM2G_STATUS (*EnableEvent)(RFM2GHANDLE rh, RFM2GEVENTTYPE type);
	RFM2G_STATUS (*SendEvent)(RFM2GHANDLE rh, RFM2G_NODE to, RFM2GEVENTTYPE type,
				  RFM2G_UINT32 data);
	RFM2G_STATUS (*WaitForEvent)(RFM2GHANDLE rh, RFM2GEVENTINFO *info);
	RFM2G_STATUS (*CancelWaitForEvent)(RFM2GHANDLE rh, RFM2GEVENTTYPE type);
	char *(*ErrorMsg)(RFM2G_STATUS status);
};

struct r2g_node {
	/* First: the handle's event queue, which the waiter threads fill. */
	struct rfm_localq q;
	RFM2GHANDLE rh;
	const struct r2g_api *api;
	char path[256];		/* the device, for messages */
	volatile void *map;
	RFM2G_UINT32 pages;
	RFM2GCONFIG cfg;

	pthread_mutex_t lock;	/* the waiter threads */
	bool joinable[R2G_NET_TYPES];
	bool stopping[R2G_NET_TYPES];
	pthread_t thread[R2G_NET_TYPES];
};

struct r2g_waiter {
	struct rfm_node *node;
	unsigned int type;
};

static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;
static struct r2g_api api;
static bool api_loaded;

/* Each call of struct r2g_api, by the name GE's DLL exports it under. */
static const struct {
	const char *name;
	size_t offset;
} api_names[] = {
	{ "RFM2gOpen", offsetof(struct r2g_api, Open) },
	{ "RFM2gClose", offsetof(struct r2g_api, Close) },
	{ "RFM2gGetConfig", offsetof(struct r2g_api, GetConfig) },
	{ "RFM2gUserMemory", offsetof(struct r2g_api, UserMemory) },
	{ "RFM2gUnMapUserMemory", offsetof(struct r2g_api, UnMapUserMemory) },
	{ "RFM2gEnableEvent", offsetof(struct r2g_api, EnableEvent) },
	{ "RFM2gSendEvent", offsetof(struct r2g_api, SendEvent) },
	{ "RFM2gWaitForEvent", offsetof(struct r2g_api, WaitForEvent) },
	{ "RFM2gCancelWaitForEvent", offsetof(struct r2g_api, CancelWaitForEvent) },
	{ "RFM2gErrorMsg", offsetof(struct r2g_api, ErrorMsg) },
};

/*
 * GE's DLL, opened once for the process (os/module.h keeps a module for
 * its life). 0, or RFM_ENOTSUP naming the DLL and what to install.
 */
static int load_api(const char *uri)
{
	const char *dll = getenv("RFM_RFM2G_DLL");
	char why[256];
	struct r2g_api loaded;
	void *module;
	int ret = 0;

	if (!dll || !*dll)
		dll = R2G_DLL;
	pthread_mutex_lock(&api_lock);
	if (api_loaded)
		goto out;
	module = rfm__os_module_open(dll, why, sizeof(why));
	if (!module) {
		ret = rfm__error(RFM_ENOTSUP,
				 "%s: rfm2g: cannot load GE's RFM2g DLL %s (%s): install GE's RFM2g "
				 "Windows driver package (its DLL on PATH or beside the program), or "
				 "name the DLL with RFM_RFM2G_DLL",
				 uri, dll, why);
		goto out;
	}
	for (size_t i = 0; i < RFM_ARRAY_SIZE(api_names); i++) {
		void *sym = rfm__os_module_symbol(module, api_names[i].name);

		if (!sym) {
			ret = rfm__error(RFM_ENOTSUP,
					 "%s: rfm2g: %s exports no %s: it is not GE's RFM2g DLL "
					 "(or too old a one)",
					 uri, dll, api_names[i].name);
			rfm__os_module_close(module);
			goto out;
		}
		memcpy((char *)&loaded + api_names[i].offset, &sym, sizeof(sym));
	}
	api = loaded;
	api_loaded = true;
out:
	pthread_mutex_unlock(&api_lock);
	return ret;
}

/* A failed call of GE's DLL as a librfm error naming it. */
static int r2g_error(const struct r2g_node *r, RFM2G_STATUS st, const char *call)
{
	int code = st == RFM2G_NO_RFM2G_BOARD ? RFM_ENOENT
		   : st == RFM2G_LOW_MEMORY    ? RFM_ENOMEM
		   : st == RFM2G_OUT_OF_RANGE  ? RFM_ERANGE
					       : RFM_EIO;

	return rfm__error(code, "%s: rfm2g: %s: %s (RFM2G_STATUS %d)", r->path, call,
			  r->api->ErrorMsg(st), (int)st);
}

static int r2g_open(struct rfm_node *node, struct rfm_uri *uri)
{
	struct r2g_node *r;
	RFM2G_STATUS st;
	uint64_t window;
	int err;

	if (!uri->path || !*uri->path)
		return rfm__error(RFM_EURI, "%s: rfm2g: needs a device, e.g. rfm2g:\\\\.\\rfm2g0",
				  uri->text);
	err = rfm__uri_check_all_used(uri);
	if (!err)
		err = load_api(uri->text);
	if (err)
		return err;
	r = calloc(1, sizeof(*r));
	if (!r)
		return rfm__error(RFM_ENOMEM, "%s: out of memory", uri->text);
	r->api = &api;
	snprintf(r->path, sizeof(r->path), "%s", uri->path);
	st = api.Open(r->path, &r->rh);
	if (st != RFM2G_SUCCESS) {
		err = r2g_error(r, st, "RFM2gOpen");
		free(r);
		return err;
	}
	st = api.GetConfig(r->rh, &r->cfg);
	if (st != RFM2G_SUCCESS) {
		err = r2g_error(r, st, "RFM2gGetConfig");
		goto fail;
	}
	window = r->cfg.PciConfig.rfm2gWindowSize;
	if (!window || window > r->cfg.MemorySize)
		window = r->cfg.MemorySize;
	if (r->cfg.NodeId > RFM_NODE_ID_MAX || !window || window % 4096) {
		err = rfm__error(RFM_EIO, "%s: GE's DLL reports node id %u and a window of %llu "
				 "bytes", r->path, (unsigned int)r->cfg.NodeId,
				 (unsigned long long)window);
		goto fail;
	}
	r->pages = (RFM2G_UINT32)(window / 4096);
	st = api.UserMemory(r->rh, &r->map, 0, r->pages);
	if (st != RFM2G_SUCCESS) {
		err = r2g_error(r, st, "RFM2gUserMemory");
		goto fail;
	}
	rfm__localq_init(&r->q, RFM_EVENT_QUEUE_MIN);
	pthread_mutex_init(&r->lock, NULL);
	node->priv = r;
	node->base = (void *)(uintptr_t)r->map;
	node->size = window;
	node->id = r->cfg.NodeId;
	node->incarnation = 1;
	return 0;
fail:
	api.Close(&r->rh);
	free(r);
	return err;
}

/* Ask the waiter thread of @type to end, and join it. */
static void stop_waiter(struct r2g_node *r, unsigned int type)
{
	pthread_t thread;

	pthread_mutex_lock(&r->lock);
	if (!r->joinable[type]) {
		pthread_mutex_unlock(&r->lock);
		return;
	}
	r->stopping[type] = true;
	thread = r->thread[type];
	pthread_mutex_unlock(&r->lock);
	/* The DLL wakes the waiter with RFM2G_WAIT_EVENT_CANCELED. */
	r->api->CancelWaitForEvent(r->rh, (RFM2GEVENTTYPE)type);
	pthread_join(thread, NULL);
	pthread_mutex_lock(&r->lock);
	r->joinable[type] = false;
	r->stopping[type] = false;
	pthread_mutex_unlock(&r->lock);
}

static void r2g_close(struct rfm_node *node)
{
	struct r2g_node *r = node->priv;

	for (unsigned int t = 0; t < R2G_NET_TYPES; t++)
		stop_waiter(r, t);
	r->api->UnMapUserMemory(r->rh, &r->map, r->pages);
	r->api->Close(&r->rh);
	pthread_mutex_destroy(&r->lock);
	rfm__localq_destroy(&r->q);
	free(r);
}

static void r2g_get_info(const struct rfm_node *node, struct rfm_node_info *info)
{
	(void)node;
	info->nodes_attached = 0;	/* the card does not know */
}

static void push(struct rfm_node *node, RFM2G_NODE sender, RFM2G_UINT32 data, unsigned int type)
{
	struct r2g_node *r = node->priv;

	rfm__localq_push(&r->q, &(struct rfm_ev_record){
		.type = type,
		.sender = sender,
		.data = data,
	});
}

static int r2g_ev_send(struct rfm_node *node, unsigned int to, struct rfm_ev_record *rec)
{
	struct r2g_node *r = node->priv;
	RFM2G_STATUS st;

	/* Health records the library makes for this node stay in its own queue. */
	if (rec->type > RFM_EVENT_INTR4) {
		if (to != (unsigned int)node->id)
			return rfm__error(RFM_ENOTSUP, "%s: the card carries only network types",
					  node->uri);
		push(node, (RFM2G_NODE)rec->sender, rec->data, rec->type);
		return 1;
	}
	st = r->api->SendEvent(r->rh, (RFM2G_NODE)(to == RFM_NODE_ALL ? RFM2G_NODE_ALL : to),
			       (RFM2GEVENTTYPE)rec->type, rec->data);
	if (st != RFM2G_SUCCESS)
		return r2g_error(r, st, "RFM2gSendEvent");
	return 1;	/* on the fiber; who takes it is not known here */
}

static void *waiter_thread(void *arg)
{
	struct r2g_waiter w = *(struct r2g_waiter *)arg;
	struct r2g_node *r = w.node->priv;

	free(arg);
	for (;;) {
		RFM2GEVENTINFO info = {
			.Event = (RFM2GEVENTTYPE)w.type,
			.Timeout = R2G_WAIT_SLICE_MS,
		};
		RFM2G_STATUS st = r->api->WaitForEvent(r->rh, &info);
		bool stop;

		if (st == RFM2G_SUCCESS) {
			push(w.node, info.NodeId, info.ExtendedInfo, w.type);
			continue;
		}
		pthread_mutex_lock(&r->lock);
		stop = r->stopping[w.type];
		pthread_mutex_unlock(&r->lock);
		if (stop || st != RFM2G_TIMED_OUT)
			break;	/* cancelled, or the event is another waiter's */
	}
	return NULL;
}

static void start_waiter(struct rfm_node *node, unsigned int type)
{
	struct r2g_node *r = node->priv;
	struct r2g_waiter *w;

	if (r->api->EnableEvent(r->rh, (RFM2GEVENTTYPE)type) != RFM2G_SUCCESS)
		return;
	stop_waiter(r, type);	/* one that ended by itself is joined first */
	w = malloc(sizeof(*w));
	if (!w)
		return;
	w->node = node;
	w->type = type;
	pthread_mutex_lock(&r->lock);
	/* The card's interrupts reach the queue through it: the handle's rt_prio/cpus. */
	r->joinable[type] = rfm__rt_thread_create(node, &r->thread[type], waiter_thread, w,
						  "rfm2g event waiter") == 0;
	if (!r->joinable[type])
		free(w);
	pthread_mutex_unlock(&r->lock);
}

static void r2g_ev_set_mask(struct rfm_node *node, uint32_t mask)
{
	struct r2g_node *r = node->priv;
	uint32_t old = rfm__localq_set_mask(&r->q, mask);

	for (unsigned int t = 0; t < R2G_NET_TYPES; t++) {
		uint32_t bit = RFM_EVENT_BIT(t);

		if ((mask & bit) && !(old & bit))
			start_waiter(node, t);
		else if (!(mask & bit) && (old & bit))
			stop_waiter(r, t);	/* the board's enable stays: others may use it */
	}
}

/* The queue's ops find it first in struct r2g_node. */
_Static_assert(offsetof(struct r2g_node, q) == 0, "the event queue begins an rfm2g: handle");

static const struct rfm_backend_ev_ops r2g_ev_ops = {
	.send = r2g_ev_send,
	.set_mask = r2g_ev_set_mask,
	RFM__LOCALQ_EV_OPS,
};

const struct rfm_backend_ops rfm__rfm2g_ops = {
	.scheme = "rfm2g",
	.caps = RFM__CAP_OBSERVE,
	.open = r2g_open,
	.close = r2g_close,
	.get_info = r2g_get_info,
	.ev = &r2g_ev_ops,
};
