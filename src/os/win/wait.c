/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: os/wait.h. A private word is WaitOnAddress(), Windows's futex.
 * It wakes only threads of its own process, so a shared word (in a
 * mapping of a segment file, which other processes map too) is slept on
 * through named kernel objects instead, named from the file's identity
 * (wait-file.c): a section of 256 counters and a semaphore per bucket.
 *
 * A word's bucket is its offset in the file, in words, modulo 256: the
 * kernel's futex hash, over named objects. A sleeper counts itself in
 * its bucket's counter, looks at the word again and waits on the
 * semaphore; a waker (after its store) releases the semaphore once per
 * sleeper counted. Both sides use sequentially consistent operations, so
 * either the sleeper sees the new word or the waker sees the sleeper: no
 * wake-up is lost. Sleepers of other words in the bucket wake for nothing
 * and look again, as futex callers do after any return. A permit left by
 * a sleeper that timed out wakes the next one early once; a process
 * killed while counted leaves its count, and its bucket's wakers release
 * a permit too many each time, so the semaphore's count is capped.
 */
#include "config.h"

#include <errno.h>

#include "os/wait.h"
#include "os/win/win-internal.h"

static int wait_private(uint32_t *word, uint32_t expected, uint64_t deadline_ns)
{
	DWORD ms;

	if (__atomic_load_n(word, __ATOMIC_SEQ_CST) != expected)
		return 0;
	ms = rfm__win_ms_until(deadline_ns);
	if (ms == 0)
		return -ETIMEDOUT;
	if (WaitOnAddress(word, &expected, sizeof(expected), ms))
		return 0;
	return GetLastError() == ERROR_TIMEOUT ? -ETIMEDOUT : -EINTR;
}

static int wait_shared(struct rfm_win_wait_file *wf, uint64_t offset, uint32_t *word,
		       uint32_t expected, uint64_t deadline_ns)
{
	unsigned int b = (unsigned int)(offset / sizeof(uint32_t) % RFM_WIN_WAIT_BUCKETS);
	HANDLE sem = rfm__win_wait_sem(wf, b);
	DWORD ms, r;

	if (!sem)
		return -ENOSYS;
	__atomic_fetch_add(rfm__win_wait_sleepers(wf, b), 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(word, __ATOMIC_SEQ_CST) != expected) {
		__atomic_fetch_sub(rfm__win_wait_sleepers(wf, b), 1, __ATOMIC_SEQ_CST);
		return 0;
	}
	ms = rfm__win_ms_until(deadline_ns);
	r = ms ? WaitForSingleObject(sem, ms) : WAIT_TIMEOUT;
	__atomic_fetch_sub(rfm__win_wait_sleepers(wf, b), 1, __ATOMIC_SEQ_CST);
	return r == WAIT_OBJECT_0 ? 0 : r == WAIT_TIMEOUT ? -ETIMEDOUT : -EINTR;
}

int rfm__os_wait(uint32_t *word, uint32_t expected, uint64_t deadline_ns, bool shared)
{
	struct rfm_win_wait_file *wf;
	uint64_t offset;

	if (shared && (wf = rfm__win_map_find(word, &offset))) {
		int ret = wait_shared(wf, offset, word, expected, deadline_ns);

		if (ret != -ENOSYS)
			return ret;
		/* No semaphore to be had: sleep briefly, the caller looks again. */
		Sleep(1);
		return 0;
	}
	return wait_private(word, expected, deadline_ns);
}

void rfm__os_wake(uint32_t *word, bool shared)
{
	struct rfm_win_wait_file *wf;
	uint64_t offset;

	if (shared && (wf = rfm__win_map_find(word, &offset))) {
		unsigned int b = (unsigned int)(offset / sizeof(uint32_t) % RFM_WIN_WAIT_BUCKETS);
		uint32_t n;
		HANDLE sem;

		/* After the caller's store: pairs with the sleeper's count, then look. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		n = __atomic_load_n(rfm__win_wait_sleepers(wf, b), __ATOMIC_SEQ_CST);
		if (!n || !(sem = rfm__win_wait_sem(wf, b)))
			return;
		/* A count past the cap fails whole: the permits already there wake them. */
		ReleaseSemaphore(sem, n < RFM_WIN_WAIT_PERMITS_MAX ? (LONG)n : RFM_WIN_WAIT_PERMITS_MAX, NULL);
		return;
	}
	WakeByAddressAll(word);
}
