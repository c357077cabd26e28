/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Layout files: good ones load with the offsets the format promises; bad
 * ones fail with RFM_ELAYOUT and every problem at its line and column.
 */
#include "helpers.h"

#ifndef EXAMPLES_DIR
#error "EXAMPLES_DIR must point at examples/layouts"
#endif

static struct rfm_var_info var_info(const rfm_layout *l, const char *name)
{
	struct rfm_var_info info;

	for (size_t i = 0; i < rfm_layout_var_count(l); i++) {
		memset(&info, 0, sizeof(info));
		info.struct_size = sizeof(info);
		assert_int_equal(rfm_layout_var_info(l, i, &info), 0);
		if (!strcmp(info.name, name))
			return info;
	}
	fail_msg("no variable %s", name);
	return info;
}

static void test_example_rig_loads(void **state)
{
	rfm_layout *l = NULL;
	rfm_diag_list *d = (void *)1;

	assert_int_equal(rfm_layout_load_file(EXAMPLES_DIR "/test-rig.yaml", &l, &d), 0);
	assert_null(d);
	assert_string_equal(rfm_layout_name(l), "rig");
	assert_int_equal(rfm_layout_window_size(l), 16u << 20);
	assert_int_equal(rfm_layout_region_count(l), 4);
	assert_int_equal(rfm_layout_record_count(l), 1);
	assert_int_equal(rfm_layout_var_count(l), 15);
	/* The simulator's event log: a ring sized for the layout's 8 nodes. */
	struct rfm_region_info log = { .struct_size = sizeof(log) };
	struct rfm_ring_config ring = { .struct_size = sizeof(ring) };
	assert_int_equal(rfm_layout_region_info(l, 3, &log), 0);
	assert_string_equal(log.name, "log");
	assert_int_equal(log.size, 2496);
	assert_int_equal(rfm_layout_region_ring(l, 3, &ring), 0);
	assert_int_equal(ring.consumer_nodes, 8);

	/* Automatic placement: first free naturally aligned offset after the previous item. */
	assert_int_equal(var_info(l, "control.mode").offset, 0x0);
	assert_int_equal(var_info(l, "control.throttle").offset, 0x8);
	assert_int_equal(var_info(l, "control.setpoints").offset, 0x10);
	assert_int_equal(var_info(l, "control.setpoints").count, 8);
	assert_int_equal(var_info(l, "control.estop").offset, 0x100);
	struct rfm_var_info speed = var_info(l, "sim.state.speed");
	assert_int_equal(speed.type, RFM_TYPE_F64);
	assert_true(speed.has_min && speed.has_max);
	assert_true(speed.max == 12000.0);
	assert_string_equal(speed.unit, "rpm");
	assert_int_equal(speed.writer, 1);
	assert_int_equal(speed.record, 0);

	struct rfm_record_info rec = { .struct_size = sizeof(rec) };
	assert_int_equal(rfm_layout_record_info(l, 0, &rec), 0);
	assert_string_equal(rec.name, "sim.state");
	assert_int_equal(rec.offset, 0x1008);
	assert_int_equal(rec.data_offset, 0x1010);
	assert_int_equal(rec.data_size, 56);
	assert_int_equal(speed.offset, 0x1020);
	assert_int_equal(speed.record_offset, 0x10);

	/* Inherited byte order, and its override. */
	assert_int_equal(var_info(l, "daq.pressure").byte_order, RFM_ORDER_BIG);
	assert_int_equal(var_info(l, "daq.serial").byte_order, RFM_ORDER_LITTLE);
	rfm_layout_free(l);
}

static void test_every_example_loads(void **state)
{
	static const char *const files[] = { "test-rig.yaml", "hil-sim.yaml", "minimal.yaml" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512];
		rfm_layout *l = NULL;
		rfm_diag_list *d = NULL;
		snprintf(path, sizeof(path), "%s/%s", EXAMPLES_DIR, files[i]);
		int ret = rfm_layout_load_file(path, &l, &d);
		if (ret)
			fail_msg("%s: %s", path, rfm_last_error());
		rfm_layout_free(l);
	}
}

static void test_syntax_error_position(void **state)
{
	static const char *const lines[] = {
		"version: 1",
		"window: 64K",
		"regions:",
		"  - name: a",
		"    offset: [0x0",	/* line 5: unterminated flow sequence */
		"    size: 16",
		NULL,
	};
	rfm_layout *l = NULL;
	rfm_diag_list *d = NULL;

	assert_int_equal(load_lines(lines, &l, &d), RFM_ELAYOUT);
	assert_null(l);
	assert_int_equal(rfm_diag_list_count(d), 1);
	struct rfm_diag x = diag_at(d, 0);
	assert_int_equal(x.line, 6);
	assert_string_equal(x.file, "test.yaml");
	assert_non_null(strstr(x.message, "YAML syntax"));
	assert_non_null(strstr(rfm_last_error(), "test.yaml:6:"));
	rfm_diag_list_free(d);
}

static void test_shape_errors_all_reported(void **state)
{
	static const char *const lines[] = {
		"version: 1",				/* 1 */
		"window: 64K",				/* 2 */
		"colour: blue",				/* 3 unknown key */
		"regions:",				/* 4 */
		"  - name: a",				/* 5 */
		"    offset: 0x0",			/* 6 */
		"    size: 0x100",			/* 7 */
		"    writer: 1",			/* 8 */
		"    variables:",			/* 9 */
		"      - name: x",			/* 10 */
		"        type: float",			/* 11 unknown type */
		"      - name: y",			/* 12 */
		"        type: u32",			/* 13 */
		"        ofset: 4",			/* 14 misspelt key */
		"      - name: s",			/* 15 string without length */
		"        type: string",			/* 16 */
		"      - { name: c, type: string, count: 2, length: 4 }", /* 17 count on string */
		"      - { name: n, type: u8, count: lots }",	/* 18 not a number */
		"      - { name: b, type: u16, byte_order: middle }", /* 19 */
		"      - { name: m, type: u8, min: low }",	/* 20 */
		"      - { name: t, type: u8, name: u }",	/* 21 twice */
		"      - just a string",			/* 22 not a mapping */
		NULL,
	};
	rfm_layout *l = NULL;
	rfm_diag_list *d = NULL;

	assert_int_equal(load_lines(lines, &l, &d), RFM_ELAYOUT);
	expect_diag(d, 3, 1, "unknown key 'colour'");
	expect_diag(d, 11, 15, "unknown type 'float'");
	expect_diag(d, 14, 9, "unknown key 'ofset'");
	expect_diag(d, 15, 9, "needs a 'length'");
	expect_diag(d, 17, 41, "'length' in bytes, not a 'count'");
	expect_diag(d, 18, 37, "'lots' is not an unsigned number");
	expect_diag(d, 19, 43, "must be little or big");
	expect_diag(d, 20, 35, "'low' is not a number");
	expect_diag(d, 21, 30, "given twice");
	expect_diag(d, 22, 9, "must be a mapping");
	assert_int_equal(rfm_diag_list_count(d), 10);
	/* Sorted by position; the message names the first and counts the rest. */
	assert_int_equal(diag_at(d, 0).line, 3);
	assert_non_null(strstr(rfm_last_error(), "(and 9 more problems)"));
	rfm_diag_list_free(d);
}

/* digits: significant digits to show, f32/f64 only, 1..17; carried into the info. */
static void test_digits(void **state)
{
	static const char *const good[] = {
		"version: 1",
		"window: 64K",
		"regions:",
		"  - name: a",
		"    offset: 0",
		"    size: 0x100",
		"    writer: 1",
		"    variables:",
		"      - { name: x, type: f64, digits: 3 }",
		"      - { name: y, type: f32 }",
		NULL,
	};
	static const char *const bad[] = {
		"version: 1",				/* 1 */
		"window: 64K",				/* 2 */
		"regions:",				/* 3 */
		"  - name: a",				/* 4 */
		"    offset: 0",			/* 5 */
		"    size: 0x100",			/* 6 */
		"    writer: 1",			/* 7 */
		"    variables:",			/* 8 */
		"      - { name: x, type: f64, digits: 0 }",	/* 9 */
		"      - { name: y, type: f64, digits: 18 }",	/* 10 */
		"      - { name: z, type: u32, digits: 3 }",	/* 11 */
		"      - { name: w, type: f32, digits: many }",	/* 12 */
		NULL,
	};
	struct rfm_var_info info = { .struct_size = sizeof(info) };
	rfm_layout *l = NULL;
	rfm_diag_list *d = NULL;

	(void)state;
	assert_int_equal(load_lines(good, &l, NULL), 0);
	assert_int_equal(rfm_layout_var_info(l, 0, &info), 0);
	assert_int_equal(info.digits, 3);
	assert_int_equal(rfm_layout_var_info(l, 1, &info), 0);
	assert_int_equal(info.digits, 0);
	rfm_layout_free(l);
	l = NULL;
	assert_int_equal(load_lines(bad, &l, &d), RFM_ELAYOUT);
	expect_diag(d, 9, 0, "'digits' must be 1 to 17");
	expect_diag(d, 10, 0, "digits 18 is larger than 17");
	expect_diag(d, 11, 0, "only f32 and f64 have 'digits'");
	expect_diag(d, 12, 0, "'many' is not an unsigned number");
	assert_int_equal(rfm_diag_list_count(d), 4);
	rfm_diag_list_free(d);

	/* The builder takes them too, and refuses more than a double has. */
	assert_int_equal(rfm_layout_new("b", 65536, &l), 0);
	struct rfm_region_spec r = { .struct_size = sizeof(r), .name = "a", .size = 0x100, .writer = 1 };
	assert_int_equal(rfm_layout_add_region(l, &r), 0);
	struct rfm_var_spec v = { .struct_size = sizeof(v), .type = RFM_TYPE_F64, .name = "x",
				  .offset = RFM_OFFSET_AUTO, .digits = 18 };
	assert_int_equal(rfm_layout_add_var(l, "a", &v), RFM_EINVAL);
	v.digits = 6;
	assert_int_equal(rfm_layout_add_var(l, "a", &v), 0);
	rfm_layout_free(l);
}

/*
 * Records placed one after another without offsets: each starts after the
 * whole of the one before, header and data (the placement once took a
 * record's size before its members were placed, and the next record
 * overlapped its data).
 */
static void test_records_placed_after_each_other(void **state)
{
	static const char *const lines[] = {
		"version: 1",
		"window: 64K",
		"regions:",
		"  - name: a",
		"    offset: 0",
		"    size: 0x1000",
		"    writer: 1",
		"    records:",
		"      - name: r1",
		"        variables:",
		"          - { name: k, type: u32 }",
		"          - { name: wide, type: u64 }",
		"          - { name: f, type: f64 }",
		"      - name: r2",
		"        variables:",
		"          - { name: k, type: u32 }",
		"    variables:",
		"      - { name: after, type: u32 }",
		NULL,
	};
	struct rfm_record_info r1 = { .struct_size = sizeof(r1) }, r2 = { .struct_size = sizeof(r2) };
	rfm_layout *l = NULL;

	(void)state;
	assert_int_equal(load_lines(lines, &l, NULL), 0);
	assert_int_equal(rfm_layout_record_info(l, 0, &r1), 0);
	assert_int_equal(rfm_layout_record_info(l, 1, &r2), 0);
	assert_int_equal(r1.offset, 0);
	assert_int_equal(r1.data_size, 24);
	assert_true(r2.offset >= r1.data_offset + r1.data_size);
	assert_int_equal(r2.offset, 0x20);
	assert_true(var_info(l, "a.after").offset >= r2.data_offset + r2.data_size);
	rfm_layout_free(l);
}

/* stale_after: a positive duration with a unit, on variables and records; into the infos. */
static void test_stale_after(void **state)
{
	static const char *const good[] = {
		"version: 1",
		"window: 64K",
		"regions:",
		"  - name: a",
		"    offset: 0",
		"    size: 0x100",
		"    writer: 1",
		"    variables:",
		"      - { name: x, type: f64, stale_after: 500ms }",
		"      - { name: y, type: u32, stale_after: 1.5s }",
		"      - { name: z, type: u32 }",
		"    records:",
		"      - name: r",
		"        stale_after: 2min",
		"        variables:",
		"          - { name: n, type: u32 }",
		NULL,
	};
	static const char *const bad[] = {
		"version: 1",					/* 1 */
		"window: 64K",					/* 2 */
		"regions:",					/* 3 */
		"  - name: a",					/* 4 */
		"    offset: 0",				/* 5 */
		"    size: 0x100",				/* 6 */
		"    writer: 1",				/* 7 */
		"    variables:",				/* 8 */
		"      - { name: a, type: u32, stale_after: 2 }",	/* 9 */
		"      - { name: b, type: u32, stale_after: -1s }",	/* 10 */
		"      - { name: c, type: u32, stale_after: 0s }",	/* 11 */
		"      - { name: d, type: u32, stale_after: soon }",	/* 12 */
		"      - { name: e, type: u32, stale_after: 2 s }",	/* 13 */
		"      - { name: f, type: u32, stale_after: 25h }",	/* 14 */
		"    records:",					/* 15 */
		"      - name: r",				/* 16 */
		"        stale_after: 0.1ms",			/* 17 */
		"        variables:",				/* 18 */
		"          - { name: n, type: u32 }",		/* 19 */
		NULL,
	};
	struct rfm_var_info info = { .struct_size = sizeof(info) };
	struct rfm_record_info rec = { .struct_size = sizeof(rec) };
	rfm_layout *l = NULL;
	rfm_diag_list *d = NULL;

	(void)state;
	assert_int_equal(load_lines(good, &l, NULL), 0);
	assert_int_equal(rfm_layout_var_info(l, 0, &info), 0);
	assert_int_equal(info.stale_after_ms, 500);
	assert_int_equal(rfm_layout_var_info(l, 1, &info), 0);
	assert_int_equal(info.stale_after_ms, 1500);
	assert_int_equal(rfm_layout_var_info(l, 2, &info), 0);
	assert_int_equal(info.stale_after_ms, 0);
	assert_int_equal(rfm_layout_record_info(l, 0, &rec), 0);
	assert_int_equal(rec.stale_after_ms, 120000);
	rfm_layout_free(l);
	l = NULL;
	assert_int_equal(load_lines(bad, &l, &d), RFM_ELAYOUT);
	expect_diag(d, 9, 0, "stale_after '2' is not a duration (such as 500ms, 2s or 1min)");
	expect_diag(d, 10, 0, "stale_after '-1s' is not a duration");
	expect_diag(d, 11, 0, "stale_after '0s' must be 1ms to 24 hours");
	expect_diag(d, 12, 0, "stale_after 'soon' is not a duration");
	expect_diag(d, 13, 0, "stale_after '2 s' is not a duration");
	expect_diag(d, 14, 0, "stale_after '25h' is not a duration");
	expect_diag(d, 17, 0, "stale_after '0.1ms' must be 1ms to 24 hours");
	assert_int_equal(rfm_diag_list_count(d), 7);
	rfm_diag_list_free(d);
}

/* The list: overlaps, bounds, misalignment, duplicates, types, writers. */
static void test_validation_reports_every_problem(void **state)
{
	static const char *const lines[] = {
		"version: 1",					/* 1 */
		"window: 0x10000",				/* 2 */
		"nodes: 4",					/* 3 */
		"regions:",					/* 4 */
		"  - name: a",					/* 5 */
		"    offset: 0x0",				/* 6 */
		"    size: 0x1000",				/* 7 */
		"    writer: 0",				/* 8 */
		"    variables:",				/* 9 */
		"      - { name: x, type: u32 }",		/* 10 */
		"      - { name: y, type: u64, offset: 0x14 }",	/* 11 misaligned */
		"      - { name: z, type: u16, offset: 2 }",	/* 12 overlaps x */
		"      - { name: x, type: u8, offset: 0x40 }",	/* 13 duplicate */
		"      - { name: big, type: f64, count: 1000, offset: 0x800 }", /* 14 past the region */
		"      - { name: lim, type: u8, min: 10, max: 300, offset: 0x50 }", /* 15 max */
		"      - { name: inv, type: i16, min: 5, max: 1, offset: 0x52 }",	/* 16 max < min */
		"  - name: b",					/* 17 overlaps a */
		"    offset: 0x800",				/* 18 */
		"    size: 0x1000",				/* 19 */
		"    writer: 4",				/* 20 out of range for 4 nodes */
		"  - name: c",					/* 21 */
		"    offset: 0xf000",				/* 22 past the window */
		"    size: 0x2000",				/* 23 */
		"    writer: 1",				/* 24 */
		"  - name: a",					/* 25 duplicate region */
		"    offset: 0x3000",				/* 26 */
		"    size: 0x10",				/* 27 */
		"    writer: 2",				/* 28 */
		"  - name: 9lives",				/* 29 bad name */
		"    offset: 0x4000",				/* 30 */
		"    size: 0x10",				/* 31 */
		"    writer: 2",				/* 32 */
		NULL,
	};
	rfm_layout *l = NULL;
	rfm_diag_list *d = NULL;

	assert_int_equal(load_lines(lines, &l, &d), RFM_ELAYOUT);
	assert_null(l);
	expect_diag(d, 11, 39, "offset 0x14 (window 0x14) is not a multiple of 8");
	expect_diag(d, 12, 9, "variable 'a.z' [0x2, 0x4) overlaps variable 'a.x' [0x0, 0x4)");
	expect_diag(d, 13, 9, "duplicate name 'a.x'");
	expect_diag(d, 14, 54, "'a.big': 8000 bytes at offset 0x800 do not fit in the 4096 bytes");
	expect_diag(d, 15, 46, "max 300 is not a u8 value");
	expect_diag(d, 16, 46, "max 1 is below min 5");
	expect_diag(d, 17, 5, "region 'b' [0x800, 0x1800) overlaps region 'a'");
	expect_diag(d, 20, 13, "writer node 4 is out of range 0..3");
	expect_diag(d, 22, 13, "goes past the end of the 0x10000-byte window");
	expect_diag(d, 25, 5, "duplicate name 'a'");
	expect_diag(d, 29, 5, "'9lives' is not an identifier");
	/* Each problem once: no cascades. */
	assert_int_equal(rfm_diag_list_count(d), 11);
	rfm_diag_list_free(d);
}

static void test_records_validated(void **state)
{
	static const char *const lines[] = {
		"version: 1",						/* 1 */
		"window: 4K",						/* 2 */
		"regions:",						/* 3 */
		"  - name: r",						/* 4 */
		"    offset: 0",					/* 5 */
		"    size: 64",						/* 6 */
		"    writer: 0",					/* 7 */
		"    records:",						/* 8 */
		"      - name: small",					/* 9 */
		"        size: 8",					/* 10 */
		"        variables:",					/* 11 */
		"          - { name: a, type: f64 }",			/* 12 */
		"          - { name: b, type: u32 }",			/* 13 past size 8 */
		"      - name: odd",					/* 14 */
		"        offset: 36",					/* 15 not 8-aligned */
		"        variables:",					/* 16 */
		"          - { name: a, type: u8 }",			/* 17 */
		"      - name: empty",					/* 18 */
		"        variables: []",				/* 19 */
		NULL,
	};
	rfm_layout *l = NULL;
	rfm_diag_list *d = NULL;

	assert_int_equal(load_lines(lines, &l, &d), RFM_ELAYOUT);
	expect_diag(d, 13, 13, "'r.small.b': 4 bytes at offset 0x8 do not fit in the 8 bytes of record r.small");
	expect_diag(d, 15, 17, "not a multiple of 8");
	expect_diag(d, 18, 9, "has no variables and no size");
	rfm_diag_list_free(d);
}

static void test_version_checked(void **state)
{
	static const char *const newer[] = { "version: 2", "window: 4K", "regions: []", NULL };
	static const char *const none[] = { "window: 4K", "regions: []", NULL };
	static const char *const empty[] = { "# nothing", NULL };
	static const char *const two[] = { "version: 1", "window: 4K", "regions: []", "---",
					   "version: 1", NULL };
	static const char *const alias[] = { "version: 1", "window: &w 4K", "nodes: *w",
					     "regions: []", NULL };
	static const char *const list[] = { "- version: 1", NULL };
	rfm_layout *l = NULL;
	rfm_diag_list *d = NULL;

	assert_int_equal(load_lines(newer, &l, &d), RFM_ELAYOUT);
	expect_diag(d, 1, 10, "layout version 2 is not supported");
	assert_int_equal(rfm_diag_list_count(d), 1);
	rfm_diag_list_free(d);

	assert_int_equal(load_lines(none, &l, &d), RFM_ELAYOUT);
	expect_diag(d, 1, 1, "has no 'version'");
	rfm_diag_list_free(d);

	assert_int_equal(load_lines(empty, &l, &d), RFM_ELAYOUT);
	expect_diag(d, 1, 1, "empty");
	rfm_diag_list_free(d);

	assert_int_equal(load_lines(two, &l, &d), RFM_ELAYOUT);
	expect_diag(d, 5, 1, "one YAML document");
	rfm_diag_list_free(d);

	assert_int_equal(load_lines(alias, &l, &d), RFM_ELAYOUT);
	expect_diag(d, 2, 9, "aliases are not supported");
	rfm_diag_list_free(d);

	assert_int_equal(load_lines(list, &l, &d), RFM_ELAYOUT);
	expect_diag(d, 1, 1, "must be a mapping");
	rfm_diag_list_free(d);
	assert_null(l);
}

static void test_diagnostics_optional_and_file_errors(void **state)
{
	static const char *const bad[] = { "version: 1", "regions: []", NULL };
	rfm_layout *l = NULL;
	rfm_diag_list *d = (void *)1;

	/* Without a list the code and message still say it. */
	assert_int_equal(load_lines(bad, &l, NULL), RFM_ELAYOUT);
	assert_non_null(strstr(rfm_last_error(), "test.yaml:1:1: the layout has no 'window'"));

	assert_int_equal(rfm_layout_load_file("/nonexistent/rig.yaml", &l, &d), RFM_ENOENT);
	assert_null(d);
	assert_non_null(strstr(rfm_last_error(), "/nonexistent/rig.yaml"));
	assert_int_equal(rfm_layout_load_file("/", &l, NULL), RFM_EINVAL);
	assert_int_equal(rfm_layout_load_string(NULL, 4, NULL, &l, NULL), RFM_EINVAL);
	assert_int_equal(rfm_layout_load_string("x", 1, NULL, NULL, NULL), RFM_EINVAL);

	/* Text that is not NUL-terminated is read up to len only. */
	const char text[] = "version: 1\nwindow: 4K\nregions: []\nGARBAGE";
	assert_int_equal(rfm_layout_load_string(text, sizeof(text) - 1 - 7, NULL, &l, NULL), 0);
	rfm_layout_free(l);

	/* Diagnostic list accessors reject bad arguments. */
	struct rfm_diag x = { .struct_size = 4 };
	assert_int_equal(rfm_diag_list_count(NULL), 0);
	assert_int_equal(rfm_diag_list_get(NULL, 0, &x), RFM_EINVAL);
	rfm_diag_list_free(NULL);
}

static void test_built_in_code(void **state)
{
	rfm_layout *l = NULL;
	rfm_diag_list *d = NULL;
	struct rfm_region_spec r = { .struct_size = sizeof(r), .name = "io", .offset = 0x100,
				     .size = 0x100, .writer = 3 };
	struct rfm_record_spec rec = { .struct_size = sizeof(rec), .name = "frame",
				       .offset = RFM_OFFSET_AUTO };
	struct rfm_var_spec v = { .struct_size = sizeof(v), .name = "gain", .type = RFM_TYPE_F32,
				  .offset = RFM_OFFSET_AUTO };

	assert_int_equal(rfm_layout_new("bench", 4096, &l), 0);
	assert_int_equal(rfm_layout_add_region(l, &r), 0);
	assert_int_equal(rfm_layout_add_var(l, "io", &v), 0);
	assert_int_equal(rfm_layout_add_record(l, "io", &rec), 0);
	v.name = "t";
	v.type = RFM_TYPE_U64;
	assert_int_equal(rfm_layout_add_var(l, "io.frame", &v), 0);
	assert_int_equal(rfm_layout_add_var(l, "nope", &v), RFM_ENOTFOUND);
	assert_int_equal(rfm_layout_add_var(l, "io.nope", &v), RFM_ENOTFOUND);
	assert_int_equal(rfm_layout_finish(l, &d), 0);
	assert_null(d);
	assert_int_equal(rfm_layout_add_var(l, "io", &v), RFM_EBUSY);
	assert_int_equal(rfm_layout_finish(l, NULL), RFM_EBUSY);

	struct rfm_var_info info = { .struct_size = sizeof(info) };
	assert_int_equal(rfm_layout_var_info(l, 1, &info), 0);
	assert_string_equal(info.name, "io.frame.t");
	assert_int_equal(info.offset, 0x100 + 8 + 8); /* gain 4 B, record at 0x108, data +8 */
	rfm_layout_free(l);

	/* Errors of a code-built layout: no position, all of them. */
	assert_int_equal(rfm_layout_new("bad", 4096, &l), 0);
	r.writer = 300;
	r.offset = 4000;
	assert_int_equal(rfm_layout_add_region(l, &r), 0);
	v.name = "x";
	v.type = 99;
	assert_int_equal(rfm_layout_add_var(l, "io", &v), 0);
	assert_int_equal(rfm_layout_finish(l, &d), RFM_ELAYOUT);
	assert_int_equal(rfm_diag_list_count(d), 3);
	expect_diag(d, 0, 0, "writer node 300 is out of range 0..255");
	expect_diag(d, 0, 0, "past the end of the 0x1000-byte window");
	expect_diag(d, 0, 0, "unknown type 99");
	assert_string_equal(diag_at(d, 0).file, "<code>");
	assert_non_null(strstr(diag_at(d, 0).text, "<code>: "));
	rfm_diag_list_free(d);
	rfm_layout_free(l);

	assert_int_equal(rfm_layout_new(NULL, 4096, NULL), RFM_EINVAL);
	r.struct_size = 3;
	assert_int_equal(rfm_layout_new("x", 4096, &l), 0);
	assert_int_equal(rfm_layout_add_region(l, &r), RFM_EINVAL);
	assert_int_equal(rfm_layout_add_region(l, NULL), RFM_EINVAL);
	rfm_layout_free(l);
}

static void test_info_arguments(void **state)
{
	static const char *const ok[] = { "version: 1", "window: 4K", "regions:",
					  "  - { name: a, offset: 0, size: 8, writer: 0 }", NULL };
	rfm_layout *l = NULL;
	struct rfm_region_info r = { .struct_size = sizeof(r) };

	assert_int_equal(load_lines(ok, &l, NULL), 0);
	assert_string_equal(rfm_layout_name(l), "test"); /* from "test.yaml" */
	assert_int_equal(rfm_layout_region_info(l, 0, &r), 0);
	assert_string_equal(r.name, "a");
	assert_int_equal(r.size, 8);
	assert_int_equal(rfm_layout_region_info(l, 1, &r), RFM_EINVAL);
	r.struct_size = 2;
	assert_int_equal(rfm_layout_region_info(l, 0, &r), RFM_EINVAL);
	assert_int_equal(rfm_layout_var_count(NULL), 0);
	assert_string_equal(rfm_layout_name(NULL), "");
	assert_string_equal(rfm_type_name(RFM_TYPE_I16), "i16");
	assert_string_equal(rfm_type_name(1000), "");
	rfm_layout_free(l);
	rfm_layout_free(NULL);
}

/* The heartbeat table (health.h) keeps the window's last 16 KiB. */
static void test_heartbeat_table_kept_free(void **state)
{
	static const char *const overlap[] = { "version: 1", "window: 64K", "regions:",
		"  - { name: a, offset: 0, size: 0x100, writer: 1 }",
		"  - { name: tail, offset: 0xc000, size: 0x1000, writer: 1 }",
		"  - { name: end, offset: 0xf000, size: 0x1000, writer: 1 }", NULL };
	static const char *const declared[] = { "version: 1", "window: 64K", "regions:",
		"  - { name: heartbeats, offset: 0x1000, size: 16K, writer: 0 }",
		"  - { name: end, offset: 0xf000, size: 0x1000, writer: 1 }", NULL };
	static const char *const small[] = { "version: 1", "window: 64K", "regions:",
		"  - { name: heartbeats, offset: 0x1020, size: 0x2000, writer: 0 }", NULL };
	static const char *const tiny_window[] = { "version: 1", "window: 8K", "regions:",
		"  - { name: all, offset: 0, size: 8K, writer: 0 }", NULL };
	static const char *const just_before[] = { "version: 1", "window: 64K", "regions:",
		"  - { name: a, offset: 0, size: 0xc000, writer: 0 }", NULL };
	rfm_layout *l = NULL;
	rfm_diag_list *d = NULL;

	(void)state;
	/* One problem, at the first region in the way, saying what to do. */
	assert_int_equal(load_lines(overlap, &l, &d), RFM_ELAYOUT);
	assert_null(l);
	assert_int_equal(rfm_diag_list_count(d), 1);
	expect_diag(d, 5, 0, "region 'tail' [0xc000, 0xd000) overlaps the heartbeat table, the "
			     "window's last 16384 bytes [0xc000, 0x10000)");
	expect_diag(d, 5, 0, "declare the table as a region named 'heartbeats'");
	rfm_diag_list_free(d);

	/* Declared elsewhere: the end of the window is the layout's. */
	assert_int_equal(load_lines(declared, &l, &d), 0);
	assert_null(d);
	rfm_layout_free(l);

	/* A declared table must hold every slot, slot-aligned. */
	assert_int_equal(load_lines(small, &l, &d), RFM_ELAYOUT);
	assert_int_equal(rfm_diag_list_count(d), 1);
	expect_diag(d, 4, 0, "it needs 16384 bytes at a multiple of 64");
	rfm_diag_list_free(d);

	/* No room for a table: nothing to keep free. Right up to it: fine. */
	assert_int_equal(load_lines(tiny_window, &l, &d), 0);
	rfm_layout_free(l);
	assert_int_equal(load_lines(just_before, &l, &d), 0);
	rfm_layout_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example_rig_loads),
		cmocka_unit_test(test_every_example_loads),
		cmocka_unit_test(test_syntax_error_position),
		cmocka_unit_test(test_shape_errors_all_reported),
		cmocka_unit_test(test_validation_reports_every_problem),
		cmocka_unit_test(test_records_validated),
		cmocka_unit_test(test_records_placed_after_each_other),
		cmocka_unit_test(test_version_checked),
		cmocka_unit_test(test_diagnostics_optional_and_file_errors),
		cmocka_unit_test(test_built_in_code),
		cmocka_unit_test(test_info_arguments),
		cmocka_unit_test(test_heartbeat_table_kept_free),
		cmocka_unit_test(test_digits),
		cmocka_unit_test(test_stale_after),
	};

	return cmocka_run_group_tests_name("layout-parse", tests, NULL, NULL);
}
