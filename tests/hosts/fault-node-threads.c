/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fault lab node's workers: traffic (what it sends), and the threads
 * that keep accounts of what arrives (events, rings, records).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fault-node.h"

#define POLL_NS 100000000ll /* how often a waiting thread looks at `stop` */

/* A ring message: its number, and a check a torn copy would fail. */
struct fn_msg {
	uint32_t from;
	uint32_t reserved;
	uint64_t i;
	uint64_t check;
};

static uint64_t msg_check(uint32_t from, uint64_t i)
{
	return (i ^ ((uint64_t)from << 56)) * UINT64_C(0x9e3779b97f4a7c15);
}

uint64_t fn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool stopping(struct fnode *f)
{
	return __atomic_load_n(&f->stop, __ATOMIC_ACQUIRE);
}

int fn_traffic_round(struct fnode *f, uint64_t i)
{
	uint8_t raw[FN_RAW_LEN];
	uint64_t rec[3] = { i, 3 * i + 1, ~i };
	struct fn_msg m = { .from = f->id, .i = i, .check = msg_check(f->id, i) };
	int ret;

	for (unsigned int j = 0; j < sizeof(raw); j++)
		raw[j] = (uint8_t)(f->id * 31 + i * 7 + j);
	ret = rfm_mem_write(f->node, FN_REGION(f->id) + FN_RAW_OFF, raw, sizeof(raw));
	if (!ret)
		ret = rfm_var_set_u32(f->counter[f->id], 0, (uint32_t)i);
	if (!ret)
		ret = rfm_var_set_f64(f->value[f->id], 0, (double)i * 0.5);
	if (!ret)
		ret = rfm_record_write(f->rec[f->id], rec, sizeof(rec));
	if (!ret) {
		ret = rfm_event_send(f->node, RFM_NODE_ALL, RFM_EVENT_INTR1, (uint32_t)i);
		ret = ret < 0 ? ret : 0;
	}
	if (!ret && f->ring)
		ret = rfm_ring_publish(f->ring, &m, sizeof(m), 0);
	return ret;
}

void *fn_traffic_main(void *arg)
{
	struct fnode *f = arg;
	const struct timespec pace = { 0, (long)(f->traffic_pace_us * 1000) };
	int ret = 0;

	for (uint64_t n = 0; n < f->traffic_count && !ret &&
			     !__atomic_load_n(&f->traffic_stop, __ATOMIC_RELAXED);
	     n++) {
		ret = fn_traffic_round(f, f->traffic_first + n);
		if (!ret)
			__atomic_fetch_add(&f->sent, 1, __ATOMIC_RELAXED);
		/* A rate, not a synchronisation: a rig's loop runs at a period. */
		if (f->traffic_pace_us)
			nanosleep(&pace, NULL);
	}
	f->traffic_ret = ret;
	return NULL;
}

static void account_event(struct fnode *f, const struct rfm_event *ev)
{
	struct fn_peer *p;

	if (ev->sender < 1 || ev->sender > f->nodes)
		return;
	p = &f->peer[ev->sender];
	pthread_mutex_lock(&f->lock);
	switch (ev->type) {
	case RFM_EVENT_INTR1:
		if (ev->data <= p->last) {
			p->bad++; /* twice, or out of its sender's order */
		} else {
			p->skipped += ev->data - p->last - 1;
			p->last = ev->data;
			p->events++;
		}
		break;
	case RFM_EVENT_LINK:
		p->link_lost += ev->data;
		p->links++;
		break;
	case RFM_EVENT_NODE_UP:
		p->ups++;
		break;
	case RFM_EVENT_NODE_DOWN:
		p->downs++;
		break;
	default:
		break;
	}
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

static void *events_main(void *arg)
{
	struct fnode *f = arg;
	struct rfm_event ev;

	while (!stopping(f)) {
		int ret = rfm_event_wait(f->node, &ev, POLL_NS);

		if (!ret)
			account_event(f, &ev);
	}
	return NULL;
}

static void account_record(struct fnode *f, unsigned int k)
{
	uint64_t r[3] = { 0, 0, 0 };
	struct fn_peer *p = &f->peer[k];
	int ret = rfm_record_read(f->rec[k], r, sizeof(r), NULL);

	pthread_mutex_lock(&f->lock);
	if (ret >= 0 && (r[0] || r[1] || r[2])) {
		p->rec_reads++;
		if (r[1] != 3 * r[0] + 1 || r[2] != ~r[0])
			p->torn++;
		else if (r[0] < p->rec_last)
			p->rec_back++;
		else
			p->rec_last = r[0];
	}
	pthread_mutex_unlock(&f->lock);
}

/* Every other node's record, read again and again while it is written. */
static void *records_main(void *arg)
{
	struct fnode *f = arg;
	const struct timespec pause = { 0, 1000000 };

	while (!stopping(f)) {
		for (unsigned int k = 1; k <= f->nodes; k++)
			if (k != f->id)
				account_record(f, k);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static void account_msg(struct fn_cons *c, const struct fn_msg *m, const struct rfm_ring_msg *info)
{
	struct fnode *f = c->f;

	pthread_mutex_lock(&f->lock);
	c->lost += info->lost;
	if (info->len != sizeof(*m) || m->from != c->from || m->i <= c->last ||
	    m->check != msg_check(m->from, m->i)) {
		c->bad++;
	} else {
		c->gap += m->i - c->last - 1;
		c->last = m->i;
		c->taken++;
	}
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

static void *cons_main(void *arg)
{
	struct fn_cons *c = arg;

	while (!stopping(c->f)) {
		struct fn_msg m;
		struct rfm_ring_msg info;
		int ret;

		memset(&m, 0, sizeof(m));
		ret = rfm_ring_consume(c->cons, &m, sizeof(m), &info, POLL_NS);
		if (!ret) {
			account_msg(c, &m, &info);
		} else if (ret != RFM_ETIMEDOUT) {
			pthread_mutex_lock(&c->f->lock);
			c->bad++; /* any error is a fault the test must see */
			pthread_mutex_unlock(&c->f->lock);
		}
	}
	return NULL;
}

/*
 * A consumer of every other node's ring, once the ring is in this node's
 * copy (it arrives with its creator's stream): the attempt is repeated
 * until the guard.
 */
int fn_rings_open(struct fnode *f, uint64_t guard_ms)
{
	const struct timespec pause = { 0, 5000000 };
	uint64_t end = fn_now_ms() + guard_ms;

	for (unsigned int k = 1; k <= f->nodes; k++) {
		struct fn_cons *c = &f->cons[k];
		int ret;

		if (k == f->id || c->cons)
			continue;
		while ((ret = rfm_ring_consumer_open(f->node, FN_RING(k), RFM_RING_CONSUMER_OLDEST,
						     &c->cons)) && fn_now_ms() < end)
			nanosleep(&pause, NULL);
		if (ret)
			return ret;
		c->f = f;
		c->from = k;
		if (pthread_create(&c->thread, NULL, cons_main, c))
			return RFM_ENOMEM;
		c->started = true;
	}
	return 0;
}

int fn_threads_start(struct fnode *f)
{
	if (pthread_create(&f->events_thread, NULL, events_main, f))
		return RFM_ENOMEM;
	if (pthread_create(&f->records_thread, NULL, records_main, f))
		return RFM_ENOMEM;
	return 0;
}

void fn_threads_stop(struct fnode *f)
{
	__atomic_store_n(&f->stop, true, __ATOMIC_RELEASE);
	if (f->traffic_running)
		pthread_join(f->traffic_thread, NULL);
	pthread_join(f->events_thread, NULL);
	pthread_join(f->records_thread, NULL);
	for (unsigned int k = 1; k <= f->nodes; k++)
		if (f->cons[k].started)
			pthread_join(f->cons[k].thread, NULL);
}
