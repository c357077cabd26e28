/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: os/wait.h's functions (read that header first), out of line in
 * src/os/win/wait.c: WaitOnAddress() for private words, named semaphores
 * for words other processes sleep on.
 */
#ifndef RFM_OS_WIN_WAIT_INLINE_H
#define RFM_OS_WIN_WAIT_INLINE_H

#include <stdbool.h>
#include <stdint.h>

int rfm__os_wait(uint32_t *word, uint32_t expected, uint64_t deadline_ns, bool shared);
void rfm__os_wake(uint32_t *word, bool shared);

#endif /* RFM_OS_WIN_WAIT_INLINE_H */
