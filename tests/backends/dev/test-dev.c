/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The dev: backend without a card: open/identify errors, the mapping,
 * bulk transfers through RFM_IOC_DMA, and events over the driver's
 * read/poll/send interface, against the pretend device of fake-dev.c.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake-dev.h"
#include "rfm-cmocka.h"

#define URI "dev:" FAKE_DEV_PATH

static rfm_node *open_ok(const char *uri)
{
	rfm_node *node = NULL;

	will_return(__wrap_open, FAKE_DEV_FD);
	assert_rfm_ok(rfm_open(uri, &node));
	return node;
}

static void close_ok(rfm_node *node)
{
	rfm_close(node);
	assert_int_equal(fake_dev.closes, fake_dev.opens);
	assert_int_equal(fake_dev.unmaps, fake_dev.maps);
}

static int setup(void **state)
{
	(void)state;
	fake_dev_reset(5, RFM_DEV_CAP_NODE_PRESENCE | RFM_DEV_CAP_SENT_TIME);
	return 0;
}

/* ---- opening ---- */

static void open_errno_is_mapped(void **state)
{
	static const struct {
		int err, code;
		const char *message;
	} cases[] = {
		{ ENOENT, RFM_ENOENT, "no device /fake/rfm0 (is rfm.ko loaded?)" },
		{ ENXIO, RFM_ENOENT, "has no card behind it" },
		{ ENODEV, RFM_ENOENT, "has no card behind it" },
		{ EACCES, RFM_EPERM, "no permission to open /fake/rfm0 read-write" },
		{ EPERM, RFM_EPERM, "udev rule" },
		{ EISDIR, RFM_EVERSION, "is not an rfm device" },
		{ EMFILE, RFM_ESYS, "Too many open files" },
	};
	rfm_node *node = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		will_return(__wrap_open, -cases[i].err);
		assert_rfm_code(rfm_open(URI, &node), cases[i].code);
		assert_last_error_has(cases[i].message);
		assert_null(node);
	}
	assert_int_equal(fake_dev.opens, 0);
}

/* Each refusal after the open closes the descriptor and maps nothing. */
static void refuse_other_devices(void **state)
{
	rfm_node *node = NULL;

	(void)state;
	/* Refused before any open: not a character device, not rfm.ko's class. */
	fake_dev.mode = S_IFREG | 0600;
	assert_rfm_code(rfm_open(URI, &node), RFM_EVERSION);
	assert_last_error_has("is not a character device");
	fake_dev.mode = S_IFCHR | 0600;
	fake_dev.class_link = "../../../../class/watchdog";
	assert_rfm_code(rfm_open(URI, &node), RFM_EVERSION);
	assert_last_error_has("/fake/rfm0 is a 'watchdog' device, not an rfm.ko device");
	fake_dev.class_link = NULL;
	assert_rfm_code(rfm_open(URI, &node), RFM_EVERSION);
	assert_last_error_has("belongs to no device class");
	fake_dev.class_link = "../../class/rfm";
	assert_int_equal(fake_dev.opens, 0);

	/* Replaced between the check and the open: stat said a character
	 * device, fstat of the open file does not. */
	will_return(__wrap_open, FAKE_DEV_FD);
	fake_dev.fstat_mode = S_IFREG | 0600;
	assert_rfm_code(rfm_open(URI, &node), RFM_EVERSION);
	assert_last_error_has("is not a character device");
	fake_dev.fstat_mode = 0;

	fake_dev.info_errno = ENOTTY;
	will_return(__wrap_open, FAKE_DEV_FD);
	assert_rfm_code(rfm_open(URI, &node), RFM_EVERSION);
	assert_last_error_has("does not answer RFM_IOC_GET_INFO");
	fake_dev.info_errno = 0;

	fake_dev.info.abi_version = RFM_DEV_ABI_VERSION + 1;
	will_return(__wrap_open, FAKE_DEV_FD);
	assert_rfm_code(rfm_open(URI, &node), RFM_EVERSION);
	assert_last_error_has("interface version 3, this librfm 2");
	fake_dev.info.abi_version = RFM_DEV_ABI_VERSION;

	fake_dev.info.event_size = 32;
	will_return(__wrap_open, FAKE_DEV_FD);
	assert_rfm_code(rfm_open(URI, &node), RFM_EVERSION);
	assert_last_error_has("records are 32 bytes, not 40");
	fake_dev.info.event_size = sizeof(struct rfm_dev_event);

	fake_dev.info.node_id = 32;
	will_return(__wrap_open, FAKE_DEV_FD);
	assert_rfm_code(rfm_open(URI, &node), RFM_ECORRUPT);
	assert_last_error_has("node id 32 of 32 nodes");
	fake_dev.info.node_id = 5;

	fake_dev.info.window_size = 1000;
	will_return(__wrap_open, FAKE_DEV_FD);
	assert_rfm_code(rfm_open(URI, &node), RFM_ESIZE);
	assert_last_error_has("window of 1000 bytes");
	fake_dev.info.window_size = 64 * 1024;

	fake_dev.mmap_errno = ENOMEM;
	will_return(__wrap_open, FAKE_DEV_FD);
	assert_rfm_code(rfm_open(URI, &node), RFM_ENOMEM);
	assert_last_error_has("mapping the 65536-byte window");
	fake_dev.mmap_errno = 0;

	assert_null(node);
	assert_int_equal(fake_dev.opens, 7);
	assert_int_equal(fake_dev.closes, 7);
	assert_int_equal(fake_dev.maps, 0);
}

static void bad_uris_open_nothing(void **state)
{
	rfm_node *node = NULL;

	(void)state;
	assert_rfm_code(rfm_open("dev:", &node), RFM_EURI);
	assert_rfm_code(rfm_open("dev:fake/rfm0", &node), RFM_EURI);
	assert_rfm_code(rfm_open(URI "?depth=1023", &node), RFM_EURI);
	assert_rfm_code(rfm_open(URI "?depth=65537", &node), RFM_EURI);
	assert_rfm_code(rfm_open(URI "?dma=1Q", &node), RFM_EURI);
	assert_rfm_code(rfm_open(URI "?node=1", &node), RFM_EURI);
	assert_last_error_has("unknown parameter 'node'");
	assert_rfm_code(rfm_open(URI "?loopback=2", &node), RFM_EURI);
	assert_int_equal(fake_dev.opens, 0);
	assert_null(node);
}

static void facts_and_memory(void **state)
{
	struct rfm_node_info info = { .struct_size = sizeof(info) };
	rfm_node *node = open_ok(URI);
	uint32_t v = 0;
	void *base;
	uint64_t size;

	(void)state;
	assert_int_equal(rfm_node_id(node), 5);
	assert_int_equal(rfm_node_size(node), 64 * 1024);
	assert_string_equal(rfm_node_backend(node), "dev");
	assert_string_equal(rfm_node_uri(node), URI);
	assert_rfm_ok(rfm_node_get_info(node, &info));
	assert_int_equal(info.max_nodes, 32);
	assert_int_equal(info.node_id, 5);
	assert_string_equal(info.backend, "dev");

	assert_rfm_ok(rfm_mem_map(node, &base, &size));
	assert_ptr_equal(base, fake_dev.window);
	assert_rfm_ok(rfm_mem_poke32(node, 0x100, 0xfeedf00d));
	assert_int_equal(*(uint32_t *)(fake_dev.window + 0x100), 0xfeedf00d);
	assert_rfm_ok(rfm_mem_peek32(node, 0x100, &v));
	assert_int_equal(v, 0xfeedf00d);
	assert_rfm_code(rfm_mem_peek32(node, 64 * 1024, &v), RFM_ERANGE);
	/* No DMA engine, no dma=: large transfers are CPU copies (no ioctl). */
	static uint8_t big[32 * 1024];
	memset(big, 0xa5, sizeof(big));
	assert_rfm_ok(rfm_mem_write(node, 0, big, sizeof(big)));
	assert_int_equal(fake_dev.dmas, 0);
	assert_int_equal(fake_dev.window[sizeof(big) - 1], 0xa5);
	close_ok(node);
}

static void bulk_transfers_use_dma_above_the_threshold(void **state)
{
	static uint8_t buf[16 * 1024], back[16 * 1024];
	rfm_node *node = open_ok(URI "?dma=4K");

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7);
	will_return(__wrap_ioctl, 0);
	assert_rfm_ok(rfm_mem_write(node, 0x2000, buf, sizeof(buf)));
	assert_int_equal(fake_dev.dmas, 1);
	assert_int_equal(fake_dev.last_dma.offset, 0x2000);
	assert_int_equal(fake_dev.last_dma.length, sizeof(buf));
	assert_int_equal(fake_dev.last_dma.dir, RFM_DEV_DMA_TO_CARD);
	assert_int_equal(fake_dev.last_dma.flags, 0);
	assert_memory_equal(fake_dev.window + 0x2000, buf, sizeof(buf));

	will_return(__wrap_ioctl, 0);
	assert_rfm_ok(rfm_mem_read(node, 0x2000, back, 4096));
	assert_int_equal(fake_dev.last_dma.dir, RFM_DEV_DMA_FROM_CARD);
	assert_int_equal(fake_dev.last_dma.buf, (uint64_t)(uintptr_t)back);
	assert_memory_equal(back, buf, 4096);

	/* Below the threshold: the mapping, no ioctl. */
	assert_rfm_ok(rfm_mem_read(node, 0x2000, back, 4095));
	assert_int_equal(fake_dev.dmas, 2);
	/* Out of range never reaches the driver. */
	assert_rfm_code(rfm_mem_read(node, 60 * 1024, back, 8192), RFM_ERANGE);
	assert_int_equal(fake_dev.dmas, 2);

	/* A signal ended the transfer after 4 KiB: the rest follows. */
	will_return(__wrap_ioctl, 4096);
	will_return(__wrap_ioctl, 0);
	assert_rfm_ok(rfm_mem_write(node, 0x2000, buf, sizeof(buf)));
	assert_int_equal(fake_dev.dmas, 4);
	assert_int_equal(fake_dev.last_dma.offset, 0x3000);
	assert_int_equal(fake_dev.last_dma.length, sizeof(buf) - 4096);
	assert_int_equal(fake_dev.last_dma.buf, (uint64_t)(uintptr_t)(buf + 4096));

	will_return(__wrap_ioctl, -EINTR); /* retried */
	will_return(__wrap_ioctl, -ENODEV);
	assert_rfm_code(rfm_mem_read(node, 0, back, 8192), RFM_EIO);
	assert_last_error_has("the card was removed");
	close_ok(node);
}

static void dma_defaults_follow_the_card(void **state)
{
	static uint8_t buf[64 * 1024];
	rfm_node *node;

	(void)state;
	fake_dev.info.caps |= RFM_DEV_CAP_DMA;
	node = open_ok(URI);
	assert_rfm_ok(rfm_mem_read(node, 0, buf, 64 * 1024 - 1));
	assert_int_equal(fake_dev.dmas, 0);
	will_return(__wrap_ioctl, 0);
	assert_rfm_ok(rfm_mem_read(node, 0, buf, 64 * 1024));
	assert_int_equal(fake_dev.dmas, 1);
	close_ok(node);

	node = open_ok(URI "?dma=0"); /* never */
	assert_rfm_ok(rfm_mem_read(node, 0, buf, sizeof(buf)));
	assert_int_equal(fake_dev.dmas, 1);
	close_ok(node);
}

/* ---- events ---- */

static void sends_become_send_ioctls(void **state)
{
	rfm_node *node = open_ok(URI);

	(void)state;
	will_return(__wrap_ioctl, 0);
	assert_int_equal(rfm_event_send(node, 3, RFM_EVENT_INTR2, 42), 1);
	assert_int_equal(fake_dev.last_send.type, RFM_DEV_EV_INTR2);
	assert_int_equal(fake_dev.last_send.target, 3);
	assert_int_equal(fake_dev.last_send.data, 42);
	assert_int_equal(fake_dev.last_send.flags, 0);

	will_return(__wrap_ioctl, 0);
	assert_int_equal(rfm_event_send(node, RFM_NODE_ALL, RFM_EVENT_RESET, 0), 1);
	assert_int_equal(fake_dev.last_send.target, RFM_DEV_NODE_ALL);
	assert_int_equal(fake_dev.last_send.flags, 0);

	/* Our own node: refused by the core, unless loopback. */
	assert_rfm_code(rfm_event_send(node, 5, RFM_EVENT_INTR1, 1), RFM_ESELF);
	assert_rfm_ok(rfm_node_set_loopback(node, 1));
	will_return(__wrap_ioctl, 0);
	assert_int_equal(rfm_event_send(node, 5, RFM_EVENT_INTR1, 1), 1);
	assert_int_equal(fake_dev.last_send.target, 5);
	assert_int_equal(fake_dev.last_send.flags, RFM_DEV_SEND_LOOPBACK);
	will_return(__wrap_ioctl, 0);
	assert_int_equal(rfm_event_send(node, RFM_NODE_ALL, RFM_EVENT_INTR4, 9), 1);
	assert_int_equal(fake_dev.last_send.flags, RFM_DEV_SEND_LOOPBACK);
	/* A unicast to another node stays a unicast. */
	will_return(__wrap_ioctl, 0);
	assert_int_equal(rfm_event_send(node, 6, RFM_EVENT_INTR4, 9), 1);
	assert_int_equal(fake_dev.last_send.flags, 0);
	assert_int_equal(fake_dev.sends, 5);

	/* Errors. */
	assert_rfm_code(rfm_event_send(node, 32, RFM_EVENT_INTR1, 1), RFM_ENODE);
	assert_last_error_has("beyond this card's 32 node ids");
	assert_int_equal(fake_dev.sends, 5);
	will_return(__wrap_ioctl, -EHOSTUNREACH);
	assert_rfm_code(rfm_event_send(node, 7, RFM_EVENT_INTR1, 1), RFM_ENODE);
	will_return(__wrap_ioctl, -ETIMEDOUT);
	assert_rfm_code(rfm_event_send(node, 7, RFM_EVENT_INTR1, 1), RFM_ETIMEDOUT);
	will_return(__wrap_ioctl, -EINTR);
	will_return(__wrap_ioctl, 0);
	assert_int_equal(rfm_event_send(node, 7, RFM_EVENT_INTR3, 1), 1);
	close_ok(node);
}

static void enable_sets_the_file_mask_and_depth(void **state)
{
	rfm_node *node = open_ok(URI "?depth=4096");
	struct rfm_event_stats st = { .struct_size = sizeof(st) };

	(void)state;
	will_return(__wrap_ioctl, 0); /* SET_QUEUE_DEPTH */
	will_return(__wrap_ioctl, 0); /* SET_MASK */
	assert_rfm_ok(rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1) |
						     RFM_EVENT_BIT(RFM_EVENT_INTR3)));
	assert_int_equal(fake_dev.depth_set, 4096);
	assert_int_equal(fake_dev.mask, 0x0a);
	assert_rfm_ok(rfm_event_get_stats(node, &st));
	assert_int_equal(st.depth, 4096);
	will_return(__wrap_ioctl, 0);
	assert_rfm_ok(rfm_event_disable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	assert_int_equal(fake_dev.mask, 0x08);
	close_ok(node);
}

/* ---- card status (5565 LCSR through GET_INFO) ---- */

static void set_link(uint32_t link)
{
	/* The health thread reads the info while we change it. */
	__atomic_store_n(&fake_dev.info.link, link, __ATOMIC_RELEASE);
}

static void card_status_is_in_the_node_info(void **state)
{
	struct rfm_node_info info = { .struct_size = sizeof(info) };
	rfm_node *node;

	(void)state;
	fake_dev.info.card_type = RFM_DEV_CARD_5565;
	set_link(RFM_DEV_LINK_SIGNAL | RFM_DEV_LINK_OWN_DATA);
	node = open_ok(URI);
	assert_rfm_ok(rfm_node_get_info(node, &info));
	assert_int_equal(info.link, RFM_LINK_KNOWN | RFM_LINK_SIGNAL | RFM_LINK_OWN_DATA);
	set_link(RFM_DEV_LINK_SYNC_LOST | RFM_DEV_LINK_BAD_DATA | RFM_DEV_LINK_RXFIFO_FULL);
	assert_rfm_ok(rfm_node_get_info(node, &info));
	assert_int_equal(info.link, RFM_LINK_KNOWN | RFM_LINK_SYNC_LOST | RFM_LINK_BAD_DATA |
					    RFM_LINK_RXFIFO_FULL);
	/* An older caller's struct (without link) gets no more than it holds. */
	struct rfm_node_info old = { .struct_size = offsetof(struct rfm_node_info, link) };
	old.link = 0xdead;
	assert_rfm_ok(rfm_node_get_info(node, &old));
	assert_int_equal(old.link, 0xdead);
	close_ok(node);
}

static void expect_link(rfm_node *node, uint32_t link)
{
	struct rfm_event ev;

	assert_rfm_ok(rfm_event_wait(node, &ev, 10000000000ll)); /* a hang guard */
	assert_string_equal(rfm_event_type_name(ev.type), "link");
	assert_int_equal(ev.sender, 5);
	assert_int_equal(ev.data, link);
}

static void link_changes_are_events(void **state)
{
	const struct rfm_health_config hc = { .struct_size = sizeof(hc), .period_ns = 1000000 };
	struct rfm_node_status rows[4];
	rfm_node *node;

	(void)state;
	fake_dev.info.card_type = RFM_DEV_CARD_5565;
	set_link(RFM_DEV_LINK_SIGNAL | RFM_DEV_LINK_OWN_DATA);
	node = open_ok(URI);
	will_return(__wrap_ioctl, 0); /* SET_MASK: the card is told no health types */
	assert_rfm_ok(rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_LINK)));
	assert_int_equal(fake_dev.mask, 0);
	assert_rfm_ok(rfm_health_start(node, &hc));
	set_link(0); /* fibre pulled: signal and ring lost */
	expect_link(node, RFM_LINK_KNOWN);
	set_link(RFM_DEV_LINK_SIGNAL | RFM_DEV_LINK_OWN_DATA | RFM_DEV_LINK_RXFIFO_FULL);
	expect_link(node, RFM_LINK_KNOWN | RFM_LINK_SIGNAL | RFM_LINK_OWN_DATA |
				  RFM_LINK_RXFIFO_FULL);
	assert_rfm_ok(rfm_health_stop(node));
	/* The slot says what the card said at the last beat; nothing was
	 * sent to the card (health records stay on the handle). */
	assert_int_equal(rfm_health_nodes(node, rows, 4), 1);
	assert_int_equal(rows[0].id, 5);
	assert_int_equal(rows[0].link, RFM_LINK_KNOWN | RFM_LINK_SIGNAL | RFM_LINK_OWN_DATA |
					       RFM_LINK_RXFIFO_FULL);
	assert_int_equal(fake_dev.sends, 0);
	close_ok(node);
}

static rfm_node *open_receiver(const char *uri)
{
	rfm_node *node = open_ok(uri);

	will_return(__wrap_ioctl, 0);
	assert_rfm_ok(rfm_event_enable(node, RFM_EVENT_MASK_NETWORK));
	assert_int_equal(fake_dev.mask, 0x1f);
	return node;
}

static void records_and_overflow_in_driver_order(void **state)
{
	rfm_node *node = open_receiver(URI);
	struct rfm_event evs[8];
	struct rfm_event_stats st = { .struct_size = sizeof(st) };

	(void)state;
	assert_rfm_code(rfm_event_fetch(node, evs, 8, 0), RFM_EAGAIN);
	fake_dev_push(RFM_DEV_EV_INTR1, 3, 7, 1, 1111);
	fake_dev_push(RFM_DEV_EV_INTR2, 4, 8, 2, 2222);
	fake_dev_push(RFM_DEV_EV_OVERFLOW, RFM_DEV_NODE_NONE, 100, 3, 0);
	fake_dev_push(RFM_DEV_EV_INTR3, 5, 9, 103, 3333); /* our own, looped back */

	/* As on every backend: the announcement comes ahead of the records
	 * still queued (the library reads the driver's whole queue at once). */
	assert_int_equal(rfm_event_fetch(node, evs, 2, 0), 2);
	assert_int_equal(evs[0].type, RFM_EVENT_OVERFLOW);
	assert_int_equal(evs[0].data, 100);
	assert_int_equal(evs[0].seq, 1);
	assert_int_equal(evs[1].type, RFM_EVENT_INTR1);
	assert_int_equal(evs[1].sender, 3);
	assert_int_equal(evs[1].data, 7);
	assert_int_equal(evs[1].seq, 2);
	assert_int_equal(evs[1].sent_ns, 1111);
	assert_int_equal(evs[1].flags, 0);
	assert_int_equal(fake_dev_queued(), 0);
	/* A drop reported later comes after the records read before it. */
	fake_dev_push(RFM_DEV_EV_OVERFLOW, RFM_DEV_NODE_NONE, 5, 110, 0);
	assert_int_equal(rfm_event_fetch(node, evs, 8, 0), 2);
	assert_int_equal(evs[0].type, RFM_EVENT_INTR2);
	assert_int_equal(evs[0].seq, 3);
	assert_int_equal(evs[1].type, RFM_EVENT_INTR3);
	assert_int_equal(evs[1].sender, 5);
	assert_int_equal(evs[1].flags, RFM_EVENT_F_LOOPBACK);
	assert_int_equal(evs[1].seq, 4);
	assert_int_equal(rfm_event_fetch(node, evs, 8, 0), 1);
	assert_int_equal(evs[0].type, RFM_EVENT_OVERFLOW);
	assert_int_equal(evs[0].data, 5);
	assert_int_equal(evs[0].seq, 5);
	assert_rfm_code(rfm_event_fetch(node, evs, 8, 0), RFM_EAGAIN);

	assert_rfm_ok(rfm_event_get_stats(node, &st));
	assert_int_equal(st.dropped, 105);
	assert_int_equal(st.overflows, 2);
	assert_int_equal(st.delivered, 5);
	assert_int_equal(st.queued, 0);
	close_ok(node);
}

/* More records than one read(2) batch, status records skipped. */
static void long_runs_keep_order(void **state)
{
	rfm_node *node = open_receiver(URI);
	struct rfm_event evs[50];
	uint32_t next = 0;

	(void)state;
	for (uint32_t i = 0; i < 300; i++) {
		fake_dev_push(RFM_DEV_EV_INTR1, 2, i, i + 1, 0);
		if (i == 150)
			fake_dev_push(RFM_DEV_EV_SYNC_LOSS, RFM_DEV_NODE_NONE, 0, 0, 0);
	}
	while (next < 300) {
		int n = rfm_event_fetch(node, evs, 50, 0);
		assert_true(n > 0);
		for (int i = 0; i < n; i++, next++) {
			assert_int_equal(evs[i].data, next);
			assert_int_equal(evs[i].seq, next + 1);
		}
	}
	assert_int_equal(fake_dev_queued(), 0);
	close_ok(node);
}

static void *push_later(void *arg)
{
	int *go = arg;
	char c;

	/* Runs once the main thread says its wait is about to start. */
	assert_int_equal(read(go[0], &c, 1), 1);
	fake_dev_push(RFM_DEV_EV_INTR4, 1, 0xabcd, 1, 0);
	return NULL;
}

static void blocking_wait_wakes_on_a_record(void **state)
{
	rfm_node *node = open_receiver(URI "?spin=0");
	struct rfm_event ev;
	pthread_t t;
	int go[2];

	(void)state;
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pthread_create(&t, NULL, push_later, go), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_rfm_ok(rfm_event_wait(node, &ev, -1));
	assert_int_equal(ev.type, RFM_EVENT_INTR4);
	assert_int_equal(ev.data, 0xabcd);
	pthread_join(t, NULL);
	close(go[0]);
	close(go[1]);

	assert_rfm_code(rfm_event_wait(node, &ev, 1000000), RFM_ETIMEDOUT);
	close_ok(node);
}

static void *wait_cancelled(void *arg)
{
	struct rfm_event ev;

	return (void *)(intptr_t)rfm_event_wait(arg, &ev, -1);
}

static void cancel_wakes_a_sleeping_wait(void **state)
{
	rfm_node *node = open_receiver(URI "?spin=0");
	pthread_t t;
	void *ret;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, wait_cancelled, node), 0);
	/* Sticky: a cancel before the wait starts is seen by it too. */
	assert_rfm_ok(rfm_event_cancel(node));
	pthread_join(t, &ret);
	assert_int_equal((intptr_t)ret, RFM_ECANCELED);
	close_ok(node);
}

/* A wait that sleeps once (?spin=0): the record comes when it polls. */
static int wait_slept_once(rfm_node *node, uint32_t data)
{
	struct rfm_event ev;
	int ret;

	fake_dev.sleep_type = RFM_DEV_EV_INTR2;
	fake_dev.sleep_sender = 3;
	fake_dev.sleep_data = data;
	fake_dev.push_on_sleep = true;
	ret = rfm_event_wait(node, &ev, -1);
	if (!ret && (ev.type != RFM_EVENT_INTR2 || ev.data != data || fake_dev.push_on_sleep))
		ret = RFM_EIO;
	return ret;
}

/*
 * A child forked by a thread that has slept on a handle sleeps on a
 * wake-up descriptor of its own: it never reads its parent's wake-ups
 * away (a record the parent's health monitor posted would wait for the
 * parent's deadline: test-health's survivor in the PREEMPT_RT lab).
 */
static void a_forked_child_leaves_its_parents_wakeups(void **state)
{
	rfm_node *node = open_receiver(URI "?spin=0");
	struct pollfd p = { .events = POLLIN };
	uint64_t one = 1;
	int status, wake_fd;
	pid_t pid;

	(void)state;
	assert_rfm_ok(wait_slept_once(node, 1));
	wake_fd = fake_dev.sleep_fd;
	assert_true(wake_fd >= 0);
	/* A wake-up of this process that its thread has not read yet. */
	assert_int_equal(write(wake_fd, &one, sizeof(one)), sizeof(one));

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* No CMocka assertion here: the exit status says it. */
		rfm_node *mine = NULL;

		will_return(__wrap_open, FAKE_DEV_FD);
		will_return(__wrap_ioctl, 0);
		if (rfm_open(URI "?spin=0", &mine) ||
		    rfm_event_enable(mine, RFM_EVENT_MASK_NETWORK))
			_exit(2);
		_exit(wait_slept_once(mine, 2) ? 3 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The child slept and was woken, and our wake-up is still ours. */
	p.fd = wake_fd;
	assert_int_equal(poll(&p, 1, 0), 1);
	assert_true(p.revents & POLLIN);
	assert_rfm_ok(wait_slept_once(node, 3));
	assert_int_equal(fake_dev.sleep_fd, wake_fd);
	close_ok(node);
}

static void the_fd_is_readable_while_records_wait(void **state)
{
	rfm_node *node = open_receiver(URI);
	struct rfm_event ev;
	struct pollfd p = { .events = POLLIN };

	(void)state;
	p.fd = rfm_event_fd(node);
	assert_true(p.fd >= 0);
	assert_int_equal(poll(&p, 1, 0), 0);
	fake_dev_push(RFM_DEV_EV_INTR1, 9, 1, 1, 0);
	assert_int_equal(poll(&p, 1, -1), 1);
	assert_rfm_ok(rfm_event_wait(node, &ev, 0));
	assert_int_equal(ev.sender, 9);
	close_ok(node);
}

static void a_removed_card_does_not_spin_or_hang(void **state)
{
	rfm_node *node = open_receiver(URI "?spin=0");
	struct rfm_event ev;

	(void)state;
	fake_dev.gone = true;
	assert_rfm_code(rfm_event_wait(node, &ev, 2000000), RFM_ETIMEDOUT);
	assert_rfm_code(rfm_event_send(node, 1, RFM_EVENT_INTR1, 0), RFM_EIO);
	assert_last_error_has("card was removed");
	close_ok(node);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(open_errno_is_mapped, setup),
		cmocka_unit_test_setup(refuse_other_devices, setup),
		cmocka_unit_test_setup(bad_uris_open_nothing, setup),
		cmocka_unit_test_setup(facts_and_memory, setup),
		cmocka_unit_test_setup(bulk_transfers_use_dma_above_the_threshold, setup),
		cmocka_unit_test_setup(dma_defaults_follow_the_card, setup),
		cmocka_unit_test_setup(sends_become_send_ioctls, setup),
		cmocka_unit_test_setup(enable_sets_the_file_mask_and_depth, setup),
		cmocka_unit_test_setup(records_and_overflow_in_driver_order, setup),
		cmocka_unit_test_setup(long_runs_keep_order, setup),
		cmocka_unit_test_setup(blocking_wait_wakes_on_a_record, setup),
		cmocka_unit_test_setup(cancel_wakes_a_sleeping_wait, setup),
		cmocka_unit_test_setup(a_forked_child_leaves_its_parents_wakeups, setup),
		cmocka_unit_test_setup(the_fd_is_readable_while_records_wait, setup),
		cmocka_unit_test_setup(a_removed_card_does_not_spin_or_hang, setup),
		cmocka_unit_test_setup(card_status_is_in_the_node_info, setup),
		cmocka_unit_test_setup(link_changes_are_events, setup),
	};

	return cmocka_run_group_tests_name("dev: backend (no device)", tests, NULL, NULL);
}
