/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * This process and others on the host (the OS layer; docs/architecture.md,
 * "The OS layer"): process ids as the library stores them in the window
 * and the segment (32-bit, as every OS gives them), whether one is still
 * running, the host's name, and the environment as a set-uid program may
 * trust it.
 */
#ifndef RFM_OS_PROCESS_H
#define RFM_OS_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* This process's id (getpid(), GetCurrentProcessId()). */
int32_t rfm__os_pid(void);

/*
 * True when no process with id @pid runs on this host any more (it exited
 * or was killed); false while it runs, or when the OS will not say (a
 * process of another user we may not look at counts as running).
 */
bool rfm__os_pid_gone(int32_t pid);

/*
 * getenv(@name), except in a program running with privileges the caller
 * did not have (set-uid, set-gid: glibc's secure_getenv()), where the
 * caller must not steer the library: NULL there.
 */
const char *rfm__os_getenv(const char *name);

/*
 * Run @prepare before a fork() of this process, @parent after it in the
 * parent, @child in the child (pthread_atfork()). An OS without fork()
 * (Windows: a child process starts afresh) never calls them.
 */
void rfm__os_at_fork(void (*prepare)(void), void (*parent)(void), void (*child)(void));

/* The host's name in @buf (NUL-terminated, cut to @len; "" when unknown). */
void rfm__os_hostname(char *buf, size_t len);

#endif /* RFM_OS_PROCESS_H */
