/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A pretend /dev/rfm0 for unit tests of the dev: backend without a card
 * or a module: the test binary is linked with -Wl,--wrap= for open,
 * fstat, ioctl, mmap, munmap, read, poll, ppoll and close. Calls on any
 * other path or descriptor go to the real functions.
 *
 * Scripted replies (CMocka will_return on the wrapper):
 *   __wrap_open   one int per open of FAKE_DEV_PATH: FAKE_DEV_FD, or -errno
 *   __wrap_ioctl  one int per request other than GET_INFO: 0 or -errno
 *                 (GET_INFO answers from fake_dev.info, or fake_dev.info_errno)
 * Everything else is state: fake_dev.info, the event queue the driver
 * holds (fake_dev_push), what the library asked (last send, mask, DMA).
 */
#ifndef RFM_TEST_FAKE_DEV_H
#define RFM_TEST_FAKE_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <rfm/uapi/rfm_dev.h>

#define FAKE_DEV_PATH "/fake/rfm0"
#define FAKE_DEV_FD 1000
#define FAKE_DEV_SYSFS "/sys/dev/char/240:7/subsystem"

#define FAKE_DEV_QUEUE 4096

struct fake_dev {
	struct rfm_dev_info info;	/* what GET_INFO answers */
	int info_errno;			/* non-zero: GET_INFO fails so */
	mode_t mode;			/* stat/fstat's st_mode (default S_IFCHR|0600) */
	mode_t fstat_mode;		/* non-zero: fstat says this instead */
	const char *class_link;		/* its sysfs subsystem link; NULL: none */
	int mmap_errno;			/* non-zero: mmap fails so */
	bool gone;			/* the card was removed: POLLHUP, ENODEV */

	/* What the library did. */
	int opens, closes, maps, unmaps;
	struct rfm_dev_send last_send;
	unsigned int sends;
	uint32_t mask;
	uint32_t depth_set;
	struct rfm_dev_dma last_dma;
	unsigned int dmas;
	uint8_t *window;		/* the mapping handed out */
	int sleep_fd;			/* the other descriptor of the last ppoll
					 * on the device (the library's wake-up) */

	/* A record queued when the library next sleeps (ppoll on the
	 * device), before it polls: a wait that slept exactly once. */
	bool push_on_sleep;
	uint16_t sleep_type;
	uint32_t sleep_sender, sleep_data;
};

extern struct fake_dev fake_dev;

/* A 64 KiB, 32-node virtual card with node id @id; no events queued. */
void fake_dev_reset(uint32_t id, uint32_t caps);
/* Queue a record as the driver would (thread-safe; wakes pollers). */
void fake_dev_push(uint16_t type, uint32_t sender, uint32_t data, uint64_t seq, uint64_t sent_ns);
unsigned int fake_dev_queued(void);

/* The wrappers the linker substitutes for the real calls. */
int __wrap_open(const char *path, int flags, ...);
int __wrap_fstat(int fd, struct stat *st);
int __wrap_stat(const char *path, struct stat *st);
ssize_t __wrap_readlink(const char *path, char *buf, size_t len);
int __wrap_ioctl(int fd, unsigned long request, ...);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __wrap_munmap(void *addr, size_t len);
ssize_t __wrap_read(int fd, void *buf, size_t len);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout);
int __wrap_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask);
int __wrap_close(int fd);

#endif /* RFM_TEST_FAKE_DEV_H */
