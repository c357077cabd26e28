/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rfm2g: backend without a card: open, ioctl, mmap, munmap and close
 * are wrapped at link time (-Wl,--wrap=...). Calls the main thread makes
 * (open, GET_CONFIG, mmap, ENABLE_EVENT, SEND_EVENT) follow CMocka
 * will_return scripts with the driver's documented replies and errno
 * values; the blocking WAIT_FOR_EVENT / CANCEL_EVENT pair, used by the
 * backend's waiter threads, is served by a small model of the driver's
 * per-event state (one waiter, queue of depth 1, EIDRM on cancel, ENOSYS
 * when nobody waits, EALREADY for a second waiter), because CMocka's mock
 * queue is not for other threads.
 *
 * Every wait of a case is bounded by the harness's hang guard and fails
 * the case naming what never came: a case that fails leaves its handle open and no one to
 * signal, and the next case must not wait for ever. Its waiter threads
 * are retired by the next setup: a wait of an earlier case ends with
 * EALREADY (its thread ends, as when another process owns the event), so
 * it cannot take the next case's interrupts.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/types.h>

#include "rfm-cmocka.h"
#include "rfm2g_api.h"
#include "health-table.h"

#define FAKE_PATH "/dev/rfm2g-test0"
#define FAKE_URI "rfm2g:" FAKE_PATH
#define FAKE_FD 1000
#define FAKE_WINDOW (64u * 4096u)

int __real_open(const char *path, int flags, ...);
int __real_close(int fd);
int __real_ioctl(int fd, unsigned long request, ...);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);

static struct {
	RFM2GCONFIG cfg;
	unsigned char mem[FAKE_WINDOW] __attribute__((aligned(4096)));
	size_t mapped_len;
	unsigned char dma[4 * 4096] __attribute__((aligned(4096)));
	size_t dma_len;
	unsigned char regs[4096] __attribute__((aligned(4096)));	/* a register BAR's page */
	uint64_t special;
	RFM2G_UINT32 threshold;
	unsigned long cleared;
	int transfers;
	unsigned long value;		/* last by-value argument */
	RFM2G_UINT8 u8_reply;		/* answer of the 8-bit GET ioctls */
	RFM2G_UINT32 u32_reply;		/* answer of the 32-bit GET ioctls */
	RFM2GLINUXREGINFO reg;		/* last register request */
	int opens, closes, munmaps;
	RFM2GEVENTINFO sent;
	unsigned int enabled;	/* ENABLE_EVENT calls, bit per type */

	/* the driver's per-event state (types 0..4) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool pending[5];
	RFM2GEVENTINFO entry[5];
	bool waiting[5];
	bool canceled[5];
	bool foreign_waiter[5];	/* another process waits there */
	int ealready[5];
	unsigned int generation;	/* one more per case: retires old waits */
} fake = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

int __wrap_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	int mode, ret;

	va_start(ap, flags);
	mode = (flags & O_CREAT) ? va_arg(ap, int) : 0;
	va_end(ap);
	if (strcmp(path, FAKE_PATH))
		return __real_open(path, flags, mode);
	fake.opens++;
	ret = mock_type(int);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return FAKE_FD;
}

int __wrap_close(int fd);
int __wrap_close(int fd)
{
	if (fd != FAKE_FD)
		return __real_close(fd);
	fake.closes++;
	return 0;
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	int ret;

	if (fd != FAKE_FD)
		return __real_mmap(addr, len, prot, flags, fd, off);
	assert_true(flags & MAP_SHARED);
	if (off != 0) {
		/* The special map that follows SET_SPECIAL_MMAP_OFFSET (unscripted). */
		if (fake.special == RFM2G_BAR0_MMAP_OFFSET || fake.special == RFM2G_BAR2_MMAP_OFFSET) {
			assert_int_equal(len, sizeof(fake.regs));
			return fake.regs;
		}
		assert_int_equal(fake.special & 1, 1);
		assert_true(len <= sizeof(fake.dma));
		fake.dma_len = len;
		return fake.dma;
	}
	ret = mock_type(int);
	if (ret < 0) {
		errno = -ret;
		return MAP_FAILED;
	}
	assert_true(len <= sizeof(fake.mem));
	fake.mapped_len = len;
	return fake.mem;
}

int __wrap_munmap(void *addr, size_t len);
int __wrap_munmap(void *addr, size_t len)
{
	if (addr == fake.regs) {
		assert_int_equal(len, sizeof(fake.regs));
		fake.munmaps++;
		return 0;
	}
	if (addr == fake.dma) {
		assert_int_equal(len, fake.dma_len);
		fake.munmaps++;
		return 0;
	}
	if (addr != fake.mem)
		return __real_munmap(addr, len);
	assert_int_equal(len, fake.mapped_len);
	fake.munmaps++;
	return 0;
}

static int fail_with(int err)
{
	errno = err;
	return -1;
}

/* Whether a waiter thread is in the driver's wait for @type. */
static bool waiting(unsigned int type)
{
	bool w;

	pthread_mutex_lock(&fake.lock);
	w = fake.waiting[type];
	pthread_mutex_unlock(&fake.lock);
	return w;
}

/* rfm_event_wait() for an event that must come, bounded by the hang guard. */
static void wait_event(rfm_node *node, struct rfm_event *ev, const char *what)
{
	int ret = rfm_event_wait(node, ev, HARNESS_HANG_TIMEOUT_MS * 1000000ll);

	if (ret == RFM_ETIMEDOUT)
		fail_msg("%s: no event within %d s", what, HARNESS_HANG_TIMEOUT_MS / 1000);
	assert_rfm_code(ret, 0);
}

/* WAIT_FOR_EVENT as the driver does it, for the waiter threads. */
static int model_wait(RFM2GEVENTINFO *info)
{
	unsigned int t = info->Event;
	unsigned int gen;
	int ret = 0;

	if (t >= 5)	/* the backend validates before the driver sees it */
		return fail_with(EINVAL);
	pthread_mutex_lock(&fake.lock);
	gen = fake.generation;
	if (fake.waiting[t] || fake.foreign_waiter[t]) {
		fake.ealready[t]++;
		pthread_cond_broadcast(&fake.cond);
		pthread_mutex_unlock(&fake.lock);
		return fail_with(EALREADY);
	}
	fake.waiting[t] = true;
	pthread_cond_broadcast(&fake.cond);
	while (!fake.pending[t] && !fake.canceled[t] && gen == fake.generation)
		pthread_cond_wait(&fake.cond, &fake.lock);
	if (gen != fake.generation) {
		/* A thread of an earlier case's handle: it ends, and touches
		 * nothing of this case's state. */
		pthread_mutex_unlock(&fake.lock);
		return fail_with(EALREADY);
	}
	if (fake.pending[t]) {
		info->NodeId = fake.entry[t].NodeId;
		info->ExtendedInfo = fake.entry[t].ExtendedInfo;
		fake.pending[t] = false;
	} else {
		ret = EIDRM;
	}
	fake.canceled[t] = false;
	fake.waiting[t] = false;
	pthread_cond_broadcast(&fake.cond);
	pthread_mutex_unlock(&fake.lock);
	return ret ? fail_with(ret) : 0;
}

static int model_cancel(const RFM2GEVENTINFO *info)
{
	unsigned int t = info->Event;
	int ret = 0;

	pthread_mutex_lock(&fake.lock);
	if (fake.waiting[t]) {
		fake.canceled[t] = true;
		pthread_cond_broadcast(&fake.cond);
	} else {
		ret = ENOSYS;
	}
	pthread_mutex_unlock(&fake.lock);
	return ret ? fail_with(ret) : 0;
}

/* An interrupt arrives; like the hardware FIFO it waits while the queue is full. */
static void raise_event(unsigned int type, RFM2G_NODE from, RFM2G_UINT32 data)
{
	pthread_mutex_lock(&fake.lock);
	assert_cond_wait_until(&fake.cond, &fake.lock, !fake.pending[type],
			       "the backend's waiter took the previous interrupt");
	fake.entry[type].NodeId = from;
	fake.entry[type].ExtendedInfo = data;
	fake.pending[type] = true;
	pthread_cond_broadcast(&fake.cond);
	pthread_mutex_unlock(&fake.lock);
}

int __wrap_ioctl(int fd, unsigned long request, ...);
int __wrap_ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != FAKE_FD)
		return __real_ioctl(fd, request, arg);
	if (request == IOCTL_RFM2G_WAIT_FOR_EVENT)
		return model_wait(arg);
	if (request == IOCTL_RFM2G_CANCEL_EVENT)
		return model_cancel(arg);
	assert_int_equal(request, mock_type(unsigned long));
	ret = mock_type(int);
	if (ret < 0)
		return fail_with(-ret);
	fake.value = (unsigned long) arg;
	if (request == IOCTL_RFM2G_GET_LED || request == IOCTL_RFM2G_GET_TRANSMIT_DISABLE ||
	    request == IOCTL_RFM2G_GET_LOOPBACK || request == IOCTL_RFM2G_CLEAR_OWN_DATA ||
	    request == IOCTL_RFM2G_GET_PIO_BYTESWAP || request == IOCTL_RFM2G_GET_DMA_BYTESWAP ||
	    request == IOCTL_RFM2G_GET_DARK_ON_DARK || request == IOCTL_RFM2G_GET_PARITY_ENABLE)
		*(RFM2G_UINT8 *) arg = fake.u8_reply;
	else if (request == IOCTL_RFM2G_GET_MEMORY_OFFSET || request == IOCTL_RFM2G_GET_DEBUG_FLAGS)
		*(RFM2G_UINT32 *) arg = fake.u32_reply;
	else if (request == IOCTL_RFM2G_READ_REG || request == IOCTL_RFM2G_WRITE_REG ||
		 request == IOCTL_RFM2G_SET_REG || request == IOCTL_RFM2G_CLEAR_REG) {
		RFM2GLINUXREGINFO *ri = arg;

		fake.reg = *ri;
		if (request == IOCTL_RFM2G_READ_REG)
			ri->Value = ri->Offset == rfmor_las1rr ? 0xFF000000u :
				    ri->Offset == rfmor_las1ba ? 0x01000001u :
				    ri->Offset == rfm2g_nid    ? 7u : 0u;
	} else if (request == IOCTL_RFM2G_GET_CONFIG)
		memcpy(arg, &fake.cfg, sizeof(fake.cfg));
	else if (request == IOCTL_RFM2G_SEND_EVENT)
		fake.sent = *(RFM2GEVENTINFO *) arg;
	else if (request == IOCTL_RFM2G_SET_SPECIAL_MMAP_OFFSET)
		fake.special = *(RFM2G_UINT64 *) arg;	/* passed by pointer */
	else if (request == IOCTL_RFM2G_SET_DMA_THRESHOLD)
		fake.threshold = *(RFM2G_UINT32 *) arg;	/* by pointer too */
	else if (request == IOCTL_RFM2G_CLEAR_DMA_MMAP_OFFSET)
		fake.cleared = (unsigned long) arg;	/* by value */
	else if (request == IOCTL_RFM2G_READ || request == IOCTL_RFM2G_WRITE) {
		RFM2GTRANSFER *t = arg;

		/* Inside the DMA buffer: the driver DMAs it. */
		assert_ptr_equal(t->Buffer, fake.dma);
		assert_true(t->Length <= fake.dma_len);
		assert_true((size_t) t->Offset + t->Length <= FAKE_WINDOW);
		if (request == IOCTL_RFM2G_READ)
			memcpy(t->Buffer, fake.mem + t->Offset, t->Length);
		else
			memcpy(fake.mem + t->Offset, t->Buffer, t->Length);
		fake.transfers++;
	} else if (request == IOCTL_RFM2G_ENABLE_EVENT)
		fake.enabled |= 1u << ((RFM2GEVENTINFO *) arg)->Event;
	return 0;
}

static int setup(void **state)
{
	(void) state;
	memset(&fake.cfg, 0, sizeof(fake.cfg));
	fake.cfg.NodeId = 7;
	fake.cfg.BoardId = 0x65;
	fake.cfg.MemorySize = 0x4000000;
	fake.cfg.PciConfig.rfm2gWindowSize = FAKE_WINDOW;	/* a sliding window */
	strcpy(fake.cfg.Device, "/dev/rfm2g0");
	fake.opens = fake.closes = fake.munmaps = 0;
	fake.transfers = 0;
	fake.special = 0;
	fake.threshold = 0;
	fake.cleared = 0;
	fake.enabled = 0;
	memset(fake.mem, 0, sizeof(fake.mem));
	pthread_mutex_lock(&fake.lock);
	fake.generation++;
	for (int t = 0; t < 5; t++) {
		fake.pending[t] = fake.waiting[t] = fake.canceled[t] = false;
		fake.foreign_waiter[t] = false;
		fake.ealready[t] = 0;
	}
	pthread_cond_broadcast(&fake.cond);	/* an earlier case's waits end */
	pthread_mutex_unlock(&fake.lock);
	return 0;
}

static rfm_node *open_fake(void)
{
	rfm_node *node = NULL;

	will_return(__wrap_open, 0);
	will_return(__wrap_ioctl, IOCTL_RFM2G_GET_CONFIG);
	will_return(__wrap_ioctl, 0);
	will_return(__wrap_mmap, 0);
	assert_rfm_code(rfm_open(FAKE_URI, &node), 0);
	return node;
}

static void t_open_maps_the_window(void **state)
{
	rfm_node *node = open_fake();
	uint32_t v = 0;

	(void) state;
	assert_int_equal(rfm_node_id(node), 7);
	assert_int_equal(rfm_node_size(node), FAKE_WINDOW);
	assert_string_equal(rfm_node_backend(node), "rfm2g");
	assert_rfm_code(rfm_mem_poke32(node, 0x100, 0xCAFEF00D), 0);
	memcpy(&v, &fake.mem[0x100], 4);
	assert_int_equal(v, 0xCAFEF00D);
	assert_rfm_code(rfm_mem_peek32(node, FAKE_WINDOW - 4, &v), 0);
	assert_rfm_code(rfm_mem_peek32(node, FAKE_WINDOW, &v), RFM_ERANGE);
	rfm_close(node);
	assert_int_equal(fake.munmaps, 1);
	assert_int_equal(fake.closes, 1);
}

static void t_open_errors(void **state)
{
	rfm_node *node = NULL;

	(void) state;
	will_return(__wrap_open, -ENOENT);
	assert_rfm_code(rfm_open(FAKE_URI, &node), RFM_ENOENT);
	will_return(__wrap_open, -EACCES);
	assert_rfm_code(rfm_open(FAKE_URI, &node), RFM_EPERM);
	/* GET_CONFIG fails: the descriptor is closed (the vendor library leaks it). */
	will_return(__wrap_open, 0);
	will_return(__wrap_ioctl, IOCTL_RFM2G_GET_CONFIG);
	will_return(__wrap_ioctl, -EFAULT);
	assert_rfm_code(rfm_open(FAKE_URI, &node), RFM_EIO);
	assert_int_equal(fake.closes, 1);
	will_return(__wrap_open, 0);
	will_return(__wrap_ioctl, IOCTL_RFM2G_GET_CONFIG);
	will_return(__wrap_ioctl, 0);
	will_return(__wrap_mmap, -EAGAIN);
	assert_rfm_code(rfm_open(FAKE_URI, &node), RFM_EIO);
	assert_int_equal(fake.closes, 2);
	/* A driver reporting nonsense is refused before anything is mapped. */
	fake.cfg.NodeId = 300;
	will_return(__wrap_open, 0);
	will_return(__wrap_ioctl, IOCTL_RFM2G_GET_CONFIG);
	will_return(__wrap_ioctl, 0);
	assert_rfm_code(rfm_open(FAKE_URI, &node), RFM_EIO);
	fake.cfg.NodeId = 7;
	fake.cfg.PciConfig.rfm2gWindowSize = 0;
	fake.cfg.MemorySize = 1000;
	will_return(__wrap_open, 0);
	will_return(__wrap_ioctl, IOCTL_RFM2G_GET_CONFIG);
	will_return(__wrap_ioctl, 0);
	assert_rfm_code(rfm_open(FAKE_URI, &node), RFM_EIO);
	assert_int_equal(fake.closes, 4);
	assert_null(node);
	assert_rfm_code(rfm_open("rfm2g:", &node), RFM_EURI);
	/* Parameters the backend does not know: refused, everything released. */
	fake.cfg.MemorySize = 0x4000000;
	fake.cfg.PciConfig.rfm2gWindowSize = FAKE_WINDOW;
	will_return(__wrap_open, 0);
	will_return(__wrap_ioctl, IOCTL_RFM2G_GET_CONFIG);
	will_return(__wrap_ioctl, 0);
	will_return(__wrap_mmap, 0);
	assert_rfm_code(rfm_open(FAKE_URI "?node=3", &node), RFM_EURI);
	assert_int_equal(fake.munmaps, 1);
	assert_int_equal(fake.closes, 5);
}

static void t_send(void **state)
{
	rfm_node *node = open_fake();

	(void) state;
	will_return(__wrap_ioctl, IOCTL_RFM2G_SEND_EVENT);
	will_return(__wrap_ioctl, 0);
	assert_int_equal(rfm_event_send(node, 3, RFM_EVENT_INTR2, 0xBEEF), 1);
	assert_int_equal(fake.sent.Event, RFM2GEVENT_INTR2);
	assert_int_equal(fake.sent.NodeId, 3);
	assert_int_equal(fake.sent.ExtendedInfo, 0xBEEF);
	will_return(__wrap_ioctl, IOCTL_RFM2G_SEND_EVENT);
	will_return(__wrap_ioctl, 0);
	assert_int_equal(rfm_event_send(node, RFM_NODE_ALL, RFM_EVENT_RESET, 1), 1);
	assert_int_equal(fake.sent.NodeId, RFM2G_NODE_ALL);
	assert_int_equal(fake.sent.Event, RFM2GEVENT_RESET);
	/* The driver's EINVAL (e.g. its own node after a jumper change). */
	will_return(__wrap_ioctl, IOCTL_RFM2G_SEND_EVENT);
	will_return(__wrap_ioctl, -EINVAL);
	assert_rfm_code(rfm_event_send(node, 4, RFM_EVENT_INTR1, 0), RFM_EINVAL);
	will_return(__wrap_ioctl, IOCTL_RFM2G_SEND_EVENT);
	will_return(__wrap_ioctl, -EFAULT);
	assert_rfm_code(rfm_event_send(node, 4, RFM_EVENT_INTR1, 0), RFM_EIO);
	/* Refused before the driver: own node, unsendable type. */
	assert_rfm_code(rfm_event_send(node, 7, RFM_EVENT_INTR1, 0), RFM_ESELF);
	assert_rfm_code(rfm_event_send(node, 4, 5, 0), RFM_EINVAL);
	rfm_close(node);
}

static void t_events_through_waiter_threads(void **state)
{
	rfm_node *node = open_fake();
	struct rfm_event ev;

	(void) state;
	will_return(__wrap_ioctl, IOCTL_RFM2G_ENABLE_EVENT);
	will_return(__wrap_ioctl, 0);
	will_return(__wrap_ioctl, IOCTL_RFM2G_ENABLE_EVENT);
	will_return(__wrap_ioctl, 0);
	assert_rfm_code(rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1) |
						 RFM_EVENT_BIT(RFM_EVENT_INTR3)), 0);
	assert_int_equal(fake.enabled, (1u << 1) | (1u << 3));
	/* More interrupts than the driver's queue holds: none is lost. */
	for (uint32_t i = 0; i < 50; i++)
		raise_event(1, 4, 0x1000 + i);
	for (uint32_t i = 0; i < 50; i++) {
		wait_event(node, &ev, "INTR1 from node 4");
		assert_int_equal(ev.type, RFM_EVENT_INTR1);
		assert_int_equal(ev.sender, 4);
		assert_int_equal(ev.data, 0x1000 + i);
	}
	/* Types have a thread each: order holds within a type, not across. */
	raise_event(3, 5, 0x3333);
	wait_event(node, &ev, "INTR3 from node 5");
	assert_int_equal(ev.type, RFM_EVENT_INTR3);
	assert_int_equal(ev.sender, 5);
	assert_int_equal(ev.data, 0x3333);
	/* Disabling ends the thread through CANCEL_EVENT (EIDRM in the wait). */
	assert_rfm_code(rfm_event_disable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1)), 0);
	/* A CMocka assertion never runs with fake.lock held: a failure would
	 * leave it locked for the waiter threads and the next case. */
	assert_false(waiting(1));
	pthread_mutex_lock(&fake.lock);
	/*
	 * The INTR3 thread goes back into the driver's wait after handing over
	 * its record; on a loaded machine it may not be there yet: wait for it
	 * (the wait broadcasts when it starts).
	 */
	assert_cond_wait_until(&fake.cond, &fake.lock, fake.waiting[3],
			       "the INTR3 thread back in the driver's wait");
	pthread_mutex_unlock(&fake.lock);
	assert_rfm_code(rfm_event_wait(node, &ev, 0), RFM_EAGAIN);
	rfm_close(node);	/* ends the INTR3 thread too */
	assert_false(waiting(3));
	assert_int_equal(fake.closes, 1);
}

/*
 * Health on rfm2g: the heartbeat table in the window: a peer (node 3,
 * played by the test through the mapping, as its card's writes would
 * arrive) that beats goes up, one that stops goes down; the records go to
 * this handle's queue, never to the card.
 */
static void t_health_from_the_table(void **state)
{
	const struct rfm_health_config hc = { .struct_size = sizeof(hc), .period_ns = 1000000 };
	struct rfm_node_status rows[4];
	struct rfm_event ev;
	struct rfm_hb_slot *peer;
	rfm_node *node = open_fake();
	void *base;
	uint64_t len;
	int ret = RFM_ETIMEDOUT;

	(void) state;
	assert_rfm_code(rfm_mem_map(node, &base, &len), 0);
	peer = (struct rfm_hb_slot *)((uint8_t *)base + len - RFM_HEALTH_TABLE_SIZE) + 3;
	peer->period_ns = 1000000;
	peer->incarnation = 4;
	peer->state = RFM__HB_BEATING;
	__atomic_store_n(&peer->magic, RFM__HB_MAGIC, __ATOMIC_RELEASE);
	assert_rfm_code(rfm_event_enable(node, RFM_EVENT_MASK_HEALTH), 0);
	assert_rfm_code(rfm_health_start(node, &hc), 0);
	/* The peer beats (each wait is one of its periods) until seen up. */
	for (int i = 0; i < 10000 && ret == RFM_ETIMEDOUT; i++) {
		__atomic_store_n(&peer->beats, peer->beats + 1, __ATOMIC_RELEASE);
		ret = rfm_event_wait(node, &ev, 1000000);
	}
	assert_rfm_code(ret, 0);
	assert_string_equal(rfm_event_type_name(ev.type), "node_up");
	assert_int_equal(ev.sender, 3);
	assert_int_equal(ev.data, 4);
	/* It stops: down after its misses. */
	assert_rfm_code(rfm_event_wait(node, &ev, 10000000000ll), 0); /* a hang guard */
	assert_string_equal(rfm_event_type_name(ev.type), "node_down");
	assert_int_equal(ev.sender, 3);
	assert_int_equal(ev.data, 4);
	assert_int_equal(rfm_health_nodes(node, rows, 4), 2);
	assert_int_equal(rows[0].id, 3);
	assert_int_equal(rows[0].alive, 0);
	assert_int_equal(rows[1].id, 7);
	assert_int_equal(rows[1].alive, 1);
	assert_true(rows[1].host[0] != 0);
	rfm_close(node);
}

/* Transfers of the threshold or more go through the DMA buffer, in chunks. */
static void t_dma(void **state)
{
	static unsigned char out[3 * 4096 * 2 + 100], back[sizeof(out)];
	rfm_node *node = NULL;

	(void) state;
	will_return(__wrap_open, 0);
	will_return(__wrap_ioctl, IOCTL_RFM2G_GET_CONFIG);
	will_return(__wrap_ioctl, 0);
	will_return(__wrap_mmap, 0);
	will_return(__wrap_ioctl, IOCTL_RFM2G_SET_SPECIAL_MMAP_OFFSET);
	will_return(__wrap_ioctl, 0);
	will_return(__wrap_ioctl, IOCTL_RFM2G_SET_DMA_THRESHOLD);
	will_return(__wrap_ioctl, 0);
	assert_rfm_code(rfm_open(FAKE_URI "?dma=0x7F000000&dma_size=12K&dma_threshold=256",
				 &node), 0);
	assert_true(fake.special == (0x7F000000ull | RFM2G_DMA_MMAP_OFFSET));
	assert_int_equal(fake.threshold, 256);
	assert_int_equal(fake.dma_len, 3 * 4096);

	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (unsigned char) (i * 7 + 1);
	/* 24676 bytes through a 12 KiB buffer: three WRITE ioctls. */
	for (int i = 0; i < 3; i++) {
		will_return(__wrap_ioctl, IOCTL_RFM2G_WRITE);
		will_return(__wrap_ioctl, 0);
	}
	assert_rfm_code(rfm_mem_write(node, 0x100, out, sizeof(out)), 0);
	assert_int_equal(fake.transfers, 3);
	assert_memory_equal(fake.mem + 0x100, out, sizeof(out));
	for (int i = 0; i < 3; i++) {
		will_return(__wrap_ioctl, IOCTL_RFM2G_READ);
		will_return(__wrap_ioctl, 0);
	}
	assert_rfm_code(rfm_mem_read(node, 0x100, back, sizeof(back)), 0);
	assert_memory_equal(back, out, sizeof(out));
	/* Below the threshold: through the mapping, no ioctl. */
	assert_rfm_code(rfm_mem_read(node, 0x100, back, 255), 0);
	assert_int_equal(fake.transfers, 6);
	/* A failing DMA is an I/O error. */
	will_return(__wrap_ioctl, IOCTL_RFM2G_READ);
	will_return(__wrap_ioctl, -EFAULT);
	assert_rfm_code(rfm_mem_read(node, 0, back, 4096), RFM_EIO);
	assert_rfm_code(rfm_mem_read(node, FAKE_WINDOW - 100, back, 4096), RFM_ERANGE);

	will_return(__wrap_ioctl, IOCTL_RFM2G_CLEAR_DMA_MMAP_OFFSET);
	will_return(__wrap_ioctl, 0);
	rfm_close(node);
	assert_int_equal(fake.cleared, (unsigned long) (uint32_t) (uintptr_t) fake.dma);
	assert_int_equal(fake.munmaps, 2);

	/* Half a DMA request, or a bad address, is refused before any ioctl. */
	will_return(__wrap_open, 0);
	will_return(__wrap_ioctl, IOCTL_RFM2G_GET_CONFIG);
	will_return(__wrap_ioctl, 0);
	will_return(__wrap_mmap, 0);
	assert_rfm_code(rfm_open(FAKE_URI "?dma=0x7F000000", &node), RFM_EURI);
	will_return(__wrap_open, 0);
	will_return(__wrap_ioctl, IOCTL_RFM2G_GET_CONFIG);
	will_return(__wrap_ioctl, 0);
	will_return(__wrap_mmap, 0);
	assert_rfm_code(rfm_open(FAKE_URI "?dma=0x7F000100&dma_size=4096", &node), RFM_EURI);
}

static void expect(unsigned long request, int ret)
{
	will_return(__wrap_ioctl, request);
	will_return(__wrap_ioctl, ret);
}

static RFM2GHANDLE open_rfm2g_api(void)
{
	RFM2GHANDLE h = NULL;

	will_return(__wrap_open, 0);		/* librfm's rfm2g: backend */
	expect(IOCTL_RFM2G_GET_CONFIG, 0);
	will_return(__wrap_mmap, 0);
	expect(IOCTL_RFM2G_GET_CONFIG, 0);	/* librfm2g's, through the board op */
	assert_int_equal(RFM2gOpen((char *) FAKE_URI, &h), RFM2G_SUCCESS);
	/* One open of the card: the board controls use the backend's descriptor. */
	assert_int_equal(fake.opens, 1);
	assert_int_equal(h->fd, FAKE_FD);
	return h;
}

/* librfm2g's DMA buffer and register maps go through the vendor driver: sites
 * map them as the vendor's programs do. */
static void t_rfm2g_special_maps_on_card(void **state)
{
	static unsigned char plain[8192];
	volatile void *dma = NULL, *cs = NULL;
	unsigned char *buf;
	RFM2GHANDLE h;

	(void) state;
	fake.cfg.PciConfig.rfm2gCsBase = 0xFEB01040u;	/* BAR2 40 bytes into its page */
	h = open_rfm2g_api();
	expect(IOCTL_RFM2G_SET_DMA_THRESHOLD, 0);
	assert_int_equal(RFM2gSetDMAThreshold(h, 4096), RFM2G_SUCCESS);
	assert_int_equal(fake.threshold, 4096);
	expect(IOCTL_RFM2G_SET_SPECIAL_MMAP_OFFSET, 0);
	assert_int_equal(RFM2gUserMemory(h, &dma, 0x7F000000ull | RFM2G_DMA_MMAP_OFFSET, 4),
			 RFM2G_SUCCESS);
	assert_true(fake.special == (0x7F000000ull | RFM2G_DMA_MMAP_OFFSET));
	assert_ptr_equal((void *) (uintptr_t) dma, fake.dma);
	buf = (unsigned char *) (uintptr_t) dma;
	for (int i = 0; i < 8192; i++)
		buf[i] = (unsigned char) (i * 5 + 3);
	/* From the DMA buffer, at the threshold or above: the driver's WRITE. */
	expect(IOCTL_RFM2G_WRITE, 0);
	assert_int_equal(RFM2gWrite(h, 0x100, buf, 8192), RFM2G_SUCCESS);
	assert_int_equal(fake.transfers, 1);
	assert_memory_equal(fake.mem + 0x100, buf, 8192);
	memset(buf, 0, 8192);
	expect(IOCTL_RFM2G_READ, 0);
	assert_int_equal(RFM2gRead(h, 0x100, buf, 8192), RFM2G_SUCCESS);
	assert_int_equal(fake.transfers, 2);
	assert_memory_equal(buf, fake.mem + 0x100, 8192);
	/* Below the threshold, or a buffer elsewhere: through the window. */
	assert_int_equal(RFM2gRead(h, 0x100, buf, 4095), RFM2G_SUCCESS);
	assert_int_equal(RFM2gRead(h, 0x100, plain, sizeof(plain)), RFM2G_SUCCESS);
	assert_int_equal(fake.transfers, 2);
	assert_memory_equal(plain, fake.mem + 0x100, sizeof(plain));
	/* A failing DMA is the vendor's OS_ERROR. */
	expect(IOCTL_RFM2G_READ, -EFAULT);
	assert_int_equal(RFM2gRead(h, 0, buf, 4096), RFM2G_OS_ERROR);
	/* Unmapping disarms the descriptor's buffer. */
	expect(IOCTL_RFM2G_CLEAR_DMA_MMAP_OFFSET, 0);
	assert_int_equal(RFM2gUnMapUserMemory(h, &dma, 4), RFM2G_SUCCESS);
	assert_null(dma);
	assert_int_equal(fake.cleared, (unsigned long) (uint32_t) (uintptr_t) fake.dma);
	assert_int_equal(fake.munmaps, 1);

	/* The control registers: the card's BAR2 page, at the BAR's offset in it. */
	fake.regs[0x40 + rfm2g_nid] = 7;
	expect(IOCTL_RFM2G_SET_SPECIAL_MMAP_OFFSET, 0);
	assert_int_equal(RFM2gMapDeviceMemory(h, RFM2GCTRLREGMEM, &cs), RFM2G_SUCCESS);
	assert_true(fake.special == RFM2G_BAR2_MMAP_OFFSET);
	assert_ptr_equal((void *) (uintptr_t) cs, fake.regs + 0x40);
	assert_int_equal(((volatile unsigned char *) cs)[rfm2g_nid], 7);
	assert_int_equal(RFM2gUnMapDeviceMemory(h, RFM2GCTRLREGMEM, &cs), RFM2G_SUCCESS);
	assert_null(cs);
	assert_int_equal(fake.munmaps, 2);
	/* A failing special-map ioctl: the vendor's OS_ERROR. */
	expect(IOCTL_RFM2G_SET_SPECIAL_MMAP_OFFSET, -EINVAL);
	assert_int_equal(RFM2gMapDeviceMemory(h, RFM2GCFGREGMEM, &cs), RFM2G_OS_ERROR);
	assert_null(cs);
	assert_int_equal(RFM2gClose(&h), RFM2G_SUCCESS);
}

static void t_rfm2g_api_on_card(void **state)
{
	RFM2GHANDLE h;
	RFM2G_UINT32 v32 = 0, off = 0, size = 0;
	RFM2G_NODE node;
	RFM2G_BOOL b;
	RFM2GCONFIG c;

	(void) state;
	fake.cfg.BoardRevision = 0x90;
	h = open_rfm2g_api();
	assert_int_equal(RFM2gNodeID(h, &node), RFM2G_SUCCESS);
	assert_int_equal(node, 7);
	assert_string_equal(h->Config.Device, "/dev/rfm2g0");	/* the driver's config */
	/* Memory goes through librfm's mapping of the window. */
	assert_int_equal(RFM2gPoke32(h, 0x40, 0x12345678), RFM2G_SUCCESS);
	memcpy(&v32, &fake.mem[0x40], 4);
	assert_int_equal(v32, 0x12345678);
	/* Inside the board's memory, outside its window: the vendor's OS_ERROR. */
	assert_int_equal(RFM2gPeek32(h, FAKE_WINDOW, &v32), RFM2G_OS_ERROR);
	assert_int_equal(RFM2gPeek32(h, 0x4000000, &v32), RFM2G_OUT_OF_RANGE);

	/* Board controls go to the driver, with its argument conventions. */
	expect(IOCTL_RFM2G_SET_LED, 0);
	assert_int_equal(RFM2gSetLed(h, RFM2G_ON), RFM2G_SUCCESS);
	assert_int_equal(fake.value, 1);
	fake.u8_reply = 1;
	expect(IOCTL_RFM2G_GET_TRANSMIT_DISABLE, 0);
	assert_int_equal(RFM2gGetTransmit(h, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_OFF);		/* the API inverts "disable" */
	expect(IOCTL_RFM2G_SET_TRANSMIT_DISABLE, 0);
	assert_int_equal(RFM2gSetTransmit(h, RFM2G_ON), RFM2G_SUCCESS);
	assert_int_equal(fake.value, 0);
	expect(IOCTL_RFM2G_GET_LED, -EIO);
	assert_int_equal(RFM2gGetLed(h, &b), RFM2G_OS_ERROR);
	assert_int_equal(RFM2gGetLed(h, NULL), RFM2G_BAD_PARAMETER_2);	/* no ioctl */
	expect(IOCTL_RFM2G_CHECK_RING_CONT, -EFAULT);
	assert_int_equal(RFM2gCheckRingCont(h), RFM2G_LINK_TEST_FAIL);
	expect(IOCTL_RFM2G_SET_MEMORY_OFFSET, 0);
	assert_int_equal(RFM2gSetMemoryOffset(h, RFM2G_MEM_OFFSET3), RFM2G_SUCCESS);
	assert_int_equal(fake.value, 3);
	expect(IOCTL_RFM2G_SET_PIO_BYTE_SWAP, 0);
	assert_int_equal(RFM2gSetPIOByteSwap(h, RFM2G_ON), RFM2G_SUCCESS);
	expect(IOCTL_RFM2G_GET_CONFIG, 0);
	assert_int_equal(RFM2gGetConfig(h, &c), RFM2G_SUCCESS);
	assert_int_equal(c.BoardRevision, 0x90);
	expect(IOCTL_RFM2G_READ_REG, 0);
	assert_int_equal(RFM2gReadReg(h, RFM2GCTRLREGMEM, rfm2g_nid, 1, &v32), RFM2G_SUCCESS);
	assert_int_equal(fake.reg.regset, RFM2GCTRLREGMEM);
	assert_int_equal(fake.reg.Width, 1);
	expect(IOCTL_RFM2G_WRITE_REG, 0);
	assert_int_equal(RFM2gWriteReg(h, RFM2GCTRLREGMEM, rfm2g_lcsr, 4, 0x80000000u),
			 RFM2G_SUCCESS);
	assert_int_equal(fake.reg.Value, 0x80000000u);
	assert_int_equal(RFM2gWriteReg(h, RFM2GCFGREGIO, 0, 4, 0), RFM2G_BAD_PARAMETER_2);

	/* The sliding window, read and moved as the vendor library does. */
	expect(IOCTL_RFM2G_GET_CONFIG, 0);
	expect(IOCTL_RFM2G_READ_REG, 0);
	expect(IOCTL_RFM2G_READ_REG, 0);
	assert_int_equal(RFM2gGetSlidingWindow(h, &off, &size), RFM2G_SUCCESS);
	assert_int_equal(off, 0x01000000u);
	assert_int_equal(size, 16u << 20);
	expect(IOCTL_RFM2G_GET_CONFIG, 0);
	expect(IOCTL_RFM2G_READ_REG, 0);
	expect(IOCTL_RFM2G_READ_REG, 0);
	assert_int_equal(RFM2gSetSlidingWindow(h, 4096), RFM2G_BAD_PARAMETER_2);
	expect(IOCTL_RFM2G_GET_CONFIG, 0);
	expect(IOCTL_RFM2G_READ_REG, 0);
	expect(IOCTL_RFM2G_READ_REG, 0);
	expect(IOCTL_RFM2G_SET_SLIDING_WINDOW_OFFSET, 0);
	assert_int_equal(RFM2gSetSlidingWindow(h, 32u << 20), RFM2G_SUCCESS);
	assert_int_equal(fake.value, 32u << 20);
	fake.cfg.BoardRevision = 0x80;
	expect(IOCTL_RFM2G_GET_CONFIG, 0);
	assert_int_equal(RFM2gGetSlidingWindow(h, &off, NULL), RFM2G_NOT_SUPPORTED);

	assert_int_equal(RFM2gClose(&h), RFM2G_SUCCESS);
	assert_int_equal(fake.opens, 1);
	assert_int_equal(fake.closes, 1);
	assert_int_equal(fake.munmaps, 1);
}

/* Every board control reaches the driver with its own request and argument convention. */
static void t_rfm2g_board_requests(void **state)
{
	static const struct {
		RFM2G_STATUS (*get)(RFM2GHANDLE rh, RFM2G_BOOL *on);
		RFM2G_STATUS (*set)(RFM2GHANDLE rh, RFM2G_BOOL on);
		unsigned long get_request, set_request;
		bool inverted;	/* the API's "transmit" is the driver's "transmit disable" */
	} switches[] = {
		{ RFM2gGetLed, RFM2gSetLed, IOCTL_RFM2G_GET_LED, IOCTL_RFM2G_SET_LED, false },
		{ RFM2gGetDarkOnDark, RFM2gSetDarkOnDark, IOCTL_RFM2G_GET_DARK_ON_DARK,
		  IOCTL_RFM2G_SET_DARK_ON_DARK, false },
		{ RFM2gGetTransmit, RFM2gSetTransmit, IOCTL_RFM2G_GET_TRANSMIT_DISABLE,
		  IOCTL_RFM2G_SET_TRANSMIT_DISABLE, true },
		{ RFM2gGetLoopback, RFM2gSetLoopback, IOCTL_RFM2G_GET_LOOPBACK,
		  IOCTL_RFM2G_SET_LOOPBACK, false },
		{ RFM2gGetParityEnable, RFM2gSetParityEnable, IOCTL_RFM2G_GET_PARITY_ENABLE,
		  IOCTL_RFM2G_SET_PARITY_ENABLE, false },
		{ RFM2gGetDMAByteSwap, RFM2gSetDMAByteSwap, IOCTL_RFM2G_GET_DMA_BYTESWAP,
		  IOCTL_RFM2G_SET_DMA_BYTE_SWAP, false },
		{ RFM2gGetPIOByteSwap, RFM2gSetPIOByteSwap, IOCTL_RFM2G_GET_PIO_BYTESWAP,
		  IOCTL_RFM2G_SET_PIO_BYTE_SWAP, false },
	};
	RFM2G_MEM_OFFSETTYPE off = RFM2G_MEM_OFFSET0;
	RFM2G_UINT32 flags = 0;
	RFM2G_BOOL b = RFM2G_OFF;
	RFM2GHANDLE h;

	(void) state;
	h = open_rfm2g_api();
	for (size_t i = 0; i < sizeof(switches) / sizeof(switches[0]); i++) {
		fake.u8_reply = 1;
		expect(switches[i].get_request, 0);
		assert_int_equal(switches[i].get(h, &b), RFM2G_SUCCESS);
		assert_int_equal(b, switches[i].inverted ? RFM2G_OFF : RFM2G_ON);
		expect(switches[i].set_request, 0);
		assert_int_equal(switches[i].set(h, RFM2G_ON), RFM2G_SUCCESS);
		assert_int_equal(fake.value, switches[i].inverted ? 0 : 1);	/* by value */
		expect(switches[i].set_request, -EIO);
		assert_int_equal(switches[i].set(h, RFM2G_OFF), RFM2G_OS_ERROR);
	}
	fake.u32_reply = RFM2G_MEM_OFFSET2;
	expect(IOCTL_RFM2G_GET_MEMORY_OFFSET, 0);
	assert_int_equal(RFM2gGetMemoryOffset(h, &off), RFM2G_SUCCESS);
	assert_int_equal(off, RFM2G_MEM_OFFSET2);
	fake.u32_reply = 0x30;
	expect(IOCTL_RFM2G_GET_DEBUG_FLAGS, 0);
	assert_int_equal(RFM2gGetDebugFlags(h, &flags), RFM2G_SUCCESS);
	assert_int_equal(flags, 0x30);
	expect(IOCTL_RFM2G_SET_DEBUG_FLAGS, 0);
	assert_int_equal(RFM2gSetDebugFlags(h, 0x11), RFM2G_SUCCESS);
	assert_int_equal(fake.value, 0x11);
	fake.u8_reply = 1;
	expect(IOCTL_RFM2G_CLEAR_OWN_DATA, 0);
	assert_int_equal(RFM2gClearOwnData(h, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_ON);
	expect(IOCTL_RFM2G_SET_REG, 0);
	assert_int_equal(RFM2gSetReg(h, RFM2GCTRLREGMEM, rfm2g_lcsr, 4, 0x4), RFM2G_SUCCESS);
	assert_int_equal(fake.reg.Value, 0x4);
	assert_int_equal(fake.reg.Offset, rfm2g_lcsr);
	expect(IOCTL_RFM2G_CLEAR_REG, -EINVAL);
	assert_int_equal(RFM2gClearReg(h, RFM2GCTRLREGMEM, rfm2g_lcsr, 4, 0x4), RFM2G_OS_ERROR);
	assert_int_equal(RFM2gClose(&h), RFM2G_SUCCESS);
	assert_int_equal(fake.closes, 1);
}

/* The library's own GET_CONFIG fails: nothing stays open (the vendor's leaks the fd). */
static void t_rfm2g_api_open_fails(void **state)
{
	RFM2GHANDLE h = (RFM2GHANDLE) 1;

	(void) state;
	will_return(__wrap_open, 0);
	expect(IOCTL_RFM2G_GET_CONFIG, 0);
	will_return(__wrap_mmap, 0);
	expect(IOCTL_RFM2G_GET_CONFIG, -EFAULT);
	assert_int_equal(RFM2gOpen((char *) FAKE_URI, &h), RFM2G_OS_ERROR);
	assert_null(h);
	assert_int_equal(fake.opens, 1);
	assert_int_equal(fake.closes, 1);
	assert_int_equal(fake.munmaps, 1);
	will_return(__wrap_open, -ENOENT);
	assert_int_equal(RFM2gOpen((char *) FAKE_URI, &h), RFM2G_NO_RFM2G_BOARD);
}

/* Another process already waits on the board's INTR2: ours gets EALREADY and stops. */
static void t_event_owned_elsewhere(void **state)
{
	rfm_node *node = open_fake();
	struct rfm_event ev;

	(void) state;
	fake.foreign_waiter[2] = true;
	will_return(__wrap_ioctl, IOCTL_RFM2G_ENABLE_EVENT);
	will_return(__wrap_ioctl, 0);
	assert_rfm_code(rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR2)), 0);
	pthread_mutex_lock(&fake.lock);
	assert_cond_wait_until(&fake.cond, &fake.lock, fake.ealready[2] != 0,
			       "EALREADY for the INTR2 waiter");
	pthread_mutex_unlock(&fake.lock);
	assert_rfm_code(rfm_event_wait(node, &ev, 0), RFM_EAGAIN);
	rfm_close(node);
	assert_int_equal(fake.ealready[2], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(t_open_maps_the_window, setup),
		cmocka_unit_test_setup(t_open_errors, setup),
		cmocka_unit_test_setup(t_send, setup),
		cmocka_unit_test_setup(t_events_through_waiter_threads, setup),
		cmocka_unit_test_setup(t_event_owned_elsewhere, setup),
		cmocka_unit_test_setup(t_health_from_the_table, setup),
		cmocka_unit_test_setup(t_dma, setup),
		cmocka_unit_test_setup(t_rfm2g_api_on_card, setup),
		cmocka_unit_test_setup(t_rfm2g_board_requests, setup),
		cmocka_unit_test_setup(t_rfm2g_special_maps_on_card, setup),
		cmocka_unit_test_setup(t_rfm2g_api_open_fails, setup),
	};

	unsetenv("RFM_URI");	/* RFM2gOpen() would open that instead */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
