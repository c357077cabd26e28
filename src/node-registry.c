/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The list of open nodes in this process, kept for one reason: fork().
 * A child inherits every descriptor, and with them the locks that hold
 * the parent's node ids; left alone, a child that lives on (a test bench
 * worker, a daemon) would keep the parent's ids busy after the parent
 * closed them. An atfork handler lets each backend drop the child's share.
 */
#include "config.h"

#include <pthread.h>

#include "internal.h"
#include "os/process.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static struct rfm_node *open_nodes;

static void before_fork(void)
{
	pthread_mutex_lock(&registry_lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&registry_lock);
}

static void after_fork_child(void)
{
	for (struct rfm_node *node = open_nodes; node; node = rfm__core(node)->next_open) {
		node->forked = true;
		if (node->ops->forget)
			node->ops->forget(node);
	}
	pthread_mutex_unlock(&registry_lock);
}

static void install_atfork(void)
{
	rfm__os_at_fork(before_fork, after_fork_parent, after_fork_child);
}

void rfm__node_register(struct rfm_node *node)
{
	pthread_once(&atfork_once, install_atfork);
	pthread_mutex_lock(&registry_lock);
	rfm__core(node)->next_open = open_nodes;
	open_nodes = node;
	pthread_mutex_unlock(&registry_lock);
}

void rfm__node_unregister(struct rfm_node *node)
{
	pthread_mutex_lock(&registry_lock);
	for (struct rfm_node **link = &open_nodes; *link; link = &rfm__core(*link)->next_open)
		if (*link == node) {
			*link = rfm__core(node)->next_open;
			break;
		}
	pthread_mutex_unlock(&registry_lock);
}
