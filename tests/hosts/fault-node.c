/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A node of the fault lab's tests (tests/hosts/test-faults-*.py): one per
 * network namespace, on dds:, driven line by line over stdin/stdout. It
 * writes its own region (raw bytes, typed variables, a record), sends
 * events to all, publishes a ring, and keeps accounts of what it gets from
 * every other node, so the test can prove that nothing was lost silently:
 *
 *   events   INTR1 from each node carry 1, 2, 3...: the receiver counts them,
 *            the numbers it skipped, and any that came twice or out of order;
 *            RFM_EVENT_LINK records add up the records each node lost here
 *   rings    each node's ring is consumed by every other node: messages carry
 *            their number, so a consumer sees order and every gap, and each
 *            gap must be one the ring's loss counter (msg.lost) reports
 *   records  read over and over while they are written: a = i, b = 3i + 1,
 *            c = ~i, so a torn read would show
 *
 * Prints "ready ID" once open, then answers each command with one line
 * (see fault-node-cmd.c). Every wait has a deadline given by the test: a
 * hang guard, not a timing assertion.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault-node.h"

static int layout_make(struct fnode *f)
{
	char text[8192];
	size_t len = 0;

	len += (size_t)snprintf(text + len, sizeof(text) - len,
				"version: 1\nwindow: %u\nregions:\n", FN_WINDOW);
	for (unsigned int k = 1; k <= f->nodes; k++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"  - name: n%u\n    offset: 0x%x\n    size: 0x%x\n"
					"    writer: %u\n"
					"    variables:\n"
					"      - { name: counter, type: u32 }\n"
					"      - { name: value, type: f64 }\n"
					"    records:\n"
					"      - name: frame\n"
					"        variables: [ { name: a, type: u64 }, { name: b, type: u64 },"
					" { name: c, type: u64 } ]\n",
					k, FN_REGION(k), FN_REGION_SIZE, k);
	return rfm_layout_load_string(text, len, "fault-node", &f->layout, NULL);
}

static int open_handles(struct fnode *f)
{
	char name[64];
	int ret;

	ret = layout_make(f);
	if (ret)
		return ret;
	for (unsigned int k = 1; k <= f->nodes; k++) {
		snprintf(name, sizeof(name), "n%u.frame", k);
		ret = rfm_record_open(f->layout, f->node, name, &f->rec[k]);
		if (ret)
			return ret;
		snprintf(name, sizeof(name), "n%u.counter", k);
		ret = rfm_var_open(f->layout, f->node, name, &f->counter[k]);
		if (ret)
			return ret;
		snprintf(name, sizeof(name), "n%u.value", k);
		ret = rfm_var_open(f->layout, f->node, name, &f->value[k]);
		if (ret)
			return ret;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct fnode f;
	int ret;

	if (argc != 3 || atoi(argv[2]) < 2 || atoi(argv[2]) > FN_NODES_MAX) {
		fprintf(stderr, "usage: %s URI NODES (2..%d)\n", argv[0], FN_NODES_MAX);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	f.nodes = (unsigned int)atoi(argv[2]);
	pthread_mutex_init(&f.lock, NULL);
	pthread_cond_init(&f.cond, NULL);
	ret = rfm_open(argv[1], &f.node);
	if (ret) {
		printf("error %d %s\n", ret, rfm_last_error());
		return 1;
	}
	f.id = (unsigned int)rfm_node_id(f.node);
	if (f.id < 1 || f.id > f.nodes) {
		printf("error %d node id %u is not 1..%u\n", RFM_EINVAL, f.id, f.nodes);
		return 1;
	}
	/* Before anything can arrive: every event from here on is counted. */
	ret = rfm_event_enable(f.node, RFM_EVENT_BIT(RFM_EVENT_INTR1) | RFM_EVENT_MASK_HEALTH |
					       RFM_EVENT_BIT(RFM_EVENT_LINK));
	if (!ret)
		ret = open_handles(&f);
	if (!ret)
		ret = fn_threads_start(&f);
	if (ret) {
		printf("error %d %s\n", ret, rfm_last_error());
		return 1;
	}
	printf("ready %u\n", f.id);
	fn_command_loop(&f);
	fn_threads_stop(&f);
	for (unsigned int k = 1; k <= f.nodes; k++) {
		rfm_ring_consumer_close(f.cons[k].cons);
		rfm_record_close(f.rec[k]);
	}
	rfm_ring_close(f.ring);
	rfm_layout_free(f.layout);
	rfm_close(f.node);
	printf("bye\n");
	return 0;
}
