/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The versioned layout structs at the size a program built against the
 * RFM_1.0 header gives them: their fields up to the reserved words of
 * then. Fields taken from the reserved words since (digits,
 * stale_after_ms) must neither be read from such a spec nor written into
 * such an info, and the call must not be refused for a struct_size that
 * RFM_1.0 accepted.
 */
#include <stddef.h>

#include "helpers.h"

/* Where each struct's RFM_1.0 fields ended: its first RFM_1.1 field. */
#define REGION_SPEC_1_0 offsetof(struct rfm_region_spec, reserved)
#define RECORD_SPEC_1_0 offsetof(struct rfm_record_spec, stale_after_ms)
#define VAR_SPEC_1_0 offsetof(struct rfm_var_spec, digits)
#define RECORD_INFO_1_0 offsetof(struct rfm_record_info, stale_after_ms)
#define VAR_INFO_1_0 offsetof(struct rfm_var_info, digits)
#define REGION_INFO_1_0 offsetof(struct rfm_region_info, reserved)

#define CANARY 0xa5

/* Every byte of @p from @from to @to is the canary: nothing wrote there. */
static void assert_untouched(const void *p, size_t from, size_t to)
{
	const unsigned char *b = p;

	for (size_t i = from; i < to; i++)
		assert_int_equal(b[i], CANARY);
}

/* A layout built with RFM_1.0-sized specs whose newer fields hold junk. */
static rfm_layout *build_1_0_layout(void)
{
	rfm_layout *layout = NULL;
	struct rfm_region_spec region;
	struct rfm_record_spec record;
	struct rfm_var_spec var;

	assert_int_equal(rfm_layout_new("v10", 1u << 20, &layout), 0);
	memset(&region, CANARY, sizeof(region));
	region = (struct rfm_region_spec){ .struct_size = REGION_SPEC_1_0, .writer = 1,
					   .name = "a", .offset = 0, .size = 0x100 };
	assert_int_equal(rfm_layout_add_region(layout, &region), 0);

	memset(&record, CANARY, sizeof(record));
	record.struct_size = RECORD_SPEC_1_0;
	record.byte_order = RFM_ORDER_LITTLE;
	record.name = "rec";
	record.offset = RFM_OFFSET_AUTO;
	record.size = 0;
	record.description = NULL;
	record.notify = 0;
	/* record.stale_after_ms is 0xa5a5a5a5: beyond struct_size, unread. */
	assert_int_equal(rfm_layout_add_record(layout, "a", &record), 0);

	memset(&var, CANARY, sizeof(var));
	var.struct_size = VAR_SPEC_1_0;
	var.type = RFM_TYPE_F64;
	var.name = "x";
	var.count = 1;
	var.byte_order = RFM_ORDER_LITTLE;
	var.offset = RFM_OFFSET_AUTO;
	var.unit = NULL;
	var.description = NULL;
	var.has_min = var.has_max = false;
	var.min = var.max = 0;
	/* var.digits would be refused (more than 17) were it read. */
	assert_int_equal(rfm_layout_add_var(layout, "a.rec", &var), 0);
	assert_int_equal(rfm_layout_finish(layout, NULL), 0);
	return layout;
}

static void test_specs_and_infos_at_1_0_size(void **state)
{
	rfm_layout *layout = build_1_0_layout();
	struct rfm_var_info vi;
	struct rfm_record_info ri;
	struct rfm_region_info gi;

	(void)state;
	/* What the builder took: the newer fields as zero, not the junk. */
	memset(&vi, 0, sizeof(vi));
	vi.struct_size = sizeof(vi);
	assert_int_equal(rfm_layout_var_info(layout, 0, &vi), 0);
	assert_int_equal(vi.digits, 0);
	assert_int_equal(vi.stale_after_ms, 0);
	memset(&ri, 0, sizeof(ri));
	ri.struct_size = sizeof(ri);
	assert_int_equal(rfm_layout_record_info(layout, 0, &ri), 0);
	assert_int_equal(ri.stale_after_ms, 0);

	/* Infos at the RFM_1.0 size: filled up to it, nothing past it. */
	memset(&vi, CANARY, sizeof(vi));
	vi.struct_size = VAR_INFO_1_0;
	assert_int_equal(rfm_layout_var_info(layout, 0, &vi), 0);
	assert_string_equal(vi.name, "a.rec.x");
	assert_int_equal(vi.type, RFM_TYPE_F64);
	assert_int_equal(vi.record, 0);
	assert_int_equal(vi.struct_size, VAR_INFO_1_0);
	assert_untouched(&vi, VAR_INFO_1_0, sizeof(vi));

	memset(&ri, CANARY, sizeof(ri));
	ri.struct_size = RECORD_INFO_1_0;
	assert_int_equal(rfm_layout_record_info(layout, 0, &ri), 0);
	assert_string_equal(ri.name, "a.rec");
	assert_int_equal(ri.data_size, 8);
	assert_untouched(&ri, RECORD_INFO_1_0, sizeof(ri));

	memset(&gi, CANARY, sizeof(gi));
	gi.struct_size = REGION_INFO_1_0;
	assert_int_equal(rfm_layout_region_info(layout, 0, &gi), 0);
	assert_string_equal(gi.name, "a");
	assert_untouched(&gi, REGION_INFO_1_0, sizeof(gi));

	/* One byte short of RFM_1.0's fields is still too small. */
	vi.struct_size = VAR_INFO_1_0 - 1;
	assert_int_equal(rfm_layout_var_info(layout, 0, &vi), RFM_EINVAL);
	{
		struct rfm_var_spec var = { .struct_size = VAR_SPEC_1_0 - 1, .type = RFM_TYPE_U8,
					    .name = "y" };
		rfm_layout *open = NULL;
		assert_int_equal(rfm_layout_new("small", 1u << 20, &open), 0);
		struct rfm_region_spec region = { .struct_size = sizeof(region), .writer = 1,
						  .name = "b", .size = 0x100 };
		assert_int_equal(rfm_layout_add_region(open, &region), 0);
		assert_int_equal(rfm_layout_add_var(open, "b", &var), RFM_EINVAL);
		rfm_layout_free(open);
	}
	rfm_layout_free(layout);
}

/* The handle infos (rfm_var_get_info, rfm_record_get_info) alike. */
static void test_handle_infos_at_1_0_size(void **state)
{
	const char *net = test_net("v1-size");
	rfm_layout *layout = build_1_0_layout();
	rfm_node *node = open_node(net, 1);
	rfm_var *x = NULL;
	rfm_record *rec = NULL;
	struct rfm_var_info vi;
	struct rfm_record_info ri;

	(void)state;
	assert_int_equal(rfm_var_open(layout, node, "a.rec.x", &x), 0);
	assert_int_equal(rfm_record_open(layout, node, "a.rec", &rec), 0);

	memset(&vi, CANARY, sizeof(vi));
	vi.struct_size = VAR_INFO_1_0;
	assert_int_equal(rfm_var_get_info(x, &vi), 0);
	assert_string_equal(vi.name, "a.rec.x");
	assert_untouched(&vi, VAR_INFO_1_0, sizeof(vi));

	memset(&ri, CANARY, sizeof(ri));
	ri.struct_size = RECORD_INFO_1_0;
	assert_int_equal(rfm_record_get_info(rec, &ri), 0);
	assert_string_equal(ri.name, "a.rec");
	assert_untouched(&ri, RECORD_INFO_1_0, sizeof(ri));

	rfm_record_close(rec);
	rfm_var_close(x);
	rfm_close(node);
	rfm_layout_free(layout);
	destroy_net(net);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_specs_and_infos_at_1_0_size),
		cmocka_unit_test(test_handle_infos_at_1_0_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
