/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The own-node self-test, as the cards' own-data test: write patterns to
 * the window and read them back, then send an event to ourselves with
 * loopback and take it back with its data.
 */
#include "config.h"

#include <string.h>

#include <rfm/health.h>

#include "futex.h"
#include "internal.h"

#define TEST_BYTES 64
#define EVENT_TIMEOUT_NS INT64_C(1000000000)

static uint32_t memory_test(rfm_node *node, uint64_t offset)
{
	static const uint8_t patterns[] = { 0x00, 0xff, 0x55, 0xaa };
	uint8_t saved[TEST_BYTES], want[TEST_BYTES], got[TEST_BYTES];
	uint32_t errors = 0;

	rfm_mem_read(node, offset, saved, sizeof(saved));
	for (size_t p = 0; p <= RFM_ARRAY_SIZE(patterns); p++) {
		for (size_t i = 0; i < TEST_BYTES; i++)
			/* The last pass is a walking byte: catches address lines. */
			want[i] = p < RFM_ARRAY_SIZE(patterns) ? patterns[p] : (uint8_t)(i * 37 + 1);
		rfm_mem_write(node, offset, want, sizeof(want));
		rfm_mem_read(node, offset, got, sizeof(got));
		for (size_t i = 0; i < TEST_BYTES; i++)
			errors += got[i] != want[i];
	}
	rfm_mem_write(node, offset, saved, sizeof(saved));
	return errors;
}

static int event_test(rfm_node *node, struct rfm_selftest_result *r)
{
	const uint32_t bit = RFM_EVENT_BIT(RFM_EVENT_INTR4);
	const uint32_t magic = 0x5e1f7e57u;
	uint32_t mask = 0;
	int had_loopback = rfm_node_get_loopback(node), ret;
	struct rfm_event ev;

	rfm_event_get_enabled(node, &mask);
	if (!(mask & bit)) {
		ret = rfm_event_enable(node, bit);
		if (ret)
			return ret;
	}
	rfm_node_set_loopback(node, 1);
	uint64_t t0 = rfm__now_ns();
	ret = rfm_event_send(node, (unsigned int)node->id, RFM_EVENT_INTR4, magic);
	rfm_node_set_loopback(node, had_loopback);
	if (ret < 0)
		goto out;
	ret = 0;
	/* Skip anything queued before our record. */
	for (;;) {
		int w = rfm_event_wait(node, &ev, EVENT_TIMEOUT_NS);

		if (w) {
			ret = w == RFM_ETIMEDOUT ? 0 : w;
			break;
		}
		if (ev.type == RFM_EVENT_INTR4 && ev.data == magic &&
		    ev.sender == (uint32_t)node->id) {
			r->event_ok = 1;
			r->event_latency_ns = rfm__now_ns() - t0;
			break;
		}
	}
out:
	if (!(mask & bit))
		rfm_event_disable(node, bit);
	return ret;
}

RFM_API int rfm_selftest(rfm_node *node, uint64_t offset, struct rfm_selftest_result *result)
{
	struct rfm_selftest_result r = { 0 };
	uint32_t want;
	int ret;

	if (!node || !result || result->struct_size < 8)
		return rfm__error(RFM_EINVAL, "rfm_selftest: NULL argument or struct_size");
	if (node->observer)
		return rfm__observer_refused(node, "rfm_selftest");
	if (offset != RFM_SELFTEST_NO_MEMORY &&
	    (offset > node->size || node->size - offset < TEST_BYTES))
		return rfm__error(RFM_ERANGE, "rfm_selftest: %d bytes at 0x%llx are outside the window",
				  TEST_BYTES, (unsigned long long)offset);
	want = result->struct_size < sizeof(r) ? result->struct_size : sizeof(r);
	r.struct_size = want;
	if (offset != RFM_SELFTEST_NO_MEMORY) {
		r.memory_errors = memory_test(node, offset);
		r.memory_ok = r.memory_errors == 0;
	}
	ret = event_test(node, &r);
	memcpy(result, &r, want);
	if (ret)
		return ret;
	if ((offset != RFM_SELFTEST_NO_MEMORY && !r.memory_ok) || !r.event_ok)
		return rfm__error(RFM_EIO, "%s: self-test failed (memory errors %u, event %s)",
				  node->uri, r.memory_errors, r.event_ok ? "ok" : "not received");
	return 0;
}
