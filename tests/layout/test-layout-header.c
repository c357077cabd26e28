/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The generated header, compiled: its _Static_asserts hold (or this file
 * would not build), its macros agree with the library's offsets, and its
 * structs and accessors address the same bytes the typed handles do, in
 * the layout's byte order, on a little- or big-endian host (s390x under
 * qemu-user: make check-cross).
 */
#include <endian.h>
#include <stdbool.h>

#include "helpers.h"
#include "generated-layout.h"

struct expect {
	const char *name;
	uint64_t offset, size;
	uint32_t count;
};

#define E(name, M) { name, M##_OFFSET, M##_SIZE, M##_COUNT }
static const struct expect expected[] = {
	E("ctl.mode", TST_CTL_MODE),	E("ctl.gain", TST_CTL_GAIN),
	E("ctl.coeffs", TST_CTL_COEFFS), E("ctl.tag", TST_CTL_TAG),
	E("ctl.on", TST_CTL_ON),	E("vme.word", TST_VME_WORD),
	E("vme.temp", TST_VME_TEMP),	E("vme.snap.seq_no", TST_VME_SNAP_SEQ_NO),
	E("vme.snap.vals", TST_VME_SNAP_VALS),
};

/*
 * The layout the header was generated from, built into the program: a
 * lab guest running it on dev: has no source tree to read it from.
 */
static const char header_yaml[] =
#include "header-yaml.h"
	;

struct fixture {
	const char *net;
	rfm_layout *layout;
	rfm_node *node;
	void *base;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->net = test_net("header");
	assert_int_equal(rfm_layout_load_string(header_yaml, strlen(header_yaml), "header.yaml",
						&f->layout, NULL),
			 0);
	f->node = open_node(f->net, 1);
	assert_int_equal(rfm_mem_map(f->node, &f->base, NULL), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rfm_close(f->node);
	rfm_layout_free(f->layout);
	destroy_net(f->net);
	free(f);
	return 0;
}

static void test_macros_match_library(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(rfm_layout_var_count(f->layout), sizeof(expected) / sizeof(expected[0]));
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		rfm_var *v;
		struct rfm_var_info info = { .struct_size = sizeof(info) };
		assert_int_equal(rfm_var_open(f->layout, f->node, expected[i].name, &v), 0);
		assert_int_equal(rfm_var_get_info(v, &info), 0);
		assert_int_equal(info.offset, expected[i].offset);
		assert_int_equal(info.size, expected[i].size);
		assert_int_equal(info.count, expected[i].count);
		rfm_var_close(v);
	}
	struct rfm_record_info rec = { .struct_size = sizeof(rec) };
	assert_int_equal(rfm_layout_record_info(f->layout, 0, &rec), 0);
	assert_int_equal(rec.offset, TST_VME_SNAP_OFFSET);
	assert_int_equal(rec.data_offset, TST_VME_SNAP_DATA_OFFSET);
	assert_int_equal(rec.data_size, TST_VME_SNAP_DATA_SIZE);
	assert_int_equal(rec.size, sizeof(struct tst_vme_snap));
	assert_int_equal(TST_WINDOW_SIZE, rfm_layout_window_size(f->layout));
	assert_int_equal(TST_CTL_WRITER, 1);
	assert_int_equal(sizeof(struct tst_ctl), TST_CTL_SIZE);
}

static void test_struct_and_handles_share_bytes(void **state)
{
	struct fixture *f = *state;
	struct tst_ctl *ctl = TST_CTL(f->base);
	struct tst_vme *vme = TST_VME(f->base);
	rfm_var *gain, *coeffs, *tag, *on, *word, *temp;
	double d;
	float c[5];
	char s[16];

	assert_int_equal(rfm_var_open(f->layout, f->node, "ctl.gain", &gain), 0);
	assert_int_equal(rfm_var_open(f->layout, f->node, "ctl.coeffs", &coeffs), 0);
	assert_int_equal(rfm_var_open(f->layout, f->node, "ctl.tag", &tag), 0);
	assert_int_equal(rfm_var_open(f->layout, f->node, "ctl.on", &on), 0);
	assert_int_equal(rfm_var_open(f->layout, f->node, "vme.word", &word), 0);
	assert_int_equal(rfm_var_open(f->layout, f->node, "vme.temp", &temp), 0);

	/* Struct writes, handle reads: the little-endian region. */
#if TST_HOST_LITTLE
	ctl->gain = 3.5;	/* host order: a plain member */
	for (int i = 0; i < 5; i++)
		ctl->coeffs[i] = (float)i / 2;
#else
	tst_ctl_gain_set(ctl, 3.5);
	for (int i = 0; i < 5; i++)
		tst_ctl_coeffs_set(ctl, (unsigned int)i, (float)i / 2);
	assert_int_equal(le64toh(ctl->gain_le) >> 52, 0x400); /* 3.5: exponent 1 */
#endif
	memcpy(ctl->tag, "pump-7", 7);
	ctl->on = 1;
	assert_int_equal(rfm_var_get_f64(gain, 0, &d), 0);
	assert_true(d == 3.5);
	assert_int_equal(rfm_var_get_array(coeffs, 0, 5, c, sizeof(c)), 0);
	assert_true(c[4] == 2.0f);
	assert_int_equal(rfm_var_get_string(tag, s, sizeof(s)), 6);
	assert_string_equal(s, "pump-7");
	bool b;
	assert_int_equal(rfm_var_get_bool(on, 0, &b), 0);
	assert_true(b);
	/* The accessors agree on every host. */
	assert_true(tst_ctl_gain_get(ctl) == 3.5);
	assert_true(tst_ctl_coeffs_get(ctl, 3) == 1.5f);
	assert_int_equal(tst_ctl_on_get(ctl), 1);
	tst_ctl_mode_set(ctl, 0x1234);
	uint8_t mode_bytes[2];
	memcpy(mode_bytes, (char *)f->base + TST_CTL_MODE_OFFSET, 2);
	assert_int_equal(mode_bytes[0], 0x34);	/* little-endian in the window */
	assert_int_equal(mode_bytes[1], 0x12);

	/* Handle writes, struct reads: the big-endian region. */
	assert_int_equal(rfm_var_set_u32(word, 0, 0x01020304), 0);
	assert_int_equal(rfm_var_set_f64(temp, 0, -40.0), 0);
	assert_int_equal(tst_vme_word_get(vme), 0x01020304);
	assert_true(tst_vme_temp_get(vme) == -40.0);
#if TST_HOST_LITTLE
	assert_int_equal(be32toh(vme->word_be), 0x01020304); /* raw words */
	uint64_t bits = be64toh(vme->temp_be);
	memcpy(&d, &bits, sizeof(d));
	assert_true(d == -40.0);
#else
	assert_int_equal(vme->word, 0x01020304); /* host order: plain members */
	assert_true(vme->temp == -40.0);
#endif
	tst_vme_word_set(vme, 0xa1b2c3d4);
	uint32_t w;
	assert_int_equal(rfm_var_get_u32(word, 0, &w), 0);
	assert_int_equal(w, 0xa1b2c3d4);

	/* A record published by the library, read through the struct. */
	rfm_record *rec;
	rfm_var *seq_no, *vals;
	int16_t v3[3] = { -1, 0, 300 };
	assert_int_equal(rfm_record_open(f->layout, f->node, "vme.snap", &rec), 0);
	assert_int_equal(rfm_record_var(rec, "seq_no", &seq_no), 0);
	assert_int_equal(rfm_record_var(rec, "vals", &vals), 0);
	assert_int_equal(rfm_var_set_u64(seq_no, 0, 77), 0);
	assert_int_equal(rfm_var_set_array(vals, 0, 3, v3, sizeof(v3)), 0);
	assert_int_equal(rfm_record_publish(rec), 0);
	assert_int_equal(be32toh(vme->snap.sequence), 2);
	assert_int_equal(tst_vme_snap_sequence(&vme->snap), 2);
	assert_int_equal(tst_vme_snap_seq_no_get(&vme->snap.data), 77);
	assert_int_equal(tst_vme_snap_vals_get(&vme->snap.data, 2), 300);

	/* A raw read fills the generated data struct. */
	struct tst_vme_snap_data data;
	assert_int_equal(rfm_record_read(rec, &data, sizeof(data), NULL), 0);
	assert_int_equal(tst_vme_snap_vals_get(&data, 0), -1);

	rfm_var_close(seq_no);
	rfm_var_close(vals);
	rfm_record_close(rec);
	rfm_var_close(gain);
	rfm_var_close(coeffs);
	rfm_var_close(tag);
	rfm_var_close(on);
	rfm_var_close(word);
	rfm_var_close(temp);
}

static void test_header_refusals(void **state)
{
	static const char *const keyword[] = { "version: 1", "window: 4K", "regions:",
		"  - { name: r, offset: 0, size: 8, writer: 0, variables: [ {name: int, type: u8} ] }",
		NULL };
	static const char *const clash[] = { "version: 1", "window: 4K", "regions:",
		"  - { name: x_y, offset: 0, size: 8, writer: 0, variables: [ {name: a, type: u8} ] }",
		"  - { name: x, offset: 8, size: 8, writer: 0, variables: [ {name: y_a, type: u8} ] }",
		NULL };
	rfm_layout *l;
	FILE *out = tmpfile();

	assert_non_null(out);
	assert_int_equal(load_lines(keyword, &l, NULL), 0);
	assert_int_equal(rfm_layout_write_header(l, NULL, out), RFM_EINVAL);
	assert_non_null(strstr(rfm_last_error(), "r.int is named after a C keyword"));
	rfm_layout_free(l);
	assert_int_equal(load_lines(clash, &l, NULL), 0);
	assert_int_equal(rfm_layout_write_header(l, NULL, out), RFM_EINVAL);
	assert_non_null(strstr(rfm_last_error(), "both become the C name 'test_x_y_a_get'"));
	assert_int_equal(rfm_layout_write_header(l, "9bad", out), RFM_EINVAL);
	assert_int_equal(rfm_layout_write_header(NULL, NULL, out), RFM_EINVAL);
	assert_int_equal(ftell(out), 0);	/* nothing half-written */
	rfm_layout_free(l);
	fclose(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_macros_match_library, setup, teardown),
		cmocka_unit_test_setup_teardown(test_struct_and_handles_share_bytes, setup,
						teardown),
		cmocka_unit_test(test_header_refusals),
	};

	static const int writers[] = { 1 };

	harness_init();
	require_node_ids(writers, sizeof(writers) / sizeof(writers[0]));
	return cmocka_run_group_tests_name("layout-header", tests, NULL, NULL);
}
