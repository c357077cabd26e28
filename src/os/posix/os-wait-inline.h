/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Linux: the inline half of os/wait.h (read that header first), futexes.
 * A shared word is a "shared" futex (the kernel keys it by the page, so
 * another process that maps the page sleeps on the same word); a private
 * one is process-private, which is cheaper for the kernel.
 */
#ifndef RFM_OS_POSIX_WAIT_INLINE_H
#define RFM_OS_POSIX_WAIT_INLINE_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline int rfm__os_wait(uint32_t *word, uint32_t expected, uint64_t deadline_ns,
			       bool shared)
{
	struct timespec ts, *tsp = NULL;
	int op = FUTEX_WAIT_BITSET | (shared ? 0 : FUTEX_PRIVATE_FLAG);

	if (deadline_ns) {
		ts.tv_sec = (time_t)(deadline_ns / 1000000000u);
		ts.tv_nsec = (long)(deadline_ns % 1000000000u);
		tsp = &ts;
	}
	if (syscall(SYS_futex, word, op, expected, tsp, NULL, FUTEX_BITSET_MATCH_ANY) == 0)
		return 0;
	if (errno == EAGAIN)
		return 0;
	return -errno;
}

static inline void rfm__os_wake(uint32_t *word, bool shared)
{
	syscall(SYS_futex, word, FUTEX_WAKE | (shared ? 0 : FUTEX_PRIVATE_FLAG), INT_MAX, NULL,
		NULL, 0);
}

#endif /* RFM_OS_POSIX_WAIT_INLINE_H */
