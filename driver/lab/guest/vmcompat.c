// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vmcompat.c - every request of the UAPI (include/rfm/uapi/rfm_dev.h), run
 * once as a 64-bit program (vmcompat64) and once as a static 32-bit one
 * (vmcompat32, gcc -m32: the kernel's compat_ioctl path), in one guest
 * (compat-pair.sh). Each run checks its own results and prints a transcript
 * ("T " lines: results, errnos and every field that does not depend on the
 * moment) that must be identical for both.
 */
#include "lab.h"

#define DEV "/dev/rfm0"
#define DMA_LEN 256

static struct lab L;

#define T(...) printf("T " __VA_ARGS__)

/* Result of a request as the transcript shows it: "0" or "-1 ENAME". */
static const char *res(int ret)
{
	static char buf[64];

	if (ret >= 0)
		snprintf(buf, sizeof(buf), "%d", ret);
	else
		snprintf(buf, sizeof(buf), "-1 errno %d", errno);
	return buf;
}

static void t_info_mask_depth(int fd, struct rfm_dev_info *info)
{
	uint32_t mask = 0xdead, depth;

	lab_begin(&L, "GET_INFO, SET_MASK/GET_MASK, SET_QUEUE_DEPTH");
	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_INFO, info));
	T("info abi %u card %u node %u max %u window %llu memory %llu caps %#x depth %u "
	  "event %u link %#x board %u rev %u version %.16s\n",
	  info->abi_version, info->card_type, info->node_id, info->max_nodes,
	  (unsigned long long)info->window_size, (unsigned long long)info->memory_size,
	  info->caps, info->queue_depth, info->event_size, info->link, info->board_id,
	  info->board_revision, info->driver_version);
	CHECK_EQ(&L, info->abi_version, RFM_DEV_ABI_VERSION);
	CHECK_EQ(&L, info->card_type, RFM_DEV_CARD_IVSHMEM);
	CHECK_EQ(&L, info->event_size, sizeof(struct rfm_dev_event));
	CHECK_EQ(&L, info->queue_depth, RFM_DEV_QUEUE_DEFAULT);
	CHECK(&L, info->window_size >= 2 * 4096, "window %llu", (unsigned long long)info->window_size);

	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_MASK, &mask));
	CHECK_EQ(&L, mask, 0);
	mask = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR1) | RFM_DEV_EV_BIT(RFM_DEV_EV_INTR2);
	T("set_mask %s\n", res(ioctl(fd, RFM_IOC_SET_MASK, &mask)));
	mask = 0;
	T("get_mask %s", res(ioctl(fd, RFM_IOC_GET_MASK, &mask)));
	printf(" %#x\n", mask);
	CHECK_EQ(&L, mask, RFM_DEV_EV_BIT(RFM_DEV_EV_INTR1) | RFM_DEV_EV_BIT(RFM_DEV_EV_INTR2));
	uint32_t bad = ~RFM_DEV_MASK_ALL;
	CHECK_ERRNO(&L, ioctl(fd, RFM_IOC_SET_MASK, &bad), EINVAL);
	T("set_mask_bad %s\n", res(ioctl(fd, RFM_IOC_SET_MASK, &bad)));

	depth = 64;
	T("set_depth %s\n", res(ioctl(fd, RFM_IOC_SET_QUEUE_DEPTH, &depth)));
	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_INFO, info));
	CHECK_EQ(&L, info->queue_depth, 64);
	depth = RFM_DEV_QUEUE_MIN - 1;
	CHECK_ERRNO(&L, ioctl(fd, RFM_IOC_SET_QUEUE_DEPTH, &depth), EINVAL);
	T("set_depth_bad %s\n", res(ioctl(fd, RFM_IOC_SET_QUEUE_DEPTH, &depth)));
	lab_end(&L);
}

static void t_send_read_flush(int fd, const struct rfm_dev_info *info)
{
	struct rfm_dev_counters c0, c1;
	struct rfm_dev_event ev[4];
	struct rfm_dev_send bad = { .type = 99, .target = info->node_id };

	lab_begin(&L, "SEND, read, FLUSH, GET_COUNTERS");
	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_COUNTERS, &c0));
	CHECK_OK(&L, lab_send(fd, RFM_DEV_EV_INTR1, info->node_id, 0x11223344u,
			      RFM_DEV_SEND_LOOPBACK));
	CHECK_ERRNO(&L, ioctl(fd, RFM_IOC_SEND, &bad), EINVAL);
	T("send_bad %s\n", res(ioctl(fd, RFM_IOC_SEND, &bad)));
	ssize_t n = read(fd, ev, sizeof(ev));
	CHECK_EQ(&L, n, (ssize_t)sizeof(ev[0]));
	T("read %zd type %u flags %u sender_is_me %d data %#x seq %llu reserved %u stamped %d\n", n,
	  ev[0].type, ev[0].flags, ev[0].sender == info->node_id, ev[0].data,
	  (unsigned long long)ev[0].seq, ev[0].reserved, ev[0].rx_ns != 0);
	CHECK_EQ(&L, ev[0].type, RFM_DEV_EV_INTR1);
	CHECK_EQ(&L, ev[0].data, 0x11223344u);
	CHECK_EQ(&L, ev[0].seq, 1);
	for (uint32_t i = 0; i < 3; i++)
		CHECK_OK(&L, lab_send(fd, RFM_DEV_EV_INTR2, info->node_id, i, RFM_DEV_SEND_LOOPBACK));
	T("flush %s\n", res(ioctl(fd, RFM_IOC_FLUSH)));
	CHECK_ERRNO(&L, read(fd, ev, sizeof(ev)), EAGAIN);
	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_COUNTERS, &c1));
	T("counters tx %llu queued %llu dropped %llu overflows %llu reserved %llu\n",
	  (unsigned long long)(c1.tx_events - c0.tx_events), (unsigned long long)c1.file_queued,
	  (unsigned long long)c1.file_dropped, (unsigned long long)c1.file_overflows,
	  (unsigned long long)(c1.reserved[0] | c1.reserved[4]));
	CHECK_EQ(&L, c1.file_queued, 4);
	CHECK_EQ(&L, c1.file_dropped, 0);
	lab_end(&L);
}

static void t_dma(int fd, const struct rfm_dev_info *info)
{
	static unsigned char out[DMA_LEN], in[DMA_LEN];
	struct rfm_dev_counters c0, c1;
	uint64_t off = info->window_size - 4096;
	struct rfm_dev_dma d = { .offset = off, .length = DMA_LEN, .dir = RFM_DEV_DMA_TO_CARD };

	lab_begin(&L, "DMA both ways (the user address in a __u64), and its errors");
	for (int i = 0; i < DMA_LEN; i++)
		out[i] = (unsigned char)(i * 7 + 3);
	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_COUNTERS, &c0));
	d.buf = (uintptr_t)out;
	T("dma_to %s\n", res(ioctl(fd, RFM_IOC_DMA, &d)));
	d.buf = (uintptr_t)in;
	d.dir = RFM_DEV_DMA_FROM_CARD;
	T("dma_from %s\n", res(ioctl(fd, RFM_IOC_DMA, &d)));
	CHECK(&L, memcmp(in, out, DMA_LEN) == 0, "DMA read back differs");
	T("dma_same %d\n", memcmp(in, out, DMA_LEN) == 0);
	/* The same bytes through the mapping. */
	unsigned char *map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)off);
	CHECK(&L, map != MAP_FAILED, "mmap: %s", strerror(errno));
	if (map != MAP_FAILED) {
		T("mmap_same %d\n", memcmp(map, out, DMA_LEN) == 0);
		CHECK(&L, memcmp(map, out, DMA_LEN) == 0, "the mapping differs from the DMA");
		munmap(map, 4096);
	}
	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_COUNTERS, &c1));
	T("dma_bytes %llu\n", (unsigned long long)(c1.dma_bytes - c0.dma_bytes));
	CHECK_EQ(&L, c1.dma_bytes - c0.dma_bytes, 2 * DMA_LEN);

	d.dir = 7;
	CHECK_ERRNO(&L, ioctl(fd, RFM_IOC_DMA, &d), EINVAL);
	T("dma_bad_dir %s\n", res(ioctl(fd, RFM_IOC_DMA, &d)));
	d.dir = RFM_DEV_DMA_FROM_CARD;
	d.offset = info->window_size;
	CHECK_ERRNO(&L, ioctl(fd, RFM_IOC_DMA, &d), EINVAL);
	T("dma_bad_range %s\n", res(ioctl(fd, RFM_IOC_DMA, &d)));
	d.offset = off;
	d.buf = 8;	/* the zero page: unmapped */
	CHECK_ERRNO(&L, ioctl(fd, RFM_IOC_DMA, &d), EFAULT);
	T("dma_bad_buf %s\n", res(ioctl(fd, RFM_IOC_DMA, &d)));
	/* Above 4 GiB: no 32-bit program has such an address; a 64-bit one not here. */
	d.buf = 0xffff800000000000ull;
	CHECK_ERRNO(&L, ioctl(fd, RFM_IOC_DMA, &d), EFAULT);
	T("dma_kernel_buf %s\n", res(ioctl(fd, RFM_IOC_DMA, &d)));
	lab_end(&L);
}

static void t_ring_diag_unknown(int fd, const struct rfm_dev_info *info)
{
	struct rfm_dev_diag_wait w = { 0 };
	uint32_t target = info->node_id;

	lab_begin(&L, "RING_TEST, DIAG_KICK/DIAG_WAIT, unknown and mis-sized requests");
	CHECK_ERRNO(&L, ioctl(fd, RFM_IOC_RING_TEST), EOPNOTSUPP);
	T("ring_test %s\n", res(ioctl(fd, RFM_IOC_RING_TEST)));
	w.count = ~0ull;	/* not the count: no timeout, just the count now */
	CHECK_OK(&L, ioctl(fd, RFM_IOC_DIAG_WAIT, &w));
	uint64_t before = w.count;
	T("diag_kick %s\n", res(ioctl(fd, RFM_IOC_DIAG_KICK, &target)));
	w.timeout_ms = 30000;	/* only a guard: the kick has already been sent */
	T("diag_wait %s\n", res(ioctl(fd, RFM_IOC_DIAG_WAIT, &w)));
	CHECK(&L, w.count > before, "doorbell count %llu after %llu", (unsigned long long)w.count,
	      (unsigned long long)before);
	target = info->max_nodes;
	CHECK_ERRNO(&L, ioctl(fd, RFM_IOC_DIAG_KICK, &target), EINVAL);
	T("diag_kick_bad %s\n", res(ioctl(fd, RFM_IOC_DIAG_KICK, &target)));
	w.reserved = 1;
	T("diag_wait_bad %s\n", res(ioctl(fd, RFM_IOC_DIAG_WAIT, &w)));

	uint64_t big[2] = { 0 };
	T("unknown_nr %s\n", res(ioctl(fd, _IO(RFM_IOC_MAGIC, 0x2f))));
	T("wrong_size %s\n", res(ioctl(fd, _IOR(RFM_IOC_MAGIC, 0x00, uint32_t), big)));
	T("wrong_dir %s\n", res(ioctl(fd, _IOR(RFM_IOC_MAGIC, 0x01, struct rfm_dev_send), big)));
	CHECK_ERRNO(&L, ioctl(fd, _IO(RFM_IOC_MAGIC, 0x2f)), ENOTTY);
	CHECK_ERRNO(&L, ioctl(fd, _IOR(RFM_IOC_MAGIC, 0x00, uint32_t), big), ENOTTY);
	lab_end(&L);
}

int main(void)
{
	struct rfm_dev_info info;
	int fd;

	memset(&L, 0, sizeof(L));
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# vmcompat: %zu-bit program\n", sizeof(void *) * 8);
	/* Non-blocking: loopback records are queued before SEND returns. */
	fd = open(DEV, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		lab_fatal(&L, DEV);
	t_info_mask_depth(fd, &info);
	t_send_read_flush(fd, &info);
	t_dma(fd, &info);
	t_ring_diag_unknown(fd, &info);
	close(fd);
	return lab_finish(&L);
}
