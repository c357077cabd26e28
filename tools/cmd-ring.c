/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ring create | pub | tail | stat: ring channels from the shell.
 * create and pub act as the ring's producer (the node of -u must be its
 * writer); tail is a consumer on any node; stat only looks (any node).
 * A ring is named by its offset or by its layout region (--layout, else
 * $RFM_LAYOUT); under a layout, create keeps to this node's regions, as
 * fill does, and a region that declares its ring's shape is made so.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MS 1000000LL

enum {
	OPT_SLOT_SIZE = 's',
	OPT_SLOTS = 'n',
	OPT_NOTIFY = 'N',
	OPT_BACKPRESSURE = 'b',
	OPT_ID = 'i',
	OPT_HEX = 'x',
	OPT_TEXT = 'T',
	OPT_COUNT = 'c',
	OPT_TIMEOUT = 't',
	OPT_NEWEST = 'w',
	OPT_TYPE = 'e',
	OPT_NODES = 0x2000,
};

#define SHAPE_OPTIONS "--slot-size, --slots, --notify, --backpressure, --id, --event and --nodes"

static const struct option ring_options[] = {
	{ "slot-size", required_argument, NULL, OPT_SLOT_SIZE },
	{ "slots", required_argument, NULL, OPT_SLOTS },
	{ "notify", no_argument, NULL, OPT_NOTIFY },
	{ "backpressure", no_argument, NULL, OPT_BACKPRESSURE },
	{ "id", required_argument, NULL, OPT_ID },
	{ "event", required_argument, NULL, OPT_TYPE },
	{ "hex", no_argument, NULL, OPT_HEX },
	{ "text", no_argument, NULL, OPT_TEXT },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "newest", no_argument, NULL, OPT_NEWEST },
	{ "layout", required_argument, NULL, CLI_OPT_LAYOUT },
	{ "nodes", required_argument, NULL, OPT_NODES },
	{ NULL, 0, NULL, 0 },
};

struct ring_args {
	struct rfm_ring_config cfg;
	bool shape_given;	/* one of SHAPE_OPTIONS */
	bool hex, text, newest;
	uint64_t count;
	int64_t timeout_ns;
	bool have_count;
	const char *layout_path;	/* --layout, NULL: $RFM_LAYOUT */
	rfm_layout *layout;		/* loaded when a region names the ring, or to guard */
	const char *layout_from;	/* its file, for messages */
	const char *region;		/* the ring's region, or NULL: an offset */
};

/* The keys create and stat both report: the ring's geometry and flags. */
static struct json_object *ring_json(const struct rfm_ring_info *info)
{
	struct json_object *obj = json_object_new_object();

	cli_json_add_u64(obj, "offset", info->offset);
	cli_json_add_u64(obj, "slot_size", info->slot_size);
	cli_json_add_u64(obj, "slots", info->slot_count);
	cli_json_add_u64(obj, "producer", info->producer);
	cli_json_add_bool(obj, "notify", info->flags & RFM_RING_F_NOTIFY);
	cli_json_add_bool(obj, "backpressure", info->flags & RFM_RING_F_BACKPRESSURE);
	cli_json_add_u64(obj, "consumer_nodes", info->consumer_nodes);
	return obj;
}

/* The region's ring, or with a shape given (or none declared) one of that shape. */
static int create_in_region(struct cli *cli, struct ring_args *a, rfm_ring **r)
{
	struct rfm_ring_config declared = { .struct_size = sizeof(declared) };
	bool has = false;

	for (size_t i = 0; i < rfm_layout_region_count(a->layout); i++) {
		struct rfm_region_info ri = { .struct_size = sizeof(ri) };

		if (!rfm_layout_region_info(a->layout, i, &ri) && !strcmp(ri.name, a->region))
			has = !rfm_layout_region_ring(a->layout, i, &declared);
	}
	if (has && a->shape_given)
		return cli_usage_error(cli, "region '%s' declares its ring's shape in %s: give none "
				       "of " SHAPE_OPTIONS, a->region, a->layout_from);
	if (rfm_ring_create_region(cli->node, a->layout, a->region, has ? NULL : &a->cfg, r))
		return cli_fail(cli);
	return 0;
}

static int ring_create(struct cli *cli, uint64_t offset, struct ring_args *a)
{
	struct rfm_ring_info info = { .struct_size = sizeof(info) };
	uint64_t bytes;
	rfm_ring *r;
	int ret;

	if (rfm_ring_footprint(&a->cfg, &bytes))
		return cli_fail(cli);
	ret = cli_open(cli);
	if (ret)
		return ret;
	if (a->region) {
		ret = create_in_region(cli, a, &r);
		if (ret)
			return ret;
	} else {
		/* Under a layout the ring's bytes must all be this node's, as fill's. */
		if (a->layout && (ret = cli_guard_in_layout(cli, a->layout, a->layout_from, offset,
							   bytes)))
			return ret;
		if (rfm_ring_create(cli->node, offset, bytes, &a->cfg, &r))
			return cli_fail(cli);
	}
	rfm_ring_get_info(r, &info);
	rfm_ring_close(r);
	if (cli->json) {
		struct json_object *obj = ring_json(&info);

		cli_json_add_u64(obj, "footprint", info.footprint);
		cli_json_print(obj);
	} else {
		printf("ring at 0x%llx: %u slots of %u bytes, %llu bytes, producer node %u, "
		       "consumer entries for node ids 0..%u\n",
		       (unsigned long long)info.offset, info.slot_count, info.slot_size,
		       (unsigned long long)info.footprint, info.producer, info.consumer_nodes - 1);
	}
	return CLI_EXIT_OK;
}

static int ring_pub(struct cli *cli, uint64_t offset, struct ring_args *a, int argc, char **argv)
{
	rfm_ring *r;
	int ret, status = CLI_EXIT_OK;

	ret = cli_open(cli);
	if (ret)
		return ret;
	if (rfm_ring_attach(cli->node, offset, &r))
		return cli_fail(cli);
	for (int i = optind + 2; i < argc && status == CLI_EXIT_OK; i++) {
		uint8_t *buf = NULL;
		size_t len;

		if (a->hex) {
			ret = cli_parse_hex(cli, argv[i], &buf, &len);
			if (ret) {
				status = ret;
				break;
			}
		} else {
			len = strlen(argv[i]);
		}
		if (rfm_ring_publish(r, buf ? buf : (uint8_t *)argv[i], len, a->timeout_ns))
			status = cli_fail(cli);
		free(buf);
	}
	rfm_ring_close(r);
	return status;
}

static void print_msg(struct cli *cli, const struct ring_args *a, const uint8_t *data,
		      const struct rfm_ring_msg *m)
{
	size_t len = m->len;

	if (cli->json) {
		struct json_object *obj = json_object_new_object();
		char *hex = malloc(2 * len + 1);

		for (size_t i = 0; hex && i < len; i++)
			sprintf(hex + 2 * i, "%02x", data[i]);
		if (hex)
			hex[2 * len] = 0;
		cli_json_add_u64(obj, "seq", m->seq);
		cli_json_add_u64(obj, "lost", m->lost);
		cli_json_add_u64(obj, "len", len);
		cli_json_add_string(obj, "hex", hex ? hex : "");
		if (!a->hex) {
			/* Up to the first NUL, as strndup() (which mingw lacks) copies. */
			size_t n = strnlen((const char *)data, len);
			char *text = malloc(n + 1);
			if (text) {
				memcpy(text, data, n);
				text[n] = '\0';
			}
			cli_json_add_string(obj, "text", text ? text : "");
			free(text);
		}
		free(hex);
		cli_json_print(obj);
	} else {
		if (m->lost)
			printf("(%llu message(s) lost: lapped)\n", (unsigned long long)m->lost);
		printf("%llu:", (unsigned long long)m->seq);
		if (a->hex) {
			for (size_t i = 0; i < len; i++)
				printf(" %02x", data[i]);
		} else {
			putchar(' ');
			for (size_t i = 0; i < len; i++)
				putchar(isprint(data[i]) ? data[i] : '.');
		}
		putchar('\n');
	}
	fflush(stdout);
}

static int ring_tail(struct cli *cli, uint64_t offset, struct ring_args *a)
{
	struct rfm_ring_info info = { .struct_size = sizeof(info) };
	rfm_ring_consumer *c;
	uint8_t *buf;
	uint64_t seen = 0;
	int ret, status = CLI_EXIT_OK;

	/*
	 * A reader observes: no entry, no node id, never holds the producer
	 * back, polls. With node= in the URI it is a consumer of that node,
	 * registered in its row: notify wakes it and stat shows it.
	 */
	ret = cli_open_as(cli, cli_uri_names_node(cli) ? CLI_ATTACH_TOOL : CLI_ATTACH_OBSERVER,
			  true);
	if (ret)
		return ret;
	if (rfm_ring_consumer_open(cli->node, offset,
				   a->newest ? RFM_RING_CONSUMER_NEWEST : RFM_RING_CONSUMER_OLDEST,
				   &c))
		return cli_fail(cli);
	rfm_ring_consumer_get_info(c, &info);
	buf = malloc(info.slot_size);
	if (!buf) {
		rfm_ring_consumer_close(c);
		return cli_error(cli, "out of memory");
	}
	cli_watch_node(cli->node);
	cli_catch_interrupt();
	while (!a->have_count || seen < a->count) {
		struct rfm_ring_msg m;

		ret = rfm_ring_consume(c, buf, info.slot_size, &m, a->timeout_ns);
		if (ret == RFM_ETIMEDOUT || ret == RFM_EAGAIN || ret == RFM_ECANCELED)
			break;
		if (ret == RFM_ECORRUPT) {
			char text[1024];

			fprintf(stderr, "rfm: %s\n",
				cli_user_message(cli, rfm_last_error(), text, sizeof(text)));
			continue;
		}
		if (ret) {
			status = cli_fail(cli);
			break;
		}
		print_msg(cli, a, buf, &m);
		seen++;
	}
	free(buf);
	rfm_ring_consumer_close(c);
	return status;
}

#define STAT_VIEWS 256 /* consumers printed; the count says how many there are */

static const char *view_state(const struct rfm_ring_consumer_view *v)
{
	if (v->flags & RFM_RING_VIEW_DEAD)
		return "dead";
	return v->flags & RFM_RING_VIEW_SLEEPING ? "sleeping" : "running";
}

/* The ring's head and its registered consumers, read-only (rfm_ring_inspect()). */
static int ring_stat(struct cli *cli, uint64_t offset)
{
	struct rfm_ring_info info = { .struct_size = sizeof(info) };
	struct rfm_ring_consumer_view *v = calloc(STAT_VIEWS, sizeof(*v));
	size_t n = 0, shown;
	int ret;

	if (!v)
		return cli_error(cli, "out of memory");
	v[0].struct_size = sizeof(v[0]);
	ret = cli_open_as(cli, CLI_ATTACH_OBSERVER, true);
	if (!ret && rfm_ring_inspect(cli->node, offset, &info, v, STAT_VIEWS, &n))
		ret = cli_fail(cli);
	if (ret) {
		free(v);
		return ret;
	}
	shown = n < STAT_VIEWS ? n : STAT_VIEWS;
	if (cli->json) {
		struct json_object *obj = ring_json(&info), *arr = json_object_new_array();

		cli_json_add_u64(obj, "head", info.head);
		cli_json_add_u64(obj, "consumer_count", n);
		for (size_t i = 0; i < shown; i++) {
			struct json_object *c = json_object_new_object();

			cli_json_add_u64(c, "node", v[i].node);
			cli_json_add_u64(c, "entry", v[i].entry);
			json_object_object_add(c, "pid", json_object_new_int(v[i].pid));
			cli_json_add_u64(c, "cursor", v[i].cursor);
			cli_json_add_u64(c, "lag", v[i].lag);
			cli_json_add_u64(c, "laps", v[i].laps);
			cli_json_add_bool(c, "backpressure",
					  v[i].flags & RFM_RING_CONSUMER_BACKPRESSURE);
			cli_json_add_bool(c, "holding", v[i].flags & RFM_RING_VIEW_HOLDING);
			cli_json_add_string(c, "state", view_state(&v[i]));
			json_object_array_add(arr, c);
		}
		json_object_object_add(obj, "consumers", arr);
		cli_json_print(obj);
	} else {
		printf("ring at 0x%llx: producer node %u, head %llu, %u slots of %u bytes, "
		       "%zu consumer%s registered\n",
		       (unsigned long long)info.offset, info.producer, (unsigned long long)info.head,
		       info.slot_count, info.slot_size, n, n == 1 ? "" : "s");
		if (shown)
			printf("%5s %5s %8s %12s %10s %8s  %-13s %s\n", "node", "entry", "pid",
			       "cursor", "lag", "laps", "back-pressure", "state");
		for (size_t i = 0; i < shown; i++)
			printf("%5u %5u %8d %12llu %10llu %8llu  %-13s %s\n", v[i].node, v[i].entry,
			       v[i].pid, (unsigned long long)v[i].cursor,
			       (unsigned long long)v[i].lag, (unsigned long long)v[i].laps,
			       v[i].flags & RFM_RING_VIEW_HOLDING ? "holding"
			       : v[i].flags & RFM_RING_CONSUMER_BACKPRESSURE ? "yes" : "no",
			       view_state(&v[i]));
	}
	free(v);
	return CLI_EXIT_OK;
}

/* A 32-bit count of the ring's geometry (--slots, --id), into its field. */
static int parse_u32(struct cli *cli, const char *what, const char *text, uint32_t *out)
{
	uint64_t v;
	int ret = cli_parse_u64(cli, what, text, UINT32_MAX, &v);

	if (!ret)
		*out = (uint32_t)v;
	return ret;
}

/*
 * Where the ring is: an OFFSET, or a region of the layout (--layout, else
 * $RFM_LAYOUT), loaded into a->layout, which also guards a create.
 */
static int ring_place(struct cli *cli, const char *arg, struct ring_args *a, uint64_t *offset)
{
	const char *env = getenv("RFM_LAYOUT");
	bool named = !(arg[0] >= '0' && arg[0] <= '9');
	int ret;

	a->layout_from = a->layout_path ? a->layout_path : env && env[0] ? env : NULL;
	if (a->layout_from) {
		ret = cli_load_layout(cli, a->layout_from, &a->layout);
		if (ret)
			return ret;
	}
	if (!named)
		return cli_parse_bytes(cli, "OFFSET", arg, UINT64_MAX, offset);
	for (size_t i = 0; i < rfm_layout_region_count(a->layout); i++) {
		struct rfm_region_info ri = { .struct_size = sizeof(ri) };

		if (!rfm_layout_region_info(a->layout, i, &ri) && !strcmp(ri.name, arg)) {
			a->region = arg;
			*offset = ri.offset;
			return 0;
		}
	}
	if (!a->layout)
		return cli_usage_error(cli, "'%s' is not an offset (a region name needs --layout "
				       "FILE or RFM_LAYOUT)", arg);
	return cli_usage_error(cli, "'%s' is neither an offset nor a region of %s", arg,
			       a->layout_from);
}

static int run_action(struct cli *cli, const char *action, uint64_t offset, struct ring_args *a,
		      bool tail_timeout, int argc, char **argv)
{
	int ret;

	if (!strcmp(action, "create")) {
		if ((ret = cli_check_args(cli, argc, argv, 2, 2)))
			return ret;
		return ring_create(cli, offset, a);
	}
	if (!strcmp(action, "pub")) {
		if (argc - optind < 3)
			return cli_usage_error(cli, "ring pub needs at least one MESSAGE");
		if (!tail_timeout)
			a->timeout_ns = 0;
		return ring_pub(cli, offset, a, argc, argv);
	}
	if (!strcmp(action, "tail")) {
		if ((ret = cli_check_args(cli, argc, argv, 2, 2)))
			return ret;
		return ring_tail(cli, offset, a);
	}
	if (!strcmp(action, "stat")) {
		if ((ret = cli_check_args(cli, argc, argv, 2, 2)))
			return ret;
		return ring_stat(cli, offset);
	}
	return cli_usage_error(cli, "unknown action '%s' (expected create, pub, tail or stat)",
			       action);
}

int cli_run_ring(struct cli *cli, int argc, char **argv)
{
	struct ring_args a = {
		.cfg = { .struct_size = sizeof(a.cfg), .slot_size = 256, .slot_count = 64 },
		.timeout_ns = -1,
	};
	uint64_t v, offset;
	int opt, ret;
	bool tail_timeout = false;

	while ((opt = cli_getopt(cli, argc, argv, "s:n:Nbi:e:xTc:t:w", ring_options)) > 0) {
		switch (opt) {
		case OPT_SLOT_SIZE:
			if ((ret = cli_parse_bytes(cli, "slot size", optarg, UINT32_MAX, &v)))
				return ret;
			a.cfg.slot_size = (uint32_t)v;
			a.shape_given = true;
			break;
		case OPT_SLOTS:
			if ((ret = parse_u32(cli, "slots", optarg, &a.cfg.slot_count)))
				return ret;
			a.shape_given = true;
			break;
		case OPT_NOTIFY:
			a.cfg.flags |= RFM_RING_F_NOTIFY;
			a.shape_given = true;
			break;
		case OPT_BACKPRESSURE:
			a.cfg.flags |= RFM_RING_F_BACKPRESSURE;
			a.shape_given = true;
			break;
		case OPT_ID:
			if ((ret = parse_u32(cli, "ring id", optarg, &a.cfg.ring_id)))
				return ret;
			a.shape_given = true;
			break;
		case OPT_TYPE: {
			int t = rfm_event_type_parse(optarg);
			if (t < RFM_EVENT_INTR1 || t > RFM_EVENT_INTR4)
				return cli_usage_error(cli, "--event must be intr1..intr4, not '%s'",
						       optarg);
			a.cfg.notify_type = (uint32_t)t;
			a.shape_given = true;
			break;
		}
		case CLI_OPT_LAYOUT:
			a.layout_path = optarg;
			break;
		case OPT_NODES:
			if ((ret = cli_parse_u64(cli, "--nodes", optarg, RFM_MAX_NODES, &v)))
				return ret;
			if (v == 0)
				return cli_usage_error(cli, "--nodes must be 1 to %d", RFM_MAX_NODES);
			a.cfg.consumer_nodes = (uint32_t)v;
			a.shape_given = true;
			break;
		case OPT_HEX:
			a.hex = true;
			break;
		case OPT_TEXT:
			a.text = true;
			break;
		case OPT_COUNT:
			if ((ret = cli_parse_u64(cli, "count", optarg, UINT64_MAX, &a.count)))
				return ret;
			a.have_count = true;
			break;
		case OPT_TIMEOUT:
			if ((ret = cli_parse_u64(cli, "timeout", optarg, INT64_MAX / MS, &v)))
				return ret;
			a.timeout_ns = (int64_t)v * MS;
			tail_timeout = true;
			break;
		case OPT_NEWEST:
			a.newest = true;
			break;
		}
	}
	if (opt == CLI_OPT_STOP)
		return cli->status;
	if (a.hex && a.text)
		return cli_usage_error(cli, "--hex and --text exclude each other");
	ret = cli_check_args(cli, argc, argv, 2, 1000000);
	if (ret)
		return ret;
	const char *action = argv[optind];
	ret = ring_place(cli, argv[optind + 1], &a, &offset);
	if (!ret)
		ret = run_action(cli, action, offset, &a, tail_timeout, argc, argv);
	rfm_layout_free(a.layout);
	return ret;
}

const char cli_help_ring[] =
	"A ring is named by its OFFSET or by the name of its region in the layout\n"
	"(--layout FILE, else $RFM_LAYOUT).\n"
	"create: make a ring at OFFSET (64-byte aligned) written by this node;\n"
	"under a layout every byte of it must lie in this node's regions (as for\n"
	"fill). A region whose layout entry declares a ring (ring: slots,\n"
	"slot_size...) gets that ring; another region one of the shape given.\n"
	"pub: publish each MESSAGE (text, or hex bytes with --hex) as this ring's\n"
	"producer, going on after its last message.\n"
	"tail: print the ring's messages from the oldest (or --newest) as they\n"
	"come, until --count N were printed, nothing came for --timeout MS, or\n"
	"SIGINT/SIGTERM. Lapped messages are reported as lost.\n"
	"stat: print the ring's head and each registered consumer (node, entry,\n"
	"pid, cursor, lag, laps, back-pressure, state) without taking part.\n"
	"\n"
	"Options:\n"
	"  -s, --slot-size N   create: largest message in bytes (default 256)\n"
	"  -n, --slots N       create: slots, a power of two (default 64)\n"
	"  -N, --notify        create: commits interrupt sleeping consumers\n"
	"  -b, --backpressure  create: registered consumers are never lapped\n"
	"  -i, --id N          create: the ring id (data of its interrupts)\n"
	"      --nodes N       create: consumer entries for node ids 0..N-1 only\n"
	"                      (default all 256; a smaller ring, read by librfm\n"
	"                      1.2 on)\n"
	"  -e, --event TYPE    create: interrupt type, intr1..intr4 (default intr3)\n"
	"  -x, --hex           pub: messages are hex bytes; tail: print hex\n"
	"  -T, --text          tail: print text, '.' for unprintable bytes (default)\n"
	"  -c, --count N       tail: stop after N messages\n"
	"  -t, --timeout MS    tail: stop after MS ms without a message;\n"
	"                      pub: wait up to MS ms for back-pressure room\n"
	"  -w, --newest        tail: only messages published from now on\n"
	"  -L, --layout FILE   the layout whose regions name rings (default\n"
	"                      $RFM_LAYOUT)\n"
	"\n"
	"JSON keys: create: offset, footprint, slot_size, slots, producer, notify,\n"
	"backpressure, consumer_nodes; tail (one object a line): seq, lost, len,\n"
	"hex, text; stat: offset, producer, head, slots, slot_size, notify,\n"
	"backpressure, consumer_nodes, consumer_count, consumers (node, entry, pid, cursor, lag, laps,\n"
	"backpressure, holding, state).\n";
