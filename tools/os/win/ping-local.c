/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ping --local on Windows, which cannot fork: the echoer is a thread
 * of the pinger with a node of its own on the same network, so it ends
 * with the pinger's process whatever happens to that.
 */
#include "config.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include "ping.h"

struct ping_local {
	pthread_t thread;
	struct ping *p;
	const struct ping_opts *o;
	sem_t ready;
	int id;
	int status;
};

static void report_ready(void *arg, int id)
{
	struct ping_local *local = arg;

	local->id = id;
	sem_post(&local->ready);
}

static void *echoer_main(void *arg)
{
	struct ping_local *local = arg;

	local->status = ping_local_echoer(local->p, &local->o->echo_rt, report_ready, local);
	return NULL;
}

int ping_start_local_echoer(struct ping *p, const struct ping_opts *o, struct ping_local **local)
{
	struct ping_local *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return cli_error(p->cli, "out of memory");
	l->p = p;
	l->o = o;
	l->id = -1;
	sem_init(&l->ready, 0, 0);
	fflush(NULL);
	err = pthread_create(&l->thread, NULL, echoer_main, l);
	if (err) {
		sem_destroy(&l->ready);
		free(l);
		return cli_error(p->cli, "cannot start the local echoer: %s", strerror(err));
	}
	*local = l;
	while (sem_wait(&l->ready))
		;
	if (l->id < 0)
		return CLI_EXIT_FAILED; /* the echoer said why */
	p->peer = (unsigned int)l->id;
	return 0;
}

int ping_reap_local_echoer(struct cli *cli, struct ping_local *local, int ret)
{
	if (!local)
		return ret;
	if (ret && local->id >= 0) {
		/*
		 * The pinger failed before its stop request: the echoer waits
		 * without end and a thread cannot be killed cleanly. It ends
		 * with this process, which exits now.
		 */
		pthread_detach(local->thread);
		return ret;
	}
	pthread_join(local->thread, NULL);
	if (!ret && local->status)
		ret = cli_error(cli, "the local echoer failed");
	sem_destroy(&local->ready);
	free(local);
	return ret;
}
