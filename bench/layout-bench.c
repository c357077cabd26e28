/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Benchmark of typed-variable tables against raw access, in one run:
 *  - typed get/set of a scalar through a resolved handle vs a plain load or
 *    store through a pointer into the same mapping (target: within 2x),
 *    both by the inline view accessors and by the exported calls;
 *  - record publish and consistent read of 64-byte and 1 KiB records vs a
 *    raw memcpy of the same size (rates and ratios).
 * Each figure is the per-operation time of batches: min, P50, P99, P99.9,
 * max over the batches; ratios compare medians.
 *  - loading a generated layout text of 20000 and 90000 regions (one
 *    variable and one record each): librfm's whole load against libyaml's
 *    document loader alone on the same text (the checks were once
 *    quadratic: 20000 regions took 8 s).
 *
 *   layout-bench [SECONDS_PER_CASE]     (default 0.3)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>
#include <rfm/rfm.h>

#include "stats.h"

#define BATCH 4096
#define MAX_BATCHES 100000

static double seconds_per_case = 0.3;

static double *samples;

/* Run @body in batches of @per_batch operations for about seconds_per_case. */
#define MEASURE(result, per_batch, body)                                       \
	do {                                                                   \
		size_t nb_ = 0;                                                \
		uint64_t end_ = bench_now_ns() + (uint64_t)(seconds_per_case * 1e9); \
		while (nb_ < MAX_BATCHES && (nb_ < 16 || bench_now_ns() < end_)) {   \
			uint64_t t0_ = bench_now_ns();                               \
			for (long i = 0; i < (per_batch); i++) {               \
				body;                                          \
			}                                                      \
			samples[nb_++] = (double)(bench_now_ns() - t0_) / (per_batch); \
		}                                                              \
		(result) = bench_percentiles(samples, nb_);                    \
	} while (0)

static void print_row(const char *name, struct bench_pct s)
{
	printf("  %-36s", name);
	bench_print_pct(&s, 2);
	printf("\n");
}

static void print_ratio(const char *what, struct bench_pct lib, struct bench_pct raw, double limit)
{
	double r = lib.p50 / raw.p50;

	if (limit > 0)
		printf("  ratio %-28s %6.2fx  (target <= %.1fx: %s)\n", what, r, limit,
		       r <= limit ? "ok" : "MISSED");
	else
		printf("  ratio %-28s %6.2fx\n", what, r);
}

static void die(const char *what, int ret)
{
	fprintf(stderr, "layout-bench: %s: %s (%s)\n", what, rfm_strerror(ret), rfm_last_error());
	exit(1);
}

#define TRY(what, call)                                                       \
	do {                                                                  \
		int ret_ = (call);                                            \
		if (ret_ < 0)                                                 \
			die(what, ret_);                                      \
	} while (0)

/* A valid layout text of @n regions, each with a variable and a record. */
static char *layout_text(unsigned int n, size_t *lenp)
{
	size_t cap = (size_t)n * 200 + 256, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	/* The window's last 16 KiB stay free: the heartbeat table's default place. */
	len += (size_t)snprintf(s, cap, "version: 1\nname: big\nwindow: 0x%x\nregions:\n",
				n * 0x1000 + 0x4000);
	for (unsigned int i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len,
					"  - name: r%u\n    offset: 0x%x\n    size: 0x1000\n"
					"    writer: 0\n    variables: [ {name: a, type: u32} ]\n"
					"    records: [ {name: rec, variables: [ {name: x, type: u64} ]} ]\n",
					i, i * 0x1000);
	*lenp = len;
	return s;
}

static double seconds_since(uint64_t t0)
{
	return (double)(bench_now_ns() - t0) / 1e9;
}

/* One load with libyaml's own document loader: the floor for any YAML reader. */
static double libyaml_load(const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	uint64_t t0 = bench_now_ns();

	if (!yaml_parser_initialize(&parser))
		return -1;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		yaml_parser_delete(&parser);
		return -1;
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return seconds_since(t0);
}

static void bench_parse(void)
{
	static const unsigned int sizes[] = { 20000, 90000 };

	printf("\n  loading a layout text: librfm (parse, walk, checks) vs libyaml's loader alone\n");
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t len;
		char *text = layout_text(sizes[k], &len);
		rfm_layout *layout = NULL;

		if (!text)
			return;
		double yaml_s = libyaml_load(text, len);
		uint64_t t0 = bench_now_ns();
		int ret = rfm_layout_load_string(text, len, "bench", &layout, NULL);
		double rfm_s = seconds_since(t0);

		/* A load that fails early or late is no measure of a load. */
		TRY("loading the generated layout", ret);
		printf("  %6u regions (%5.1f MB): librfm %.3f s, libyaml %.3f s, ratio %.2f\n",
		       sizes[k], len / 1e6, rfm_s, yaml_s, yaml_s > 0 ? rfm_s / yaml_s : 0);
		rfm_layout_free(layout);
		free(text);
	}
}

/* The table, built in code: scalars, a big-endian one, two records. */
static rfm_layout *build_layout(void)
{
	struct rfm_region_spec region = { .struct_size = sizeof(region), .name = "r",
					  .offset = 0, .size = 0x2000, .writer = 1 };
	struct rfm_var_spec var = { .struct_size = sizeof(var), .offset = RFM_OFFSET_AUTO };
	struct rfm_record_spec rec = { .struct_size = sizeof(rec), .offset = RFM_OFFSET_AUTO };
	rfm_layout *layout;

	TRY("new", rfm_layout_new("bench", 1 << 20, &layout));
	TRY("region", rfm_layout_add_region(layout, &region));
	var.name = "f";
	var.type = RFM_TYPE_F64;
	TRY("var f", rfm_layout_add_var(layout, "r", &var));
	var.name = "u";
	var.type = RFM_TYPE_U32;
	TRY("var u", rfm_layout_add_var(layout, "r", &var));
	var.name = "ube";
	var.byte_order = RFM_ORDER_BIG;
	TRY("var ube", rfm_layout_add_var(layout, "r", &var));
	var.byte_order = RFM_ORDER_LITTLE;
	var.name = "d";
	var.type = RFM_TYPE_U8;
	rec.name = "small";
	rec.size = 64;
	TRY("rec small", rfm_layout_add_record(layout, "r", &rec));
	TRY("rec small var", rfm_layout_add_var(layout, "r.small", &var));
	rec.name = "large";
	rec.size = 1024;
	TRY("rec large", rfm_layout_add_record(layout, "r", &rec));
	TRY("rec large var", rfm_layout_add_var(layout, "r.large", &var));
	TRY("finish", rfm_layout_finish(layout, NULL));
	return layout;
}

/* The three scalars: handles, views and raw pointers into the same words. */
struct scalars {
	rfm_var *f, *u, *ube;
	struct rfm_var_view fv, uv, ubev;
	volatile double *fp;
	volatile uint32_t *up;
};

static void open_scalars(rfm_layout *layout, rfm_node *node, void *base, struct scalars *s)
{
	struct rfm_var_info fi = { .struct_size = sizeof(fi) }, ui = fi;

	TRY("open f", rfm_var_open(layout, node, "r.f", &s->f));
	TRY("open u", rfm_var_open(layout, node, "r.u", &s->u));
	TRY("open ube", rfm_var_open(layout, node, "r.ube", &s->ube));
	TRY("info f", rfm_var_get_info(s->f, &fi));
	TRY("info u", rfm_var_get_info(s->u, &ui));
	s->fp = (volatile double *)((char *)base + fi.offset);
	s->up = (volatile uint32_t *)((char *)base + ui.offset);
	s->fv = (struct rfm_var_view){ .struct_size = sizeof(s->fv) };
	s->uv = s->fv;
	s->ubev = s->fv;
	TRY("view f", rfm_var_get_view(s->f, &s->fv));
	TRY("view u", rfm_var_get_view(s->u, &s->uv));
	TRY("view ube", rfm_var_get_view(s->ube, &s->ubev));
}

static void close_scalars(struct scalars *s)
{
	rfm_var_close(s->f);
	rfm_var_close(s->u);
	rfm_var_close(s->ube);
}

/* Each access three ways: raw, inline view, exported call. */
struct scalar_times {
	struct bench_pct raw_get_f, get_f, vget_f, raw_set_f, set_f, vset_f;
	struct bench_pct raw_get_u, get_u, vget_u, raw_set_u, set_u, vset_u, mget_u;
	struct bench_pct raw_get_ube, raw_set_ube, vget_ube, vset_ube;
};

/*
 * Loads feed an integer accumulator (f64 bits xored) so that every case
 * is bound by the access itself, not by a floating-point add chain. Hot
 * loops keep their views in locals, as recommended in layout.h: the
 * compiler then keeps the checks in registers.
 */
#define F64_BITS(x) ({ uint64_t b_; double d_ = (x); memcpy(&b_, &d_, 8); b_; })

static uint64_t measure_f64(const struct scalars *s, struct scalar_times *t)
{
	const struct rfm_var_view lf = s->fv;
	volatile double *fp = s->fp;
	rfm_var *f = s->f;
	uint64_t acc = 0;

	MEASURE(t->raw_get_f, BATCH, { acc ^= F64_BITS(*fp); });
	MEASURE(t->get_f, BATCH, {
		double x;
		rfm_var_get_f64(f, 0, &x);
		acc ^= F64_BITS(x);
	});
	MEASURE(t->vget_f, BATCH, {
		double x;
		rfm_view_get_f64(&lf, 0, &x);
		acc ^= F64_BITS(x);
	});
	MEASURE(t->raw_set_f, BATCH, { *fp = (double)i; });
	MEASURE(t->set_f, BATCH, { rfm_var_set_f64(f, 0, (double)i); });
	MEASURE(t->vset_f, BATCH, { rfm_view_set_f64(&lf, 0, (double)i); });
	return acc;
}

static uint64_t measure_u32(const struct scalars *s, struct scalar_times *t)
{
	const struct rfm_var_view lu = s->uv;
	volatile uint32_t *up = s->up;
	rfm_var *u = s->u;
	uint64_t acc = 0;

	MEASURE(t->raw_get_u, BATCH, { acc += *up; });
	MEASURE(t->get_u, BATCH, {
		uint32_t x;
		rfm_var_get_u32(u, 0, &x);
		acc += x;
	});
	MEASURE(t->vget_u, BATCH, {
		uint32_t x;
		rfm_view_get_u32(&lu, 0, &x);
		acc += x;
	});
	MEASURE(t->raw_set_u, BATCH, { *up = (uint32_t)i; });
	MEASURE(t->set_u, BATCH, { rfm_var_set_u32(u, 0, (uint32_t)i); });
	MEASURE(t->vset_u, BATCH, { rfm_view_set_u32(&lu, 0, (uint32_t)i); });
	MEASURE(t->mget_u, BATCH, {
		uint32_t x;
		rfm_view_get_u32(&s->uv, 0, &x);	/* view in memory */
		acc += x;
	});
	return acc;
}

static uint64_t measure_u32_big_endian(const struct scalars *s, struct scalar_times *t)
{
	const struct rfm_var_view lube = s->ubev;
	volatile uint32_t *up = s->up;
	uint64_t acc = 0;

	MEASURE(t->raw_get_ube, BATCH, { acc += __builtin_bswap32(*up); });
	MEASURE(t->raw_set_ube, BATCH, { *up = __builtin_bswap32((uint32_t)i); });
	MEASURE(t->vget_ube, BATCH, {
		uint32_t x;
		rfm_view_get_u32(&lube, 0, &x);
		acc += x;
	});
	MEASURE(t->vset_ube, BATCH, { rfm_view_set_u32(&lube, 0, (uint32_t)i); });
	return acc;
}

static void report_scalars(const struct scalar_times *t)
{
	print_row("raw load f64 (pointer)", t->raw_get_f);
	print_row("rfm_view_get_f64 (inline)", t->vget_f);
	print_row("rfm_var_get_f64 (exported call)", t->get_f);
	print_row("raw store f64 (pointer)", t->raw_set_f);
	print_row("rfm_view_set_f64 (inline)", t->vset_f);
	print_row("rfm_var_set_f64 (exported call)", t->set_f);
	print_row("raw load u32 (pointer)", t->raw_get_u);
	print_row("rfm_view_get_u32 (inline)", t->vget_u);
	print_row("rfm_var_get_u32 (exported call)", t->get_u);
	print_row("raw store u32 (pointer)", t->raw_set_u);
	print_row("rfm_view_set_u32 (inline)", t->vset_u);
	print_row("rfm_var_set_u32 (exported call)", t->set_u);
	print_row("rfm_view_get_u32 (view in memory)", t->mget_u);
	print_row("raw load+swap u32 (pointer)", t->raw_get_ube);
	print_row("rfm_view_get_u32 big-endian", t->vget_ube);
	print_row("raw swap+store u32 (pointer)", t->raw_set_ube);
	print_row("rfm_view_set_u32 big-endian", t->vset_ube);
	printf("\n");
	print_ratio("view get f64 / raw", t->vget_f, t->raw_get_f, 2.0);
	print_ratio("view set f64 / raw", t->vset_f, t->raw_set_f, 2.0);
	print_ratio("view get u32 / raw", t->vget_u, t->raw_get_u, 2.0);
	print_ratio("view set u32 / raw", t->vset_u, t->raw_set_u, 2.0);
	print_ratio("view get u32 big-endian / raw", t->vget_ube, t->raw_get_ube, 2.0);
	print_ratio("view set u32 big-endian / raw", t->vset_ube, t->raw_set_ube, 2.0);
	print_ratio("view in memory get u32 / raw", t->mget_u, t->raw_get_u, 0);
	print_ratio("call get f64 / raw", t->get_f, t->raw_get_f, 0);
	print_ratio("call set f64 / raw", t->set_f, t->raw_set_f, 0);
	print_ratio("call get u32 / raw", t->get_u, t->raw_get_u, 0);
	print_ratio("call set u32 / raw", t->set_u, t->raw_set_u, 0);
	printf("  (exported calls cost %.1f ns more than raw per get, %.1f ns per set)\n",
	       t->get_u.p50 - t->raw_get_u.p50, t->set_u.p50 - t->raw_set_u.p50);
}

/* Record @name: publish and consistent read against a raw memcpy. */
static uint32_t bench_record(rfm_layout *layout, rfm_node *node, void *base, const char *name)
{
	struct rfm_record_info ri = { .struct_size = sizeof(ri) };
	struct bench_pct raw_w, w, raw_r, rd;
	uint32_t sink = 0;
	rfm_record *r;
	char label[64];

	TRY("record", rfm_record_open(layout, node, name, &r));
	TRY("record info", rfm_record_get_info(r, &ri));
	size_t size = rfm_record_size(r);
	char *buf = calloc(1, size);
	char *data = (char *)base + ri.data_offset;
	long per = size > 512 ? 512 : 2048;

	MEASURE(raw_w, per, {
		buf[0] = (char)i;
		memcpy(data, buf, size);
		__atomic_thread_fence(__ATOMIC_RELEASE);
	});
	MEASURE(w, per, {
		buf[0] = (char)i;
		rfm_record_write(r, buf, size);
	});
	MEASURE(raw_r, per, {
		memcpy(buf, data, size);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		sink += (uint8_t)buf[0];
	});
	MEASURE(rd, per, {
		rfm_record_read(r, buf, size, NULL);
		sink += (uint8_t)buf[0];
	});
	printf("\n  %zu-byte record\n", size);
	print_row("raw memcpy into window", raw_w);
	print_row("rfm_record_write (publish)", w);
	print_row("raw memcpy out of window", raw_r);
	print_row("rfm_record_read (consistent)", rd);
	printf("  rates: publish %.1f M/s (%.2f GB/s), read %.1f M/s (%.2f GB/s)\n",
	       1e3 / w.p50, size / w.p50, 1e3 / rd.p50, size / rd.p50);
	snprintf(label, sizeof(label), "publish %zu B / memcpy", size);
	print_ratio(label, w, raw_w, 0);
	snprintf(label, sizeof(label), "read %zu B / memcpy", size);
	print_ratio(label, rd, raw_r, 0);
	free(buf);
	rfm_record_close(r);
	return sink;
}

int main(int argc, char **argv)
{
	char net[64], uri[128];
	struct scalar_times times;
	struct scalars s;
	rfm_node *node;
	rfm_layout *layout;
	void *base;
	volatile uint64_t sink = 0;

	if (argc > 1)
		seconds_per_case = atof(argv[1]);
	samples = calloc(MAX_BATCHES, sizeof(*samples));
	snprintf(net, sizeof(net), "layout-bench-%d", (int)getpid());
	snprintf(uri, sizeof(uri), "shm:%s?node=1&size=1M", net);
	TRY("open", rfm_open(uri, &node));
	TRY("map", rfm_mem_map(node, &base, NULL));
	layout = build_layout();
	open_scalars(layout, node, base, &s);

	printf("librfm %s: typed-variable tables vs raw access (ns per operation over "
	       "batches)\n\n  %-36s %8s %8s %8s %8s %9s\n",
	       rfm_version_string(), "case", "min", "P50", "P99", "P99.9", "max");
	sink += measure_f64(&s, &times);
	sink += measure_u32(&s, &times);
	sink += measure_u32_big_endian(&s, &times);
	report_scalars(&times);
	sink += bench_record(layout, node, base, "r.small");
	sink += bench_record(layout, node, base, "r.large");
	bench_parse();

	close_scalars(&s);
	rfm_layout_free(layout);
	rfm_close(node);
	snprintf(uri, sizeof(uri), "shm:%s", net);
	rfm_network_destroy(uri, RFM_DESTROY_FORCE);
	free(samples);
	(void)sink;
	return 0;
}
