/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder (recorder.h) against known writers: node 1 publishes a
 * record, a ramp, ring messages and events; node 2 records them. Each
 * case reads the HDF5 file back (CSV: test-recorder-csv) and checks it holds exactly
 * what was written, in order, with every miss counted: on-change rows
 * against the record's sequence, frames' ticks against the late-tick
 * counter, ring rows against message numbers and the lost column,
 * events by sender and data. Runs on every backend (dds: too, where the
 * recorder reads its own copy of the window, as on another host).
 */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recorder-fixture.h"

HARNESS_SHARED_SUITE(0);

/* ---- reading the file ---- */

static hid_t open_file(const char *path)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);

	assert_true(f >= 0);
	return f;
}

static size_t rows(hid_t f, const char *name)
{
	hsize_t dims[2] = { 0, 0 };
	hid_t d = H5Dopen2(f, name, H5P_DEFAULT);

	assert_true(d >= 0);
	hid_t sp = H5Dget_space(d);
	H5Sget_simple_extent_dims(sp, dims, NULL);
	H5Sclose(sp);
	H5Dclose(d);
	return (size_t)dims[0];
}

/* The whole dataset @name as @mtype into a new buffer. */
static void *read_all(hid_t f, const char *name, hid_t mtype, size_t *n)
{
	hid_t d = H5Dopen2(f, name, H5P_DEFAULT);

	assert_true(d >= 0);
	*n = rows(f, name);
	hid_t sp = H5Dget_space(d);
	size_t elems = (size_t)H5Sget_simple_extent_npoints(sp);
	H5Sclose(sp);
	void *buf = calloc(elems + 1, H5Tget_size(mtype));
	assert_non_null(buf);
	assert_true(H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
	H5Dclose(d);
	return buf;
}

static hid_t rec_type(void)
{
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct rec_row));

	H5Tinsert(t, "n", HOFFSET(struct rec_row, n), H5T_NATIVE_UINT64);
	H5Tinsert(t, "half", HOFFSET(struct rec_row, half), H5T_NATIVE_DOUBLE);
	H5Tinsert(t, "tag", HOFFSET(struct rec_row, tag), H5T_NATIVE_UINT32);
	return t;
}

static uint64_t attr_u64(hid_t f, const char *name)
{
	uint64_t v = 0;
	hid_t a = H5Aopen(f, name, H5P_DEFAULT);

	assert_true(a >= 0);
	assert_true(H5Aread(a, H5T_NATIVE_UINT64, &v) >= 0);
	H5Aclose(a);
	return v;
}

/* ---- on change: every publish, or each miss counted from the sequence ---- */

static void test_on_change_every_publish_or_counted(void **state)
{
	struct fixture *f = *state;
	struct rfm_recorder_config cfg = config(RFM_REC_ON_CHANGE);
	struct rfm_recorder_stats st = { .struct_size = sizeof(st) };
	const uint64_t PACED = 2000, K = 22000;
	rfm_recorder *r;
	rfm_record *rec;

	assert_rfm_ok(rfm_record_open(f->layout, f->writer, "st.rec", &rec));
	assert_rfm_ok(rfm_recorder_new(f->reader, f->layout, f->path, &cfg, &r));
	assert_rfm_ok(rfm_recorder_add(r, "st.rec"));
	assert_rfm_ok(rfm_recorder_start(r));
	/* The state at the start is the first row. */
	WAIT_UNTIL(!rfm_recorder_get_stats(r, &st) && st.samples >= 1);
	/* A writer at 5 kHz (its own clock), then as fast as it can publish. */
	uint64_t t0 = rfm_event_now_ns();
	for (uint64_t k = 1; k <= PACED; k++) {
		uint64_t at = t0 + k * 200000;
		struct timespec ts = { (time_t)(at / 1000000000u), (long)(at % 1000000000u) };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		publish(rec, k);
	}
	for (uint64_t k = PACED + 1; k <= K; k++)
		publish(rec, k);
	wait_seq(f, (uint32_t)(2 * K));
	assert_rfm_ok(rfm_recorder_stop(r));
	assert_rfm_ok(rfm_recorder_get_stats(r, &st));
	rfm_recorder_free(r);
	rfm_record_close(rec);

	hid_t file = open_file(f->path);
	size_t n, n2, n3, n4;
	uint32_t *seq = read_all(file, "records/st.rec/seq", H5T_NATIVE_UINT32, &n);
	uint32_t *missed = read_all(file, "records/st.rec/missed", H5T_NATIVE_UINT32, &n2);
	uint64_t *t = read_all(file, "records/st.rec/t_mono_ns", H5T_NATIVE_UINT64, &n3);
	hid_t rt = rec_type();
	struct rec_row *data = read_all(file, "records/st.rec/data", rt, &n4);
	assert_int_equal(n, n2);
	assert_int_equal(n, n3);
	assert_int_equal(n, n4);
	assert_true(n >= 2);
	uint64_t sum_missed = 0;
	for (size_t i = 0; i < n; i++) {
		/* Each row is the publish its sequence names, whole (0: the zeros before any). */
		assert_int_equal(data[i].n, seq[i] / 2);
		assert_true(data[i].half == (double)data[i].n * 0.5);
		if (seq[i])
			assert_int_equal(data[i].tag, (uint32_t)(data[i].n ^ 0xa5a5u));
		if (i) {
			assert_true(seq[i] > seq[i - 1]);
			assert_int_equal(missed[i], (seq[i] - seq[i - 1]) / 2 - 1);
			assert_true(t[i] >= t[i - 1]);
			sum_missed += missed[i];
		} else {
			assert_int_equal(missed[0], 0);
		}
	}
	/* The last publish is in, and rows plus misses account for every publish seen. */
	assert_int_equal(seq[n - 1], 2 * K);
	assert_int_equal((seq[n - 1] - seq[0]) / 2, (n - 1) + sum_missed);
	assert_int_equal(st.missed_updates, sum_missed);
	assert_int_equal(st.queue_drops, 0);
	/* A read torn by a publish in flight is tried again the next pass, never a row. */
	assert_int_equal(attr_u64(file, "missed_updates"), sum_missed);
	uint64_t paced_missed = 0;
	for (size_t i = 1; i < n && seq[i] <= 2 * PACED; i++)
		paced_missed += missed[i];
	print_message("on change: %zu rows of %llu publishes, %llu missed (%llu of the %llu at "
		      "5 kHz)\n", n, (unsigned long long)K, (unsigned long long)sum_missed,
		      (unsigned long long)paced_missed, (unsigned long long)PACED);
	free(seq);
	free(missed);
	free(t);
	free(data);
	H5Tclose(rt);
	H5Fclose(file);
}

/* ---- frames at a rate, with events ---- */

static void test_rate_frames_and_events(void **state)
{
	struct fixture *f = *state;
	struct rfm_recorder_config cfg = config(RFM_REC_RATE);
	struct rfm_recorder_stats st = { .struct_size = sizeof(st) };
	struct rfm_event_stats es = { .struct_size = sizeof(es) };
	const uint32_t E = 200;
	rfm_var *ramp, *be, *vec;
	rfm_record *rec;
	rfm_recorder *r;

	assert_rfm_ok(rfm_var_open(f->layout, f->writer, "st.ramp", &ramp));
	assert_rfm_ok(rfm_var_open(f->layout, f->writer, "st.be", &be));
	assert_rfm_ok(rfm_var_open(f->layout, f->writer, "st.vec", &vec));
	assert_rfm_ok(rfm_record_open(f->layout, f->writer, "st.rec", &rec));
	assert_rfm_ok(rfm_recorder_new(f->reader, f->layout, f->path, &cfg, &r));
	assert_rfm_ok(rfm_recorder_add(r, "st.ramp"));
	assert_rfm_ok(rfm_recorder_add(r, "st.be"));
	assert_rfm_ok(rfm_recorder_add(r, "st.vec"));
	assert_rfm_ok(rfm_recorder_add(r, "st.rec"));
	assert_rfm_ok(rfm_recorder_add_events(r, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	assert_rfm_ok(rfm_recorder_start(r));
	for (uint32_t k = 1; k <= E; k++) {
		float v[3] = { (float)k, 2.0f * (float)k, 3.0f * (float)k };
		uint64_t before = st.samples;
		/* Paced by the recorder: two rows (the last event's and more) a step. */
		WAIT_UNTIL(!rfm_recorder_get_stats(r, &st) && st.samples >= before + 2);
		assert_rfm_ok(rfm_var_set_u32(ramp, 0, k));
		assert_rfm_ok(rfm_var_set_i32(be, 0, -(int32_t)k));
		assert_rfm_ok(rfm_var_set_array(vec, 0, 3, v, sizeof(v)));
		publish(rec, k);
		int sent = rfm_event_send(f->writer, RFM_NODE_ALL, RFM_EVENT_INTR1, k);
		assert_true(sent >= 0);
	}
	WAIT_UNTIL(!rfm_event_get_stats(f->reader, &es) && es.delivered + es.queued >= E);
	assert_rfm_ok(rfm_recorder_stop(r));
	assert_rfm_ok(rfm_recorder_get_stats(r, &st));
	rfm_recorder_free(r);

	hid_t file = open_file(f->path);
	size_t n, n2, ne;
	/* Events: every one, in order, with its sender and data. */
	uint8_t *type = read_all(file, "events/type", H5T_NATIVE_UINT8, &ne);
	uint32_t *sender = read_all(file, "events/sender", H5T_NATIVE_UINT32, &n2);
	uint32_t *edata = read_all(file, "events/data", H5T_NATIVE_UINT32, &n2);
	uint64_t *eseq = read_all(file, "events/seq", H5T_NATIVE_UINT64, &n2);
	assert_int_equal(ne, E);
	for (size_t i = 0; i < ne; i++) {
		assert_int_equal(type[i], RFM_EVENT_INTR1);
		assert_int_equal(sender[i], 1);
		assert_int_equal(edata[i], i + 1);
		if (i)
			assert_int_equal(eseq[i], eseq[i - 1] + 1);
	}
	/* Frames: ticks account for every late tick; each value one the writer wrote. */
	uint64_t *tick = read_all(file, "frames/tick", H5T_NATIVE_UINT64, &n);
	uint32_t *rv = read_all(file, "frames/st.ramp", H5T_NATIVE_UINT32, &n2);
	int32_t *bv = read_all(file, "frames/st.be", H5T_NATIVE_INT32, &n2);
	float *vv = read_all(file, "frames/st.vec", H5T_NATIVE_FLOAT, &n2);
	uint32_t *rseq = read_all(file, "frames/st.rec:seq", H5T_NATIVE_UINT32, &n2);
	hid_t rt = rec_type();
	struct rec_row *rd = read_all(file, "frames/st.rec", rt, &n2);
	assert_true(n >= 1);
	uint64_t late = tick[0];
	for (size_t i = 0; i < n; i++) {
		assert_true(rv[i] <= E);
		assert_true(bv[i] <= 0 && bv[i] >= -(int32_t)E);
		for (int k = 0; k < 3; k++)
			assert_true(vv[3 * i + k] == (float)(k + 1) * floorf(vv[3 * i + k] /
									  (float)(k + 1)));
		/* Torn before any consistent read: zeros, sequence all ones (counted). */
		if (rseq[i] == UINT32_MAX) {
			assert_int_equal(rd[i].n, 0);
			assert_true(st.torn_reads > 0);
		} else {
			assert_int_equal(rd[i].n, rseq[i] / 2);
			if (rseq[i])	/* 0: not published yet, all zero */
				assert_int_equal(rd[i].tag, (uint32_t)(rd[i].n ^ 0xa5a5u));
		}
		if (i) {
			assert_true(tick[i] > tick[i - 1]);
			late += tick[i] - tick[i - 1] - 1;
			assert_true(rv[i] >= rv[i - 1]);
			assert_true(bv[i] <= bv[i - 1]);
			assert_true(rseq[i] >= rseq[i - 1] || rseq[i - 1] == UINT32_MAX);
		}
	}
	assert_int_equal(late, st.late_ticks);
	assert_int_equal(st.queue_drops, 0);
	assert_int_equal(attr_u64(file, "late_ticks"), st.late_ticks);
	print_message("rate: %zu frames, %llu late ticks, lag max %llu us\n", n,
		      (unsigned long long)late, (unsigned long long)st.lag_max_ns / 1000);
	free(type);
	free(sender);
	free(edata);
	free(eseq);
	free(tick);
	free(rv);
	free(bv);
	free(vv);
	free(rseq);
	free(rd);
	H5Tclose(rt);
	H5Fclose(file);
	rfm_record_close(rec);
	rfm_var_close(ramp);
	rfm_var_close(be);
	rfm_var_close(vec);
}

/* ---- a ring: every message or a counted loss ---- */

static void test_ring_every_message_or_lost(void **state)
{
	struct fixture *f = *state;
	struct rfm_recorder_config cfg = config(RFM_REC_RATE);
	struct rfm_ring_config rc = { .struct_size = sizeof(rc), .slot_size = 16,
				      .slot_count = 64 };
	struct rfm_recorder_stats st = { .struct_size = sizeof(st) };
	const uint64_t M = 5000;
	rfm_ring *ring;
	rfm_recorder *r;

	assert_rfm_ok(rfm_ring_create_region(f->writer, f->layout, "log", &rc, &ring));
	assert_rfm_ok(rfm_recorder_new(f->reader, f->layout, f->path, &cfg, &r));
	assert_rfm_ok(rfm_recorder_add_ring(r, "log", 0x8000));
	assert_rfm_ok(rfm_recorder_start(r));
	for (uint64_t k = 0; k < M; k++)
		assert_rfm_ok(rfm_ring_publish(ring, &k, sizeof(k), 0));
	/* Every message is a row or a loss once the reader's copy has the last. */
	rfm_ring_consumer *probe;
	struct rfm_ring_info info = { .struct_size = sizeof(info) };
	assert_rfm_ok(rfm_ring_consumer_open(f->reader, 0x8000, RFM_RING_CONSUMER_NEWEST, &probe));
	WAIT_UNTIL(!rfm_ring_consumer_get_info(probe, &info) && info.head == M);
	rfm_ring_consumer_close(probe);
	assert_rfm_ok(rfm_recorder_stop(r));
	assert_rfm_ok(rfm_recorder_get_stats(r, &st));
	rfm_recorder_free(r);

	hid_t file = open_file(f->path);
	size_t n, n2;
	uint64_t *seq = read_all(file, "rings/log/seq", H5T_NATIVE_UINT64, &n);
	uint64_t *lost = read_all(file, "rings/log/lost", H5T_NATIVE_UINT64, &n2);
	uint32_t *len = read_all(file, "rings/log/len", H5T_NATIVE_UINT32, &n2);
	uint8_t *data = read_all(file, "rings/log/data", H5T_NATIVE_UINT8, &n2);
	assert_true(n >= 1);
	uint64_t sum_lost = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t v;
		memcpy(&v, data + 16 * i, 8);
		assert_int_equal(v, seq[i]);
		assert_int_equal(len[i], 8);
		assert_int_equal(lost[i], i ? seq[i] - seq[i - 1] - 1 : seq[0]);
		sum_lost += lost[i];
	}
	assert_int_equal(seq[n - 1], M - 1);
	assert_int_equal(n + sum_lost, M);
	assert_int_equal(st.ring_lost, sum_lost);
	print_message("ring: %zu of %llu messages, %llu lost (counted)\n", n,
		      (unsigned long long)M, (unsigned long long)sum_lost);
	free(seq);
	free(lost);
	free(len);
	free(data);
	H5Fclose(file);
	rfm_ring_close(ring);
}

/* ---- a trigger on a condition keeps the time before it ---- */

static void test_trigger_keeps_pre_time(void **state)
{
	struct fixture *f = *state;
	struct rfm_recorder_config cfg = config(RFM_REC_RATE);
	struct rfm_recorder_stats st = { .struct_size = sizeof(st) };
	rfm_var *flag, *ramp;
	rfm_recorder *r;

	cfg.period_ns = 1000000;	/* 1 kHz */
	cfg.duration_ns = 100000000;	/* 0.1 s after the trigger */
	assert_rfm_ok(rfm_var_open(f->layout, f->writer, "st.flag", &flag));
	assert_rfm_ok(rfm_var_open(f->layout, f->writer, "st.ramp", &ramp));
	assert_rfm_ok(rfm_var_set_u8(flag, 0, 0));
	assert_rfm_ok(rfm_var_set_u32(ramp, 0, 1));
	assert_rfm_ok(rfm_recorder_new(f->reader, f->layout, f->path, &cfg, &r));
	assert_rfm_ok(rfm_recorder_add(r, "st.flag"));
	assert_rfm_ok(rfm_recorder_add(r, "st.ramp"));
	assert_rfm_ok(rfm_recorder_set_trigger_var(r, "st.flag", RFM_REC_EQ, 1, 200000000));
	assert_rfm_ok(rfm_recorder_start(r));
	WAIT_UNTIL(!rfm_recorder_get_stats(r, &st) && st.samples >= 50);
	assert_int_equal(st.state, RFM_REC_STATE_ARMED);
	assert_rfm_ok(rfm_var_set_u32(ramp, 0, 2));
	assert_rfm_ok(rfm_var_set_u8(flag, 0, 1));
	/* It ends by itself, the duration after the trigger. */
	assert_rfm_ok(rfm_recorder_wait(r, (int64_t)HARNESS_HANG_TIMEOUT_MS * 1000000));
	assert_rfm_ok(rfm_recorder_stop(r));
	assert_rfm_ok(rfm_recorder_get_stats(r, &st));
	assert_true(st.trigger_ns != 0);
	rfm_recorder_free(r);

	hid_t file = open_file(f->path);
	size_t n, n2;
	double *t = read_all(file, "frames/t", H5T_NATIVE_DOUBLE, &n);
	uint8_t *fl = read_all(file, "frames/st.flag", H5T_NATIVE_UINT8, &n2);
	uint32_t *rv = read_all(file, "frames/st.ramp", H5T_NATIVE_UINT32, &n2);
	size_t before = 0, before_old_ramp = 0;
	for (size_t i = 0; i < n; i++) {
		/* t counts from the trigger; nothing older than the pre-trigger time. */
		assert_true(t[i] >= -0.2 - 0.002);
		if (t[i] < 0) {
			/* The ramp is written before the flag: a sample may fall
			 * between the two writes (ramp 2, flag still 0), but once
			 * the ramp reads 2 it never reads 1 again (writes arrive in
			 * order). */
			assert_int_equal(fl[i], 0);
			assert_true(rv[i] == 1 || rv[i] == 2);
			if (rv[i] == 1) {
				assert_int_equal(before_old_ramp, before);
				before_old_ramp++;
			}
			before++;
		} else {
			assert_int_equal(fl[i], 1);
			assert_int_equal(rv[i], 2);
		}
	}
	assert_true(before_old_ramp >= 1);
	assert_true(n > before);
	assert_true(attr_u64(file, "trigger_mono_ns") == st.trigger_ns);
	print_message("trigger: %zu rows before, %zu after\n", before, n - before);
	free(t);
	free(fl);
	free(rv);
	H5Fclose(file);
	rfm_var_close(flag);
	rfm_var_close(ramp);
}

/* ---- refusals ---- */

static void test_refusals(void **state)
{
	struct fixture *f = *state;
	struct rfm_recorder_config cfg = config(RFM_REC_RATE);
	rfm_recorder *r;
	struct stat sb;

	assert_rfm_ok(rfm_recorder_new(f->reader, f->layout, f->path, &cfg, &r));
	assert_rfm_code(rfm_recorder_add(r, "st.nope"), RFM_ENOTFOUND);
	assert_non_null(strstr(rfm_last_error(), "st.nope"));
	assert_rfm_code(rfm_recorder_start(r), RFM_EINVAL); /* nothing to record */
	assert_rfm_ok(rfm_recorder_add(r, "st.ramp"));
	assert_rfm_code(rfm_recorder_add(r, "st.ramp"), RFM_EBUSY);
	assert_rfm_code(rfm_recorder_add_bytes(r, "t", 0, 4), RFM_EBUSY); /* a stamp's name */
	assert_rfm_code(rfm_recorder_add_bytes(r, "x", 0x100000 - 2, 4), RFM_ERANGE);
	assert_rfm_code(rfm_recorder_add_events(r, RFM_EVENT_BIT(RFM_EVENT_NODE_UP)), RFM_EINVAL);
	assert_rfm_code(rfm_recorder_set_trigger_var(r, "st.vec", RFM_REC_GT, 1, 0), RFM_EINVAL);
	assert_rfm_ok(rfm_recorder_set_trigger_event(r, RFM_EVENT_INTR3, 0));
	assert_rfm_code(rfm_recorder_set_trigger_event(r, RFM_EVENT_INTR3, 0), RFM_EINVAL);
	rfm_recorder_free(r);

	/* An existing file is kept as it was. */
	FILE *out = fopen(f->path, "w");
	assert_non_null(out);
	fputs("precious\n", out);
	fclose(out);
	assert_rfm_ok(rfm_recorder_new(f->reader, f->layout, f->path, &cfg, &r));
	assert_rfm_ok(rfm_recorder_add(r, "st.ramp"));
	errno = 0;
	assert_rfm_code(rfm_recorder_start(r), RFM_ESYS);
	assert_non_null(strstr(rfm_last_error(), "exists"));
	assert_rfm_ok(rfm_recorder_add(r, "st.be")); /* a failed start leaves it configurable */
	rfm_recorder_free(r);
	assert_int_equal(stat(f->path, &sb), 0);
	assert_int_equal(sb.st_size, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_on_change_every_publish_or_counted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rate_frames_and_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_every_message_or_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trigger_keeps_pre_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
	};

	harness_init();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
