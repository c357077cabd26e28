/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fault lab switch's ports and forwarding: TAPs made inside the nodes'
 * namespaces, address learning, the fault rules applied to each copy of a
 * frame, and the time queue that delays and reorders.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>

#include "lab-switch.h"

/*
 * The TAP belongs to the namespace its /dev/net/tun was opened in, so the
 * switch steps into the node's namespace to open it and back out: the
 * device is the node's eth0 from the start, nothing appears in ours, and
 * it goes away with the switch (not persistent).
 */
int lab_port_open(struct lab *lab, unsigned int k, const char *netns)
{
	char path[300];
	struct ifreq ifr;
	int self, ns, fd = -1;

	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0 || ns < 0 || setns(ns, CLONE_NEWNET)) {
		fprintf(stderr, "lab-switch: namespace %s: %s\n", netns, strerror(errno));
		goto out;
	}
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "eth0");
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr)) {
		fprintf(stderr, "lab-switch: a TAP in %s: %s\n", netns, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	if (setns(self, CLONE_NEWNET)) {
		fprintf(stderr, "lab-switch: back to our namespace: %s\n", strerror(errno));
		exit(1); /* everything after would act in the node's namespace */
	}
out:
	if (self >= 0)
		close(self);
	if (ns >= 0)
		close(ns);
	if (fd < 0)
		return -1;
	lab->port[k].fd = fd;
	lab->port[k].up = true;
	return 0;
}

int lab_link_set(struct lab *lab, unsigned int k, bool up)
{
	int on = up;

	/* The node sees its cable pulled: no carrier, as with the bridge's veth. */
	if (ioctl(lab->port[k].fd, TUNSETCARRIER, &on))
		return -1;
	lab->port[k].up = up;
	return 0;
}

static int mac_lookup(const struct lab *lab, const uint8_t *mac)
{
	for (unsigned int i = 0; i < lab->nmacs; i++)
		if (!memcmp(lab->macs[i].mac, mac, 6))
			return lab->macs[i].port;
	return 0;
}

static void mac_learn(struct lab *lab, const uint8_t *mac, unsigned int k)
{
	unsigned int i;

	if (mac[0] & 1)
		return; /* a group address is never a source */
	for (i = 0; i < lab->nmacs; i++)
		if (!memcmp(lab->macs[i].mac, mac, 6)) {
			lab->macs[i].port = (uint8_t)k;
			return;
		}
	if (lab->nmacs < LAB_MACS_MAX)
		i = lab->nmacs++;
	else
		i = lab->mac_next++ % LAB_MACS_MAX; /* full: forget one, it floods */
	memcpy(lab->macs[i].mac, mac, 6);
	lab->macs[i].port = (uint8_t)k;
}

static void deliver(struct lab *lab, unsigned int from, unsigned int to, uint64_t pair_seq,
		    const uint8_t *data, size_t len)
{
	struct lab_port *p = &lab->port[to];

	if (pair_seq < lab->pair_out[from][to])
		lab->port[from].c.reordered++; /* a later frame went first */
	else
		lab->pair_out[from][to] = pair_seq;
	if (!p->up || !lab->port[from].up) {
		lab->port[from].c.blocked++; /* the cable was pulled meanwhile */
		return;
	}
	if (write(p->fd, data, len) == (ssize_t)len)
		p->c.out++;
	else
		p->c.txfail++;
}

static bool earlier(const struct lab_pending *a, const struct lab_pending *b)
{
	return a->due_ns < b->due_ns || (a->due_ns == b->due_ns && a->order < b->order);
}

static void queue_push(struct lab *lab, struct lab_pending e)
{
	size_t i;

	if (lab->queued == lab->queue_cap) {
		size_t cap = lab->queue_cap ? lab->queue_cap * 2 : 1024;
		struct lab_pending *q = realloc(lab->queue, cap * sizeof(*q));

		if (!q) {
			free(e.data);
			lab->port[e.from].c.txfail++;
			return;
		}
		lab->queue = q;
		lab->queue_cap = cap;
	}
	e.order = lab->order++;
	for (i = lab->queued++; i && earlier(&e, &lab->queue[(i - 1) / 2]); i = (i - 1) / 2)
		lab->queue[i] = lab->queue[(i - 1) / 2];
	lab->queue[i] = e;
}

static struct lab_pending queue_pop(struct lab *lab)
{
	struct lab_pending top = lab->queue[0], last = lab->queue[--lab->queued];
	size_t i = 0, n = lab->queued;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && earlier(&lab->queue[c + 1], &lab->queue[c]))
			c++;
		if (!earlier(&lab->queue[c], &last))
			break;
		lab->queue[i] = lab->queue[c];
		i = c;
	}
	if (n)
		lab->queue[i] = last;
	return top;
}

void lab_timer_arm(struct lab *lab)
{
	uint64_t due = 0;
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	if (lab->queued)
		due = lab->queue[0].due_ns;
	if (lab_tape_due(lab) && (!due || lab_tape_due(lab) < due))
		due = lab_tape_due(lab);
	for (unsigned int i = 0; i < LAB_CLIENTS_MAX; i++)
		if (lab->holds[i].client >= 0 && (!due || lab->holds[i].due_ns < due))
			due = lab->holds[i].due_ns;
	if (due) {
		its.it_value.tv_sec = (time_t)(due / 1000000000u);
		its.it_value.tv_nsec = (long)(due % 1000000000u);
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(lab->timerfd, TFD_TIMER_ABSTIME, &its, NULL);
}

void lab_queue_run(struct lab *lab)
{
	uint64_t now = lab_now_ns();

	while (lab->queued && lab->queue[0].due_ns <= now) {
		struct lab_pending e = queue_pop(lab);

		deliver(lab, e.from, e.to, e.pair_seq, e.data, e.len);
		free(e.data);
	}
}

/* One copy of a frame from @from to @to, through the pair's rule. */
static void forward_copy(struct lab *lab, unsigned int from, unsigned int to, const uint8_t *data,
			 size_t len)
{
	const struct lab_rule *r = &lab->rule[from][to];
	struct lab_counters *c = &lab->port[from].c;
	uint64_t seq = ++lab->pair_in[from][to];
	int copies = 1;

	if (!lab->port[to].up || !lab->port[from].up ||
	    lab->port[from].group != lab->port[to].group) {
		c->blocked++;
		return;
	}
	c->offered++;
	if (r->drop > 0 && lab_uniform(lab) < r->drop) {
		c->dropped++;
		return;
	}
	if (r->dup > 0 && lab_uniform(lab) < r->dup) {
		c->duplicated++;
		copies = 2;
	}
	while (copies--) {
		uint64_t wait = r->delay_ns;

		if (r->jitter_ns)
			wait += lab_random(lab) % (r->jitter_ns + 1);
		if (r->reorder > 0 && r->reorder_ns && lab_uniform(lab) < r->reorder)
			wait += 1 + lab_random(lab) % r->reorder_ns;
		if (!wait) {
			deliver(lab, from, to, seq, data, len);
			continue;
		}
		struct lab_pending e = { .due_ns = lab_now_ns() + wait, .pair_seq = seq,
					 .from = (uint8_t)from, .to = (uint8_t)to,
					 .len = (uint32_t)len, .data = malloc(len) };
		if (!e.data) {
			c->txfail++;
			continue;
		}
		memcpy(e.data, data, len);
		c->delayed++;
		queue_push(lab, e);
	}
}

void lab_forward_frame(struct lab *lab, unsigned int k, const uint8_t *frame, size_t len)
{
	unsigned int dst;

	mac_learn(lab, frame + 6, k);
	dst = (frame[0] & 1) ? 0 : (unsigned int)mac_lookup(lab, frame);
	if (dst == k)
		return; /* for its own port: a switch drops it */
	if (dst) {
		forward_copy(lab, k, dst, frame, len);
		return;
	}
	for (unsigned int j = 1; j <= lab->nports; j++)
		if (j != k)
			forward_copy(lab, k, j, frame, len);
}

void lab_port_input(struct lab *lab, unsigned int k)
{
	static uint8_t frame[LAB_FRAME_MAX];

	/* A bounded batch, so one busy port cannot starve the others. */
	for (int batch = 0; batch < 64; batch++) {
		ssize_t len = read(lab->port[k].fd, frame, sizeof(frame));

		if (len < 0)
			return; /* EAGAIN: drained */
		if (len < 14)
			continue;
		lab->port[k].c.in++;
		lab_tape_frame(lab, k, frame, (size_t)len);
		lab_forward_frame(lab, k, frame, (size_t)len);
	}
}
