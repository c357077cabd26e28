/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Before a test forks a helper process: under AddressSanitizer (or
 * ThreadSanitizer), wait until every other thread of this process sleeps.
 *
 * Debian 12's AddressSanitizer (GCC 12's) does not hold its allocator's
 * locks across fork(): a child forked while another thread was inside the
 * allocator inherits that lock held and hangs at its first allocation of
 * that size class. The library's threads allocate when they start (ASan
 * sets up each new thread's state with calloc), and tests fork right after
 * starting them (rfm_health_start()): a loaded ASan run saw a beater child
 * hang for good in its own heartbeat thread's start. ThreadSanitizer's
 * allocator is GCC 12's too (CI runs it with die_after_fork=0). Other
 * builds use glibc's allocator, which fork() keeps consistent, and skip
 * the wait.
 */
#include "config.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZER_ALLOCATOR 1
#endif
#endif

#ifdef SANITIZER_ALLOCATOR
/* The scheduler state of thread @tid ('S': sleeping), or 0 when it is gone. */
static char thread_state(const char *tid)
{
	char path[64], buf[512];
	const char *close_paren;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%s/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "tid (comm) S ...": the name may hold spaces and parentheses. */
	close_paren = strrchr(buf, ')');
	return close_paren && close_paren[1] == ' ' ? close_paren[2] : 0;
}

/* Whether every thread but the caller sleeps (or has ended). */
static bool others_asleep(void)
{
	char self[24];
	struct dirent *e;
	bool asleep = true;
	DIR *d = opendir("/proc/self/task");

	if (!d)
		return true; /* no /proc: nothing to look at, fork as before */
	snprintf(self, sizeof(self), "%ld", (long)syscall(SYS_gettid));
	while (asleep && (e = readdir(d))) {
		char state;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, self))
			continue;
		state = thread_state(e->d_name);
		asleep = !state || state == 'S';
	}
	closedir(d);
	return asleep;
}
#endif

void harness_quiet_before_fork(void)
{
#ifdef SANITIZER_ALLOCATOR
	/* A hang guard, not a timing assumption: after it, fork as before. */
	const struct timespec tick = { 0, 1000000 };

	for (int i = 0; i < 5000 && !others_asleep(); i++)
		nanosleep(&tick, NULL);
#endif
}
