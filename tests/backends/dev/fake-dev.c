/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pretend /dev/rfm0 behind -Wl,--wrap= (see fake-dev.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake-dev.h"

struct fake_dev fake_dev;

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rfm_dev_event queue[FAKE_DEV_QUEUE];
static unsigned int q_head, q_count;
/* Readable while records are queued: what the fake's poll waits on. */
static int ready_fd = -1;

int __real_open(const char *path, int flags, ...);
int __real_fstat(int fd, struct stat *st);
int __real_stat(const char *path, struct stat *st);
ssize_t __real_readlink(const char *path, char *buf, size_t len);
int __real_ioctl(int fd, unsigned long request, ...);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);
ssize_t __real_read(int fd, void *buf, size_t len);
int __real_poll(struct pollfd *fds, nfds_t n, int timeout);
int __real_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask);
int __real_close(int fd);

void fake_dev_reset(uint32_t id, uint32_t caps)
{
	memset(&fake_dev, 0, sizeof(fake_dev));
	fake_dev.info = (struct rfm_dev_info){
		.abi_version = RFM_DEV_ABI_VERSION,
		.card_type = RFM_DEV_CARD_IVSHMEM,
		.node_id = id,
		.max_nodes = 32,
		.window_size = 64 * 1024,
		.memory_size = 64 * 1024 + 2 * 1024 * 1024,
		.caps = caps,
		.queue_depth = RFM_DEV_QUEUE_DEFAULT,
		.event_size = sizeof(struct rfm_dev_event),
		.driver_version = "0.1.0",
	};
	fake_dev.mode = S_IFCHR | 0600;
	fake_dev.sleep_fd = -1;
	fake_dev.class_link = "../../class/rfm";
	pthread_mutex_lock(&queue_lock);
	q_head = q_count = 0;
	if (ready_fd < 0)
		ready_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	uint64_t v;
	while (__real_read(ready_fd, &v, sizeof(v)) > 0) {
	}
	pthread_mutex_unlock(&queue_lock);
}

void fake_dev_push(uint16_t type, uint32_t sender, uint32_t data, uint64_t seq, uint64_t sent_ns)
{
	uint64_t one = 1;

	pthread_mutex_lock(&queue_lock);
	assert_true(q_count < FAKE_DEV_QUEUE);
	queue[(q_head + q_count++) % FAKE_DEV_QUEUE] = (struct rfm_dev_event){
		.type = type, .sender = sender, .data = data, .seq = seq, .sent_ns = sent_ns,
	};
	if (q_count == 1)
		assert_int_equal(write(ready_fd, &one, sizeof(one)), sizeof(one));
	pthread_mutex_unlock(&queue_lock);
}

unsigned int fake_dev_queued(void)
{
	pthread_mutex_lock(&queue_lock);
	unsigned int n = q_count;
	pthread_mutex_unlock(&queue_lock);
	return n;
}

static int fail_with(int err)
{
	errno = err;
	return -1;
}

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = va_arg(ap, mode_t);
	va_end(ap);
	if (strcmp(path, FAKE_DEV_PATH))
		return __real_open(path, flags, mode);
	assert_int_equal(flags & O_ACCMODE, O_RDWR);
	assert_true(flags & O_CLOEXEC);
	int ret = mock_type(int);
	if (ret < 0)
		return fail_with(-ret);
	fake_dev.opens++;
	return ret;
}

int __wrap_fstat(int fd, struct stat *st)
{
	if (fd != FAKE_DEV_FD)
		return __real_fstat(fd, st);
	memset(st, 0, sizeof(*st));
	st->st_mode = fake_dev.fstat_mode ? fake_dev.fstat_mode : fake_dev.mode;
	return 0;
}

int __wrap_stat(const char *path, struct stat *st)
{
	if (strcmp(path, FAKE_DEV_PATH))
		return __real_stat(path, st);
	memset(st, 0, sizeof(*st));
	st->st_mode = fake_dev.mode;
	st->st_rdev = makedev(240, 7);
	return 0;
}

ssize_t __wrap_readlink(const char *path, char *buf, size_t len)
{
	size_t n;

	if (strcmp(path, FAKE_DEV_SYSFS))
		return __real_readlink(path, buf, len);
	if (!fake_dev.class_link)
		return fail_with(ENOENT);
	n = strlen(fake_dev.class_link);
	if (n > len)
		n = len;
	memcpy(buf, fake_dev.class_link, n); /* no NUL, as readlink(2) */
	return (ssize_t)n;
}

int __wrap_ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != FAKE_DEV_FD)
		return __real_ioctl(fd, request, arg);
	if (fake_dev.gone)
		return fail_with(ENODEV);
	if (request == RFM_IOC_GET_INFO) {
		if (fake_dev.info_errno)
			return fail_with(fake_dev.info_errno);
		/* link may change under a reader (a test plays the card's LCSR
		 * while the library's health thread asks): copied atomically. */
		struct rfm_dev_info *out = arg;
		size_t at = offsetof(struct rfm_dev_info, link), after = at + sizeof(out->link);
		memcpy(out, &fake_dev.info, at);
		out->link = __atomic_load_n(&fake_dev.info.link, __ATOMIC_ACQUIRE);
		memcpy((char *)out + after, (const char *)&fake_dev.info + after,
		       sizeof(*out) - after);
		return 0;
	}
	switch (request) {
	case RFM_IOC_SEND:
		fake_dev.last_send = *(struct rfm_dev_send *)arg;
		fake_dev.sends++;
		break;
	case RFM_IOC_SET_MASK:
		fake_dev.mask = *(uint32_t *)arg;
		break;
	case RFM_IOC_SET_QUEUE_DEPTH:
		fake_dev.depth_set = *(uint32_t *)arg;
		break;
	case RFM_IOC_DMA:
		fake_dev.last_dma = *(struct rfm_dev_dma *)arg;
		fake_dev.dmas++;
		break;
	default:
		fail_msg("unexpected ioctl 0x%lx", request);
	}
	int ret = mock_type(int);
	if (ret < 0)
		return fail_with(-ret);
	if (request == RFM_IOC_DMA) {
		struct rfm_dev_dma *d = arg;
		void *user = (void *)(uintptr_t)d->buf;
		if (d->dir == RFM_DEV_DMA_TO_CARD)
			memcpy(fake_dev.window + d->offset, user, d->length);
		else
			memcpy(user, fake_dev.window + d->offset, d->length);
	}
	return ret;
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (fd != FAKE_DEV_FD)
		return __real_mmap(addr, len, prot, flags, fd, off);
	assert_int_equal(off, 0);
	assert_int_equal(len, fake_dev.info.window_size);
	assert_true(flags & MAP_SHARED);
	if (fake_dev.mmap_errno) {
		errno = fake_dev.mmap_errno;
		return MAP_FAILED;
	}
	void *p = __real_mmap(addr, len, prot, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		fake_dev.window = p;
		fake_dev.maps++;
	}
	return p;
}

int __wrap_munmap(void *addr, size_t len)
{
	if (addr == fake_dev.window && addr) {
		fake_dev.unmaps++;
		fake_dev.window = NULL;
	}
	return __real_munmap(addr, len);
}

ssize_t __wrap_read(int fd, void *buf, size_t len)
{
	size_t n = 0;
	uint64_t v;

	if (fd != FAKE_DEV_FD)
		return __real_read(fd, buf, len);
	if (fake_dev.gone)
		return fail_with(ENODEV);
	if (len < sizeof(struct rfm_dev_event))
		return fail_with(EINVAL);
	pthread_mutex_lock(&queue_lock);
	while (q_count && (n + 1) * sizeof(struct rfm_dev_event) <= len) {
		((struct rfm_dev_event *)buf)[n++] = queue[q_head];
		q_head = (q_head + 1) % FAKE_DEV_QUEUE;
		q_count--;
	}
	if (!q_count)
		while (__real_read(ready_fd, &v, sizeof(v)) > 0) {
		}
	pthread_mutex_unlock(&queue_lock);
	if (!n)
		return fail_with(EAGAIN);
	return (ssize_t)(n * sizeof(struct rfm_dev_event));
}

/* The fake device's descriptor polls as ready_fd does (or hangs up). */
static int fake_poll(struct pollfd *fds, nfds_t n, const struct timespec *ts, int timeout,
		     bool is_ppoll)
{
	nfds_t dev = n;
	int ret;

	for (nfds_t i = 0; i < n; i++)
		if (fds[i].fd == FAKE_DEV_FD)
			dev = i;
	if (dev == n)
		return is_ppoll ? __real_ppoll(fds, n, ts, NULL) : __real_poll(fds, n, timeout);
	if (fake_dev.gone) {
		fds[dev].revents = POLLHUP | POLLERR;
		for (nfds_t i = 0; i < n; i++)
			if (i != dev)
				fds[i].revents = 0;
		return 1;
	}
	fds[dev].fd = ready_fd;
	ret = is_ppoll ? __real_ppoll(fds, n, ts, NULL) : __real_poll(fds, n, timeout);
	fds[dev].fd = FAKE_DEV_FD;
	return ret;
}

int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	return fake_poll(fds, n, NULL, timeout, false);
}

int __wrap_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	bool dev = false;

	assert_null(mask);
	for (nfds_t i = 0; i < n; i++)
		dev |= fds[i].fd == FAKE_DEV_FD;
	if (dev) {
		for (nfds_t i = 0; i < n; i++)
			if (fds[i].fd != FAKE_DEV_FD && fds[i].fd >= 0)
				fake_dev.sleep_fd = fds[i].fd;
		if (fake_dev.push_on_sleep) {
			fake_dev.push_on_sleep = false;
			fake_dev_push(fake_dev.sleep_type, fake_dev.sleep_sender,
				      fake_dev.sleep_data, 1, 0);
		}
	}
	return fake_poll(fds, n, ts, 0, true);
}

int __wrap_close(int fd)
{
	if (fd != FAKE_DEV_FD)
		return __real_close(fd);
	fake_dev.closes++;
	return 0;
}
