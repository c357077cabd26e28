/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers shared by the layout tests: layouts from line arrays (so a test
 * reads "line 4" and means it), diagnostics lookup, networks from the
 * shared harness and child processes that signal readiness through pipes.
 */
#ifndef RFM_TESTS_LAYOUT_HELPERS_H
#define RFM_TESTS_LAYOUT_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <rfm/rfm.h>

#include "harness.h"

/* Join NULL-terminated lines with newlines; the caller frees. */
static inline char *join_lines(const char *const *lines)
{
	size_t len = 1;
	char *text;

	for (size_t i = 0; lines[i]; i++)
		len += strlen(lines[i]) + 1;
	text = malloc(len);
	assert_non_null(text);
	text[0] = '\0';
	for (size_t i = 0; lines[i]; i++) {
		strcat(text, lines[i]);
		strcat(text, "\n");
	}
	return text;
}

/* Load lines as "test.yaml"; returns the code, fills *layoutp / *diagsp. */
static inline int load_lines(const char *const *lines, rfm_layout **layoutp,
			     rfm_diag_list **diagsp)
{
	char *text = join_lines(lines);
	int ret = rfm_layout_load_string(text, strlen(text), "test.yaml", layoutp, diagsp);

	free(text);
	return ret;
}

static inline struct rfm_diag diag_at(const rfm_diag_list *list, size_t i)
{
	struct rfm_diag d;

	memset(&d, 0, sizeof(d));
	d.struct_size = sizeof(d);
	assert_int_equal(rfm_diag_list_get(list, i, &d), 0);
	return d;
}

/* Assert that @list has a problem at @line:@column whose message contains @needle. */
static inline void expect_diag(const rfm_diag_list *list, unsigned int line, unsigned int column,
			       const char *needle)
{
	for (size_t i = 0; i < rfm_diag_list_count(list); i++) {
		struct rfm_diag d = diag_at(list, i);
		if (d.line == line && (!column || d.column == column) &&
		    strstr(d.message, needle))
			return;
	}
	for (size_t i = 0; i < rfm_diag_list_count(list); i++)
		print_message("  have: %s\n", diag_at(list, i).text);
	fail_msg("no diagnostic at %u:%u containing '%s'", line, column, needle);
}

/*
 * Networks come from the shared harness (tests/harness): the backend is
 * $RFM_TEST_BACKEND, names are unique, and whatever a test leaves behind
 * is removed at exit. A test names a network by the string test_net()
 * returned; the harness's description of it is looked up by that name.
 */
#define LAYOUT_TEST_MAX_NETS 32
#define LAYOUT_TEST_NET_SIZE (1u << 20)

static inline struct harness_network *layout_nets(void)
{
	static struct harness_network nets[LAYOUT_TEST_MAX_NETS];

	return nets;
}

/* A fresh 1 MiB network; @purpose only documents the call site. */
static inline const char *test_net(const char *purpose)
{
	static unsigned int used;
	struct harness_network *net = &layout_nets()[used++ % LAYOUT_TEST_MAX_NETS];

	(void)purpose;
	harness_network_new(net, LAYOUT_TEST_NET_SIZE);
	return net->name;
}

static inline struct harness_network *test_network(const char *name)
{
	for (int i = 0; i < LAYOUT_TEST_MAX_NETS; i++)
		if (!strcmp(layout_nets()[i].name, name))
			return &layout_nets()[i];
	fprintf(stderr, "no test network '%s'\n", name);
	abort();
}

/* The URI of node @id of network @net; valid until the next call for @net. */
static inline const char *node_uri(const char *net, int id)
{
	return harness_node_uri(test_network(net), id);
}

static inline rfm_node *open_node(const char *net, int id)
{
	rfm_node *node = NULL;

	assert_int_equal(rfm_open(node_uri(net, id), &node), 0);
	return node;
}

static inline void destroy_net(const char *net)
{
	harness_network_destroy(test_network(net));
}

/*
 * For main(), after harness_init(): the layouts of a program name node
 * ids as region writers. On a backend whose node ids are the hardware's
 * (dev: cards), skip the program, saying why, unless nodes @ids exist.
 */
static inline void require_node_ids(const int *ids, size_t n)
{
	struct harness_network net;

	if (harness_can(HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_OWN_NETWORKS))
		return;
	harness_network_new(&net, LAYOUT_TEST_NET_SIZE);
	for (size_t i = 0; i < n; i++) {
		rfm_node *node = NULL;
		int got = -1;

		if (!rfm_open(harness_node_uri(&net, ids[i]), &node)) {
			got = rfm_node_id(node);
			rfm_close(node);
		}
		if (got != ids[i]) {
			fprintf(stderr, "SKIP: the layouts of this program have node %d as a "
					"writer, and the %s: network has no node %d\n",
				ids[i], harness_backend(), ids[i]);
			exit(HARNESS_EXIT_SKIP);
		}
	}
}

#endif /* RFM_TESTS_LAYOUT_HELPERS_H */
