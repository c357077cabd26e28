/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: os/wait.h. A private word is WaitOnAddress(), Windows's futex.
 * That wakes only threads of its own process, so a shared word (in a
 * mapping of a segment file, which other processes map too) is slept on
 * as a parking lot: the file's table of sleepers (wait-file.c), shared by
 * every process that maps it, says which thread sleeps on which word, and
 * each sleeping thread waits on a semaphore of its own.
 *
 *   sleeper: take a free slot, write the word's offset and who it is,
 *            mark it sleeping, look at the word again, wait on its own
 *            semaphore, free the slot;
 *   waker:   after its store, release the semaphore of every thread
 *            whose slot says it sleeps on that word.
 *
 * The slot's mark and the word are each written, then the other read,
 * with sequentially consistent operations, so either the sleeper sees the
 * new word or the waker sees the sleeper: no wake-up is lost, and none
 * goes to a thread that sleeps on another word (a semaphore shared by
 * several words would let a thread arriving late take the wake meant for
 * one already asleep). A semaphore holds one permit at most: a wake that
 * came after its thread stopped sleeping costs that thread's next sleep
 * an early return, which callers take as they take any (they look
 * again). A slot whose thread died is freed by the next waker that finds
 * the thread gone; a full table makes a sleeper nap 1 ms instead.
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

/* A free slot of @t, taken; NULL when every one is in use. */
static struct rfm_win_sleeper *take_slot(struct rfm_win_sleepers *t, uint64_t offset)
{
	unsigned int start = (unsigned int)(offset / sizeof(uint32_t) * 2654435761u) %
			     RFM_WIN_SLEEPERS;

	for (unsigned int i = 0; i < RFM_WIN_SLEEPERS; i++) {
		struct rfm_win_sleeper *s = &t->slot[(start + i) % RFM_WIN_SLEEPERS];
		uint32_t free_state = RFM_WIN_SLOT_FREE;

		if (__atomic_load_n(&s->state, __ATOMIC_RELAXED) == RFM_WIN_SLOT_FREE &&
		    __atomic_compare_exchange_n(&s->state, &free_state, RFM_WIN_SLOT_TAKEN, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			__atomic_fetch_add(&t->active, 1, __ATOMIC_SEQ_CST);
			return s;
		}
	}
	return NULL;
}

/* Free our slot, in state @state, unless a waker freed it (it took us for dead). */
static void free_slot(struct rfm_win_sleepers *t, struct rfm_win_sleeper *s, uint32_t state)
{
	if (__atomic_compare_exchange_n(&s->state, &state, RFM_WIN_SLOT_FREE, false,
					__ATOMIC_RELEASE, __ATOMIC_RELAXED))
		__atomic_fetch_sub(&t->active, 1, __ATOMIC_SEQ_CST);
}

static int wait_shared(struct rfm_win_wait_file *wf, uint64_t offset, uint32_t *word,
		       uint32_t expected, uint64_t deadline_ns)
{
	struct rfm_win_sleepers *t = rfm__win_wait_table(wf);
	HANDLE sem = rfm__win_thread_sem();
	struct rfm_win_sleeper *s;
	DWORD ms, r;

	if (__atomic_load_n(word, __ATOMIC_SEQ_CST) != expected)
		return 0;
	ms = rfm__win_ms_until(deadline_ns);
	if (ms == 0)
		return -ETIMEDOUT;
	if (!sem || !(s = take_slot(t, offset))) {
		/* No way to be woken: a short nap, and the caller looks again. */
		Sleep(1);
		return 0;
	}
	s->offset = offset;
	s->pid = (uint32_t)GetCurrentProcessId();
	s->tid = (uint32_t)GetCurrentThreadId();
	__atomic_store_n(&s->state, RFM_WIN_SLOT_SLEEPING, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(word, __ATOMIC_SEQ_CST) != expected) {
		free_slot(t, s, RFM_WIN_SLOT_SLEEPING);
		return 0;
	}
	r = WaitForSingleObject(sem, ms);
	free_slot(t, s, RFM_WIN_SLOT_SLEEPING);
	return r == WAIT_OBJECT_0 ? 0 : r == WAIT_TIMEOUT ? -ETIMEDOUT : -EINTR;
}

static void wake_shared(struct rfm_win_wait_file *wf, uint64_t offset)
{
	struct rfm_win_sleepers *t = rfm__win_wait_table(wf);

	/* After the caller's store: pairs with the sleeper's mark, then look. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&t->active, __ATOMIC_SEQ_CST))
		return;
	for (unsigned int i = 0; i < RFM_WIN_SLEEPERS; i++) {
		struct rfm_win_sleeper *s = &t->slot[i];
		uint32_t pid, tid, sleeping = RFM_WIN_SLOT_SLEEPING;

		if (__atomic_load_n(&s->state, __ATOMIC_SEQ_CST) != RFM_WIN_SLOT_SLEEPING ||
		    s->offset != offset)
			continue;
		pid = s->pid;
		tid = s->tid;
		if (!rfm__win_wake_thread(pid, tid) && s->pid == pid && s->tid == tid &&
		    __atomic_compare_exchange_n(&s->state, &sleeping, RFM_WIN_SLOT_FREE, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			/* Its thread died asleep (a killed process): the slot is free again. */
			__atomic_fetch_sub(&t->active, 1, __ATOMIC_SEQ_CST);
	}
}

int rfm__os_wait(uint32_t *word, uint32_t expected, uint64_t deadline_ns, bool shared)
{
	struct rfm_win_wait_file *wf;
	uint64_t offset;

	if (shared && (wf = rfm__win_map_find(word, &offset)))
		return wait_shared(wf, offset, word, expected, deadline_ns);
	return wait_private(word, expected, deadline_ns);
}

void rfm__os_wake(uint32_t *word, bool shared)
{
	struct rfm_win_wait_file *wf;
	uint64_t offset;

	if (shared && (wf = rfm__win_map_find(word, &offset))) {
		wake_shared(wf, offset);
		return;
	}
	WakeByAddressAll(word);
}
