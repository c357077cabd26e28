/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer harness of the shm: segment validator: a hostile or corrupt
 * segment must be refused with an error, or accepted and then used
 * safely — never a crash.
 *
 * Input: 8 bytes (little-endian) giving the file's size, capped at 256 MiB,
 * then the file's first bytes (the rest reads as zeros, as tmpfs does).
 * The harness writes it as /dev/shm/rfm-fuzzseg-PID, opens a node on it,
 * and if that works exercises memory and events before closing.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rfm/rfm.h>

#define MAX_FILE (256u << 20) /* sparse: costs nothing until used */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void exercise(rfm_node *node)
{
	struct rfm_node_info info = { .struct_size = sizeof(info) };
	struct rfm_event event;
	uint32_t v;

	rfm_node_get_info(node, &info);
	rfm_mem_peek32(node, 0, &v);
	rfm_mem_poke32(node, 0, v + 1);
	if (rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1)) == 0) {
		rfm_event_send(node, RFM_NODE_ALL, RFM_EVENT_INTR1, 7);
		rfm_event_wait(node, &event, 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[64], path[96], uri[128];
	uint64_t file_size = 0;
	rfm_node *node;
	int fd;

	if (size < 8)
		return 0;
	memcpy(&file_size, data, 8);
	file_size %= MAX_FILE + 1;
	data += 8;
	size -= 8;
	if (size > file_size)
		size = (size_t)file_size;
	/* An empty file is a network to create, not one to validate. */
	if (file_size == 0)
		return 0;

	snprintf(name, sizeof(name), "fuzzseg-%d", (int)getpid());
	snprintf(path, sizeof(path), "/rfm-%s", name);
	snprintf(uri, sizeof(uri), "shm:%s?node=1&loopback=1", name);
	fd = shm_open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 0;
	if (ftruncate(fd, (off_t)file_size) == 0 && write(fd, data, size) == (ssize_t)size &&
	    rfm_open(uri, &node) == 0) {
		exercise(node);
		rfm_close(node);
	}
	close(fd);
	shm_unlink(path);
	/* ...and the network's lock file, which the open made. */
	snprintf(path, sizeof(path), "/rfmlock-%s", name);
	shm_unlink(path);
	return 0;
}
