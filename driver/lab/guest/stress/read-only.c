// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * read-only.c - a vm-stress program (stress.h):
 * a read-only open writes nothing to the network, and maps read-only.
 */
#include "stress.h"

static void t_read_only(void)
{
	int rw = open_card(O_RDWR), ro = open_card(O_RDONLY);
	struct rfm_dev_info info;
	uint32_t v;
	uint8_t buf[64];

	lab_begin(&L, "a read-only open cannot write, and maps read-only");
	CHECK_OK(&L, ioctl(ro, RFM_IOC_GET_INFO, &info));
	/* Nothing that reaches the network or the card. */
	CHECK_ERRNO(&L, lab_send(ro, RFM_DEV_EV_RESET, RFM_DEV_NODE_ALL, 0, 0), EBADF);
	CHECK_ERRNO(&L, lab_send(ro, RFM_DEV_EV_INTR1, info.node_id, 7, RFM_DEV_SEND_LOOPBACK),
		    EBADF);
	struct rfm_dev_dma d = { .offset = LAB_DATA_OFFSET, .length = sizeof(buf),
				 .buf = (uintptr_t)buf, .dir = RFM_DEV_DMA_TO_CARD };
	memset(buf, 0xa5, sizeof(buf));
	CHECK_ERRNO(&L, ioctl(ro, RFM_IOC_DMA, &d), EBADF);
	CHECK_ERRNO(&L, ioctl(ro, RFM_IOC_RING_TEST), EBADF);
	v = info.node_id;
	CHECK_ERRNO(&L, ioctl(ro, RFM_IOC_DIAG_KICK, &v), EBADF);
	/* Per-file settings and reading are fine. */
	v = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR1);
	CHECK_OK(&L, ioctl(ro, RFM_IOC_SET_MASK, &v));
	v = 64;
	CHECK_OK(&L, ioctl(ro, RFM_IOC_SET_QUEUE_DEPTH, &v));
	CHECK_OK(&L, ioctl(ro, RFM_IOC_FLUSH));

	/* The window as the writer left it: read through DMA and a read-only map. */
	uint32_t stamp = 0x5eed0000u | (uint32_t)getpid();
	d = (struct rfm_dev_dma){ .offset = LAB_DATA_OFFSET, .length = 4,
				  .buf = (uintptr_t)&stamp, .dir = RFM_DEV_DMA_TO_CARD };
	CHECK_OK(&L, ioctl(rw, RFM_IOC_DMA, &d));
	uint32_t back = 0;
	d = (struct rfm_dev_dma){ .offset = LAB_DATA_OFFSET, .length = 4,
				  .buf = (uintptr_t)&back, .dir = RFM_DEV_DMA_FROM_CARD };
	CHECK_OK(&L, ioctl(ro, RFM_IOC_DMA, &d));
	CHECK_EQ(&L, back, stamp);
	uint8_t *map = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, ro, 0);
	CHECK(&L, map != MAP_FAILED, "mmap(PROT_READ, MAP_SHARED) of a read-only open: %s",
	      strerror(errno));
	if (map != MAP_FAILED) {
		CHECK_EQ(&L, *(volatile uint32_t *)(map + LAB_DATA_OFFSET), stamp);
		CHECK_ERRNO(&L, mprotect(map, 4096, PROT_READ | PROT_WRITE), EACCES);
		munmap(map, 2 * 4096);
	}
	CHECK_ERRNO(&L, mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), EACCES);
	close(ro);
	close(rw);
	lab_end(&L);
}

int main(void)
{
	stress_init();
	t_read_only();
	return lab_finish(&L);
}
