/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Hostile and huge layout texts, generated here (the loader must stay
 * linear in the text and bounded in memory, and every problem be an error):
 * deep flow and block nesting, an unclosed deep list, more text, regions
 * and aliases than the limits allow, and a file with a problem on every
 * region. Each ends with a clear error (or success for a big valid file);
 * none may run for minutes. harness_watchdog() is the hang safety net: it
 * ends the program (SIGALRM on Linux), which fails it.
 */
#include "helpers.h"

#define HANG_ALARM_S 120

/* A growing text buffer. */
struct text {
	char *s;
	size_t len, cap;
};

__attribute__((format(printf, 2, 3)))
static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		assert_true(n >= 0);
		if ((size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap ? 2 * t->cap + (size_t)n : 4096 + (size_t)n;
		t->s = realloc(t->s, t->cap);
		assert_non_null(t->s);
	}
	t->len += (size_t)n;
}

static void add_repeat(struct text *t, const char *piece, size_t times)
{
	for (size_t i = 0; i < times; i++)
		add(t, "%s", piece);
}

/* Load @t; returns the code and keeps the diagnostics in *diagsp. */
static int load_text(struct text *t, rfm_layout **layoutp, rfm_diag_list **diagsp)
{
	*layoutp = NULL;
	return rfm_layout_load_string(t->s, t->len, "big.yaml", layoutp, diagsp);
}

static bool has_diag(const rfm_diag_list *list, const char *needle)
{
	for (size_t i = 0; i < rfm_diag_list_count(list); i++)
		if (strstr(diag_at(list, i).message, needle))
			return true;
	return false;
}

static void expect_error(struct text *t, const char *needle)
{
	rfm_layout *layout;
	rfm_diag_list *diags = NULL;

	assert_int_equal(load_text(t, &layout, &diags), RFM_ELAYOUT);
	assert_null(layout);
	assert_non_null(diags);
	if (!has_diag(diags, needle)) {
		for (size_t i = 0; i < rfm_diag_list_count(diags) && i < 5; i++)
			print_message("  have: %s\n", diag_at(diags, i).text);
		fail_msg("no diagnostic containing '%s'", needle);
	}
	rfm_diag_list_free(diags);
	free(t->s);
}

static void test_deep_flow_list(void **state)
{
	struct text t = { 0 };

	(void)state;
	add(&t, "version: 1\nwindow: 1M\nregions: ");
	add_repeat(&t, "[", 100000);
	add_repeat(&t, "]", 100000);
	add(&t, "\n");
	expect_error(&t, "nested more than 32 deep");
}

static void test_deep_flow_map(void **state)
{
	struct text t = { 0 };

	(void)state;
	add(&t, "version: 1\nwindow: 1M\nregions: ");
	add_repeat(&t, "{a: ", 100000);
	add(&t, "x");
	add_repeat(&t, "}", 100000);
	add(&t, "\n");
	expect_error(&t, "nested more than 32 deep");
}

static void test_unclosed_deep(void **state)
{
	struct text t = { 0 };

	(void)state;
	add(&t, "version: 1\nwindow: 1M\nregions: ");
	add_repeat(&t, "[{a: ", 200000);
	expect_error(&t, "nested more than 32 deep");
}

static void test_deep_block(void **state)
{
	struct text t = { 0 };

	(void)state;
	add(&t, "version: 1\nwindow: 1M\nregions:\n");
	for (int i = 0; i < 3000; i++)
		add(&t, "%*s- a:\n", 2 * i + 2, "");
	expect_error(&t, "nested more than 32 deep");
}

static void test_text_too_big(void **state)
{
	struct text t = { 0 };

	(void)state;
	add(&t, "version: 1\nwindow: 1M\n");
	/* Comments only: what counts is the size. */
	while (t.len <= (16u << 20))
		add(&t, "# %0120d\n", 0);
	expect_error(&t, "more than the 16777216 a layout file may have");
}

static void test_too_many_regions(void **state)
{
	struct text t = { 0 };

	(void)state;
	add(&t, "version: 1\nwindow: 1G\nregions:\n");
	for (unsigned int i = 0; i <= 131072; i++)
		add(&t, "- {name: r%u, offset: %u, size: 1, writer: 0}\n", i, i);
	expect_error(&t, "more than 131072 regions");
}

static void test_many_aliases(void **state)
{
	struct text t = { 0 };

	(void)state;
	add(&t, "version: 1\nwindow: &w 1M\nregions:\n");
	for (int i = 0; i < 100; i++)
		add(&t, "- {name: *w, offset: *w, size: *w, writer: *w}\n");
	expect_error(&t, "more than 16 aliases");
}

/* 20000 regions, each with variables and a record: valid, and quick. */
static void test_many_regions_valid(void **state)
{
	struct text t = { 0 };
	rfm_layout *layout;
	rfm_diag_list *diags = NULL;

	(void)state;
	add(&t, "version: 1\nname: big\nwindow: 0x40000000\nregions:\n");
	for (unsigned int i = 0; i < 20000; i++)
		add(&t,
		    "  - name: r%u\n    offset: 0x%x\n    size: 0x1000\n    writer: 0\n"
		    "    variables: [ {name: a, type: u32}, {name: b, type: f64} ]\n"
		    "    records: [ {name: rec, variables: [ {name: x, type: u64} ]} ]\n",
		    i, i * 0x1000);
	assert_int_equal(load_text(&t, &layout, &diags), 0);
	assert_null(diags);
	assert_int_equal(rfm_layout_region_count(layout), 20000);
	assert_int_equal(rfm_layout_record_count(layout), 20000);
	assert_int_equal(rfm_layout_var_count(layout), 60000);
	/* Placement still right at the far end: the last record follows b. */
	struct rfm_record_info ri = { .struct_size = sizeof(ri) };
	assert_int_equal(rfm_layout_record_info(layout, 19999, &ri), 0);
	assert_string_equal(ri.name, "r19999.rec");
	assert_int_equal(ri.offset, 19999u * 0x1000 + 16);
	rfm_layout_free(layout);
	free(t.s);
}

/* A problem on every one of 5000 regions: the list stops at 1000 and says so. */
static void test_problems_capped(void **state)
{
	struct text t = { 0 };
	rfm_layout *layout;
	rfm_diag_list *diags = NULL;

	(void)state;
	add(&t, "version: 1\nwindow: 1M\nregions:\n");
	for (unsigned int i = 0; i < 5000; i++)
		add(&t, "- {name: r%u, offset: 0, size: 0x100000, writer: 0}\n", i);
	assert_int_equal(load_text(&t, &layout, &diags), RFM_ELAYOUT);
	assert_non_null(diags);
	assert_int_equal(rfm_diag_list_count(diags), 1000);
	struct rfm_diag last = diag_at(diags, 999);
	assert_non_null(strstr(last.message, "more problems not listed"));
	/* 4999 overlaps found, and one region in the heartbeat table (the
	 * first, reported once), 999 listed: 4001 more. */
	assert_non_null(strstr(last.message, "4001 more problems"));
	rfm_diag_list_free(diags);
	free(t.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deep_flow_list),
		cmocka_unit_test(test_deep_flow_map),
		cmocka_unit_test(test_unclosed_deep),
		cmocka_unit_test(test_deep_block),
		cmocka_unit_test(test_text_too_big),
		cmocka_unit_test(test_too_many_regions),
		cmocka_unit_test(test_many_aliases),
		cmocka_unit_test(test_many_regions_valid),
		cmocka_unit_test(test_problems_capped),
	};

	harness_watchdog(HANG_ALARM_S);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
