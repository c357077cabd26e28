/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev: network interrupts. The driver keeps a queue per open file and
 * numbers its records; the core renumbers them and announces drops, so
 * here records are read in batches (non-blocking read(2)), the driver's
 * overflow records become the count that ev_dropped reports, and
 * sleeping is a ppoll(2) on the device plus a per-thread eventfd that
 * ev_wake writes (cancel, close, disable).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "backends/dev/dev-internal.h"

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

/* ---- sending ---- */

static void dev_ev_wake(struct rfm_node *node);

/*
 * A record the library makes for this node (health types): the card only
 * carries network types, so it goes to this handle's own queue, if the
 * handle enabled the type; a full queue drops it and counts the drop.
 */
static int post_local(struct rfm_node *node, struct rfm_ev_record *rec)
{
	struct dev_node *dev = node->priv;

	if (!(LOAD(dev->mask) & RFM_EVENT_BIT(rec->type)))
		return 0;
	rec->sent_ns = rfm__now_ns();
	pthread_mutex_lock(&dev->local_lock);
	if (dev->local_count == DEV_LOCAL_MAX) {
		pthread_mutex_unlock(&dev->local_lock);
		__atomic_add_fetch(&dev->dropped, 1, __ATOMIC_RELAXED);
		dev_ev_wake(node);
		return 0;
	}
	dev->local[(dev->local_head + dev->local_count) % DEV_LOCAL_MAX] = *rec;
	__atomic_add_fetch(&dev->local_count, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&dev->local_lock);
	dev_ev_wake(node);
	return 1;
}

static int dev_ev_send(struct rfm_node *node, unsigned int to, struct rfm_ev_record *rec)
{
	struct dev_node *dev = node->priv;
	bool self = to == (unsigned int)node->id;

	if (rec->type > RFM_EVENT_INTR4) {
		if (!self)
			return rfm__error(RFM_ENOTSUP, "%s: the card carries only network types",
					  node->uri);
		return post_local(node, rec);
	}
	struct rfm_dev_send s = {
		.type = rec->type,
		.target = to == RFM_NODE_ALL ? RFM_DEV_NODE_ALL : to,
		.data = rec->data,
		/* Loopback reaches our own node on a broadcast or a send to
		 * ourselves (the core refused that without loopback). */
		.flags = (self || (to == RFM_NODE_ALL && LOAD(node->loopback)))
				 ? RFM_DEV_SEND_LOOPBACK
				 : 0,
	};

	if (to != RFM_NODE_ALL && to >= dev->info.max_nodes)
		return rfm__error(RFM_ENODE, "%s: node %u is beyond this card's %u node ids",
				  node->uri, to, dev->info.max_nodes);
	/* The driver stamps sent_ns itself, with the same clock. */
	while (ioctl(dev->fd, RFM_IOC_SEND, &s) < 0)
		if (errno != EINTR)
			return rfm__dev_sys_error(node, "rfm_event_send", errno);
	/* The card takes the record; it cannot tell how many handles queue it. */
	return 1;
}

/* ---- receiving ---- */

static int dev_ev_attach(struct rfm_node *node, uint32_t *depth)
{
	struct dev_node *dev = node->priv;
	uint32_t want = dev->want_depth;
	uint32_t cap;

	if (want && want != dev->info.queue_depth) {
		/* Nothing is enabled yet, so the driver's queue is empty. */
		if (ioctl(dev->fd, RFM_IOC_SET_QUEUE_DEPTH, &want) < 0)
			return rfm__dev_sys_error(node, "setting the queue depth", errno);
		dev->info.queue_depth = want;
	}
	cap = dev->info.queue_depth + 1;
	dev->buf = calloc(cap, sizeof(*dev->buf));
	if (!dev->buf)
		return rfm__error(RFM_ENOMEM, "%s: out of memory for %u event records", node->uri,
				  cap);
	dev->cap = cap;
	*depth = dev->info.queue_depth;
	return 0;
}

/* A record already counted into dropped, left in the buffer to skip. */
#define DEV_EV_COUNTED 0xffffu

static void dev_ev_set_mask(struct rfm_node *node, uint32_t mask)
{
	struct dev_node *dev = node->priv;
	uint32_t m = mask & RFM_DEV_SENDABLE_MASK; /* network types: the same bits */

	STORE(dev->mask, mask);
	/* Fails only when the card is gone; reads and polls then say so. */
	if (ioctl(dev->fd, RFM_IOC_SET_MASK, &m) < 0) {
	}
}

/*
 * Read everything the driver has queued into the empty buffer (never
 * blocks), and count its overflow records at once: the core announces
 * drops ahead of the records still queued, as on every backend.
 */
static void refill(struct dev_node *dev)
{
	ssize_t got;
	uint32_t n;

	if (LOAD(dev->count) || dev->fd < 0 || !dev->buf)
		return;
	do
		got = read(dev->fd, dev->buf, (size_t)dev->cap * sizeof(dev->buf[0]));
	while (got < 0 && errno == EINTR);
	if (got <= 0)
		return; /* EAGAIN: nothing; ENODEV: the card is gone (ev_sleep sees it) */
	n = (uint32_t)((size_t)got / sizeof(dev->buf[0]));
	for (uint32_t i = 0; i < n; i++)
		if (dev->buf[i].type == RFM_DEV_EV_OVERFLOW) {
			STORE(dev->dropped, dev->dropped + dev->buf[i].data);
			dev->buf[i].type = DEV_EV_COUNTED;
		}
	dev->head = 0;
	STORE(dev->count, n);
}

static void consume(struct dev_node *dev)
{
	dev->head++;
	__atomic_sub_fetch(&dev->count, 1, __ATOMIC_ACQ_REL);
}

/* Called by the core (under the take lock) before it takes records: the
 * refill happens here, so that drops are counted before any record of
 * the same read is handed out. */
static uint64_t dev_ev_dropped(struct rfm_node *node)
{
	struct dev_node *dev = node->priv;

	refill(dev);
	return LOAD(dev->dropped);
}

/* Only from the buffer: ev_dropped refills it (see there). */
static unsigned int dev_ev_take(struct rfm_node *node, struct rfm_ev_record *recs, unsigned int max)
{
	struct dev_node *dev = node->priv;
	unsigned int n = 0;

	if (LOAD(dev->local_count)) {
		pthread_mutex_lock(&dev->local_lock);
		while (n < max && dev->local_count) {
			recs[n++] = dev->local[dev->local_head];
			dev->local_head = (dev->local_head + 1) % DEV_LOCAL_MAX;
			__atomic_sub_fetch(&dev->local_count, 1, __ATOMIC_ACQ_REL);
		}
		pthread_mutex_unlock(&dev->local_lock);
	}
	while (n < max && LOAD(dev->count)) {
		const struct rfm_dev_event *e = &dev->buf[dev->head];
		if (e->type <= RFM_DEV_EV_INTR4)
			recs[n++] = (struct rfm_ev_record){
				.type = e->type,
				.sender = e->sender,
				.data = e->data,
				.sent_ns = e->sent_ns,
			};
		/* Counted overflow records; status types are never enabled
		 * through this library. */
		consume(dev);
	}
	return n;
}

static bool dev_ev_ready(struct rfm_node *node)
{
	struct dev_node *dev = node->priv;
	struct pollfd p = { .fd = dev->fd, .events = POLLIN };

	if (LOAD(dev->count) || LOAD(dev->local_count))
		return true;
	return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

static uint64_t dev_ev_queued(struct rfm_node *node)
{
	struct dev_node *dev = node->priv;

	/* What this process holds; the driver's queue has no cheap count. */
	return LOAD(dev->count) + LOAD(dev->local_count);
}

/* ---- sleeping ---- */

static pthread_key_t sleeper_key;
static pthread_once_t sleeper_once = PTHREAD_ONCE_INIT;
/* Counted in every fork()ed child: a sleeper made before its process's
 * latest fork was made by an ancestor (see this_sleeper()). */
static unsigned int sleeper_forks;

static void sleeper_free(void *p)
{
	struct rfm_dev_sleeper *s = p;

	close(s->efd);
	free(s);
}

/* pthread_atfork's child handler (the child has one thread yet): count
 * the fork; each thread renews its sleeper on its next sleep. */
static void sleeper_forked(void)
{
	__atomic_store_n(&sleeper_forks, sleeper_forks + 1, __ATOMIC_RELAXED);
}

static void sleeper_key_init(void)
{
	if (pthread_key_create(&sleeper_key, sleeper_free)) {
		/* without the key every sleep falls back to polling (see below) */
		return;
	}
	pthread_atfork(NULL, NULL, sleeper_forked);
}

/*
 * This thread's sleeper, made on its first sleep in this process; NULL if
 * out of fds. A thread that forked keeps its sleeper in the child, and
 * with it a copy of the descriptor of its parent's eventfd: one counter
 * for two processes, so each one's ev_sleep_finish would read the other's
 * wake-ups away and leave it asleep until its deadline. The child's
 * thread drops that copy and makes its own.
 */
static struct rfm_dev_sleeper *this_sleeper(void)
{
	unsigned int forks;
	struct rfm_dev_sleeper *s;

	pthread_once(&sleeper_once, sleeper_key_init);
	forks = __atomic_load_n(&sleeper_forks, __ATOMIC_RELAXED);
	s = pthread_getspecific(sleeper_key);
	if (s && s->forks == forks)
		return s;
	if (s) {
		/* Not on any sleepers list: a thread is only between its
		 * ev_sleep_prepare and ev_sleep_finish. */
		pthread_setspecific(sleeper_key, NULL);
		sleeper_free(s);
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->forks = forks;
	s->efd = rfm__fd_keep_off_std(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	if (s->efd < 0 || pthread_setspecific(sleeper_key, s)) {
		if (s->efd >= 0)
			close(s->efd);
		free(s);
		return NULL;
	}
	return s;
}

static uint32_t dev_ev_sleep_prepare(struct rfm_node *node)
{
	struct dev_node *dev = node->priv;
	struct rfm_dev_sleeper *s = this_sleeper();
	uint32_t token;

	pthread_mutex_lock(&dev->sleep_lock);
	if (s) {
		s->next = dev->sleepers;
		dev->sleepers = s;
	}
	token = LOAD(dev->wake_gen);
	pthread_mutex_unlock(&dev->sleep_lock);
	return token;
}

/* Without a sleeper eventfd a wake-up can only be noticed by polling. */
#define DEV_FALLBACK_SLICE_NS 10000000ull

static void dev_ev_sleep(struct rfm_node *node, uint32_t token, uint64_t deadline_ns)
{
	struct dev_node *dev = node->priv;
	struct rfm_dev_sleeper *s = pthread_getspecific(sleeper_key);
	struct pollfd p[2] = {
		{ .fd = dev->fd, .events = POLLIN },
		{ .fd = s ? s->efd : -1, .events = POLLIN },
	};
	struct timespec ts, *tsp = NULL;
	uint64_t limit = deadline_ns;

	if (LOAD(dev->wake_gen) != token)
		return;
	if (!s) {
		uint64_t slice = rfm__now_ns() + DEV_FALLBACK_SLICE_NS;
		if (!limit || slice < limit)
			limit = slice;
	}
	if (limit) {
		uint64_t now = rfm__now_ns();
		uint64_t left = limit > now ? limit - now : 0;
		ts.tv_sec = (time_t)(left / 1000000000u);
		ts.tv_nsec = (long)(left % 1000000000u);
		tsp = &ts;
	}
	if (ppoll(p, 2, tsp, NULL) > 0 && (p[0].revents & (POLLHUP | POLLERR | POLLNVAL)) &&
	    !(p[0].revents & POLLIN)) {
		/* The card is gone: nothing will arrive; sleep on the wake-up
		 * alone so that waiters do not spin (they see the timeout, a
		 * cancel or the close). */
		p[0].fd = -1;
		if (tsp || s)
			ppoll(p, 2, tsp, NULL);
	}
}

static void dev_ev_sleep_finish(struct rfm_node *node)
{
	struct dev_node *dev = node->priv;
	struct rfm_dev_sleeper *s = pthread_getspecific(sleeper_key);
	uint64_t count;

	if (!s)
		return;
	pthread_mutex_lock(&dev->sleep_lock);
	for (struct rfm_dev_sleeper **pp = &dev->sleepers; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	pthread_mutex_unlock(&dev->sleep_lock);
	/* Only this thread reads its eventfd: no other sleeper loses a wake-up. */
	if (read(s->efd, &count, sizeof(count)) < 0) {
		/* EAGAIN: not woken */
	}
}

static void dev_ev_wake(struct rfm_node *node)
{
	struct dev_node *dev = node->priv;
	uint64_t one = 1;

	pthread_mutex_lock(&dev->sleep_lock);
	__atomic_add_fetch(&dev->wake_gen, 1, __ATOMIC_ACQ_REL);
	for (struct rfm_dev_sleeper *s = dev->sleepers; s; s = s->next)
		if (write(s->efd, &one, sizeof(one)) < 0) {
			/* cannot fill: the sleeper reads it back to 0 */
		}
	pthread_mutex_unlock(&dev->sleep_lock);
}

/* lock=1/prefault=1 (mem-lock.c): the buffer the handle's records land in. */
static void dev_ev_queue_memory(struct rfm_node *node, void **addr, size_t *len)
{
	struct dev_node *dev = node->priv;

	*addr = dev->buf;
	*len = dev->buf ? dev->cap * sizeof(*dev->buf) : 0;
}

const struct rfm_backend_ev_ops rfm__dev_ev_ops = {
	.send = dev_ev_send,
	.attach = dev_ev_attach,
	.set_mask = dev_ev_set_mask,
	.take = dev_ev_take,
	.dropped = dev_ev_dropped,
	.ready = dev_ev_ready,
	.queued = dev_ev_queued,
	.sleep_prepare = dev_ev_sleep_prepare,
	.sleep = dev_ev_sleep,
	.sleep_finish = dev_ev_sleep_finish,
	.wake = dev_ev_wake,
	.queue_memory = dev_ev_queue_memory,
};
