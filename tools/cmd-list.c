/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm list: the emulated (shm:) networks on this host, read from the
 * segment directory without attaching to any of them: name, window size,
 * bytes they occupy, attached nodes, mode and owner. Also the footprint
 * that rfm info shows. Where the files are and how they are looked at is
 * the OS's (tools/os/tool-seg.h); the headers' reading, the order and the
 * output are the same on every OS.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "backends/shm/shm-segment.h" /* the segment's private layout */
#include "os/tool-seg.h"

struct network {
	char name[RFM_SHM_NAME_MAX + 1];
	char state[32];		/* "ok", "corrupt", "version N", "no access" */
	uint64_t window_size;	/* 0 when the header cannot be read */
	int nodes;		/* attached nodes, -1 when unknown */
	struct tool_seg_file file;
};

static void read_network(const char *name, struct network *net)
{
	struct rfm_shm_header h;
	size_t got;
	int err;

	memset(net, 0, sizeof(*net));
	snprintf(net->name, sizeof(net->name), "%s", name);
	snprintf(net->state, sizeof(net->state), "ok");
	memset(&h, 0, sizeof(h));
	err = tool_seg_read(name, &net->file, &h, sizeof(h), &got);
	if (err) {
		snprintf(net->state, sizeof(net->state), "%s",
			 err == EACCES ? "no access" : "not a network");
		net->nodes = -1;
		return;
	}
	if (got != sizeof(h) || h.magic != RFM_SHM_MAGIC) {
		snprintf(net->state, sizeof(net->state), "%s",
			 net->file.size == 0 ? "empty" : "corrupt");
	} else if (h.version != RFM_SHM_VERSION && h.version != RFM_SHM_VERSION_HUGE) {
		snprintf(net->state, sizeof(net->state), "version %u", h.version);
	} else {
		net->window_size = h.window_size;
	}
	/* Another version keeps its locks elsewhere: its count is unknown here. */
	net->nodes = net->window_size ? tool_seg_attached(name) : -1;
}

int cli_shm_footprint(const char *name, uint64_t *bytes)
{
	return tool_seg_footprint(name, bytes);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct network *)a)->name, ((const struct network *)b)->name);
}

/* "1.5 MiB": sizes for people; --json has the exact counts. */
static const char *human(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	unsigned int u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, v == (double)(uint64_t)v ? "%.0f %s" : "%.1f %s", v, units[u]);
	return buf;
}

struct walk {
	struct network *nets;
	size_t count, cap;
	bool out_of_memory;
};

/* tool_seg_each()'s callback: read each "rfm-NAME" file as a network. */
static int add_network(const char *file, void *arg)
{
	size_t prefix = strlen(RFM_SHM_PREFIX);
	const char *name = file + prefix;
	struct walk *w = arg;

	if (strncmp(file, RFM_SHM_PREFIX, prefix) || !*name || strlen(name) > RFM_SHM_NAME_MAX)
		return 0;
	if (w->count == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct network *grown = realloc(w->nets, cap * sizeof(*grown));

		if (!grown) {
			w->out_of_memory = true;
			return 1;
		}
		w->nets = grown;
		w->cap = cap;
	}
	read_network(name, &w->nets[w->count++]);
	return 0;
}

static void print_json(const struct network *nets, size_t count)
{
	struct json_object *obj = json_object_new_object();
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < count; i++) {
		const struct tool_seg_file *f = &nets[i].file;
		struct json_object *n = json_object_new_object();
		char mode[16];

		cli_json_add_string(n, "name", nets[i].name);
		cli_json_add_string(n, "state", nets[i].state);
		cli_json_add_u64(n, "window_size", nets[i].window_size);
		cli_json_add_u64(n, "bytes", f->bytes);
		cli_json_add_int(n, "nodes_attached", nets[i].nodes);
		/* null where the OS has no such thing (Windows: no mode bits, no uids). */
		if (f->mode >= 0) {
			snprintf(mode, sizeof(mode), "0%03o", (unsigned int)f->mode);
			cli_json_add_string(n, "mode", mode);
		} else {
			json_object_object_add(n, "mode", NULL);
		}
		if (f->owner[0])
			cli_json_add_string(n, "owner", f->owner);
		else
			json_object_object_add(n, "owner", NULL);
		if (f->uid >= 0)
			cli_json_add_u64(n, "uid", (uint64_t)f->uid);
		else
			json_object_object_add(n, "uid", NULL);
		json_object_array_add(arr, n);
	}
	json_object_object_add(obj, "networks", arr);
	cli_json_print(obj);
}

static void print_table(const struct network *nets, size_t count)
{
	printf("%-20s %-10s %-12s %-6s %-5s %-10s %s\n", "NAME", "WINDOW", "OCCUPIES", "NODES",
	       "MODE", "OWNER", "STATE");
	for (size_t i = 0; i < count; i++) {
		const struct tool_seg_file *f = &nets[i].file;
		char win[24], occ[24], nodes[8], mode[16] = "-";

		snprintf(nodes, sizeof(nodes), nets[i].nodes < 0 ? "?" : "%d", nets[i].nodes);
		if (f->mode >= 0)
			snprintf(mode, sizeof(mode), "0%03o", (unsigned int)f->mode);
		printf("%-20s %-10s %-12s %-6s %-5s %-10s %s\n", nets[i].name,
		       nets[i].window_size ? human(nets[i].window_size, win, sizeof(win)) : "?",
		       human(f->bytes, occ, sizeof(occ)), nodes, mode, f->owner[0] ? f->owner : "?",
		       nets[i].state);
	}
}

int cli_run_list(struct cli *cli, int argc, char **argv)
{
	struct walk w = { 0 };
	int ret, err;

	ret = cli_parse_args(cli, argc, argv, 0, 0);
	if (ret)
		return ret;
	err = tool_seg_each(add_network, &w);
	if (err)
		return cli_error(cli, "cannot read %s: %s", tool_seg_dir(), strerror(err));
	if (w.out_of_memory) {
		free(w.nets);
		return cli_error(cli, "out of memory");
	}
	if (w.count)
		qsort(w.nets, w.count, sizeof(*w.nets), by_name);
	if (cli->json)
		print_json(w.nets, w.count);
	else if (!w.count)
		printf("no networks in %s\n", tool_seg_dir());
	else
		print_table(w.nets, w.count);
	free(w.nets);
	return CLI_EXIT_OK;
}

const char cli_help_list[] =
	"Show every emulated network in the segment directory (/dev/shm; on\n"
	"Windows %LOCALAPPDATA%\\librfm\\shm, or $RFM_SHM_DIR) without attaching\n"
	"to it: its name, window size, the bytes it occupies (reserved pages:\n"
	"window, a few header pages and one event queue per receiving handle),\n"
	"the nodes attached, its mode and owner, and its state (ok, corrupt,\n"
	"empty, version N of another librfm, no access).\n"
	"--uri is not used.\n"
	"\n"
	"JSON keys: networks, an array of objects with name, state, window_size,\n"
	"bytes, nodes_attached (-1: unknown: no access, or another version's\n"
	"network), mode, owner, uid (mode and uid null on Windows, whose files\n"
	"have an access list and owners without uids).\n";
