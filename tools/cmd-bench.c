/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm bench: throughput of the memory path on this node. Write and read
 * bandwidth through rfm_mem_write/rfm_mem_read for 4 B .. 64 KiB
 * transfers, each beside a raw memcpy to or from the same mapping measured
 * in the same run (the ratio is the library's overhead); peek/poke rates;
 * with --layout, typed variable get/set and seqlock record read/write;
 * ring publish + consume of 64 B and 1 KiB messages in one process (the
 * ring's own cost: stamps, copies, cursor, with no peer to wait for).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <rfm/ring.h>

#include "cli.h"

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
	uint64_t budget_ns;	/* per measurement */
	uint8_t *buf;
	rfm_ring *ring;		/* the ring row: producer and consumer here */
	rfm_ring_consumer *cons;
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
	uint8_t value[8];
	size_t value_len;
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
		return rfm_var_set_array(t->var, 0, 1, t->value, sizeof(t->value));
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

/* Run @op in batches until the budget is spent; the clock is read per batch. */
static int measure(struct bench *b, struct table_path *t, enum op op, size_t size,
		   struct rate *r)
{
	uint64_t ops = 0, batch = 1, t0 = rfm_event_now_ns(), elapsed;

	do {
		for (uint64_t k = 0; k < batch; k++) {
			int ret = do_op(b, t, op, size, (uint32_t)(ops + k));
			if (ret)
				return ret;
		}
		ops += batch;
		elapsed = rfm_event_now_ns() - t0;
		if (batch < (1u << 16) && elapsed < b->budget_ns / 64)
			batch *= 2;
	} while (elapsed < b->budget_ns);
	r->ops_per_s = (double)ops * 1e9 / (double)elapsed;
	r->ns_per_op = (double)elapsed / (double)ops;
	r->mb_per_s = size ? r->ops_per_s * (double)size / 1e6 : 0;
	return 0;
}

static int cmp_rate(const void *a, const void *b)
{
	double x = ((const struct rate *)a)->ops_per_s, y = ((const struct rate *)b)->ops_per_s;

	return (x > y) - (x < y);
}

/* The median of ROUNDS rates (sorts them). */
static struct rate median_rate(struct rate *r)
{
	qsort(r, ROUNDS, sizeof(*r), cmp_rate);
	return r[ROUNDS / 2];
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

/* Publish and consume @size-byte messages on a ring at the first 64-byte boundary from OFF. */
static int measure_ring(struct bench *b, size_t size, struct rate *r)
{
	struct rfm_ring_config c = { .struct_size = sizeof(c), .slot_size = (uint32_t)size,
				     .slot_count = RING_SLOTS };
	uint64_t at = (b->offset + 63) & ~(uint64_t)63, bytes;
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
		if (rfm_var_get_array(t->var, 0, 1, t->value, sizeof(t->value)))
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

enum { OPT_DURATION = 0x2000, OPT_OFFSET, OPT_VAR, OPT_RECORD };

static const struct option bench_options[] = {
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "layout", required_argument, NULL, CLI_OPT_LAYOUT },
	{ "var", required_argument, NULL, OPT_VAR },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ NULL, 0, NULL, 0 },
};

static const char *const word_names[] = { "peek32", "poke32", "peek64", "poke64" };
static const char *const table_names[] = { "var_get", "var_set", "record_read", "record_write" };

static int bench_run(struct cli *cli, int argc, char **argv)
{
	struct bench b = { .cli = cli, .budget_ns = 200 * MS };
	struct table_path t = { 0 };
	const char *layout_path = NULL, *var_name = NULL, *rec_name = NULL;
	rfm_layout *layout = NULL;
	uint64_t v;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "L:", bench_options)) > 0) {
		ret = 0;
		if (opt == OPT_DURATION) {
			ret = cli_parse_u64(cli, "duration", optarg, 60000, &v);
			if (!ret && !v)
				ret = cli_usage_error(cli, "duration must be at least 1 ms");
			b.budget_ns = v * MS;
		} else if (opt == OPT_OFFSET) {
			ret = cli_parse_u64(cli, "offset", optarg, UINT64_MAX, &b.offset);
			if (!ret && b.offset % 8)
				ret = cli_usage_error(cli, "offset %llu is not a multiple of 8",
						      (unsigned long long)b.offset);
		} else if (opt == CLI_OPT_LAYOUT) {
			layout_path = optarg;
		} else if (opt == OPT_VAR) {
			var_name = optarg;
		} else if (opt == OPT_RECORD) {
			rec_name = optarg;
		}
		if (ret)
			return ret;
	}
	if (opt == CLI_OPT_STOP)
		return cli->status;
	ret = cli_check_args(cli, argc, argv, 0, 0);
	if (ret)
		return ret;
	if ((var_name || rec_name) && !layout_path)
		return cli_usage_error(cli, "--var and --record need --layout FILE");
	ret = cli_open(cli);
	if (ret)
		return ret;
	if (rfm_mem_map(cli->node, (void **)&b.base, NULL))
		return cli_fail(cli);
	ret = cli_check_range(cli, b.offset, sizes[NSIZES - 1]);
	if (ret)
		return ret;
	if (layout_path) {
		ret = cli_load_layout(cli, layout_path, &layout);
		if (!ret)
			ret = open_table_path(cli, layout, var_name, rec_name, &t);
		if (ret)
			goto out;
	}
	b.buf = malloc(sizes[NSIZES - 1]);
	if (!b.buf) {
		ret = cli_error(cli, "out of memory");
		goto out;
	}
	memset(b.buf, 0x5a, sizes[NSIZES - 1]);

	struct rate bw[NSIZES][4], words[4], table[4], ring[NRING];
	bool have_table[4] = { t.var != NULL, t.var != NULL, t.rec != NULL, t.rec != NULL };
	/*
	 * The library's copies and the raw ones alternate in short rounds and
	 * each figure is the median round, so that noise from other processes
	 * hits both sides of a ratio alike.
	 */
	uint64_t budget = b.budget_ns;
	b.budget_ns = budget / ROUNDS ? budget / ROUNDS : 1;
	for (size_t s = 0; s < NSIZES; s++) {
		struct rate r[4][ROUNDS];
		for (int round = 0; round < ROUNDS; round++)
			for (int k = 0; k < 4; k++)
				if (measure(&b, &t, (enum op)(OP_WRITE + k), sizes[s], &r[k][round]))
					goto fail;
		for (int k = 0; k < 4; k++)
			bw[s][k] = median_rate(r[k]);
	}
	b.budget_ns = budget;
	for (int k = 0; k < 4; k++)
		if (measure(&b, &t, (enum op)(OP_PEEK32 + k), 0, &words[k]))
			goto fail;
	for (int k = 0; k < 4; k++)
		if (have_table[k] && measure(&b, &t, (enum op)(OP_VAR_GET + k), 0, &table[k]))
			goto fail;
	for (size_t s = 0; s < NRING; s++)
		if (measure_ring(&b, ring_sizes[s], &ring[s]))
			goto fail;

	if (cli->json) {
		struct json_object *obj = json_object_new_object(), *arr = json_object_new_array();

		cli_json_add_string(obj, "backend", rfm_node_backend(cli->node));
		cli_json_add_u64(obj, "duration_ms", b.budget_ns / MS);
		for (size_t s = 0; s < NSIZES; s++) {
			struct json_object *row = json_object_new_object();
			cli_json_add_u64(row, "size", sizes[s]);
			json_object_object_add(row, "write", rate_json(&bw[s][0]));
			json_object_object_add(row, "read", rate_json(&bw[s][1]));
			json_object_object_add(row, "raw_memcpy_write", rate_json(&bw[s][2]));
			json_object_object_add(row, "raw_memcpy_read", rate_json(&bw[s][3]));
			json_object_array_add(arr, row);
		}
		json_object_object_add(obj, "bandwidth", arr);
		for (int k = 0; k < 4; k++)
			json_object_object_add(obj, word_names[k], rate_json(&words[k]));
		if (layout) {
			struct json_object *tab = json_object_new_object();
			for (int k = 0; k < 4; k++)
				if (have_table[k])
					json_object_object_add(tab, table_names[k],
							       rate_json(&table[k]));
			json_object_object_add(obj, "table", tab);
		}
		arr = json_object_new_array();
		for (size_t s = 0; s < NRING; s++) {
			struct json_object *row = rate_json(&ring[s]);
			cli_json_add_u64(row, "size", ring_sizes[s]);
			json_object_array_add(arr, row);
		}
		json_object_object_add(obj, "ring", arr);
		cli_json_print(obj);
		goto out;
	}
	printf("rfm bench: %s backend, node %d, %llu ms per figure\n",
	       rfm_node_backend(cli->node), rfm_node_id(cli->node),
	       (unsigned long long)(b.budget_ns / MS));
	printf("  %6s  %11s %12s %9s  %11s %12s %9s\n", "bytes", "write MB/s", "write ops/s",
	       "vs memcpy", "read MB/s", "read ops/s", "vs memcpy");
	for (size_t s = 0; s < NSIZES; s++)
		printf("  %6zu  %11.0f %12.0f %8.2fx  %11.0f %12.0f %8.2fx\n", sizes[s],
		       bw[s][0].mb_per_s, bw[s][0].ops_per_s, bw[s][0].mb_per_s / bw[s][2].mb_per_s,
		       bw[s][1].mb_per_s, bw[s][1].ops_per_s,
		       bw[s][1].mb_per_s / bw[s][3].mb_per_s);
	for (int k = 0; k < 4; k++)
		printf("  %-13s %12.0f ops/s %8.1f ns\n", word_names[k], words[k].ops_per_s,
		       words[k].ns_per_op);
	for (int k = 0; k < 4; k++)
		if (have_table[k])
			printf("  %-13s %12.0f ops/s %8.1f ns\n", table_names[k],
			       table[k].ops_per_s, table[k].ns_per_op);
	for (size_t s = 0; s < NRING; s++)
		printf("  ring %4zu B   %12.0f msgs/s %8.1f ns %9.0f MB/s (publish + consume)\n",
		       ring_sizes[s], ring[s].ops_per_s, ring[s].ns_per_op, ring[s].mb_per_s);
	goto out;
fail:
	ret = cli_fail(cli);
out:
	rfm_var_close(t.var);
	rfm_record_close(t.rec);
	free(t.image);
	free(b.buf);
	rfm_layout_free(layout);
	return ret;
}

const struct cli_command cli_cmd_bench = {
	.name = "bench",
	.args = "[--duration MS] [--offset OFF] [--layout FILE [--var NAME] [--record NAME]]",
	.summary = "Measure write/read bandwidth, peek/poke, table and ring rates on this node",
	.help = "Write and read bandwidth through rfm_mem_write() and rfm_mem_read() for\n"
		"4, 64, 256, 4096 and 65536-byte transfers at OFF (MB/s = 10^6 bytes/s, and\n"
		"operations/s), each next to a raw memcpy to or from the same mapping\n"
		"measured in the same run; then peek32/poke32/peek64/poke64 rates. With\n"
		"--layout, also typed get/set of one variable and seqlock read/write of one\n"
		"record: by default the first single-number variable and the first record\n"
		"in a region this node writes. BENCH WRITES THE WINDOW at OFF..OFF+64K and\n"
		"writes the variable and record back with their current values. Last, a\n"
		"ring of 32 slots at OFF (rounded up to 64) carries 64 B and 1 KiB messages,\n"
		"each published and consumed in this process (msgs/s and MB/s).\n"
		"\n"
		"Options:\n"
		"      --duration MS   time per figure (default 200)\n"
		"      --offset OFF    where to transfer (default 0; multiple of 8)\n"
		"  -L, --layout FILE   the layout for the table rows\n"
		"      --var NAME      the variable to get and set\n"
		"      --record NAME   the record (\"region.record\") to read and write\n"
		"\n"
		"JSON keys: backend, duration_ms, bandwidth (array of {size, write, read,\n"
		"raw_memcpy_write, raw_memcpy_read}), peek32, poke32, peek64, poke64, and\n"
		"table {var_get, var_set, record_read, record_write} with --layout, ring\n"
		"(array of {size, ops_per_s, ns_per_op, mb_per_s}); each other figure is\n"
		"{ops_per_s, ns_per_op[, mb_per_s]}.\n",
	.run = bench_run,
};
