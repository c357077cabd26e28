/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vmtest - the lab's multi-guest test of rfm.ko over the raw interface.
 *
 * Every guest runs the same sequence; roles follow the guest index, node
 * ids are learnt at run time. Memory both ways, interrupts both ways with
 * their data, ordering (interrupts follow the data), broadcast, loopback,
 * two files on one node, exact overflow counts, the bare doorbell, and bad
 * input (each must fail with its error, and the kernel must not complain).
 */
#include <signal.h>
#include <sys/wait.h>

#include "lab.h"

#define REGION 65536	/* bytes of window each guest owns in the memory test */

static uint32_t pattern(int guest, uint64_t i)
{
	return (uint32_t)(0x9e3779b9u * (uint32_t)(guest + 1)) ^ (uint32_t)(i * 2654435761u);
}

static void t_info(struct lab *l)
{
	struct rfm_dev_info *in = &l->info;

	lab_begin(l, "info");
	CHECK_EQ(l, in->abi_version, RFM_DEV_ABI_VERSION);
	CHECK_EQ(l, in->card_type, RFM_DEV_CARD_IVSHMEM);
	CHECK(l, in->node_id < in->max_nodes, "node id %u below %u", in->node_id, in->max_nodes);
	CHECK_EQ(l, in->window_size, in->memory_size - (2u << 20));
	CHECK_EQ(l, in->event_size, sizeof(struct rfm_dev_event));
	CHECK_EQ(l, in->queue_depth, RFM_DEV_QUEUE_DEFAULT);
	CHECK(l, (in->caps & RFM_DEV_CAP_NODE_PRESENCE) && !(in->caps & RFM_DEV_CAP_DMA),
	      "caps 0x%x", in->caps);
	CHECK(l, !strcmp(in->driver_version, "0.1.0"), "driver version '%s'",
	      in->driver_version);
	for (int a = 0; a < l->nodes; a++)
		for (int b = a + 1; b < l->nodes; b++)
			CHECK(l, l->node[a] != l->node[b], "guests %d and %d share node id %u", a,
			      b, l->node[a]);
	lab_end(l);
	lab_barrier(l);
}

static void t_memory(struct lab *l)
{
	uint32_t *mine = (uint32_t *)(l->win + LAB_DATA_OFFSET + (uint64_t)l->index * REGION);
	uint8_t *buf = malloc(REGION);
	uint64_t bad = 0;

	lab_begin(l, "memory both ways (mmap)");
	for (uint64_t i = 0; i < REGION / 4; i++)
		mine[i] = pattern(l->index, i);
	lab_barrier(l);
	for (int g = 0; g < l->nodes; g++) {
		uint32_t *theirs = (uint32_t *)(l->win + LAB_DATA_OFFSET + (uint64_t)g * REGION);

		for (uint64_t i = 0; i < REGION / 4; i++)
			bad += theirs[i] != pattern(g, i);
	}
	CHECK(l, bad == 0, "%" PRIu64 " words differ", bad);
	lab_end(l);
	lab_barrier(l);

	/* The same through RFM_IOC_DMA (a CPU copy on virtual cards). */
	lab_begin(l, "memory both ways (RFM_IOC_DMA)");
	uint64_t base = LAB_DATA_OFFSET + (uint64_t)LAB_MAX_GUESTS * REGION;
	for (uint64_t i = 0; i < REGION; i++)
		buf[i] = (uint8_t)(pattern(l->index, i) >> 8);
	struct rfm_dev_dma d = {
		.offset = base + (uint64_t)l->index * REGION,
		.length = REGION,
		.buf = (uintptr_t)buf,
		.dir = RFM_DEV_DMA_TO_CARD,
	};
	CHECK_OK(l, ioctl(l->fd, RFM_IOC_DMA, &d));
	lab_barrier(l);
	bad = 0;
	for (int g = 0; g < l->nodes; g++) {
		memset(buf, 0, REGION);
		d.offset = base + (uint64_t)g * REGION;
		d.dir = RFM_DEV_DMA_FROM_CARD;
		CHECK_OK(l, ioctl(l->fd, RFM_IOC_DMA, &d));
		for (uint64_t i = 0; i < REGION; i++)
			bad += buf[i] != (uint8_t)(pattern(g, i) >> 8);
		/* And the mapping shows what the transfer wrote. */
		bad += memcmp(buf, l->win + d.offset, REGION) != 0;
	}
	CHECK(l, bad == 0, "%" PRIu64 " bytes differ", bad);
	free(buf);
	lab_end(l);
	lab_barrier(l);
}

/* Each guest in turn interrupts every other guest, eight times. */
static void t_interrupts(struct lab *l)
{
	int fd = lab_open_events(l, RFM_DEV_EV_BIT(RFM_DEV_EV_INTR1));
	uint64_t expect_seq = 1;
	struct rfm_dev_event ev;

	lab_begin(l, "interrupts both ways with data, sender and sequence");
	lab_barrier(l); /* everyone's mask is set */
	for (int s = 0; s < l->nodes; s++) {
		if (s == l->index) {
			for (uint32_t rep = 0; rep < 8; rep++)
				for (int g = 0; g < l->nodes; g++)
					if (g != s)
						CHECK_OK(l, lab_send(l->fd, RFM_DEV_EV_INTR1, l->node[g],
								     0x1000u * (uint32_t)(s + 1) + rep, 0));
		} else {
			for (uint32_t rep = 0; rep < 8; rep++) {
				int r = lab_read_event(fd, &ev, LAB_WAIT_MS);

				if (!CHECK(l, r == 1, "event %u from guest %d: %s", rep, s,
					   r ? strerror(errno) : "timed out"))
					break;
				CHECK_EQ(l, ev.type, RFM_DEV_EV_INTR1);
				CHECK_EQ(l, ev.sender, l->node[s]);
				CHECK_EQ(l, ev.data, 0x1000u * (uint32_t)(s + 1) + rep);
				CHECK_EQ(l, ev.seq, expect_seq);
				CHECK_EQ(l, ev.flags, 0);
				CHECK(l, ev.sent_ns != 0 && ev.rx_ns != 0, "timestamps %" PRIu64
				      " %" PRIu64, (uint64_t)ev.sent_ns, (uint64_t)ev.rx_ns);
				expect_seq++;
			}
		}
		lab_barrier(l);
	}
	CHECK_ERRNO(l, read(fd, &ev, sizeof(ev)), EAGAIN);
	close(fd);
	lab_end(l);
	lab_barrier(l);
}

/* One record per send, each checked when it arrives, so ordering is exact. */
static void t_data_follows(struct lab *l)
{
	int fd = lab_open_events(l, RFM_DEV_EV_BIT(RFM_DEV_EV_INTR2));
	volatile uint32_t *word = (volatile uint32_t *)(l->win + LAB_DATA_OFFSET + 3 * REGION);

	lab_begin(l, "interrupt arrives after the data it follows");
	lab_barrier(l);
	if (l->nodes >= 2 && l->index == 0) {
		for (uint32_t i = 1; i <= 200; i++) {
			*word = i;
			CHECK_OK(l, lab_send(l->fd, RFM_DEV_EV_INTR2, l->node[1], i, 0));
			/* Wait for the reply so the word is not rewritten early. */
			struct rfm_dev_event ev;
			if (!CHECK(l, lab_read_event(fd, &ev, LAB_WAIT_MS) == 1, "reply %u", i))
				break;
			CHECK_EQ(l, ev.data, i);
		}
	} else if (l->index == 1) {
		for (uint32_t i = 1; i <= 200; i++) {
			struct rfm_dev_event ev;

			if (!CHECK(l, lab_read_event(fd, &ev, LAB_WAIT_MS) == 1, "event %u", i))
				break;
			CHECK_EQ(l, ev.data, i);
			CHECK(l, *word == ev.data, "word %u when event %u came", *word, ev.data);
			CHECK_OK(l, lab_send(l->fd, RFM_DEV_EV_INTR2, l->node[0], ev.data, 0));
		}
	}
	close(fd);
	lab_end(l);
	lab_barrier(l);
}

static void t_broadcast(struct lab *l)
{
	int fd = lab_open_events(l, RFM_DEV_EV_BIT(RFM_DEV_EV_INTR2));
	struct rfm_dev_event ev;

	lab_begin(l, "broadcast reaches every other node once");
	lab_barrier(l);
	if (l->index == 0)
		CHECK_OK(l, lab_send(l->fd, RFM_DEV_EV_INTR2, RFM_DEV_NODE_ALL, 0xb0adca57, 0));
	else {
		CHECK_EQ(l, lab_read_event(fd, &ev, LAB_WAIT_MS), 1);
		CHECK_EQ(l, ev.type, RFM_DEV_EV_INTR2);
		CHECK_EQ(l, ev.sender, l->node[0]);
		CHECK_EQ(l, ev.data, 0xb0adca57);
	}
	lab_barrier(l);
	/* Everyone got theirs; nobody got a second one, the sender none. */
	CHECK_ERRNO(l, read(fd, &ev, sizeof(ev)), EAGAIN);
	lab_end(l);
	lab_barrier(l);

	lab_begin(l, "broadcast with loopback includes the sender");
	if (l->index == 0)
		CHECK_OK(l, lab_send(l->fd, RFM_DEV_EV_INTR2, RFM_DEV_NODE_ALL, 0x100b,
				     RFM_DEV_SEND_LOOPBACK));
	CHECK_EQ(l, lab_read_event(fd, &ev, LAB_WAIT_MS), 1);
	CHECK_EQ(l, ev.data, 0x100b);
	CHECK_EQ(l, ev.sender, l->node[0]);
	CHECK_EQ(l, ev.flags, l->index == 0 ? RFM_DEV_EVF_LOOPBACK : 0);
	lab_barrier(l);
	CHECK_ERRNO(l, read(fd, &ev, sizeof(ev)), EAGAIN);
	close(fd);
	lab_end(l);
	lab_barrier(l);
}

static void t_loopback_and_two_files(struct lab *l)
{
	uint32_t m3 = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR3);
	int a = lab_open_events(l, m3), b = lab_open_events(l, m3);
	int other = lab_open_events(l, RFM_DEV_EV_BIT(RFM_DEV_EV_INTR4));
	struct rfm_dev_event ev;

	lab_begin(l, "loopback to own node, two files both see it");
	CHECK_ERRNO(l, lab_send(l->fd, RFM_DEV_EV_INTR3, l->info.node_id, 7, 0), EINVAL);
	CHECK_OK(l, lab_send(l->fd, RFM_DEV_EV_INTR3, l->info.node_id, 7, RFM_DEV_SEND_LOOPBACK));
	for (int i = 0; i < 2; i++) {
		int fd = i ? b : a;

		CHECK_EQ(l, lab_read_event(fd, &ev, 0), 1);
		CHECK_EQ(l, ev.type, RFM_DEV_EV_INTR3);
		CHECK_EQ(l, ev.sender, l->info.node_id);
		CHECK_EQ(l, ev.data, 7);
		CHECK_EQ(l, ev.flags, RFM_DEV_EVF_LOOPBACK);
		CHECK_EQ(l, ev.seq, 1);
	}
	CHECK_ERRNO(l, read(other, &ev, sizeof(ev)), EAGAIN);
	lab_end(l);
	lab_barrier(l);

	lab_begin(l, "two files on a receiving node both see a remote event");
	if (l->nodes >= 2) {
		if (l->index == 0)
			CHECK_OK(l, lab_send(l->fd, RFM_DEV_EV_INTR3, l->node[1], 33, 0));
		if (l->index == 1)
			for (int i = 0; i < 2; i++) {
				CHECK_EQ(l, lab_read_event(i ? b : a, &ev, LAB_WAIT_MS), 1);
				CHECK_EQ(l, ev.data, 33);
				CHECK_EQ(l, ev.seq, 2);
			}
	}
	close(a);
	close(b);
	close(other);
	lab_end(l);
	lab_barrier(l);
}

/* The receiver does not read; the sender sends depth + 100 and a fence. */
static void t_overflow(struct lab *l)
{
	const uint32_t depth = RFM_DEV_QUEUE_DEFAULT, extra = 100;
	int q = lab_open_events(l, RFM_DEV_EV_BIT(RFM_DEV_EV_INTR3));
	int fence = lab_open_events(l, RFM_DEV_EV_BIT(RFM_DEV_EV_INTR4));
	struct rfm_dev_counters c;
	struct rfm_dev_event ev;

	lab_begin(l, "overflow is counted exactly and announced");
	lab_barrier(l);
	if (l->index == 0 && l->nodes >= 2) {
		for (uint32_t i = 0; i < depth + extra; i++)
			if (!CHECK_EQ(l, lab_send(l->fd, RFM_DEV_EV_INTR3, l->node[1], i, 0), 0))
				break;
		CHECK_OK(l, lab_send(l->fd, RFM_DEV_EV_INTR4, l->node[1], 0xfe, 0));
	}
	if (l->index == 1) {
		/* The fence comes after every INTR3 from the same sender. */
		CHECK_EQ(l, lab_read_event(fence, &ev, LAB_WAIT_MS), 1);
		CHECK_EQ(l, ev.data, 0xfe);
		for (uint32_t i = 0; i < depth; i++) {
			if (!CHECK_EQ(l, lab_read_event(q, &ev, 0), 1))
				break;
			if (ev.type != RFM_DEV_EV_INTR3 || ev.data != i || ev.seq != i + 1) {
				CHECK(l, false, "record %u: type %u data %u seq %" PRIu64, i, ev.type,
				      ev.data, (uint64_t)ev.seq);
				break;
			}
		}
		CHECK_EQ(l, lab_read_event(q, &ev, 0), 1);
		CHECK_EQ(l, ev.type, RFM_DEV_EV_OVERFLOW);
		CHECK_EQ(l, ev.data, extra);
		CHECK_EQ(l, ev.seq, depth + 1);
		CHECK_EQ(l, ev.sender, RFM_DEV_NODE_NONE);
		CHECK_ERRNO(l, read(q, &ev, sizeof(ev)), EAGAIN);
		CHECK_OK(l, ioctl(q, RFM_IOC_GET_COUNTERS, &c));
		CHECK_EQ(l, c.file_queued, depth);
		CHECK_EQ(l, c.file_dropped, extra);
		CHECK_EQ(l, c.file_overflows, 1);
	}
	lab_barrier(l);
	/* Sequence numbers go on after the drops. */
	if (l->index == 0 && l->nodes >= 2) {
		for (uint32_t i = 0; i < 3; i++)
			CHECK_OK(l, lab_send(l->fd, RFM_DEV_EV_INTR3, l->node[1], 5000 + i, 0));
		CHECK_OK(l, lab_send(l->fd, RFM_DEV_EV_INTR4, l->node[1], 0xff, 0));
	}
	if (l->index == 1) {
		CHECK_EQ(l, lab_read_event(fence, &ev, LAB_WAIT_MS), 1);
		for (uint32_t i = 0; i < 3; i++) {
			CHECK_EQ(l, lab_read_event(q, &ev, 0), 1);
			CHECK_EQ(l, ev.data, 5000 + i);
			CHECK_EQ(l, ev.seq, depth + extra + 1 + i);
		}
	}
	close(q);
	close(fence);
	lab_end(l);
	lab_barrier(l);
}

static void t_diag(struct lab *l)
{
	struct rfm_dev_diag_wait w = { .count = UINT64_MAX };

	lab_begin(l, "bare doorbell (diagnostics)");
	CHECK_OK(l, ioctl(l->fd, RFM_IOC_DIAG_WAIT, &w)); /* learns the count */
	uint64_t before = w.count;
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_DIAG_WAIT, &w), ETIMEDOUT); /* nothing new */
	lab_barrier(l);
	if (l->index == 0)
		for (int g = 1; g < l->nodes; g++)
			CHECK_OK(l, ioctl(l->fd, RFM_IOC_DIAG_KICK, &l->node[g]));
	else {
		w.count = before;
		w.timeout_ms = LAB_WAIT_MS;
		CHECK_OK(l, ioctl(l->fd, RFM_IOC_DIAG_WAIT, &w));
		CHECK_EQ(l, w.count, before + 1);
	}
	lab_end(l);
	lab_barrier(l);
}

static void t_bad_input(struct lab *l)
{
	uint64_t win = l->info.window_size;
	struct rfm_dev_event ev;
	uint32_t v;
	char small[8];

	lab_begin(l, "bad input fails cleanly");
	/* mmap */
	CHECK_ERRNO(l, mmap(NULL, win + 4096, PROT_READ, MAP_SHARED, l->fd, 0), EINVAL);
	CHECK_ERRNO(l, mmap(NULL, 4096, PROT_READ, MAP_SHARED, l->fd, (off_t)win), EINVAL);
	CHECK_ERRNO(l, mmap(NULL, 8192, PROT_READ, MAP_SHARED, l->fd, (off_t)(win - 4096)), EINVAL);
	CHECK_ERRNO(l, mmap(NULL, 4096, PROT_READ, MAP_SHARED, l->fd, (off_t)1 << 62), EINVAL);
	CHECK_ERRNO(l, mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, l->fd, 0), EINVAL);
	void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, l->fd, (off_t)(win - 4096));
	CHECK(l, p != MAP_FAILED, "last page of the window maps");
	if (p != MAP_FAILED)
		munmap(p, 4096);

	/* unknown or malformed requests */
	CHECK_ERRNO(l, ioctl(l->fd, _IO(RFM_IOC_MAGIC, 0x7f)), ENOTTY);
	CHECK_ERRNO(l, ioctl(l->fd, _IO('x', 0)), ENOTTY);
	CHECK_ERRNO(l, ioctl(l->fd, _IOW(RFM_IOC_MAGIC, 0x00, struct rfm_dev_info), &l->info),
		    ENOTTY);
	CHECK_ERRNO(l, ioctl(l->fd, _IOR(RFM_IOC_MAGIC, 0x00, uint32_t), &v), ENOTTY);
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_GET_INFO, NULL), EFAULT);
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_RING_TEST), EOPNOTSUPP);
	/* A newer program's larger struct: zero tail accepted, else E2BIG. */
	struct {
		struct rfm_dev_send s;
		uint32_t more[2];
	} big = { { RFM_DEV_EV_INTR1, l->info.node_id, 1, RFM_DEV_SEND_LOOPBACK }, { 0, 0 } };
	CHECK_OK(l, ioctl(l->fd, _IOW(RFM_IOC_MAGIC, 0x01, big), &big));
	big.more[1] = 1;
	CHECK_ERRNO(l, ioctl(l->fd, _IOW(RFM_IOC_MAGIC, 0x01, big), &big), E2BIG);

	/* sends */
	uint32_t peer = l->nodes > 1 ? l->node[(l->index + 1) % l->nodes] : l->info.node_id;
	CHECK_ERRNO(l, lab_send(l->fd, 5, peer, 0, 0), EINVAL);
	CHECK_ERRNO(l, lab_send(l->fd, RFM_DEV_EV_OVERFLOW, peer, 0, 0), EINVAL);
	CHECK_ERRNO(l, lab_send(l->fd, 99, peer, 0, 0), EINVAL);
	CHECK_ERRNO(l, lab_send(l->fd, 0xffffffffu, peer, 0, 0), EINVAL);
	CHECK_ERRNO(l, lab_send(l->fd, RFM_DEV_EV_INTR1, peer, 0, 0x80), EINVAL);
	CHECK_ERRNO(l, lab_send(l->fd, RFM_DEV_EV_INTR1, l->info.max_nodes, 0, 0), EINVAL);
	CHECK_ERRNO(l, lab_send(l->fd, RFM_DEV_EV_INTR1, 0xfffe, 0, 0), EINVAL);
	CHECK_ERRNO(l, lab_send(l->fd, RFM_DEV_EV_INTR1, l->info.node_id, 0, 0), EINVAL);
	uint32_t absent = l->info.max_nodes - 1;
	for (int g = 0; g < l->nodes; g++)
		if (l->node[g] == absent)
			absent--;
	CHECK_ERRNO(l, lab_send(l->fd, RFM_DEV_EV_INTR1, absent, 0, 0), EHOSTUNREACH);

	/* masks and queue depth */
	v = RFM_DEV_EV_BIT(RFM_DEV_EV_OVERFLOW);
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_SET_MASK, &v), EINVAL);
	v = 1u << 16;
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_SET_MASK, &v), EINVAL);
	for (uint32_t bad = 0; bad < 3; bad++) {
		v = bad == 0 ? 0 : bad == 1 ? RFM_DEV_QUEUE_MIN - 1 : RFM_DEV_QUEUE_MAX + 1;
		CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_SET_QUEUE_DEPTH, &v), EINVAL);
	}
	int fd = lab_open_events(l, RFM_DEV_EV_BIT(RFM_DEV_EV_INTR1));
	CHECK_OK(l, lab_send(fd, RFM_DEV_EV_INTR1, l->info.node_id, 42, RFM_DEV_SEND_LOOPBACK));
	v = 4096;
	CHECK_ERRNO(l, ioctl(fd, RFM_IOC_SET_QUEUE_DEPTH, &v), EBUSY);
	/* reads: too small, bad buffer (the record must survive), then fine */
	CHECK_ERRNO(l, read(fd, small, sizeof(small)), EINVAL);
	void *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(gone, 4096);
	CHECK_ERRNO(l, read(fd, gone, sizeof(ev)), EFAULT);
	CHECK_EQ(l, lab_read_event(fd, &ev, 0), 1);
	CHECK_EQ(l, ev.data, 42);
	CHECK_ERRNO(l, read(fd, &ev, sizeof(ev)), EAGAIN);
	CHECK_OK(l, ioctl(fd, RFM_IOC_SET_QUEUE_DEPTH, &v));
	CHECK_OK(l, ioctl(fd, RFM_IOC_GET_INFO, &l->info));
	CHECK_EQ(l, l->info.queue_depth, 4096);
	CHECK_ERRNO(l, write(fd, &ev, sizeof(ev)), EINVAL);
	CHECK_ERRNO(l, lseek(fd, 0, SEEK_SET), ESPIPE);
	close(fd);

	/* transfers */
	uint8_t buf[64];
	struct rfm_dev_dma d = { .offset = win, .length = 1, .buf = (uintptr_t)buf };
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_DMA, &d), EINVAL);
	d = (struct rfm_dev_dma){ .offset = win - 8, .length = 16, .buf = (uintptr_t)buf };
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_DMA, &d), EINVAL);
	d = (struct rfm_dev_dma){ .offset = 8, .length = UINT64_MAX - 4, .buf = (uintptr_t)buf };
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_DMA, &d), EINVAL);
	d = (struct rfm_dev_dma){ .offset = LAB_DATA_OFFSET, .length = 16, .buf = (uintptr_t)gone,
				  .dir = RFM_DEV_DMA_FROM_CARD };
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_DMA, &d), EFAULT);
	d = (struct rfm_dev_dma){ .offset = 0, .length = 16, .buf = (uintptr_t)buf, .dir = 7 };
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_DMA, &d), EINVAL);
	d = (struct rfm_dev_dma){ .offset = 0, .length = 16, .buf = (uintptr_t)buf, .flags = 1 };
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_DMA, &d), EINVAL);
	d = (struct rfm_dev_dma){ .offset = win, .length = 0, .buf = 0 };
	CHECK_OK(l, ioctl(l->fd, RFM_IOC_DMA, &d));

	/* diagnostics */
	struct rfm_dev_diag_wait w = { .reserved = 1 };
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_DIAG_WAIT, &w), EINVAL);
	v = l->info.max_nodes;
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_DIAG_KICK, &v), EINVAL);
	lab_end(l);
	lab_barrier(l);
}

static void t_counters(struct lab *l)
{
	struct rfm_dev_counters c;

	lab_begin(l, "counters are consistent");
	CHECK_OK(l, ioctl(l->fd, RFM_IOC_GET_COUNTERS, &c));
	CHECK(l, c.rx_events >= c.rx_unclaimed, "rx %" PRIu64 " unclaimed %" PRIu64,
	      (uint64_t)c.rx_events, (uint64_t)c.rx_unclaimed);
	CHECK(l, c.irqs > 0 || l->nodes == 1, "no interrupts taken");
	CHECK_EQ(l, c.tx_timeouts, 0);
	CHECK_EQ(l, c.mailbox_errors, 0);
	printf("# guest %d: tx %" PRIu64 " rx %" PRIu64 " unclaimed %" PRIu64 " irqs %" PRIu64
	       " dma bytes %" PRIu64 "\n", l->index, (uint64_t)c.tx_events,
	       (uint64_t)c.rx_events, (uint64_t)c.rx_unclaimed, (uint64_t)c.irqs,
	       (uint64_t)c.dma_bytes);
	lab_end(l);
	lab_barrier(l);
}

/* Last: the card goes away under open files and a live mapping. */
static void t_hot_removal(struct lab *l)
{
	int fd = lab_open_events(l, RFM_DEV_EV_BIT(RFM_DEV_EV_INTR1));
	volatile uint32_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	struct rfm_dev_info info;
	struct rfm_dev_event ev;
	int status = 0;

	lab_begin(l, "card removed under open files and mappings");
	CHECK(l, page != MAP_FAILED, "mmap: %s", strerror(errno));
	int pipefd[2];
	CHECK_OK(l, pipe(pipefd));
	/* A child holds the mapping across the removal, then touches it. */
	pid_t child = fork();
	if (child == 0) {
		char go;

		close(pipefd[1]);
		if (read(pipefd[0], &go, 1) != 1)
			_exit(2);
		(void)*page;	/* the mapping was revoked: SIGBUS */
		_exit(0);
	}
	close(pipefd[0]);

	int sys = open("/sys/class/rfm/rfm0/device/remove", O_WRONLY);
	CHECK(l, sys >= 0, "open .../remove: %s", strerror(errno));
	if (sys >= 0) {
		CHECK_EQ(l, write(sys, "1", 1), 1);
		close(sys);
	}
	CHECK_EQ(l, write(pipefd[1], "g", 1), 1);
	close(pipefd[1]);
	CHECK_EQ(l, waitpid(child, &status, 0), child);
	CHECK(l, WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS, "child status 0x%x", status);

	CHECK_ERRNO(l, read(fd, &ev, sizeof(ev)), ENODEV);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	CHECK_EQ(l, poll(&p, 1, 0), 1);
	CHECK(l, (p.revents & (POLLHUP | POLLERR)) == (POLLHUP | POLLERR), "revents 0x%x",
	      p.revents);
	CHECK_ERRNO(l, ioctl(l->fd, RFM_IOC_GET_INFO, &info), ENODEV);
	CHECK_ERRNO(l, lab_send(l->fd, RFM_DEV_EV_INTR1, l->node[0], 0, RFM_DEV_SEND_LOOPBACK), ENODEV);
	CHECK_ERRNO(l, mmap(NULL, 4096, PROT_READ, MAP_SHARED, l->fd, 0), ENODEV);
	CHECK_ERRNO(l, open("/dev/rfm0", O_RDWR), ENOENT);
	if (page != MAP_FAILED)
		CHECK_OK(l, munmap((void *)page, 4096));
	CHECK_OK(l, close(fd));
	lab_end(l);
	/* No barrier after this: the window is gone. */
}

int main(int argc, char **argv)
{
	struct lab l;

	lab_open(&l, argc, argv);
	t_info(&l);
	t_memory(&l);
	t_interrupts(&l);
	/* vm-run.sh -X may take the ivshmem server away from here on. */
	printf("RFMLAB-DOORBELLS-OK\n");
	t_data_follows(&l);
	t_broadcast(&l);
	t_loopback_and_two_files(&l);
	t_overflow(&l);
	t_diag(&l);
	t_bad_input(&l);
	t_counters(&l);
	t_hot_removal(&l);
	return lab_finish(&l);
}
