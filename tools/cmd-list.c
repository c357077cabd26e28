/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm list: the emulated (shm:) networks on this host, read from
 * /dev/shm without attaching to any of them: name, window size, bytes
 * they occupy, attached nodes, mode and owner. Also the footprint that
 * rfm info shows.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "backends/shm/shm-segment.h" /* the segment's private layout */

struct network {
	char name[RFM_SHM_NAME_MAX + 1];
	char state[32];		/* "ok", "corrupt", "version N", "no access" */
	uint64_t window_size;	/* 0 when the header cannot be read */
	uint64_t bytes;		/* allocated in /dev/shm (st_blocks * 512) */
	int nodes;		/* attached nodes, -1 when the lock file is not readable */
	unsigned int mode;
	uid_t uid;
};

/* Bytes a file really occupies in /dev/shm: its reserved pages, not its length. */
static uint64_t occupied(const struct stat *st)
{
	return (uint64_t)st->st_blocks * 512;
}

/* Count node ids whose lock byte is held, without taking any lock. */
static int count_attached(const char *name)
{
	char path[RFM_SHM_NAME_MAX + 32];
	int fd, n = 0;

	snprintf(path, sizeof(path), RFM_SHM_DIR "/" RFM_SHM_LOCK_PREFIX "%s", name);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	for (int id = 0; id < 256; id++) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				    .l_start = RFM_SHM_LOCK_BASE + id, .l_len = 1 };

		if (fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
			n++;
	}
	close(fd);
	return n;
}

static void read_network(const char *name, struct network *net)
{
	char path[RFM_SHM_NAME_MAX + 32];
	struct rfm_shm_header h;
	struct stat st;
	int fd;

	memset(net, 0, sizeof(*net));
	snprintf(net->name, sizeof(net->name), "%s", name);
	snprintf(net->state, sizeof(net->state), "ok");
	snprintf(path, sizeof(path), RFM_SHM_DIR "/" RFM_SHM_PREFIX "%s", name);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(net->state, sizeof(net->state), "%s",
			 fd < 0 && errno == EACCES ? "no access" : "not a network");
		if (lstat(path, &st) == 0) {
			net->bytes = occupied(&st);
			net->mode = (unsigned int)(st.st_mode & 0777);
			net->uid = st.st_uid;
		}
		if (fd >= 0)
			close(fd);
		net->nodes = -1;
		return;
	}
	net->bytes = occupied(&st);
	net->mode = (unsigned int)(st.st_mode & 0777);
	net->uid = st.st_uid;
	memset(&h, 0, sizeof(h));
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || h.magic != RFM_SHM_MAGIC) {
		snprintf(net->state, sizeof(net->state), "%s", st.st_size == 0 ? "empty" : "corrupt");
	} else if (h.version != RFM_SHM_VERSION && h.version != RFM_SHM_VERSION_HUGE) {
		snprintf(net->state, sizeof(net->state), "version %u", h.version);
	} else {
		net->window_size = h.window_size;
	}
	close(fd);
	/* Another version keeps its locks elsewhere: its count is unknown here. */
	net->nodes = net->window_size ? count_attached(name) : -1;
}

int cli_shm_footprint(const char *name, uint64_t *bytes)
{
	char path[RFM_SHM_NAME_MAX + 32];
	struct stat st;

	snprintf(path, sizeof(path), RFM_SHM_DIR "/" RFM_SHM_PREFIX "%s", name);
	if (stat(path, &st) < 0)
		return -1;
	*bytes = occupied(&st);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct network *)a)->name, ((const struct network *)b)->name);
}

static const char *owner_name(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		return pw->pw_name;
	snprintf(buf, len, "%u", (unsigned int)uid);
	return buf;
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

int cli_run_list(struct cli *cli, int argc, char **argv)
{
	size_t prefix = strlen(RFM_SHM_PREFIX), count = 0, cap = 0;
	struct network *nets = NULL;
	struct dirent *de;
	DIR *dir;
	int ret;

	ret = cli_parse_args(cli, argc, argv, 0, 0);
	if (ret)
		return ret;
	dir = opendir(RFM_SHM_DIR);
	if (!dir)
		return cli_error(cli, "cannot read %s: %s", RFM_SHM_DIR, strerror(errno));
	while ((de = readdir(dir))) {
		const char *name = de->d_name + prefix;

		if (strncmp(de->d_name, RFM_SHM_PREFIX, prefix) || !*name ||
		    strlen(name) > RFM_SHM_NAME_MAX)
			continue;
		if (count == cap) {
			struct network *grown = realloc(nets, (cap = cap ? 2 * cap : 16) * sizeof(*nets));

			if (!grown) {
				closedir(dir);
				free(nets);
				return cli_error(cli, "out of memory");
			}
			nets = grown;
		}
		read_network(name, &nets[count++]);
	}
	closedir(dir);
	if (count)
		qsort(nets, count, sizeof(*nets), by_name);

	if (cli->json) {
		struct json_object *obj = json_object_new_object();
		struct json_object *arr = json_object_new_array();

		for (size_t i = 0; i < count; i++) {
			struct json_object *n = json_object_new_object();
			char mode[8], ownbuf[16];

			snprintf(mode, sizeof(mode), "0%03o", nets[i].mode);
			cli_json_add_string(n, "name", nets[i].name);
			cli_json_add_string(n, "state", nets[i].state);
			cli_json_add_u64(n, "window_size", nets[i].window_size);
			cli_json_add_u64(n, "bytes", nets[i].bytes);
			cli_json_add_int(n, "nodes_attached", nets[i].nodes);
			cli_json_add_string(n, "mode", mode);
			cli_json_add_string(n, "owner", owner_name(nets[i].uid, ownbuf, sizeof(ownbuf)));
			cli_json_add_u64(n, "uid", nets[i].uid);
			json_object_array_add(arr, n);
		}
		json_object_object_add(obj, "networks", arr);
		cli_json_print(obj);
		free(nets);
		return CLI_EXIT_OK;
	}
	if (!count) {
		printf("no networks in %s\n", RFM_SHM_DIR);
		free(nets);
		return CLI_EXIT_OK;
	}
	printf("%-20s %-10s %-12s %-6s %-5s %-10s %s\n", "NAME", "WINDOW", "OCCUPIES", "NODES",
	       "MODE", "OWNER", "STATE");
	for (size_t i = 0; i < count; i++) {
		char win[24], occ[24], nodes[8], ownbuf[16];

		snprintf(nodes, sizeof(nodes), nets[i].nodes < 0 ? "?" : "%d", nets[i].nodes);
		printf("%-20s %-10s %-12s %-6s 0%03o  %-10s %s\n", nets[i].name,
		       nets[i].window_size ? human(nets[i].window_size, win, sizeof(win)) : "?",
		       human(nets[i].bytes, occ, sizeof(occ)), nodes, nets[i].mode,
		       owner_name(nets[i].uid, ownbuf, sizeof(ownbuf)), nets[i].state);
	}
	free(nets);
	return CLI_EXIT_OK;
}

const char cli_help_list[] =
	"Show every emulated network in /dev/shm without attaching to it: its\n"
	"name, window size, the bytes it occupies in /dev/shm (reserved pages:\n"
	"window, a few header pages and one event queue per receiving handle),\n"
	"the nodes attached, its mode and owner, and its state (ok, corrupt,\n"
	"version N of another librfm, no access).\n"
	"--uri is not used.\n"
	"\n"
	"JSON keys: networks, an array of objects with name, state, window_size,\n"
	"bytes, nodes_attached (-1: unknown: no access, or another version's\n"
	"network), mode, owner, uid.\n";
