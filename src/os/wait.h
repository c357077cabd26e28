/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sleeping on a 32-bit word until another thread changes it, and waking
 * its sleepers (the OS layer; docs/architecture.md, "The OS layer"): the
 * futex of Linux. Two kinds of word:
 *
 *  - private: every sleeper and waker is a thread of this process (a
 *    handle's own state);
 *  - shared: sleepers and wakers may be other processes, because the word
 *    lies in a mapping of a segment file (rfm__os_map(), os/map.h) that
 *    they map too. On Linux the kernel finds the word's page; on Windows,
 *    where WaitOnAddress() wakes only threads of its own process, the
 *    mapping's file identity names the kernel objects processes sleep on
 *    (src/os/win/wait.c). A "shared" word in memory of this process alone
 *    behaves as a private one.
 *
 * Both are on the hot path of events, rings and records, so the functions
 * come from the OS's own inline header, os-wait-inline.h (found through
 * the OS's include directory, as os-clock-inline.h): on Linux they are the
 * inline futex system calls they always were.
 *
 * The OS's inline header provides:
 *
 *   int rfm__os_wait(uint32_t *word, uint32_t expected, uint64_t deadline_ns,
 *                    bool shared);
 *	Sleep while *word == expected, until @deadline_ns (rfm__now_ns()
 *	clock, absolute; 0 = none). Returns 0 when woken or the word
 *	differs, -ETIMEDOUT, -EINTR, or -EFAULT/-ENOSYS for memory the OS
 *	cannot sleep on (a card's window). Spurious returns are possible:
 *	callers look again.
 *
 *   void rfm__os_wake(uint32_t *word, bool shared);
 *	Wake every thread sleeping on @word.
 */
#ifndef RFM_OS_WAIT_H
#define RFM_OS_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "os/clock.h"
#include "os-wait-inline.h"

#endif /* RFM_OS_WAIT_H */
