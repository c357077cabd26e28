/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Health on the shm: backend: the segment's node table says who held each
 * node id (its heartbeat is in the window, as on every backend), and a
 * node id is alive while a process holds its lock byte. The lock is the
 * truth: an entry still marked attached whose lock nobody holds belonged
 * to a process that died without closing (the kernel dropped its lock),
 * so it reads as crashed, never as attached; a clean close marks it free.
 * shm_get_info() counts attached nodes by the same rule.
 */
#include "config.h"

#include "os/process.h"
#include "backends/shm/shm-internal.h"

bool rfm__shm_id_held(const struct shm_node *shm, unsigned int id)
{
	int32_t pid;

	if (shm->fd >= 0)
		return rfm__shm_byte_locked(shm->fd, RFM_SHM_LOCK_BASE + id);
	/* No lock file to ask (an observer with read access only): the process. */
	pid = __atomic_load_n(&shm->nodes[id].pid, __ATOMIC_RELAXED);
	return pid > 0 && !rfm__os_pid_gone(pid);
}

int rfm__shm_node_facts(struct rfm_node *node, unsigned int id, struct rfm_node_facts *facts)
{
	struct shm_node *shm = node->priv;
	struct rfm_shm_node_entry *e;

	if (id > RFM_NODE_ID_MAX)
		return RFM_ENODEID;
	e = &shm->nodes[id];
	bool marked = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == RFM_SHM_NODE_ATTACHED;
	/* Our own id is held (by us: GETLK does not see our own lock). */
	bool held = (int)id == node->id || rfm__shm_id_held(shm, id);
	/* Held is attached, whatever the table says (a scribbled entry too). */
	facts->attached = held;
	facts->crashed = marked && !held;
	facts->incarnation = __atomic_load_n(&e->incarnation, __ATOMIC_RELAXED);
	facts->pid = __atomic_load_n(&e->pid, __ATOMIC_RELAXED);
	return 0;
}

bool rfm__shm_node_alive(struct rfm_node *node, unsigned int id, uint32_t incarnation)
{
	struct shm_node *shm = node->priv;
	struct rfm_shm_node_entry *e;

	if (id > RFM_NODE_ID_MAX)
		return false;
	e = &shm->nodes[id];
	if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) != RFM_SHM_NODE_ATTACHED ||
	    __atomic_load_n(&e->incarnation, __ATOMIC_RELAXED) != incarnation)
		return false;
	/* Our own id is alive (we hold the lock, so GETLK would not see it). */
	if ((int)id == node->id)
		return true;
	return rfm__shm_id_held(shm, id);
}
