/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm jitter: a periodic loop in the manner of cyclictest, measuring how
 * late it is served. Every sample counts from the period's scheduled start,
 * as a closed loop sees it. --mode timer sleeps to each period on
 * CLOCK_MONOTONIC and records when it woke; --mode event then sends an
 * INTR1 to an echo thread on a second node of the network and sleeps in
 * rfm_event_wait() for its answer: the cycle's event round trip, recorded
 * from the period start (wake-up included) and, apart, from the send. With
 * --rt-prio, --cpu and --lock-memory the loop (and the echo) run SCHED_FIFO
 * on the chosen CPUs with memory locked, the nodes opened with
 * RFM_MEM_LOCK: the setup docs/tuning.md recommends, measured.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latency-hist.h"
#include "os/tool-os.h"
#include "rt-util.h"

#define NS_PER_S 1000000000ull
#define DEFAULT_RATE 1000
#define DEFAULT_COUNT 10000
/* An echo that does not answer within this is reported, not waited on forever. */
#define ECHO_TIMEOUT_NS (2 * NS_PER_S)
#define ECHO_STOP 0xffffffffu

enum jitter_mode { MODE_TIMER, MODE_EVENT };

struct jitter {
	struct cli *cli;
	enum jitter_mode mode;
	uint64_t rate;
	uint64_t count;
	struct rt_setup rt;
	const char *csv;
	struct lhist hist;	/* from the period start */
	struct lhist rtt;	/* event mode: from the send to the answer */
	uint64_t overruns;	/* periods that started late because the last one ran over */
	rfm_node *echo;		/* MODE_EVENT: the echo's node */
	int echo_error;
	struct rt_setup echo_rt;
};

static uint64_t now_ns(void)
{
	return rfm_event_now_ns();	/* CLOCK_MONOTONIC, what tool_os_sleep_until_ns() takes */
}

static void sleep_until(uint64_t t)
{
	while (tool_os_sleep_until_ns(t))
		;
}

/* The echo: answer every INTR1 with an INTR2 to its sender until ECHO_STOP. */
static void *echo_main(void *arg)
{
	struct jitter *j = arg;
	struct rfm_event ev;

	for (;;) {
		int ret = rfm_event_wait(j->echo, &ev, -1);

		if (ret < 0) {
			j->echo_error = ret;
			return NULL;
		}
		if (ev.type != RFM_EVENT_INTR1)
			continue;
		if (ev.data == ECHO_STOP)
			return NULL;
		rfm_event_send(j->echo, ev.sender, RFM_EVENT_INTR2, ev.data);
	}
}

static int open_nodes(struct jitter *j)
{
	struct rfm_open_options o;
	const char *uri = cli_effective_uri(j->cli);

	memset(&o, 0, sizeof(o));
	o.struct_size = sizeof(o);
	/* The window and both event queues mapped and locked before the first period. */
	o.mem_flags = j->rt.lock_memory ? RFM_MEM_LOCK : 0;
	if (rfm_open_with_options(uri, &o, &j->cli->node) ||
	    rfm_open_with_options(uri, &o, &j->echo))
		return cli_fail(j->cli);
	if (rfm_event_enable(j->cli->node, RFM_EVENT_BIT(RFM_EVENT_INTR2)) ||
	    rfm_event_enable(j->echo, RFM_EVENT_BIT(RFM_EVENT_INTR1)) ||
	    /* Sleep at once: what is measured is the wake-up, not a spin. */
	    rfm_event_set_spin(j->cli->node, 0) || rfm_event_set_spin(j->echo, 0))
		return cli_fail(j->cli);
	return 0;
}

static void *echo_start(void *arg)
{
	struct jitter *j = arg;

	/* Its own setup: same priority and CPUs as the loop (reported by the loop). */
	if (rt_apply(j->cli, &j->echo_rt)) {
		j->echo_error = RFM_EPERM;
		return NULL;
	}
	return echo_main(j);
}

/* One period of the event mode: send, sleep for the echo, record the round trip. */
static int event_round_trip(struct jitter *j, uint32_t seq)
{
	struct rfm_event ev;
	uint64_t t0 = now_ns();
	int ret;

	ret = rfm_event_send(j->cli->node, (unsigned int)rfm_node_id(j->echo), RFM_EVENT_INTR1,
			     seq);
	if (ret < 0)
		return cli_fail(j->cli);
	do {
		ret = rfm_event_wait(j->cli->node, &ev, ECHO_TIMEOUT_NS);
		if (ret == RFM_ETIMEDOUT)
			return cli_error(j->cli, "the echo did not answer event %u within 2 s", seq);
		if (ret < 0)
			return cli_fail(j->cli);
	} while (ev.type != RFM_EVENT_INTR2 || ev.data != seq);
	lhist_record(&j->rtt, now_ns() - t0);
	return 0;
}

static int run_loop(struct jitter *j)
{
	uint64_t period = NS_PER_S / j->rate;
	uint64_t next = now_ns() + period;

	for (uint64_t i = 0; i < j->count; i++) {
		sleep_until(next);
		if (j->mode == MODE_EVENT) {
			int ret = event_round_trip(j, (uint32_t)(i & 0x7fffffff));
			if (ret)
				return ret;
		}
		lhist_record(&j->hist, now_ns() - next);
		next += period;
		/* Ran over: restart the schedule rather than fire a burst. */
		uint64_t now = now_ns();
		if (now > next) {
			j->overruns++;
			next = now + period;
		}
	}
	return 0;
}

static void report(struct jitter *j)
{
	const struct lhist *h = &j->hist;
	char cpus[128] = "";

	if (j->rt.has_cpus)
		rt_format_cpu_list(&j->rt.cpus, cpus, sizeof(cpus));
	if (j->cli->json) {
		struct json_object *obj = json_object_new_object();

		cli_json_add_string(obj, "mode", j->mode == MODE_TIMER ? "timer" : "event");
		cli_json_add_u64(obj, "rate_hz", j->rate);
		cli_json_add_u64(obj, "count", h->count);
		cli_json_add_u64(obj, "rt_prio", (uint64_t)j->rt.rt_prio);
		cli_json_add_string(obj, "cpus", cpus);
		cli_json_add_bool(obj, "lock_memory", j->rt.lock_memory);
		cli_json_add_u64(obj, "min_ns", h->min);
		cli_json_add_u64(obj, "p50_ns", lhist_quantile(h, 0.5));
		cli_json_add_u64(obj, "p99_ns", lhist_quantile(h, 0.99));
		cli_json_add_u64(obj, "p999_ns", lhist_quantile(h, 0.999));
		cli_json_add_u64(obj, "max_ns", h->max);
		cli_json_add_u64(obj, "mean_ns", (uint64_t)lhist_mean(h));
		cli_json_add_u64(obj, "overruns", j->overruns);
		if (j->mode == MODE_EVENT) {
			cli_json_add_u64(obj, "rtt_p50_ns", lhist_quantile(&j->rtt, 0.5));
			cli_json_add_u64(obj, "rtt_p99_ns", lhist_quantile(&j->rtt, 0.99));
			cli_json_add_u64(obj, "rtt_p999_ns", lhist_quantile(&j->rtt, 0.999));
			cli_json_add_u64(obj, "rtt_max_ns", j->rtt.max);
		}
		cli_json_print(obj);
		return;
	}
	printf("%s jitter: %llu periods at %llu Hz, %s, CPUs %s, memory %s\n",
	       j->mode == MODE_TIMER ? "timer wake-up" : "event round-trip (from period start)",
	       (unsigned long long)h->count, (unsigned long long)j->rate,
	       j->rt.rt_prio ? "SCHED_FIFO" : "default policy", cpus[0] ? cpus : "any",
	       j->rt.lock_memory ? "locked" : "not locked");
	if (j->rt.rt_prio)
		printf("  priority %d\n", j->rt.rt_prio);
	printf("  min %llu  P50 %llu  P99 %llu  P99.9 %llu  max %llu ns  (mean %.0f, overruns %llu)\n",
	       (unsigned long long)h->min, (unsigned long long)lhist_quantile(h, 0.5),
	       (unsigned long long)lhist_quantile(h, 0.99),
	       (unsigned long long)lhist_quantile(h, 0.999), (unsigned long long)h->max,
	       lhist_mean(h), (unsigned long long)j->overruns);
	lhist_print_text(h, stdout, "  ");
	if (j->mode == MODE_EVENT)
		printf("  round trip alone (send to answer): P50 %llu  P99 %llu  P99.9 %llu  "
		       "max %llu ns\n",
		       (unsigned long long)lhist_quantile(&j->rtt, 0.5),
		       (unsigned long long)lhist_quantile(&j->rtt, 0.99),
		       (unsigned long long)lhist_quantile(&j->rtt, 0.999),
		       (unsigned long long)j->rtt.max);
}

static int write_csv(struct jitter *j)
{
	FILE *f;

	if (!j->csv)
		return 0;
	f = fopen(j->csv, "we");
	if (!f || lhist_write_csv(&j->hist, f) || fclose(f))
		return cli_error(j->cli, "%s: %s", j->csv, strerror(errno));
	return 0;
}

static const struct option jitter_options[] = {
	{ "mode", required_argument, NULL, 'm' },
	{ "rate", required_argument, NULL, 'r' },
	{ "count", required_argument, NULL, 'n' },
	{ "hist-csv", required_argument, NULL, 'H' },
	RT_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

static int parse(struct jitter *j, int argc, char **argv)
{
	int opt, ret;

	while ((opt = cli_getopt(j->cli, argc, argv, "m:r:n:", jitter_options)) > 0) {
		ret = 0;
		if (opt == 'm') {
			if (!strcmp(optarg, "timer"))
				j->mode = MODE_TIMER;
			else if (!strcmp(optarg, "event"))
				j->mode = MODE_EVENT;
			else
				ret = cli_usage_error(j->cli, "--mode must be timer or event, not '%s'",
						      optarg);
		} else if (opt == 'r') {
			ret = cli_parse_u64(j->cli, "--rate", optarg, 100000, &j->rate);
			if (!ret && !j->rate)
				ret = cli_usage_error(j->cli, "--rate must be 1..100000 Hz");
		} else if (opt == 'n') {
			ret = cli_parse_u64(j->cli, "--count", optarg, UINT32_MAX, &j->count);
			if (!ret && !j->count)
				ret = cli_usage_error(j->cli, "--count must be at least 1");
		} else if (opt == 'H') {
			j->csv = optarg;
		} else {
			ret = rt_parse_option(j->cli, opt, optarg, &j->rt);
		}
		if (ret)
			return ret;
	}
	return cli_options_end(j->cli, opt, argc, argv, 0, 0);
}

int cli_run_jitter(struct cli *cli, int argc, char **argv)
{
	struct jitter *j = calloc(1, sizeof(*j)); /* the histogram is 30 KiB: not on a stack */
	pthread_t echo;
	bool echo_started = false;
	int ret;

	if (!j)
		return cli_error(cli, "out of memory");
	j->cli = cli;
	j->rate = DEFAULT_RATE;
	j->count = DEFAULT_COUNT;
	lhist_init(&j->hist);
	lhist_init(&j->rtt);
	ret = parse(j, argc, argv);
	if (ret) { /* a usage error, or help shown (CLI_EXIT_DONE) */
		free(j);
		return ret;
	}
	if (j->mode == MODE_EVENT)
		ret = open_nodes(j);
	if (!ret)
		ret = rt_apply(cli, &j->rt);
	if (!ret && j->mode == MODE_EVENT) {
		j->echo_rt = j->rt;
		j->echo_rt.lock_memory = false; /* mlockall is process-wide: done above */
		if (pthread_create(&echo, NULL, echo_start, j))
			ret = cli_error(cli, "cannot start the echo thread");
		else
			echo_started = true;
	}
	if (!ret)
		ret = run_loop(j);
	if (echo_started) {
		rfm_event_send(cli->node, (unsigned int)rfm_node_id(j->echo), RFM_EVENT_INTR1,
			       ECHO_STOP);
		pthread_join(echo, NULL);
		if (!ret && j->echo_error)
			ret = CLI_EXIT_FAILED;
	}
	if (!ret) {
		report(j);
		ret = write_csv(j);
	}
	rfm_close(j->echo);
	free(j);
	return ret;
}

const char cli_help_jitter[] =
	"Run a loop at --rate periods a second and record, from each period's\n"
	"scheduled start, how late it is served: a log histogram, P50..P99.9, max.\n"
	"  timer   sleep to each period start (CLOCK_MONOTONIC, absolute) and record\n"
	"          how late the loop wakes (default; opens no node)\n"
	"  event   then send INTR1 to an echo thread on a second node of the network\n"
	"          and sleep in rfm_event_wait() for its INTR2: the cycle's event\n"
	"          round trip, wake-up included; the round trip alone (send to\n"
	"          answer) is reported apart as rtt_* (the URI must let the network\n"
	"          choose both node ids)\n"
	"\n"
	"Options:\n"
	"  -m, --mode MODE     timer or event\n"
	"  -r, --rate HZ       periods per second (default 1000)\n"
	"  -n, --count N       periods to measure (default 10000)\n"
	"      --rt-prio P     run the loop (and the echo) SCHED_FIFO at priority P\n"
	"      --cpu LIST      run them on these CPUs, e.g. 1 or 2-3\n"
	"      --lock-memory   mlockall the process and open the nodes with lock=1\n"
	"      --hist-csv FILE write the histogram for bench/plot-latency.py\n"
	"\n"
	"A refused priority or lock is an error naming the missing right, never a\n"
	"run at normal priority. rfm selftest --system checks the machine first.\n"
	"JSON keys: mode, rate_hz, count, rt_prio, cpus, lock_memory, min_ns, p50_ns,\n"
	"p99_ns, p999_ns, max_ns, mean_ns, overruns; event mode also rtt_p50_ns,\n"
	"rtt_p99_ns, rtt_p999_ns, rtt_max_ns.\n";
