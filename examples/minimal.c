/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The smallest librfm program: open a node, write, read back, close.
 *
 *   cc minimal.c $(pkg-config --cflags --libs rfm)
 *   ./a.out [URI]        (default: $RFM_URI, else shm:default)
 */
#include <stdio.h>
#include <string.h>

#include <rfm/rfm.h>

int main(int argc, char **argv)
{
	const char *uri = argc > 1 ? argv[1] : NULL;
	const char message[] = "hello, reflective memory";
	char echo[sizeof(message)];
	uint32_t word;
	rfm_node *node;
	int ret;

	ret = rfm_open(uri, &node);
	if (ret) {
		fprintf(stderr, "rfm_open: %s\n", rfm_last_error());
		return 1;
	}
	printf("node %d on %s, %llu-byte window\n", rfm_node_id(node), rfm_node_uri(node),
	       (unsigned long long)rfm_node_size(node));

	/* Bulk write and read: every other node sees these bytes at once. */
	ret = rfm_mem_write(node, 0x100, message, sizeof(message));
	if (!ret)
		ret = rfm_mem_read(node, 0x100, echo, sizeof(echo));
	/* Single-copy atomic word access. */
	if (!ret)
		ret = rfm_mem_poke32(node, 0x200, 0xc0ffee);
	if (!ret)
		ret = rfm_mem_peek32(node, 0x200, &word);
	if (ret) {
		fprintf(stderr, "access failed: %s\n", rfm_last_error());
		rfm_close(node);
		return 1;
	}
	printf("read back \"%s\" and 0x%x\n", echo, word);

	/* Errors are codes with messages, never crashes: */
	ret = rfm_mem_peek32(node, 0x202, &word);
	printf("misaligned peek: %s (%s)\n", rfm_strerror(ret), rfm_last_error());

	rfm_close(node);
	return strcmp(echo, message) != 0 || word != 0xc0ffee;
}
