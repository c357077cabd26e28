// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ioctls.c - a vm-stress program (stress.h):
 * the ioctl interface: foreign requests (rpmsg's on the old magic),
 * oversized ones, and random requests with bad arguments.
 */
#include <sys/time.h>

#include "stress.h"

static bool allowed_errno(int e)
{
	switch (e) {
	case ENOTTY: case EINVAL: case EFAULT: case E2BIG: case EBADF: case EHOSTUNREACH:
	case EBUSY: case EOPNOTSUPP: case ETIMEDOUT: case ENOSPC: case EINTR: case ENOMEM:
		return true;
	default:
		return false;
	}
}

static void t_ioctls(void)
{
	int fd = open_card(O_RDWR | O_NONBLOCK);
	struct rfm_dev_event ev;
	struct rfm_dev_info info;
	uint32_t mask = RFM_DEV_MASK_ALL & ~RFM_DEV_EV_BIT(RFM_DEV_EV_OVERFLOW);
	static uint8_t page[5 * 4096] __attribute__((aligned(4096))); /* > any _IOC_SIZE */
	struct itimerval tick = { { 0, 20000 }, { 0, 20000 } };
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned int seed = 12345;
	int bad = 0;

	lab_begin(&L, "foreign, oversized and random ioctls fail cleanly");
	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_INFO, &info));
	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_MASK, &mask));
	/*
	 * rpmsg's RPMSG_CREATE_EPT_IOCTL, zeroed: on the old magic it was an
	 * RFM_IOC_SEND of a RESET to node 0. It must not be ours.
	 */
	struct {
		char name[32];
		uint32_t src, dst;
	} ept = { "", 0, 0 };
	CHECK_ERRNO(&L, ioctl(fd, _IOW(0xb5, 0x1, ept), &ept), ENOTTY);
	CHECK_ERRNO(&L, ioctl(fd, _IOW(0xb5, 0x0, struct rfm_dev_info), &info), ENOTTY);
	/* Sizes: exact for __u32 requests, at most a page for structures. */
	memset(page, 0, sizeof(page));
	CHECK_ERRNO(&L, ioctl(fd, _IOW(RFM_IOC_MAGIC, _IOC_NR(RFM_IOC_SEND), char[8192]), page),
		    ENOTTY);
	CHECK_ERRNO(&L, ioctl(fd, _IOR(RFM_IOC_MAGIC, _IOC_NR(RFM_IOC_GET_INFO), char[8192]),
			      page), ENOTTY);
	CHECK_ERRNO(&L, ioctl(fd, _IOW(RFM_IOC_MAGIC, _IOC_NR(RFM_IOC_SET_MASK), uint64_t), page),
		    ENOTTY);
	CHECK_ERRNO(&L, ioctl(fd, _IOW(RFM_IOC_MAGIC, _IOC_NR(RFM_IOC_FLUSH), uint32_t), page),
		    ENOTTY);
	CHECK_ERRNO(&L, read(fd, &ev, sizeof(ev)), EAGAIN);	/* nothing was sent */

	/* Random requests; a timer signal ends any wait they start. */
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &tick, NULL);
	void *gone = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (int i = 0; i < 20000; i++) {
		unsigned int nr = (unsigned int)rand_r(&seed) % 0x30;
		unsigned int dir = (unsigned int)rand_r(&seed) % 4;
		unsigned int size = (unsigned int)rand_r(&seed) % 5 == 0 ?
			(unsigned int)rand_r(&seed) % 0x3fff : (unsigned int)rand_r(&seed) % 80;
		unsigned int type = (unsigned int)rand_r(&seed) % 16 == 0 ? 0xb5 : RFM_IOC_MAGIC;
		unsigned long cmd = _IOC(dir, type, nr, size);
		void *arg;

		for (size_t k = 0; k < 256; k++)
			page[k] = (uint8_t)rand_r(&seed);
		switch (rand_r(&seed) % 4) {
		case 0: arg = NULL; break;
		case 1: arg = gone; break;
		case 2: /* a kernel address: never ours to touch */
			arg = (void *)(uintptr_t)(0xffffffff81000000ull + (unsigned int)rand_r(&seed));
			break;
		default: arg = page; break;
		}
		errno = 0;
		long r = ioctl(fd, cmd, arg);
		if (r < 0 && !allowed_errno(errno)) {
			if (bad++ < 5)
				CHECK(&L, false, "ioctl 0x%lx: errno %d (%s)", cmd, errno,
				      strerror(errno));
		}
		/* Drain what random sends delivered, so queues stay small. */
		while (read(fd, page, 4096) > 0)
			;
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	munmap(gone, 4096);
	CHECK_EQ(&L, bad, 0);
	/* Still a working card afterwards. */
	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_INFO, &info));
	close(fd);
	lab_end(&L);
}

int main(void)
{
	stress_init();
	t_ioctls();
	return lab_finish(&L);
}
