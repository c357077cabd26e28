/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder's CSV files, which need no HDF5 and so run in every build,
 * Windows' too: node 1 publishes a record, node 2 records it into CSV,
 * and the file read back holds every publish from its first row on, or
 * counts it missed. Then what CSV refuses (a second table), what a
 * recorder never started answers, an existing file kept as it was, and,
 * in a build without HDF5, an HDF5 file answered RFM_ENOTSUP with no file
 * made. Runs on every backend.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "recorder-fixture.h"

HARNESS_SHARED_SUITE(0);

static void test_csv_record_stream(void **state)
{
	struct fixture *f = *state;
	struct rfm_recorder_config cfg = config(RFM_REC_ON_CHANGE);
	char path[300], line[512];
	rfm_recorder *r;
	rfm_record *rec;

	snprintf(path, sizeof(path), "%s.csv", f->path);
	unlink(path);
	assert_rfm_ok(rfm_record_open(f->layout, f->writer, "st.rec", &rec));
	assert_rfm_ok(rfm_recorder_new(f->reader, f->layout, path, &cfg, &r));
	assert_rfm_ok(rfm_recorder_add(r, "st.rec"));
	assert_rfm_ok(rfm_recorder_start(r));
	for (uint64_t k = 1; k <= 500; k++)
		publish(rec, k);
	wait_seq(f, 1000);
	assert_rfm_ok(rfm_recorder_stop(r));
	rfm_recorder_free(r);
	rfm_record_close(rec);

	FILE *in = fopen(path, "r");
	assert_non_null(in);
	assert_non_null(fgets(line, sizeof(line), in));
	assert_string_equal(line, "t,t_mono_ns,t_real_ns,seq,missed,n,half,tag\n");
	unsigned long long lines = 0, first_seq = 0, last_seq = 0, sum_missed = 0;
	while (fgets(line, sizeof(line), in)) {
		double t, half;
		unsigned long long mono, seq, missed, n;
		long long real;
		unsigned int tag;
		assert_int_equal(sscanf(line, "%lf,%llu,%lld,%llu,%llu,%llu,%lf,%u", &t, &mono,
					&real, &seq, &missed, &n, &half, &tag), 8);
		assert_int_equal(n, seq / 2);
		assert_true(half == (double)n * 0.5);
		if (seq)
			assert_int_equal(tag, (unsigned int)(n ^ 0xa5a5u));
		if (lines)
			assert_int_equal(missed, (seq - last_seq) / 2 - 1);
		sum_missed += lines ? missed : 0;
		if (!lines)
			first_seq = seq;
		last_seq = seq;
		lines++;
	}
	fclose(in);
	unlink(path);
	assert_int_equal(last_seq, 1000);
	assert_true(lines >= 1);
	/* Rows and misses: every publish from the first row's on. */
	assert_int_equal(lines + sum_missed, (last_seq - first_seq) / 2 + 1);
}

static void test_csv_refusals(void **state)
{
	struct fixture *f = *state;
	struct rfm_recorder_config cfg = config(RFM_REC_RATE);
	char csv[300];
	rfm_recorder *r;
	struct stat sb;

	/* CSV holds one table. */
	snprintf(csv, sizeof(csv), "%s.csv", f->path);
	unlink(csv);
	assert_rfm_ok(rfm_recorder_new(f->reader, f->layout, csv, &cfg, &r));
	assert_rfm_ok(rfm_recorder_add(r, "st.ramp"));
	assert_rfm_ok(rfm_recorder_add_events(r, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	assert_rfm_code(rfm_recorder_start(r), RFM_EINVAL);
	assert_non_null(strstr(rfm_last_error(), "one table"));
	rfm_recorder_free(r);
	assert_int_not_equal(access(csv, F_OK), 0);

	/* Not started: stop and wait say so. */
	assert_rfm_ok(rfm_recorder_new(f->reader, f->layout, csv, &cfg, &r));
	assert_rfm_code(rfm_recorder_stop(r), RFM_EINVAL);
	assert_rfm_code(rfm_recorder_wait(r, 0), RFM_EINVAL);
	rfm_recorder_free(r);
	cfg.mode = 7;
	assert_rfm_code(rfm_recorder_new(f->reader, f->layout, csv, &cfg, &r), RFM_EINVAL);
	assert_rfm_code(rfm_recorder_new(NULL, f->layout, csv, NULL, &r), RFM_EINVAL);

	/* An existing file is kept as it was. */
	FILE *out = fopen(csv, "wb"); /* binary: 9 bytes on Windows too */
	assert_non_null(out);
	fputs("precious\n", out);
	fclose(out);
	cfg.mode = RFM_REC_RATE;
	assert_rfm_ok(rfm_recorder_new(f->reader, f->layout, csv, &cfg, &r));
	assert_rfm_ok(rfm_recorder_add(r, "st.ramp"));
	errno = 0;
	assert_rfm_code(rfm_recorder_start(r), RFM_ESYS);
	assert_int_equal(errno, EEXIST);
	assert_non_null(strstr(rfm_last_error(), "exists"));
	rfm_recorder_free(r);
	assert_int_equal(stat(csv, &sb), 0);
	assert_int_equal(sb.st_size, 9);
	unlink(csv);
}

/* Without HDF5 in the build, an HDF5 recording says so and makes no file. */
static void test_hdf5_refused_without_it(void **state)
{
	struct fixture *f = *state;
	struct rfm_recorder_config cfg = config(RFM_REC_RATE);
	rfm_recorder *r;

	if (RFM_HDF5_MODULE_BUILT) {
		print_message("skipped: this build has HDF5 (test-recorder and test-hdf5-link.sh)\n");
		skip();
	}
	assert_rfm_ok(rfm_recorder_new(f->reader, f->layout, f->path, &cfg, &r));
	assert_rfm_ok(rfm_recorder_add(r, "st.ramp"));
	assert_rfm_code(rfm_recorder_start(r), RFM_ENOTSUP);
	assert_non_null(strstr(rfm_last_error(), "HDF5"));
	rfm_recorder_free(r);
	assert_int_not_equal(access(f->path, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_csv_record_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_csv_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hdf5_refused_without_it, setup, teardown),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
