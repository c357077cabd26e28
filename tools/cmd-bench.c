/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm bench: throughput of the memory path on this node. Write and read
 * bandwidth through rfm_mem_write/rfm_mem_read for 4 B .. 64 KiB
 * transfers, each beside a raw memcpy to or from the same mapping measured
 * in the same run (the ratio is the library's overhead); peek/poke rates;
 * with --layout, typed variable get/set and seqlock record read/write;
 * ring publish + consume of 64 B and 1 KiB messages in one process (the
 * ring's own cost: stamps, copies, cursor, with no peer to wait for).
 * It measures with bench/stats.c's clock and median, as the benchmarks do.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <rfm/ring.h>

#include "cli.h"
#include "stats.h" /* bench/stats.c: the clock and the median every benchmark uses */

#define MS 1000000ull
#define ROUNDS 5		/* alternating rounds per bandwidth figure */

static const size_t sizes[] = { 4, 64, 256, 4096, 65536 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
static const size_t ring_sizes[] = { 64, 1024 };
#define NRING (sizeof(ring_sizes) / sizeof(ring_sizes[0]))
#define RING_SLOTS 32u

struct bench {
	struct cli *cli;
	uint8_t *base;		/* the mapping, for the raw baseline */
	uint64_t offset;
	uint64_t length;	/* bench writes only [offset, offset + length) */
	uint64_t budget_ns;	/* per measurement */
	uint8_t *buf;
	rfm_ring *ring;		/* the ring row: producer and consumer here */
	rfm_ring_consumer *cons;
	struct cli_progress progress; /* on a terminal: figures done so far */
	unsigned int done, total;	/* figures */
};

/* What each timed body does; one call = one operation. */
enum op {
	OP_WRITE, OP_READ, OP_RAW_WRITE, OP_RAW_READ,
	OP_PEEK32, OP_POKE32, OP_PEEK64, OP_POKE64,
	OP_VAR_GET, OP_VAR_SET, OP_REC_READ, OP_REC_WRITE,
	OP_RING,
};

struct table_path {
	rfm_var *var;
	rfm_record *rec;
	uint8_t value[8];	/* what var_get reads */
	uint8_t saved[8];	/* what var_set writes: the value found at the start */
	uint8_t *image;
	size_t image_len;
};

/* One operation; returns a library error or 0. */
static int do_op(struct bench *b, struct table_path *t, enum op op, size_t size, uint32_t i)
{
	uint32_t v32;
	uint64_t v64;

	switch (op) {
	case OP_WRITE:
		return rfm_mem_write(b->cli->node, b->offset, b->buf, size);
	case OP_READ:
		return rfm_mem_read(b->cli->node, b->offset, b->buf, size);
	case OP_RAW_WRITE:
		memcpy(b->base + b->offset, b->buf, size);
		/* Keep the compiler from folding repeated copies into one. */
		__asm__ __volatile__("" ::: "memory");
		return 0;
	case OP_RAW_READ:
		memcpy(b->buf, b->base + b->offset, size);
		__asm__ __volatile__("" ::: "memory");
		return 0;
	case OP_PEEK32:
		return rfm_mem_peek32(b->cli->node, b->offset, &v32);
	case OP_POKE32:
		return rfm_mem_poke32(b->cli->node, b->offset, i);
	case OP_PEEK64:
		return rfm_mem_peek64(b->cli->node, b->offset, &v64);
	case OP_POKE64:
		return rfm_mem_poke64(b->cli->node, b->offset, i);
	case OP_VAR_GET:
		return rfm_var_get_array(t->var, 0, 1, t->value, sizeof(t->value));
	case OP_VAR_SET:
		return rfm_var_set_array(t->var, 0, 1, t->saved, sizeof(t->saved));
	case OP_REC_READ: {
		int ret = rfm_record_read(t->rec, t->image, t->image_len, NULL);
		return ret < 0 ? ret : 0;
	}
	case OP_REC_WRITE:
		return rfm_record_write(t->rec, t->image, t->image_len);
	case OP_RING: {
		struct rfm_ring_msg m;
		int ret = rfm_ring_publish(b->ring, b->buf, size, 0);
		return ret ? ret : rfm_ring_consume(b->cons, b->buf, size, &m, 0);
	}
	}
	return RFM_EINVAL;
}

struct rate {
	double ops_per_s;
	double mb_per_s;	/* 10^6 bytes per second; 0 for word operations */
	double ns_per_op;
};

#define BENCH_INTERRUPTED 1	/* measure(): Ctrl-C */

/*
 * Run @op in batches until the budget is spent; the clock is read per
 * batch. 0, a library error, or BENCH_INTERRUPTED.
 */
static int measure(struct bench *b, struct table_path *t, enum op op, size_t size,
		   struct rate *r)
{
	uint64_t ops = 0, batch = 1, t0 = bench_now_ns(), elapsed;

	b->done++;
	do {
		if (cli_interrupted())
			return BENCH_INTERRUPTED;
		if (cli_progress_due(&b->progress))
			fprintf(stderr, "rfm bench: figure %u of %u", b->done, b->total);
		for (uint64_t k = 0; k < batch; k++) {
			int ret = do_op(b, t, op, size, (uint32_t)(ops + k));
			if (ret)
				return ret;
		}
		ops += batch;
		elapsed = bench_now_ns() - t0;
		if (batch < (1u << 16) && elapsed < b->budget_ns / 64)
			batch *= 2;
	} while (elapsed < b->budget_ns);
	r->ops_per_s = (double)ops * 1e9 / (double)elapsed;
	r->ns_per_op = (double)elapsed / (double)ops;
	r->mb_per_s = size ? r->ops_per_s * (double)size / 1e6 : 0;
	return 0;
}

_Static_assert(ROUNDS % 2 == 1, "the median of an odd count is one of the rounds");

/* The median of ROUNDS rates by operations per second (bench/stats.c's
 * median, as every benchmark's): that round's figures, all three from one
 * measurement. */
static struct rate median_rate(const struct rate *r)
{
	double ops[ROUNDS];
	double median;

	for (int i = 0; i < ROUNDS; i++)
		ops[i] = r[i].ops_per_s;
	median = bench_median(ops, ROUNDS);
	for (int i = 0; i < ROUNDS; i++)
		if (r[i].ops_per_s == median)
			return r[i];
	return r[0]; /* not reached: the median is one of the values */
}

static struct json_object *rate_json(const struct rate *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "ops_per_s", json_object_new_double(r->ops_per_s));
	json_object_object_add(o, "ns_per_op", json_object_new_double(r->ns_per_op));
	if (r->mb_per_s)
		json_object_object_add(o, "mb_per_s", json_object_new_double(r->mb_per_s));
	return o;
}

/* Where the ring of @size-byte messages goes: the first 64-byte boundary from OFF. */
static uint64_t ring_at(const struct bench *b)
{
	return (b->offset + 63) & ~(uint64_t)63;
}

/* Whether that ring fits the range bench may write. */
static bool ring_fits(const struct bench *b, size_t size)
{
	struct rfm_ring_config c = { .struct_size = sizeof(c), .slot_size = (uint32_t)size,
				     .slot_count = RING_SLOTS };
	uint64_t bytes;

	return !rfm_ring_footprint(&c, &bytes) && ring_at(b) - b->offset <= b->length &&
	       bytes <= b->length - (ring_at(b) - b->offset);
}

/* Publish and consume @size-byte messages on a ring at ring_at(). */
static int measure_ring(struct bench *b, size_t size, struct rate *r)
{
	struct rfm_ring_config c = { .struct_size = sizeof(c), .slot_size = (uint32_t)size,
				     .slot_count = RING_SLOTS };
	uint64_t at = ring_at(b), bytes;
	int ret;

	ret = rfm_ring_footprint(&c, &bytes);
	if (!ret)
		ret = rfm_ring_create(b->cli->node, at, bytes, &c, &b->ring);
	if (!ret)
		ret = rfm_ring_consumer_open(b->cli->node, at, RFM_RING_CONSUMER_NEWEST, &b->cons);
	if (!ret)
		ret = measure(b, NULL, OP_RING, size, r);
	rfm_ring_consumer_close(b->cons);
	rfm_ring_close(b->ring);
	b->cons = NULL;
	b->ring = NULL;
	return ret;
}

/* The first one-element variable and the first record this node may write. */
static int open_table_path(struct cli *cli, rfm_layout *layout, const char *var_name,
			   const char *rec_name, struct table_path *t)
{
	unsigned int me = (unsigned int)rfm_node_id(cli->node);
	struct rfm_var_info vi = { .struct_size = sizeof(vi) };
	struct rfm_record_info ri = { .struct_size = sizeof(ri) };
	struct rfm_region_info gi = { .struct_size = sizeof(gi) };

	for (size_t i = 0; !var_name && i < rfm_layout_var_count(layout); i++)
		if (!rfm_layout_var_info(layout, i, &vi) && vi.count == 1 &&
		    vi.element_size <= 8 && vi.writer == me && vi.record < 0)
			var_name = vi.name;
	for (size_t i = 0; !rec_name && i < rfm_layout_record_count(layout); i++)
		if (!rfm_layout_record_info(layout, i, &ri) &&
		    !rfm_layout_region_info(layout, ri.region, &gi) && gi.writer == me)
			rec_name = ri.name;
	if (!var_name && !rec_name)
		return cli_error(cli, "the layout has no variable or record that node %u writes "
				 "(open the writer's node, or name one with --var/--record)",
				 me);
	if (var_name) {
		if (rfm_var_open(layout, cli->node, var_name, &t->var) ||
		    rfm_var_get_info(t->var, &vi))
			return cli_fail(cli);
		if (vi.count != 1 || vi.element_size > 8)
			return cli_error(cli, "--var %s: not a single number", var_name);
		if (rfm_var_get_array(t->var, 0, 1, t->saved, sizeof(t->saved)))
			return cli_fail(cli);
	}
	if (rec_name) {
		if (rfm_record_open(layout, cli->node, rec_name, &t->rec))
			return cli_fail(cli);
		t->image_len = rfm_record_size(t->rec);
		t->image = calloc(1, t->image_len ? t->image_len : 1);
		if (!t->image)
			return cli_error(cli, "out of memory");
		if (rfm_record_read(t->rec, t->image, t->image_len, NULL) < 0)
			return cli_fail(cli);
	}
	return 0;
}

enum { OPT_DURATION = 0x2000, OPT_OFFSET, OPT_LENGTH, OPT_VAR, OPT_RECORD };

static const struct option bench_options[] = {
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "length", required_argument, NULL, OPT_LENGTH },
	{ "layout", required_argument, NULL, CLI_OPT_LAYOUT },
	{ "var", required_argument, NULL, OPT_VAR },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ NULL, 0, NULL, 0 },
};

static const char *const word_names[] = { "peek32", "poke32", "peek64", "poke64" };
static const char *const table_names[] = { "var_get", "var_set", "record_read", "record_write" };

/* What was measured; a figure not measured (too large, Ctrl-C) is left out. */
struct figures {
	struct rate bw[NSIZES][4], words[4], table[4], ring[NRING];
	bool have_bw[NSIZES], have_words, have_table[4], have_ring[NRING];
};

/*
 * Under a layout, the range bench writes: the given one when no region of
 * another node covers it, else the largest region this node writes.
 */
static int choose_range(struct bench *b, const rfm_layout *layout, bool given)
{
	unsigned int me = (unsigned int)rfm_node_id(b->cli->node);
	struct rfm_region_info info = { .struct_size = sizeof(info) }, best = { 0 };

	if (given)
		return cli_guard_foreign(b->cli, layout, b->offset, b->length,
					 "give --offset and --length outside other nodes' "
					 "regions, or open that node");
	for (size_t i = 0; i < rfm_layout_region_count(layout); i++)
		if (!rfm_layout_region_info(layout, i, &info) && info.writer == me &&
		    info.size > best.size)
			best = info;
	/* Words need 8 aligned bytes. */
	uint64_t at = (best.offset + 7) & ~(uint64_t)7;
	if (!best.size || at + 8 > best.offset + best.size)
		return cli_error(b->cli, "the layout has no region that node %u writes: bench "
				 "writes only there (open a writer's node, or give --offset and "
				 "--length outside other nodes' regions)", me);
	b->offset = at;
	b->length = best.offset + best.size - at;
	return 0;
}

static int run_figures(struct bench *b, struct table_path *t, struct figures *f)
{
	uint64_t budget = b->budget_ns;
	int ret = 0;

	/*
	 * The library's copies and the raw ones alternate in short rounds and
	 * each figure is the median round, so that noise from other processes
	 * hits both sides of a ratio alike.
	 */
	b->total = 4 + (t->var ? 2 : 0) + (t->rec ? 2 : 0);
	for (size_t s = 0; s < NSIZES && sizes[s] <= b->length; s++)
		b->total += 4 * ROUNDS;
	for (size_t s = 0; s < NRING; s++)
		b->total += ring_fits(b, ring_sizes[s]);
	cli_progress_start(&b->progress);
	b->budget_ns = budget / ROUNDS ? budget / ROUNDS : 1;
	for (size_t s = 0; s < NSIZES && sizes[s] <= b->length; s++) {
		struct rate r[4][ROUNDS];
		for (int round = 0; round < ROUNDS; round++)
			for (int k = 0; k < 4; k++) {
				ret = measure(b, t, (enum op)(OP_WRITE + k), sizes[s],
					      &r[k][round]);
				if (ret)
					goto out;
			}
		for (int k = 0; k < 4; k++)
			f->bw[s][k] = median_rate(r[k]);
		f->have_bw[s] = true;
	}
	b->budget_ns = budget;
	for (int k = 0; k < 4; k++) {
		ret = measure(b, t, (enum op)(OP_PEEK32 + k), 0, &f->words[k]);
		if (ret)
			goto out;
	}
	f->have_words = true;
	for (int k = 0; k < 4; k++) {
		if (k < 2 ? !t->var : !t->rec)
			continue;
		ret = measure(b, t, (enum op)(OP_VAR_GET + k), 0, &f->table[k]);
		if (ret)
			goto out;
		f->have_table[k] = true;
	}
	for (size_t s = 0; s < NRING; s++) {
		if (!ring_fits(b, ring_sizes[s]))
			continue;
		ret = measure_ring(b, ring_sizes[s], &f->ring[s]);
		if (ret)
			goto out;
		f->have_ring[s] = true;
	}
out:
	cli_progress_end(&b->progress);
	b->budget_ns = budget;
	return ret;
}

static void print_json(const struct bench *b, const struct figures *f, bool table,
		       bool interrupted)
{
	struct json_object *obj = json_object_new_object(), *arr = json_object_new_array();

	cli_json_add_string(obj, "backend", rfm_node_backend(b->cli->node));
	cli_json_add_u64(obj, "duration_ms", b->budget_ns / MS);
	cli_json_add_u64(obj, "offset", b->offset);
	cli_json_add_u64(obj, "length", b->length);
	cli_json_add_bool(obj, "interrupted", interrupted);
	for (size_t s = 0; s < NSIZES; s++) {
		if (!f->have_bw[s])
			continue;
		struct json_object *row = json_object_new_object();
		cli_json_add_u64(row, "size", sizes[s]);
		json_object_object_add(row, "write", rate_json(&f->bw[s][0]));
		json_object_object_add(row, "read", rate_json(&f->bw[s][1]));
		json_object_object_add(row, "raw_memcpy_write", rate_json(&f->bw[s][2]));
		json_object_object_add(row, "raw_memcpy_read", rate_json(&f->bw[s][3]));
		json_object_array_add(arr, row);
	}
	json_object_object_add(obj, "bandwidth", arr);
	for (int k = 0; k < 4 && f->have_words; k++)
		json_object_object_add(obj, word_names[k], rate_json(&f->words[k]));
	if (table) {
		struct json_object *tab = json_object_new_object();
		for (int k = 0; k < 4; k++)
			if (f->have_table[k])
				json_object_object_add(tab, table_names[k], rate_json(&f->table[k]));
		json_object_object_add(obj, "table", tab);
	}
	arr = json_object_new_array();
	for (size_t s = 0; s < NRING; s++) {
		if (!f->have_ring[s])
			continue;
		struct json_object *row = rate_json(&f->ring[s]);
		cli_json_add_u64(row, "size", ring_sizes[s]);
		json_object_array_add(arr, row);
	}
	json_object_object_add(obj, "ring", arr);
	cli_json_print(obj);
}

static void print_text(const struct bench *b, const struct figures *f, bool interrupted)
{
	printf("rfm bench: %s backend, node %d, %llu ms per figure%s\n",
	       rfm_node_backend(b->cli->node), rfm_node_id(b->cli->node),
	       (unsigned long long)(b->budget_ns / MS), interrupted ? " (interrupted)" : "");
	printf("  %6s  %11s %12s %9s  %11s %12s %9s\n", "bytes", "write MB/s", "write ops/s",
	       "vs memcpy", "read MB/s", "read ops/s", "vs memcpy");
	for (size_t s = 0; s < NSIZES; s++)
		if (f->have_bw[s])
			printf("  %6zu  %11.0f %12.0f %8.2fx  %11.0f %12.0f %8.2fx\n", sizes[s],
			       f->bw[s][0].mb_per_s, f->bw[s][0].ops_per_s,
			       f->bw[s][0].mb_per_s / f->bw[s][2].mb_per_s, f->bw[s][1].mb_per_s,
			       f->bw[s][1].ops_per_s, f->bw[s][1].mb_per_s / f->bw[s][3].mb_per_s);
	for (int k = 0; k < 4 && f->have_words; k++)
		printf("  %-13s %12.0f ops/s %8.1f ns\n", word_names[k], f->words[k].ops_per_s,
		       f->words[k].ns_per_op);
	for (int k = 0; k < 4; k++)
		if (f->have_table[k])
			printf("  %-13s %12.0f ops/s %8.1f ns\n", table_names[k],
			       f->table[k].ops_per_s, f->table[k].ns_per_op);
	for (size_t s = 0; s < NRING; s++)
		if (f->have_ring[s])
			printf("  ring %4zu B   %12.0f msgs/s %8.1f ns %9.0f MB/s (publish + "
			       "consume)\n", ring_sizes[s], f->ring[s].ops_per_s,
			       f->ring[s].ns_per_op, f->ring[s].mb_per_s);
}

/* What the options name beside the figures' settings in struct bench. */
struct bench_args {
	const char *layout_path, *var_name, *rec_name;
	bool range_given; /* --offset or --length */
};

/*
 * The options of rfm bench into @b and @a. Returns 0 with *done false to
 * run; else *done is true and the result is the exit status (--help,
 * a usage error).
 */
static int parse_options(struct cli *cli, int argc, char **argv, struct bench *b,
			 struct bench_args *a, bool *done)
{
	uint64_t v;
	int opt, ret;

	*done = true;
	while ((opt = cli_getopt(cli, argc, argv, "L:", bench_options)) > 0) {
		ret = 0;
		if (opt == OPT_DURATION) {
			ret = cli_parse_u64(cli, "duration", optarg, 60000, &v);
			if (!ret && !v)
				ret = cli_usage_error(cli, "duration must be at least 1 ms");
			b->budget_ns = v * MS;
		} else if (opt == OPT_OFFSET) {
			ret = cli_parse_bytes(cli, "offset", optarg, UINT64_MAX, &b->offset);
			if (!ret && b->offset % 8)
				ret = cli_usage_error(cli, "offset %llu is not a multiple of 8",
						      (unsigned long long)b->offset);
			a->range_given = true;
		} else if (opt == OPT_LENGTH) {
			ret = cli_parse_bytes(cli, "length", optarg, UINT64_MAX, &b->length);
			if (!ret && b->length < 8)
				ret = cli_usage_error(cli, "length must be at least 8 bytes");
			a->range_given = true;
		} else if (opt == CLI_OPT_LAYOUT) {
			a->layout_path = optarg;
		} else if (opt == OPT_VAR) {
			a->var_name = optarg;
		} else if (opt == OPT_RECORD) {
			a->rec_name = optarg;
		}
		if (ret)
			return ret;
	}
	ret = cli_options_end(cli, opt, argc, argv, 0, 0);
	if (ret)
		return ret;
	if ((a->var_name || a->rec_name) && !a->layout_path)
		return cli_usage_error(cli, "--var and --record need --layout FILE");
	*done = false;
	return 0;
}

int cli_run_bench(struct cli *cli, int argc, char **argv)
{
	struct bench b = { .cli = cli, .budget_ns = 200 * MS, .length = sizes[NSIZES - 1] };
	struct bench_args args = { 0 };
	const char *layout_path;
	struct table_path t = { 0 };
	rfm_layout *layout = NULL;
	struct figures *f = NULL;
	uint8_t *saved = NULL;
	bool done;
	int ret;

	ret = parse_options(cli, argc, argv, &b, &args, &done);
	if (done)
		return ret;
	layout_path = args.layout_path;
	ret = cli_open(cli);
	if (ret)
		return ret;
	if (rfm_mem_map(cli->node, (void **)&b.base, NULL))
		return cli_fail(cli);
	/* A layout says which bytes are others': --layout, else $RFM_LAYOUT as for fill. */
	if (layout_path || (getenv("RFM_LAYOUT") && getenv("RFM_LAYOUT")[0])) {
		ret = cli_load_layout(cli, layout_path, &layout);
		if (!ret && args.range_given)
			ret = cli_check_range(cli, b.offset, b.length);
		if (!ret)
			ret = choose_range(&b, layout, args.range_given);
		if (!ret && layout_path)
			ret = open_table_path(cli, layout, args.var_name, args.rec_name, &t);
		if (ret)
			goto out;
	}
	ret = cli_check_range(cli, b.offset, b.length);
	if (ret)
		goto out;
	/* Room for the largest transfer that fits the range, and a copy of the range. */
	size_t buf_len = (size_t)(b.length < sizes[NSIZES - 1] ? b.length : sizes[NSIZES - 1]);
	b.buf = malloc(buf_len);
	saved = malloc((size_t)b.length);
	f = calloc(1, sizeof(*f));
	if (!b.buf || !saved || !f) {
		ret = cli_error(cli, "out of memory");
		goto out;
	}
	memset(b.buf, 0x5a, buf_len);
	/* What the range held is put back at the end: bench leaves no trace in it. */
	if (rfm_mem_read(cli->node, b.offset, saved, (size_t)b.length)) {
		ret = cli_fail(cli);
		goto out;
	}
	cli_catch_interrupt();
	ret = run_figures(&b, &t, f);
	if (rfm_mem_write(cli->node, b.offset, saved, (size_t)b.length) && ret <= 0)
		ret = RFM_ESYS;
	if (ret < 0) {
		ret = cli_fail(cli);
		goto out;
	}
	/* Ctrl-C: print the figures measured so far and exit 130. */
	if (cli->json)
		print_json(&b, f, layout_path != NULL, ret == BENCH_INTERRUPTED);
	else
		print_text(&b, f, ret == BENCH_INTERRUPTED);
	ret = ret == BENCH_INTERRUPTED ? CLI_EXIT_INTERRUPTED : CLI_EXIT_OK;
out:
	rfm_var_close(t.var);
	rfm_record_close(t.rec);
	free(t.image);
	free(b.buf);
	free(saved);
	free(f);
	rfm_layout_free(layout);
	return ret;
}

const char cli_help_bench[] =
	"Write and read bandwidth through the library's copies for 4, 64, 256, 4096\n"
	"and 65536-byte transfers at OFF (MB/s = 10^6 bytes/s, and operations/s),\n"
	"each next to a raw memcpy to or from the same mapping measured in the same\n"
	"run; then peek32/poke32/peek64/poke64 rates. With --layout, also typed\n"
	"get/set of one variable and seqlock read/write of one record: by default\n"
	"the first single-number variable and the first record in a region this\n"
	"node writes. Last, a ring of 32 slots at OFF (rounded up to 64) carries\n"
	"64 B and 1 KiB messages, each published and consumed in this process.\n"
	"\n"
	"Bench writes only OFF..OFF+LEN (default 0..64K) and puts back what it held\n"
	"when it ends; transfers and rings that do not fit are left out. Under a\n"
	"layout (--layout, else $RFM_LAYOUT), it refuses a range that a region of\n"
	"another node covers, as fill does, and without --offset/--length it\n"
	"writes only in the largest region this node writes.\n"
	"On a terminal, progress is shown on stderr once a second; Ctrl-C prints\n"
	"the figures measured so far (JSON \"interrupted\": true) and exits 130.\n"
	"\n"
	"Options:\n"
	"      --duration MS   time per figure (default 200)\n"
	"      --offset OFF    where to transfer (default 0; multiple of 8)\n"
	"      --length LEN    the bytes from OFF bench may write (default 64K)\n"
	"  -L, --layout FILE   the layout for the table rows and the write check\n"
	"      --var NAME      the variable to get and set\n"
	"      --record NAME   the record (\"region.record\") to read and write\n"
	"\n"
	"JSON keys: backend, duration_ms, offset, length, interrupted, bandwidth\n"
	"(array of {size, write, read, raw_memcpy_write, raw_memcpy_read}), peek32,\n"
	"poke32, peek64, poke64, and table {var_get, var_set, record_read,\n"
	"record_write} with --layout, ring (array of {size, ops_per_s, ns_per_op,\n"
	"mb_per_s}); each other figure is {ops_per_s, ns_per_op[, mb_per_s]}.\n";
