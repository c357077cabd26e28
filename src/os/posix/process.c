/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* POSIX: os/process.h. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "os/process.h"

int32_t rfm__os_pid(void)
{
	return (int32_t)getpid();
}

bool rfm__os_pid_gone(int32_t pid)
{
	/* Signal 0 only asks; EPERM (another user's process) means it runs. */
	return pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

const char *rfm__os_getenv(const char *name)
{
	return secure_getenv(name);
}

void rfm__os_at_fork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
	pthread_atfork(prepare, parent, child);
}

void rfm__os_hostname(char *buf, size_t len)
{
	if (!len)
		return;
	if (gethostname(buf, len - 1) < 0)
		buf[0] = '\0';
	buf[len - 1] = '\0';
}
