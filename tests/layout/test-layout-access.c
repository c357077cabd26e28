/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Typed access through resolved handles: values written by one process
 * (node) and read by another, in both byte orders, scalars, elements and
 * arrays; ownership refusal; limits; text; records.
 */
#include <math.h>
#include <stdbool.h>

#include "byteorder.h"
#include "helpers.h"

/* A view of a variable of byte order @order is swapped on a host of the other. */
#define HOST_ORDER (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? RFM_ORDER_LITTLE : RFM_ORDER_BIG)
#define SWAPPED_ON(order) ((order) == HOST_ORDER ? 0 : RFM_VIEW_SWAPPED)

static const char *const layout_lines[] = {
	"version: 1",
	"window: 1M",
	"regions:",
	"  - name: a",
	"    offset: 0",
	"    size: 0x400",
	"    writer: 1",
	"    variables:",
	"      - { name: u8v, type: u8 }",
	"      - { name: u16v, type: u16 }",
	"      - { name: u32v, type: u32 }",
	"      - { name: u64v, type: u64 }",
	"      - { name: i8v, type: i8 }",
	"      - { name: i16v, type: i16 }",
	"      - { name: i32v, type: i32 }",
	"      - { name: i64v, type: i64 }",
	"      - { name: f32v, type: f32 }",
	"      - { name: f64v, type: f64 }",
	"      - { name: flag, type: bool }",
	"      - { name: arr, type: f64, count: 4 }",
	"      - { name: label, type: string, length: 16 }",
	"      - { name: blob, type: bytes, length: 4 }",
	"      - { name: limited, type: i32, min: -5, max: 5 }",
	"  - name: b",
	"    offset: 0x400",
	"    size: 0x400",
	"    writer: 2",
	"    byte_order: big",
	"    variables:",
	"      - { name: u16v, type: u16, offset: 0 }",
	"      - { name: u32v, type: u32, offset: 4 }",
	"      - { name: u64v, type: u64, offset: 8 }",
	"      - { name: i32v, type: i32, offset: 16 }",
	"      - { name: f32v, type: f32, offset: 20 }",
	"      - { name: f64v, type: f64, offset: 24 }",
	"      - { name: arr, type: i32, count: 8, offset: 32 }",
	"    records:",
	"      - name: rec",
	"        offset: 0x100",
	"        variables:",
	"          - { name: n, type: u32 }",
	"          - { name: v, type: f64, count: 3 }",
	NULL,
};

struct fixture {
	const char *net;
	rfm_layout *layout;
	rfm_node *node;		/* node 1: writer of region a */
	rfm_var *vars[64];	/* handles of var(), closed by teardown */
	size_t nvars;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->net = test_net("access");
	assert_int_equal(load_lines(layout_lines, &f->layout, NULL), 0);
	f->node = open_node(f->net, 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	for (size_t i = 0; i < f->nvars; i++)
		rfm_var_close(f->vars[i]);
	rfm_close(f->node);
	rfm_layout_free(f->layout);
	destroy_net(f->net);
	free(f);
	return 0;
}

static rfm_var *var(struct fixture *f, const char *name)
{
	rfm_var *v = NULL;
	int ret = rfm_var_open(f->layout, f->node, name, &v);

	if (ret)
		fail_msg("%s: %s", name, rfm_last_error());
	assert_true(f->nvars < sizeof(f->vars) / sizeof(f->vars[0]));
	f->vars[f->nvars++] = v;
	return v;
}

/* ---- child side: no cmocka here, failures become the exit status ---- */

#define CHECK(cond)                                                           \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "child: %s:%d: %s (%s)\n", __FILE__,  \
				__LINE__, #cond, rfm_last_error());           \
			return 1;                                             \
		}                                                             \
	} while (0)

/* The child's handles, closed before it exits (valgrind stays quiet). */
static rfm_var *child_vars[64];
static size_t child_nvars;

static rfm_var *cvar(rfm_layout *l, rfm_node *n, const char *name)
{
	rfm_var *v = NULL;

	if (rfm_var_open(l, n, name, &v))
		fprintf(stderr, "child: %s: %s\n", name, rfm_last_error());
	else if (child_nvars < sizeof(child_vars) / sizeof(child_vars[0]))
		child_vars[child_nvars++] = v;
	return v;
}

/* What node 2's process is given, as bytes (harness_child_spawn()). */
struct child_args {
	struct harness_network net;
};

/*
 * Node 2, a process of its own (forked on Linux, started again on
 * Windows): verify what node 1 wrote in region a, then write region b
 * (big-endian). It loads the layout itself, as another program would.
 */
static int node2_body(struct harness_link *link, void *arg)
{
	struct child_args *a = arg;
	rfm_node *n = NULL;
	rfm_layout *l = NULL;

	CHECK(load_lines(layout_lines, &l, NULL) == 0);
	CHECK(rfm_open(harness_node_uri(&a->net, 2), &n) == 0);
	harness_link_ready(link);	/* attached */
	harness_link_wait_go(link);	/* node 1 has written region a */

	uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
	int8_t i8; int16_t i16; int32_t i32; int64_t i64;
	float f32; double f64, arr[4]; bool flag; char label[32]; uint8_t blob[4];
	CHECK(rfm_var_get_u8(cvar(l, n, "a.u8v"), 0, &u8) == 0 && u8 == 0xa5);
	CHECK(rfm_var_get_u16(cvar(l, n, "a.u16v"), 0, &u16) == 0 && u16 == 0xbeef);
	CHECK(rfm_var_get_u32(cvar(l, n, "a.u32v"), 0, &u32) == 0 && u32 == 0xdeadbeef);
	CHECK(rfm_var_get_u64(cvar(l, n, "a.u64v"), 0, &u64) == 0 &&
	      u64 == UINT64_C(0x0123456789abcdef));
	CHECK(rfm_var_get_i8(cvar(l, n, "a.i8v"), 0, &i8) == 0 && i8 == -7);
	CHECK(rfm_var_get_i16(cvar(l, n, "a.i16v"), 0, &i16) == 0 && i16 == -300);
	CHECK(rfm_var_get_i32(cvar(l, n, "a.i32v"), 0, &i32) == 0 && i32 == -70000);
	CHECK(rfm_var_get_i64(cvar(l, n, "a.i64v"), 0, &i64) == 0 && i64 == -(INT64_C(1) << 40));
	CHECK(rfm_var_get_f32(cvar(l, n, "a.f32v"), 0, &f32) == 0 && f32 == 1.25f);
	CHECK(rfm_var_get_f64(cvar(l, n, "a.f64v"), 0, &f64) == 0 && f64 == -2.5e300);
	CHECK(rfm_var_get_bool(cvar(l, n, "a.flag"), 0, &flag) == 0 && flag);
	CHECK(rfm_var_get_array(cvar(l, n, "a.arr"), 0, 4, arr, sizeof(arr)) == 0);
	CHECK(arr[0] == 0.5 && arr[1] == 1.5 && arr[2] == 2.5 && arr[3] == 3.5);
	CHECK(rfm_var_get_f64(cvar(l, n, "a.arr[2]"), 0, &f64) == 0 && f64 == 2.5);
	CHECK(rfm_var_get_string(cvar(l, n, "a.label"), label, sizeof(label)) == 11);
	CHECK(!strcmp(label, "engine left"));
	CHECK(rfm_var_get_array(cvar(l, n, "a.blob"), 0, 4, blob, sizeof(blob)) == 0);
	CHECK(blob[0] == 1 && blob[3] == 4);

	/* Now write region b (this node's), big-endian in the window. */
	int32_t iarr[8] = { -1, 2, -3, 4, -5, 6, -7, 8 };
	CHECK(rfm_var_set_u16(cvar(l, n, "b.u16v"), 0, 0x1234) == 0);
	CHECK(rfm_var_set_u32(cvar(l, n, "b.u32v"), 0, 0x11223344) == 0);
	CHECK(rfm_var_set_u64(cvar(l, n, "b.u64v"), 0, UINT64_C(0x0102030405060708)) == 0);
	CHECK(rfm_var_set_i32(cvar(l, n, "b.i32v"), 0, -2) == 0);
	CHECK(rfm_var_set_f32(cvar(l, n, "b.f32v"), 0, 1.5f) == 0);
	CHECK(rfm_var_set_f64(cvar(l, n, "b.f64v"), 0, 1.0) == 0);
	CHECK(rfm_var_set_array(cvar(l, n, "b.arr"), 0, 8, iarr, sizeof(iarr)) == 0);
	CHECK(rfm_var_set_i32(cvar(l, n, "b.arr[7]"), 0, 80) == 0);
	harness_link_ready(link);	/* region b written */
	harness_link_wait_go(link);	/* node 1 has read it */
	while (child_nvars)
		rfm_var_close(child_vars[--child_nvars]);
	rfm_close(n);
	rfm_layout_free(l);
	return 0;
}

static void test_round_trip_across_processes(void **state)
{
	struct fixture *f = *state;
	struct child_args args = { *test_network(f->net) };
	struct harness_child c;

	harness_child_spawn(&c, node2_body, &args, sizeof(args));
	assert_int_equal(harness_child_wait_ready(&c), 0);
	double arr[4] = { 0.5, 1.5, 2.5, 3.5 };
	uint8_t blob[4] = { 1, 2, 3, 4 };
	assert_int_equal(rfm_var_set_u8(var(f, "a.u8v"), 0, 0xa5), 0);
	assert_int_equal(rfm_var_set_u16(var(f, "a.u16v"), 0, 0xbeef), 0);
	assert_int_equal(rfm_var_set_u32(var(f, "a.u32v"), 0, 0xdeadbeef), 0);
	assert_int_equal(rfm_var_set_u64(var(f, "a.u64v"), 0, UINT64_C(0x0123456789abcdef)), 0);
	assert_int_equal(rfm_var_set_i8(var(f, "a.i8v"), 0, -7), 0);
	assert_int_equal(rfm_var_set_i16(var(f, "a.i16v"), 0, -300), 0);
	assert_int_equal(rfm_var_set_i32(var(f, "a.i32v"), 0, -70000), 0);
	assert_int_equal(rfm_var_set_i64(var(f, "a.i64v"), 0, -(INT64_C(1) << 40)), 0);
	assert_int_equal(rfm_var_set_f32(var(f, "a.f32v"), 0, 1.25f), 0);
	assert_int_equal(rfm_var_set_f64(var(f, "a.f64v"), 0, -2.5e300), 0);
	assert_int_equal(rfm_var_set_bool(var(f, "a.flag"), 0, true), 0);
	assert_int_equal(rfm_var_set_array(var(f, "a.arr"), 0, 4, arr, sizeof(arr)), 0);
	assert_int_equal(rfm_var_set_string(var(f, "a.label"), "engine left"), 0);
	assert_int_equal(rfm_var_set_array(var(f, "a.blob"), 0, 4, blob, sizeof(blob)), 0);
	harness_child_go(&c);
	assert_int_equal(harness_child_wait_ready(&c), 0);

	/* Node 2's big-endian values, through handles... */
	uint16_t u16; uint32_t u32; uint64_t u64; int32_t i32; float f32; double f64;
	int32_t iarr[8];
	assert_int_equal(rfm_var_get_u16(var(f, "b.u16v"), 0, &u16), 0);
	assert_int_equal(u16, 0x1234);
	assert_int_equal(rfm_var_get_u32(var(f, "b.u32v"), 0, &u32), 0);
	assert_int_equal(u32, 0x11223344);
	assert_int_equal(rfm_var_get_u64(var(f, "b.u64v"), 0, &u64), 0);
	assert_int_equal(u64, UINT64_C(0x0102030405060708));
	assert_int_equal(rfm_var_get_i32(var(f, "b.i32v"), 0, &i32), 0);
	assert_int_equal(i32, -2);
	assert_int_equal(rfm_var_get_f32(var(f, "b.f32v"), 0, &f32), 0);
	assert_true(f32 == 1.5f);
	assert_int_equal(rfm_var_get_f64(var(f, "b.f64v"), 0, &f64), 0);
	assert_true(f64 == 1.0);
	assert_int_equal(rfm_var_get_array(var(f, "b.arr"), 0, 8, iarr, sizeof(iarr)), 0);
	assert_int_equal(iarr[0], -1);
	assert_int_equal(iarr[6], -7);
	assert_int_equal(iarr[7], 80);
	assert_int_equal(rfm_var_get_array(var(f, "b.arr"), 2, 2, iarr, sizeof(iarr)), 0);
	assert_int_equal(iarr[0], -3);
	assert_int_equal(iarr[1], 4);

	/* ...and as the bytes a big-endian VME node would see in the window. */
	uint8_t raw[40];
	static const uint8_t want[] = {
		0x12, 0x34, 0, 0, 0x11, 0x22, 0x33, 0x44,		/* u16v, pad, u32v */
		1, 2, 3, 4, 5, 6, 7, 8,					/* u64v */
		0xff, 0xff, 0xff, 0xfe, 0x3f, 0xc0, 0, 0,		/* i32v -2, f32v 1.5 */
		0x3f, 0xf0, 0, 0, 0, 0, 0, 0,				/* f64v 1.0 */
		0xff, 0xff, 0xff, 0xff, 0, 0, 0, 2,			/* arr[0] -1, arr[1] 2 */
	};
	assert_int_equal(rfm_mem_read(f->node, 0x400, raw, sizeof(raw)), 0);
	assert_memory_equal(raw, want, sizeof(want));
	/* Little-endian region a holds host-order bytes on x86. */
	assert_int_equal(rfm_mem_read(f->node, 4, raw, 4), 0);
	assert_int_equal(raw[0] | raw[1] << 8 | raw[2] << 16 | (uint32_t)raw[3] << 24, 0xdeadbeef);

	harness_child_go(&c);
	assert_int_equal(harness_child_wait(&c), 0);
}

static void test_ownership(void **state)
{
	struct fixture *f = *state;
	rfm_var *mine = var(f, "a.u32v"), *theirs = var(f, "b.u32v");
	uint32_t v;

	assert_int_equal(rfm_var_set_u32(theirs, 0, 7), RFM_EOWNER);
	assert_non_null(strstr(rfm_last_error(), "region b is written by node 2 only"));
	assert_int_equal(rfm_var_set_text(theirs, "7"), RFM_EOWNER);
	uint32_t arr[1] = { 7 };
	assert_int_equal(rfm_var_set_array(theirs, 0, 1, arr, sizeof(arr)), RFM_EOWNER);
	assert_int_equal(rfm_var_get_u32(theirs, 0, &v), 0);	/* reading is always fine */
	assert_int_equal(v, 0);

	/* Relaxed on this handle only. */
	assert_int_equal(rfm_var_set_owner_check(theirs, false), 0);
	assert_int_equal(rfm_var_set_u32(theirs, 0, 7), 0);
	assert_int_equal(rfm_var_get_u32(theirs, 0, &v), 0);
	assert_int_equal(v, 7);
	rfm_var *again = var(f, "b.u32v");
	assert_int_equal(rfm_var_set_u32(again, 0, 8), RFM_EOWNER);
	assert_int_equal(rfm_var_set_owner_check(theirs, true), 0);
	assert_int_equal(rfm_var_set_u32(theirs, 0, 9), RFM_EOWNER);
	assert_int_equal(rfm_var_set_u32(mine, 0, 1), 0);

	rfm_record *rec;
	uint8_t buf[32] = { 0 };
	assert_int_equal(rfm_record_open(f->layout, f->node, "b.rec", &rec), 0);
	assert_int_equal(rfm_record_write(rec, buf, rfm_record_size(rec)), RFM_EOWNER);
	assert_int_equal(rfm_record_publish(rec), RFM_EOWNER);
	rfm_var *n;
	assert_int_equal(rfm_var_open(f->layout, f->node, "b.rec.n", &n), 0);
	assert_int_equal(rfm_var_set_u32(n, 0, 1), RFM_EOWNER);
	assert_int_equal(rfm_record_set_owner_check(rec, false), 0);
	assert_int_equal(rfm_record_write(rec, buf, rfm_record_size(rec)), 0);
	rfm_var_close(n);
	rfm_record_close(rec);
}

static void test_limits_types_and_indexes(void **state)
{
	struct fixture *f = *state;
	rfm_var *lim = var(f, "a.limited"), *arr = var(f, "a.arr"), *u8v = var(f, "a.u8v");
	int32_t v;

	assert_int_equal(rfm_var_set_i32(lim, 0, 5), 0);
	assert_int_equal(rfm_var_set_i32(lim, 0, 6), RFM_ERANGE);
	assert_non_null(strstr(rfm_last_error(), "a.limited: 6 is outside its range -5..5"));
	assert_int_equal(rfm_var_set_i32(lim, 0, -6), RFM_ERANGE);
	assert_int_equal(rfm_var_set_text(lim, "100"), RFM_ERANGE);
	assert_int_equal(rfm_var_get_i32(lim, 0, &v), 0);
	assert_int_equal(v, 5);	/* refused writes changed nothing */

	/* Wrong function for the type. */
	assert_int_equal(rfm_var_set_u32(lim, 0, 1), RFM_EINVAL);
	assert_non_null(strstr(rfm_last_error(), "a.limited is i32, not u32"));
	double d;
	assert_int_equal(rfm_var_get_f64(u8v, 0, &d), RFM_EINVAL);
	assert_int_equal(rfm_var_get_string(u8v, (char[4]){ 0 }, 4), RFM_EINVAL);

	/* Elements. */
	assert_int_equal(rfm_var_set_f64(arr, 3, 1.0), 0);
	assert_int_equal(rfm_var_set_f64(arr, 4, 1.0), RFM_ERANGE);
	assert_int_equal(rfm_var_get_f64(arr, 4, &d), RFM_ERANGE);
	double buf[8];
	assert_int_equal(rfm_var_get_array(arr, 2, 3, buf, sizeof(buf)), RFM_ERANGE);
	assert_int_equal(rfm_var_get_array(arr, 0, 4, buf, 3 * sizeof(double)), RFM_EINVAL);

	rfm_var *x;
	assert_int_equal(rfm_var_open(f->layout, f->node, "a.arr[4]", &x), RFM_ENOTFOUND);
	assert_non_null(strstr(rfm_last_error(), "a.arr has 4 elements: [4] is beyond"));
	assert_int_equal(rfm_var_open(f->layout, f->node, "a.arr[x]", &x), RFM_EINVAL);
	assert_int_equal(rfm_var_open(f->layout, f->node, "a.nope", &x), RFM_ENOTFOUND);
	assert_int_equal(rfm_var_open(f->layout, f->node, "b.rec", &x), RFM_ENOTFOUND);
	assert_non_null(strstr(rfm_last_error(), "is a record"));
	assert_int_equal(rfm_var_open(f->layout, f->node, "a.label[1]", &x), RFM_EINVAL);
	assert_int_equal(rfm_var_open(NULL, f->node, "a.u8v", &x), RFM_EINVAL);

	/* An element handle covers one element: index 0 is it. */
	rfm_var *e = var(f, "a.arr[3]");
	struct rfm_var_info info = { .struct_size = sizeof(info) };
	assert_int_equal(rfm_var_get_info(e, &info), 0);
	assert_string_equal(info.name, "a.arr[3]");
	assert_int_equal(info.count, 1);
	assert_int_equal(rfm_var_get_f64(e, 0, &d), 0);
	assert_true(d == 1.0);
	assert_int_equal(rfm_var_get_f64(e, 1, &d), RFM_ERANGE);
	assert_string_equal(rfm_var_name(e), "a.arr[3]");

	/* NULLs. */
	assert_int_equal(rfm_var_get_f64(NULL, 0, &d), RFM_EINVAL);
	assert_int_equal(rfm_var_get_f64(arr, 0, NULL), RFM_EINVAL);
	assert_int_equal(rfm_var_set_owner_check(NULL, true), RFM_EINVAL);
	rfm_var_close(NULL);

	/*
	 * A layout for a bigger window than the node's: twice its size, as
	 * the window depends on the backend (a lab card has 4 MiB).
	 */
	char window[64];
	snprintf(window, sizeof(window), "window: %llu",
		 (unsigned long long)rfm_node_size(f->node) * 2);
	const char *const big[] = { "version: 1", window, "regions:",
		"  - { name: r, offset: 0, size: 8, writer: 1, variables: [ {name: x, type: u8} ] }",
		NULL };
	rfm_layout *l;
	assert_int_equal(load_lines(big, &l, NULL), 0);
	assert_int_equal(rfm_var_open(l, f->node, "r.x", &x), RFM_ESIZE);
	rfm_layout_free(l);
}

static void test_text(void **state)
{
	struct fixture *f = *state;
	char buf[128];

	rfm_var *arr = var(f, "a.arr"), *lab = var(f, "a.label"), *blob = var(f, "a.blob");
	rfm_var *flag = var(f, "a.flag"), *i8v = var(f, "a.i8v"), *u64v = var(f, "a.u64v");

	assert_int_equal(rfm_var_set_text(arr, "[1, 2.5, -3e2, 0x10]"), 0);
	assert_int_equal(rfm_var_get_text(arr, buf, sizeof(buf)), 18);
	assert_string_equal(buf, "[1, 2.5, -300, 16]");
	assert_int_equal(rfm_var_set_text(arr, "1, 2"), RFM_EINVAL);
	assert_non_null(strstr(rfm_last_error(), "2 values given, it has 4"));
	assert_int_equal(rfm_var_set_text(arr, "1, 2, x, 4"), RFM_EINVAL);
	assert_int_equal(rfm_var_get_text(arr, buf, 5), RFM_ERANGE);

	assert_int_equal(rfm_var_set_text(lab, "say \"hi\""), 0);
	assert_int_equal(rfm_var_get_text(lab, buf, sizeof(buf)), 12);
	assert_string_equal(buf, "\"say \\\"hi\\\"\"");
	assert_int_equal(rfm_var_set_text(lab, "seventeen chars!!"), RFM_ERANGE);
	assert_int_equal(rfm_var_get_string(lab, buf, 4), RFM_ERANGE);

	assert_int_equal(rfm_var_set_text(blob, "0xdeadbeef"), 0);
	assert_int_equal(rfm_var_get_text(blob, buf, sizeof(buf)), 8);
	assert_string_equal(buf, "deadbeef");
	assert_int_equal(rfm_var_set_text(blob, "abc"), RFM_EINVAL);
	assert_int_equal(rfm_var_set_text(blob, "0102030405"), RFM_ERANGE);

	assert_int_equal(rfm_var_set_text(flag, "false"), 0);
	assert_int_equal(rfm_var_get_text(flag, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "false");
	assert_int_equal(rfm_var_set_text(flag, "maybe"), RFM_EINVAL);

	assert_int_equal(rfm_var_set_text(i8v, "-128"), 0);
	assert_int_equal(rfm_var_set_text(i8v, "128"), RFM_ERANGE);
	assert_int_equal(rfm_var_set_text(i8v, "12abc"), RFM_EINVAL);
	assert_int_equal(rfm_var_set_text(u64v, "18446744073709551615"), 0);
	assert_int_equal(rfm_var_get_text(u64v, buf, sizeof(buf)), 20);
	assert_string_equal(buf, "18446744073709551615");
	assert_int_equal(rfm_var_set_text(u64v, "-1"), RFM_ERANGE);
	assert_int_equal(rfm_var_set_text(u64v, "18446744073709551616"), RFM_ERANGE);

}

static void test_records(void **state)
{
	struct fixture *f = *state;
	rfm_node *writer = open_node(f->net, 2);	/* region b's writer */
	rfm_record *w, *r;
	rfm_var *wn, *wv, *rn, *rv2, *direct;
	uint32_t seq, n;
	double v[3];

	assert_int_equal(rfm_record_open(f->layout, writer, "b.rec", &w), 0);
	assert_int_equal(rfm_record_open(f->layout, f->node, "b.rec", &r), 0);
	assert_int_equal(rfm_record_size(w), 32);	/* u32, pad, 3 x f64 */
	struct rfm_record_info info = { .struct_size = sizeof(info) };
	assert_int_equal(rfm_record_get_info(r, &info), 0);
	assert_int_equal(info.offset, 0x500);
	assert_int_equal(info.data_offset, 0x508);

	/* Stage in the writer's image, publish once. */
	assert_int_equal(rfm_record_var(w, "n", &wn), 0);
	assert_int_equal(rfm_record_var(w, "v", &wv), 0);
	assert_int_equal(rfm_record_sequence(r, &seq), 0);
	uint32_t before = seq;
	assert_int_equal(rfm_var_set_u32(wn, 0, 42), 0);
	double vals[3] = { 1, 2, 3 };
	assert_int_equal(rfm_var_set_array(wv, 0, 3, vals, sizeof(vals)), 0);
	assert_int_equal(rfm_record_sequence(r, &seq), 0);
	assert_int_equal(seq, before);		/* nothing published yet */
	assert_int_equal(rfm_record_publish(w), 0);
	assert_int_equal(rfm_record_sequence(r, &seq), 0);
	assert_int_equal(seq, before + 2);

	/* The reader fetches a snapshot and reads typed values from it. */
	assert_int_equal(rfm_record_fetch(r), 0);
	assert_int_equal(rfm_record_var(r, "n", &rn), 0);
	assert_int_equal(rfm_record_var(r, "v[2]", &rv2), 0);
	assert_int_equal(rfm_var_get_u32(rn, 0, &n), 0);
	assert_int_equal(n, 42);
	assert_int_equal(rfm_var_get_f64(rv2, 0, &v[0]), 0);
	assert_true(v[0] == 3.0);

	/* Raw read: the window holds the big-endian bytes. */
	uint8_t raw[32];
	assert_int_equal(rfm_record_read(r, raw, sizeof(raw), &seq), 0);
	assert_int_equal(seq, before + 2);
	assert_int_equal(raw[3], 42);
	assert_int_equal(raw[0], 0);
	assert_int_equal(rfm_record_read(r, raw, 31, NULL), RFM_EINVAL);

	/* A direct handle on a record variable: consistent get, one-variable publish. */
	assert_int_equal(rfm_var_open(f->layout, writer, "b.rec.v[1]", &direct), 0);
	assert_int_equal(rfm_var_set_f64(direct, 0, 20.0), 0);
	assert_int_equal(rfm_record_sequence(r, &seq), 0);
	assert_int_equal(seq, before + 4);
	assert_int_equal(rfm_record_read(r, raw, sizeof(raw), NULL), 0);
	rfm_var *rv;
	assert_int_equal(rfm_var_open(f->layout, f->node, "b.rec.v", &rv), 0);
	assert_int_equal(rfm_var_get_array(rv, 0, 3, v, sizeof(v)), 0);
	assert_true(v[0] == 1.0 && v[1] == 20.0 && v[2] == 3.0);

	/* A writer that died mid-publish leaves the sequence odd: readers fail clearly... */
	assert_int_equal(rfm_mem_poke32(writer, 0x500, htobe32(before + 5)), 0); /* big-endian */
	assert_int_equal(rfm_record_set_max_tries(r, 50), 0);
	assert_int_equal(rfm_record_read(r, raw, sizeof(raw), NULL), RFM_ETORN);
	assert_non_null(strstr(rfm_last_error(), "during all 50 tries"));
	assert_int_equal(rfm_var_get_f64(rv, 0, &v[0]), RFM_ETORN);
	assert_int_equal(rfm_record_set_max_tries(r, 0), RFM_EINVAL);
	/* ...and the next publish makes it consistent again. */
	assert_int_equal(rfm_record_publish(w), 0);
	assert_int_equal(rfm_record_read(r, raw, sizeof(raw), &seq), 0);
	assert_int_equal(seq, before + 6);

	assert_int_equal(rfm_record_var(r, "nope", &rn), RFM_ENOTFOUND);
	assert_int_equal(rfm_record_var(r, "v[3]", &rn), RFM_ENOTFOUND);
	assert_int_equal(rfm_record_open(f->layout, f->node, "b.nope", &r), RFM_ENOTFOUND);
	assert_int_equal(rfm_record_size(NULL), 0);

	rfm_var_close(wn);
	rfm_var_close(wv);
	rfm_var_close(rn);
	rfm_var_close(rv2);
	rfm_var_close(direct);
	rfm_var_close(rv);
	rfm_record_close(w);
	rfm_record_close(r);
	rfm_close(writer);
}

static void test_handles_outlive_layout_reference(void **state)
{
	struct fixture *f = *state;
	rfm_layout *l;
	rfm_var *v;
	uint32_t x;

	assert_int_equal(load_lines(layout_lines, &l, NULL), 0);
	assert_int_equal(rfm_var_open(l, f->node, "a.u32v", &v), 0);
	rfm_layout_free(l);	/* the handle keeps what it needs */
	assert_int_equal(rfm_var_set_u32(v, 0, 5), 0);
	assert_int_equal(rfm_var_get_u32(v, 0, &x), 0);
	assert_int_equal(x, 5);
	struct rfm_var_info info = { .struct_size = sizeof(info) };
	assert_int_equal(rfm_var_get_info(v, &info), 0);
	assert_string_equal(info.name, "a.u32v");
	rfm_var_close(v);
}

static void test_inline_views(void **state)
{
	struct fixture *f = *state;
	struct rfm_var_view u = { .struct_size = sizeof(u) }, be = u, lim = u, foreign = u;
	struct rfm_var_view rec = u, fl = u;
	uint32_t x;
	int32_t i;
	double d;
	uint8_t raw[4];

	assert_int_equal(rfm_var_get_view(var(f, "a.u32v"), &u), 0);
	assert_int_equal(u.get_key, RFM_TYPE_U32 | SWAPPED_ON(RFM_ORDER_LITTLE));
	assert_int_equal(rfm_view_set_u32(&u, 0, 0xcafe), 0);
	assert_int_equal(rfm_view_get_u32(&u, 0, &x), 0);
	assert_int_equal(x, 0xcafe);
	/* Everything off the fast path falls through to the library, errors included. */
	assert_int_equal(rfm_view_get_u32(&u, 1, &x), RFM_ERANGE);
	assert_int_equal(rfm_view_get_f64(&u, 0, &d), RFM_EINVAL);

	rfm_var *bev = var(f, "b.u32v");
	assert_int_equal(rfm_var_set_owner_check(bev, false), 0);
	assert_int_equal(rfm_var_get_view(bev, &be), 0);
	assert_int_equal(be.get_key, RFM_TYPE_U32 | SWAPPED_ON(RFM_ORDER_BIG));
	assert_int_equal(rfm_view_set_u32(&be, 0, 0x01020304), 0);
	assert_int_equal(rfm_mem_read(f->node, 0x404, raw, 4), 0);
	assert_int_equal(raw[0], 1);
	assert_int_equal(raw[3], 4);
	assert_int_equal(rfm_view_get_u32(&be, 0, &x), 0);
	assert_int_equal(x, 0x01020304);

	assert_int_equal(rfm_var_get_view(var(f, "a.limited"), &lim), 0);
	assert_int_equal(lim.set_key, 0);	/* limits: sets go through the library */
	assert_int_equal(rfm_view_set_i32(&lim, 0, 99), RFM_ERANGE);
	assert_int_equal(rfm_view_set_i32(&lim, 0, 3), 0);
	assert_int_equal(rfm_view_get_i32(&lim, 0, &i), 0);
	assert_int_equal(i, 3);

	assert_int_equal(rfm_var_get_view(var(f, "b.u16v"), &foreign), 0);
	assert_int_equal(rfm_view_set_u16(&foreign, 0, 1), RFM_EOWNER);

	assert_int_equal(rfm_var_get_view(var(f, "b.rec.n"), &rec), 0);
	assert_int_equal(rec.get_key, 0);	/* record members: seqlock read */
	assert_int_equal(rfm_view_get_u32(&rec, 0, &x), 0);

	assert_int_equal(rfm_var_get_view(var(f, "a.flag"), &fl), 0);
	assert_int_equal(fl.get_key, 0);
	fl.struct_size = 8;
	assert_int_equal(rfm_var_get_view(var(f, "a.flag"), &fl), RFM_EINVAL);
	assert_int_equal(rfm_var_get_view(NULL, &fl), RFM_EINVAL);
}

int main(void)
{
	static const int writers[] = { 1, 2 };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip_across_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ownership, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limits_types_and_indexes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inline_views, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handles_outlive_layout_reference, setup,
						teardown),
	};

	harness_init();
	require_node_ids(writers, sizeof(writers) / sizeof(writers[0]));
	return cmocka_run_group_tests_name("layout-access", tests, NULL, NULL);
}
