/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test helper for the CLI tests: open a node, say "ready NODE_ID" on stdout,
 * then keep the node attached until stdin reaches end of file (the test
 * closes the pipe), and close it. This gives the tests a live node in
 * another process without any sleeping or polling.
 */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include <rfm/rfm.h>

int main(int argc, char **argv)
{
	rfm_node *node;
	char buf[64];

	if (argc != 2) {
		fprintf(stderr, "usage: %s URI\n", argv[0]);
		return 2;
	}
	if (rfm_open(argv[1], &node)) {
		fprintf(stderr, "hold-node: %s\n", rfm_last_error());
		return 1;
	}
	printf("ready %d\n", rfm_node_id(node));
	fflush(stdout);
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	rfm_close(node);
	return 0;
}
