/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench-record: what recording a rig costs and loses (make bench-record).
 *
 * A writer process (node 1) updates 1,000 variables and a 4 KiB region at
 * 10 kHz and publishes a record at 10 kHz. The same capture is then made
 * three ways, one after the other, each for --seconds:
 *
 *   limit     a minimal C loop with plain HDF5 calls: one thread that
 *             sleeps to each tick, copies the window, polls the record's
 *             sequence and appends a chunk per dataset when it is full;
 *   recorder  librfm's recorder (rate 10 kHz for the variables and the
 *             region, on change for the record), the library's threads;
 *   watch     `rfm watch --json --interval 0`, what users had before.
 *
 * Printed: frames taken and lost (every tick of the time not in the file:
 * late or dropped), record publishes taken and missed, the sampler's
 * period jitter (its wake after each tick it took; a wake a whole period
 * late is a lost tick, so the max stays under the period) P50/P99/max,
 * the CPU of the recording process as a share of one core, file bytes
 * per second; then ratios against the limit. Not a test: nothing is
 * asserted. --seconds 2 is the smoke run.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rfm/rfm.h>

#include "stats.h"

struct opts {
	double seconds;
	uint32_t rate, vars;
	const char *dir, *tool;
};

struct result {
	const char *name;
	uint64_t expected, taken, lost;		/* frames at the rate */
	uint64_t rec_published, rec_taken, rec_lost;	/* the record's publishes */
	struct bench_pct jitter_us;
	bool have_jitter;
	double cpu, bytes_per_s;
};

static const char *const type_names[] = { "f64", "f32", "u32", "i16" };
static const unsigned int type_sizes[] = { 8, 4, 4, 2 };

#define SIM 0x10000u
#define BLOB 0x40000u
#define CTL 0x50000u

static char *layout_text(uint32_t vars)
{
	size_t cap = 256 + (size_t)vars * 64;
	char *t = malloc(cap);
	size_t n = 0;

	if (!t)
		return NULL;
	n += (size_t)snprintf(t + n, cap - n,
			      "version: 1\nwindow: 1M\nregions:\n"
			      "  - name: sim\n    offset: 0x%x\n    size: 0x20000\n"
			      "    writer: 1\n    variables:\n", SIM);
	for (uint32_t i = 0; i < vars; i++)
		n += (size_t)snprintf(t + n, cap - n, "      - { name: v%u, type: %s }\n", i,
				      type_names[i % 4]);
	n += (size_t)snprintf(t + n, cap - n,
			      "  - { name: blob, offset: 0x%x, size: 4096, writer: 1 }\n"
			      "  - name: ctl\n    offset: 0x%x\n    size: 0x100\n    writer: 1\n"
			      "    records:\n      - name: state\n        variables:\n"
			      "          - { name: counter, type: u64 }\n"
			      "          - { name: x, type: f64 }\n", BLOB, CTL);
	return t;
}

static double cpu_seconds(const struct rusage *ru)
{
	return ru->ru_utime.tv_sec + ru->ru_stime.tv_sec +
	       (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6;
}

static void sleep_abs(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* ---- the writer process ---- */

static volatile sig_atomic_t writer_stop;

static void on_term(int sig)
{
	(void)sig;
	writer_stop = 1;
}

static int writer_main(const char *uri, rfm_layout *layout, uint32_t rate, int ready_fd)
{
	rfm_node *node;
	rfm_record *rec;
	uint8_t *base;
	uint64_t size, k = 0, period = 1000000000u / rate;

	signal(SIGTERM, on_term);
	if (rfm_open(uri, &node) || rfm_mem_map(node, (void **)&base, &size) ||
	    rfm_record_open(layout, node, "ctl.state", &rec))
		return 1;
	if (write(ready_fd, "r", 1) != 1)
		return 1;
	uint64_t start = bench_now_ns();
	while (!writer_stop) {
		k++;
		/* Every variable and the blob change each step. */
		for (uint32_t i = 0; i < 0x20000 / 8; i++)
			((uint64_t *)(base + SIM))[i] = k;
		memset(base + BLOB, (int)(k & 0xff), 4096);
		uint64_t data[2] = { k, 0 };
		double x = (double)k;
		memcpy(&data[1], &x, 8);
		rfm_record_write(rec, data, sizeof(data));
		sleep_abs(start + k * period);
	}
	rfm_record_close(rec);
	rfm_close(node);
	return 0;
}

/* ---- reading back ---- */

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

static bool read_lags(const char *path, struct bench_pct *p)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	bool ok = false;

	if (f < 0)
		return false;
	hid_t d = H5Dopen2(f, "frames/lag_ns", H5P_DEFAULT);
	if (d >= 0) {
		hid_t sp = H5Dget_space(d);
		hssize_t n = H5Sget_simple_extent_npoints(sp);
		uint64_t *lag = malloc((size_t)(n > 0 ? n : 1) * sizeof(*lag));
		double *us = malloc((size_t)(n > 0 ? n : 1) * sizeof(*us));
		if (n > 0 && lag && us &&
		    H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, lag) >= 0) {
			for (hssize_t i = 0; i < n; i++)
				us[i] = lag[i] / 1e3;
			*p = bench_percentiles(us, (size_t)n);
			ok = true;
		}
		free(lag);
		free(us);
		H5Sclose(sp);
		H5Dclose(d);
	}
	H5Fclose(f);
	return ok;
}

/* The record's sequence as node @node sees it. */
static uint32_t record_seq(rfm_layout *layout, rfm_node *node)
{
	rfm_record *rec;
	uint32_t seq = 0;

	if (!rfm_record_open(layout, node, "ctl.state", &rec)) {
		rfm_record_sequence(rec, &seq);
		rfm_record_close(rec);
	}
	return seq;
}

/* ---- librfm's recorder ---- */

/* Rows of @name, and the sum of its values when @sum. */
static uint64_t dataset_rows(const char *path, const char *name, uint64_t *sum)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hsize_t n = 0;

	if (f < 0)
		return 0;
	hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
	if (d >= 0) {
		hid_t sp = H5Dget_space(d);
		H5Sget_simple_extent_dims(sp, &n, NULL);
		if (sum && n) {
			uint64_t *v = malloc(n * sizeof(*v));
			*sum = 0;
			if (v && H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0)
				for (hsize_t i = 0; i < n; i++)
					*sum += v[i];
			free(v);
		}
		H5Sclose(sp);
		H5Dclose(d);
	}
	H5Fclose(f);
	return n;
}

/*
 * One recorder: frames of the variables and the region at the rate, the
 * record on every publish (RFM_REC_F_RECORDS_ON_CHANGE), looked for at
 * each tick.
 */
static int run_recorder(const struct opts *o, rfm_layout *layout, const char *uri,
			struct result *r)
{
	char path[512];
	struct rfm_recorder_config cfg = { .struct_size = sizeof(cfg), .mode = RFM_REC_RATE,
					   .period_ns = 1000000000u / o->rate,
					   .poll_ns = 1000000000u / o->rate,
					   .duration_ns = (uint64_t)(o->seconds * 1e9),
					   .queue_bytes = 256u << 20,
					   .flags = RFM_REC_F_OVERWRITE | RFM_REC_F_RECORDS_ON_CHANGE };
	struct rfm_recorder_stats st = { .struct_size = sizeof(st) };
	struct rusage r0, r1;
	rfm_recorder *rec;
	rfm_node *node;

	snprintf(path, sizeof(path), "%s/bench-record-recorder.h5", o->dir);
	if (rfm_open(uri, &node) || rfm_recorder_new(node, layout, path, &cfg, &rec))
		return fprintf(stderr, "bench-record: %s\n", rfm_last_error()), 1;
	for (uint32_t i = 0; i < o->vars; i++) {
		char name[32];
		snprintf(name, sizeof(name), "sim.v%u", i);
		if (rfm_recorder_add(rec, name))
			return fprintf(stderr, "bench-record: %s\n", rfm_last_error()), 1;
	}
	if (rfm_recorder_add(rec, "blob") || rfm_recorder_add(rec, "ctl.state"))
		return fprintf(stderr, "bench-record: %s\n", rfm_last_error()), 1;
	uint32_t seq0 = record_seq(layout, node);
	getrusage(RUSAGE_SELF, &r0);
	uint64_t t0 = bench_now_ns();
	if (rfm_recorder_start(rec))
		return fprintf(stderr, "bench-record: %s\n", rfm_last_error()), 1;
	rfm_recorder_wait(rec, -1);
	uint32_t seq1 = record_seq(layout, node);
	if (rfm_recorder_stop(rec))
		fprintf(stderr, "bench-record: recorder: %s\n", rfm_last_error());
	double wall = (bench_now_ns() - t0) / 1e9;
	getrusage(RUSAGE_SELF, &r1);
	rfm_recorder_get_stats(rec, &st);
	uint64_t missed = 0;
	/* Every tick of the duration is a frame in the file or lost (late or dropped). */
	r->expected = (uint64_t)(o->seconds * o->rate);
	r->taken = dataset_rows(path, "frames/lag_ns", NULL);
	r->lost = r->expected > r->taken ? r->expected - r->taken : 0;
	r->rec_published = (seq1 - seq0) / 2;
	r->rec_taken = dataset_rows(path, "records/ctl.state/missed", &missed);
	r->rec_lost = missed;
	r->have_jitter = read_lags(path, &r->jitter_us);
	r->cpu = (cpu_seconds(&r1) - cpu_seconds(&r0)) / wall;
	r->bytes_per_s = file_size(path) / wall;
	rfm_recorder_free(rec);
	rfm_close(node);
	unlink(path);
	return 0;
}

/* ---- the limit: a minimal loop with plain HDF5 calls ---- */

struct col {
	hid_t d, mtype;
	uint32_t size;		/* bytes a row */
	uint32_t at;		/* in the frame */
	uint8_t *buf;
	hsize_t cols, written;
};

#define LIMIT_CHUNK 4096u

static hid_t limit_dataset(hid_t g, const char *name, hid_t type, hsize_t cols)
{
	hsize_t dims[2] = { 0, cols }, maxd[2] = { H5S_UNLIMITED, cols },
		chunk[2] = { cols > 1 ? 64 : LIMIT_CHUNK, cols };
	int rank = cols > 1 ? 2 : 1;
	hid_t sp = H5Screate_simple(rank, dims, maxd), dcpl = H5Pcreate(H5P_DATASET_CREATE);

	H5Pset_chunk(dcpl, rank, chunk);
	hid_t d = H5Dcreate2(g, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	H5Pclose(dcpl);
	H5Sclose(sp);
	return d;
}

static void limit_append(struct col *c, uint32_t rows)
{
	hsize_t size[2] = { c->written + rows, c->cols }, start[2] = { c->written, 0 },
		count[2] = { rows, c->cols };
	int rank = c->cols > 1 ? 2 : 1;

	H5Dset_extent(c->d, size);
	hid_t fs = H5Dget_space(c->d), ms = H5Screate_simple(rank, count, NULL);
	H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
	H5Dwrite(c->d, c->mtype, ms, fs, H5P_DEFAULT, c->buf);
	H5Sclose(ms);
	H5Sclose(fs);
	c->written += rows;
}

static int run_limit(const struct opts *o, rfm_layout *layout, const char *uri, struct result *r)
{
	char path[512];
	rfm_node *node;
	uint8_t *base;
	uint64_t size;
	struct rusage r0, r1;
	uint32_t ncols = o->vars + 3; /* vars, blob, t_mono_ns, lag_ns */

	snprintf(path, sizeof(path), "%s/bench-record-limit.h5", o->dir);
	if (rfm_open(uri, &node) || rfm_mem_map(node, (void **)&base, &size))
		return fprintf(stderr, "bench-record: %s\n", rfm_last_error()), 1;
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
	hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	H5Pclose(fapl);
	hid_t g = H5Gcreate2(f, "frames", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	struct col *cols = calloc(ncols + 1, sizeof(*cols));
	uint32_t at = 0;
	for (uint32_t i = 0; i < o->vars; i++) {
		char name[32];
		hid_t t = i % 4 == 0 ? H5T_IEEE_F64LE : i % 4 == 1 ? H5T_IEEE_F32LE :
			  i % 4 == 2 ? H5T_STD_U32LE : H5T_STD_I16LE;
		snprintf(name, sizeof(name), "sim.v%u", i);
		at = (at + type_sizes[i % 4] - 1) & ~(type_sizes[i % 4] - 1);
		cols[i] = (struct col){ limit_dataset(g, name, t, 1), t, type_sizes[i % 4], at, NULL,
					1, 0 };
		at += type_sizes[i % 4];
	}
	cols[o->vars] = (struct col){ limit_dataset(g, "blob", H5T_STD_U8LE, 4096), H5T_STD_U8LE,
				      4096, 0, NULL, 4096, 0 };
	cols[o->vars + 1] = (struct col){ limit_dataset(g, "t_mono_ns", H5T_STD_U64LE, 1),
					  H5T_STD_U64LE, 8, 0, NULL, 1, 0 };
	cols[o->vars + 2] = (struct col){ limit_dataset(g, "lag_ns", H5T_STD_U64LE, 1),
					  H5T_STD_U64LE, 8, 0, NULL, 1, 0 };
	hid_t rt = H5Tcreate(H5T_COMPOUND, 16);
	H5Tinsert(rt, "counter", 0, H5T_STD_U64LE);
	H5Tinsert(rt, "x", 8, H5T_IEEE_F64LE);
	hid_t rg = H5Gcreate2(f, "state", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	struct col rec = { limit_dataset(rg, "data", rt, 1), rt, 16, 0, NULL, 1, 0 };
	H5Fstart_swmr_write(f);
	for (uint32_t i = 0; i < ncols; i++)
		cols[i].buf = malloc((size_t)LIMIT_CHUNK * cols[i].size);
	rec.buf = malloc((size_t)LIMIT_CHUNK * 16);
	uint64_t period = 1000000000u / o->rate, n = (uint64_t)(o->seconds * o->rate);
	uint64_t *lags = malloc(n * sizeof(*lags)), taken = 0, late = 0;
	uint32_t rows = 0, rrows = 0, *seqw = (uint32_t *)(base + CTL), last = 0;
	uint64_t rec_taken = 0, rec_missed = 0, flush_at;
	bool seen = false;
	uint32_t seq0 = __atomic_load_n(seqw, __ATOMIC_ACQUIRE);
	getrusage(RUSAGE_SELF, &r0);
	uint64_t start = bench_now_ns(), wall0 = start;
	flush_at = start + 1000000000u;
	for (uint64_t tick = 0; tick < n;) {
		uint64_t due = start + tick * period;
		/* Poll the record between ticks, as often as the rate allows. */
		sleep_abs(due);
		uint64_t now = bench_now_ns(), lag = now - due;
		if (lag >= period) {
			late += lag / period;
			tick += lag / period;
			lag %= period;
			if (tick >= n)
				break;
		}
		uint8_t *sim = base + SIM;
		for (uint32_t i = 0; i < o->vars; i++)
			memcpy(cols[i].buf + (size_t)rows * cols[i].size, sim + cols[i].at,
			       cols[i].size);
		memcpy(cols[o->vars].buf + (size_t)rows * 4096, base + BLOB, 4096);
		memcpy(cols[o->vars + 1].buf + (size_t)rows * 8, &now, 8);
		memcpy(cols[o->vars + 2].buf + (size_t)rows * 8, &lag, 8);
		lags[taken++] = lag;
		rows++;
		uint32_t s = __atomic_load_n(seqw, __ATOMIC_ACQUIRE);
		if (!(s & 1) && (!seen || s != last)) {
			memcpy(rec.buf + (size_t)rrows * 16, base + CTL + 8, 16);
			if (__atomic_load_n(seqw, __ATOMIC_ACQUIRE) == s) {
				rec_missed += seen ? (s - last) / 2 - 1 : 0;
				last = s;
				seen = true;
				rrows++;
				rec_taken++;
			}
		}
		bool flush = now >= flush_at;
		if (rows == LIMIT_CHUNK || flush) {
			for (uint32_t i = 0; i < ncols; i++)
				limit_append(&cols[i], rows);
			rows = 0;
		}
		if (rrows == LIMIT_CHUNK || (flush && rrows)) {
			limit_append(&rec, rrows);
			rrows = 0;
		}
		if (flush) {
			H5Fflush(f, H5F_SCOPE_GLOBAL);
			flush_at = now + 1000000000u;
		}
		tick++;
	}
	for (uint32_t i = 0; rows && i < ncols; i++)
		limit_append(&cols[i], rows);
	if (rrows)
		limit_append(&rec, rrows);
	uint32_t seq1 = __atomic_load_n(seqw, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < ncols; i++) {
		H5Dclose(cols[i].d);
		free(cols[i].buf);
	}
	H5Dclose(rec.d);
	free(rec.buf);
	H5Tclose(rt);
	H5Gclose(rg);
	H5Gclose(g);
	H5Fclose(f);
	double wall = (bench_now_ns() - wall0) / 1e9;
	getrusage(RUSAGE_SELF, &r1);
	double *us = malloc((taken ? taken : 1) * sizeof(*us));
	for (uint64_t i = 0; i < taken; i++)
		us[i] = lags[i] / 1e3;
	if (taken) {
		r->jitter_us = bench_percentiles(us, taken);
		r->have_jitter = true;
	}
	r->expected = n;
	r->taken = taken;
	r->lost = late;
	r->rec_published = (seq1 - seq0) / 2;
	r->rec_taken = rec_taken;
	r->rec_lost = rec_missed;
	r->cpu = (cpu_seconds(&r1) - cpu_seconds(&r0)) / wall;
	r->bytes_per_s = file_size(path) / wall;
	free(us);
	free(lags);
	free(cols);
	rfm_close(node);
	unlink(path);
	(void)layout;
	return 0;
}

/* ---- rfm watch --json ---- */

static int run_watch(const struct opts *o, rfm_layout *layout, const char *net_uri,
		     const char *layout_path, struct result *r)
{
	char out[512], uri[256];
	struct rusage ru;
	int status;
	rfm_node *node;

	snprintf(out, sizeof(out), "%s/bench-record-watch.json", o->dir);
	snprintf(uri, sizeof(uri), "%s?node=4", net_uri);
	if (rfm_open(uri, &node))
		return fprintf(stderr, "bench-record: %s\n", rfm_last_error()), 1;
	uint32_t seq0 = record_seq(layout, node);
	uint64_t t0 = bench_now_ns();
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(1);
		snprintf(uri, sizeof(uri), "%s?node=5", net_uri);
		execl(o->tool, o->tool, "-u", uri, "--json", "watch", "--layout", layout_path,
		      "--interval", "0", "sim", "ctl.state", (char *)NULL);
		_exit(127);
	}
	sleep_abs(t0 + (uint64_t)(o->seconds * 1e9));
	kill(pid, SIGTERM);
	if (wait4(pid, &status, 0, &ru) != pid)
		return 1;
	double wall = (bench_now_ns() - t0) / 1e9;
	uint32_t seq1 = record_seq(layout, node);
	/* Lines are refreshes; the record's counter tells which publishes it saw. */
	FILE *in = fopen(out, "r");
	char *line = NULL;
	size_t cap = 0;
	uint64_t lines = 0, distinct = 0, last = UINT64_MAX;
	while (in && getline(&line, &cap, in) > 0) {
		char *c = strstr(line, "\"ctl.state.counter\":");
		lines++;
		if (c) {
			uint64_t v = strtoull(c + 20, NULL, 10);
			if (v != last)
				distinct++;
			last = v;
		}
	}
	free(line);
	if (in)
		fclose(in);
	r->expected = (uint64_t)(o->seconds * o->rate);
	r->taken = lines;
	r->lost = r->expected > lines ? r->expected - lines : 0;
	r->rec_published = (seq1 - seq0) / 2;
	r->rec_taken = distinct;
	r->rec_lost = r->rec_published > distinct ? r->rec_published - distinct : 0;
	r->have_jitter = false;
	r->cpu = cpu_seconds(&ru) / wall;
	r->bytes_per_s = file_size(out) / wall;
	unlink(out);
	rfm_close(node);
	return 0;
}

static void print_row(const struct result *r)
{
	printf("%-10s %9llu %8llu %6.2f%% %8llu %7llu %6.2f%%", r->name,
	       (unsigned long long)r->taken, (unsigned long long)r->lost,
	       r->expected ? 100.0 * r->lost / r->expected : 0.0,
	       (unsigned long long)r->rec_taken, (unsigned long long)r->rec_lost,
	       r->rec_published ? 100.0 * r->rec_lost / r->rec_published : 0.0);
	if (r->have_jitter)
		printf(" %7.1f %7.1f %8.1f", r->jitter_us.p50, r->jitter_us.p99, r->jitter_us.max);
	else
		printf(" %7s %7s %8s", "-", "-", "-");
	printf(" %6.1f%% %8.2f\n", 100 * r->cpu, r->bytes_per_s / 1e6);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-record [--seconds S] [--rate HZ] [--vars N] [--dir DIR] "
		"[--tool RFM]\n");
}

int main(int argc, char **argv)
{
	struct opts o = { .seconds = 60, .rate = 10000, .vars = 1000, .dir = "/tmp",
			  .tool = "tools/rfm" };
	char net[128], uri[256], layout_path[512];
	rfm_layout *layout;
	int ready[2];

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--seconds"))
			o.seconds = atof(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--rate"))
			o.rate = (uint32_t)atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--vars"))
			o.vars = (uint32_t)atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--dir"))
			o.dir = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--tool"))
			o.tool = argv[++i];
		else
			return usage(), 2;
	}
	if (o.seconds <= 0 || !o.rate || o.rate > 1000000 || !o.vars || o.vars > 8000)
		return usage(), 2;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	char *text = layout_text(o.vars);
	snprintf(layout_path, sizeof(layout_path), "%s/bench-record-%d.yaml", o.dir, (int)getpid());
	FILE *lf = fopen(layout_path, "w");
	if (!text || !lf || fputs(text, lf) < 0 || fclose(lf))
		return fprintf(stderr, "bench-record: cannot write %s\n", layout_path), 1;
	if (rfm_layout_load_string(text, strlen(text), "bench", &layout, NULL))
		return fprintf(stderr, "bench-record: %s\n", rfm_last_error()), 1;
	free(text);
	snprintf(net, sizeof(net), "shm:bench-record-%d", (int)getpid());
	snprintf(uri, sizeof(uri), "%s?node=1&size=1M", net);
	if (pipe(ready))
		return 1;
	pid_t writer = fork();
	if (writer == 0) {
		close(ready[0]);
		_exit(writer_main(uri, layout, o.rate, ready[1]));
	}
	close(ready[1]);
	char c;
	if (read(ready[0], &c, 1) != 1)
		return fprintf(stderr, "bench-record: the writer did not start\n"), 1;
	printf("bench-record: %u variables and a 4 KiB region at %u Hz, a record published at "
	       "%u Hz on change, %.0f s each\n\n", o.vars, o.rate, o.rate, o.seconds);
	struct result res[3] = { { .name = "limit" }, { .name = "recorder" }, { .name = "watch" } };
	char node2[256], node3[256];
	snprintf(node2, sizeof(node2), "%s?node=2", net);
	snprintf(node3, sizeof(node3), "%s?node=3", net);
	int ret = run_limit(&o, layout, node2, &res[0]);
	if (!ret)
		ret = run_recorder(&o, layout, node3, &res[1]);
	if (!ret)
		ret = run_watch(&o, layout, net, layout_path, &res[2]);
	kill(writer, SIGTERM);
	waitpid(writer, NULL, 0);
	if (ret)
		return ret;
	printf("%-10s %9s %8s %7s %8s %7s %7s %7s %7s %8s %7s %8s\n", "", "frames", "lost",
	       "lost", "record", "missed", "missed", "P50 us", "P99 us", "max us", "CPU", "MB/s");
	for (int i = 0; i < 3; i++)
		print_row(&res[i]);
	printf("\nrecorder / limit: CPU %.2fx, bytes %.2fx, jitter P99 %.2fx; frames lost %llu vs "
	       "%llu\n", res[1].cpu / res[0].cpu, res[1].bytes_per_s / res[0].bytes_per_s,
	       res[1].jitter_us.p99 / res[0].jitter_us.p99, (unsigned long long)res[1].lost,
	       (unsigned long long)res[0].lost);
	printf("watch / recorder: frames taken %.4fx, record publishes seen %.4fx, CPU %.2fx\n",
	       (double)res[2].taken / (res[1].taken ? res[1].taken : 1),
	       (double)res[2].rec_taken / (res[1].rec_taken ? res[1].rec_taken : 1),
	       res[2].cpu / res[1].cpu);
	unlink(layout_path);
	rfm_layout_free(layout);
	rfm_network_destroy(net, RFM_DESTROY_FORCE);
	return 0;
}
