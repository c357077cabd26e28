/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ping: round-trip latency between two nodes, by the method of the
 * field (node A writes a timestamp, node B echoes it, A measures the round
 * trip). The echo side is `rfm ping --echo` on the other node, or a forked
 * child with --local. The transports are in ping-slot.c (spin, event),
 * ping-event.c (event mode's interrupts) and ping-ring.c (ring); this file
 * is the core: set up, say hello, measure. The options are parsed in
 * ping-options.c, the echo side is ping-echoer.c, the report ping-report.c.
 *
 * With --rate the pinger sends on a fixed schedule and stamps the intended
 * send time, so a stall delays every later send and is counted in full
 * (no coordinated omission).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "os/tool-os.h"
#include "ping.h"

#define SLEEP_MARGIN_NS 50000u	/* --rate: wake this early, then spin */

/*
 * One round trip stamped @stamp, by the mode's transport: 0,
 * PING_INTERRUPTED, or an exit status after saying why.
 */
static int round_trip(struct ping *p, uint32_t seq, uint64_t stamp, uint32_t flags)
{
	uint64_t echoed = 0;
	int ret = p->mode == MODE_RING ? ring_round_trip(p, seq, stamp, flags, &echoed)
				       : slot_round_trip(p, seq, stamp, flags, &echoed);

	if (ret == RFM_ETIMEDOUT) {
		cli_error(p->cli, "no echo within %lld ms (is 'rfm ping --echo --mode %s' "
			  "running on the peer, at the same --offset?)",
			  (long long)(p->timeout_ns / MS), ping_mode_names[p->mode]);
		return CLI_EXIT_NOMATCH;
	}
	if (ret < 0)
		return cli_fail(p->cli);
	if (ret)
		return ret;
	if (echoed != stamp)
		return cli_error(p->cli, "echo %u carries another timestamp: is a second pinger "
				 "using this --offset?", seq);
	return 0;
}

/*
 * Wait until @t (absolute, CLOCK_MONOTONIC). In event mode sleep until
 * shortly before it (timer slack set to 1 ns by the caller), then spin the
 * rest: otherwise a late wake-up of the pinger itself would be counted
 * as network latency.
 */

static void wait_until(const struct ping *p, uint64_t t)
{
	if (p->mode == MODE_EVENT && t > now_ns() + SLEEP_MARGIN_NS) {
		while (tool_os_sleep_until_ns(t - SLEEP_MARGIN_NS))
			if (cli_interrupted())
				return;
	}
	for (uint64_t n; (n = now_ns()) < t && !cli_interrupted();)
		if (t - n > YIELD_AFTER_NS)
			tool_os_yield();
		else
			relax();
}

static void show_progress(struct cli_progress *pr, const struct ping_opts *o,
			  const struct lhist *rtt, bool warming)
{
	if (!cli_progress_due(pr))
		return;
	if (warming)
		fputs("rfm ping: warming up", stderr);
	else
		fprintf(stderr, "rfm ping: %llu of %llu round trips, P50 %llu ns, max %llu ns",
			(unsigned long long)rtt->count, (unsigned long long)o->count,
			(unsigned long long)lhist_quantile(rtt, 0.50),
			(unsigned long long)(rtt->count ? rtt->max : 0));
}

/*
 * Open the session (the echoer answers no earlier request), warm up, then
 * measure o->count round trips into @rtt. PING_INTERRUPTED on Ctrl-C, with
 * what was measured so far in @rtt.
 */
static int measure(struct ping *p, const struct ping_opts *o, struct lhist *rtt,
		   uint64_t *late)
{
	uint32_t seq = p->mode == MODE_RING ? 0 : slot_last_seq(p);
	uint64_t period = o->rate_hz ? 1000000000u / o->rate_hz : 0;
	struct cli_progress pr;
	uint64_t start = 0;
	int ret;

	*late = 0;
	cli_progress_start(&pr);
	if (period)
		tool_os_precise_timers();
	/* Ring mode said hello before the --local echoer was known to be there. */
	if (p->mode != MODE_RING) {
		ret = round_trip(p, ++seq, now_ns(), FLAG_HELLO);
		if (ret)
			goto out;
	}
	for (uint64_t i = 0; i < o->warmup; i++) {
		ret = round_trip(p, ++seq, now_ns(), 0);
		if (ret)
			goto out;
		show_progress(&pr, o, rtt, true);
	}
	start = now_ns();
	for (uint64_t i = 0; i < o->count; i++) {
		uint64_t stamp;

		if (cli_interrupted()) {
			ret = PING_INTERRUPTED;
			goto out;
		}
		if (period) {
			stamp = start + i * period;
			uint64_t t = now_ns();
			if (t < stamp)
				wait_until(p, stamp);
			else if (t - stamp >= period)
				(*late)++;	/* a whole period behind: a stall upstream */
		} else {
			stamp = now_ns();
		}
		ret = round_trip(p, ++seq, stamp, 0);
		if (ret)
			goto out;
		lhist_record(rtt, now_ns() - stamp);
		show_progress(&pr, o, rtt, false);
	}
	ret = cli_interrupted() ? PING_INTERRUPTED : 0;
out:
	cli_progress_end(&pr);
	return ret;
}

/* A session id for this run: differs from earlier runs' with near certainty. */
static uint32_t new_session(void)
{
	uint64_t t = now_ns() ^ ((uint64_t)getpid() << 20);
	uint32_t s = (uint32_t)(t ^ (t >> 32));

	return s ? s : 1;
}

/*
 * Both sides: the payload, this thread's CPUs and priority (memory
 * locked), the node with its window and event settings, and the slots
 * (rings) of the exchange.
 */
static int ping_setup(struct cli *cli, struct ping *p, const struct ping_opts *o)
{
	int ret;

	p->payload = calloc(1, p->size ? p->size : 1);
	if (!p->payload)
		return cli_error(cli, "out of memory");
	for (uint32_t i = 0; i < p->size; i++)
		p->payload[i] = (uint8_t)i;
	/* Refused rights are reported before anything is opened. */
	ret = rt_apply(cli, &o->rt);
	if (!ret)
		ret = rt_open(cli, &o->rt);
	if (ret)
		return ret;
	if (rfm_mem_map(cli->node, (void **)&p->base, NULL) ||
	    (p->mode == MODE_EVENT &&
	     (rfm_event_enable(cli->node, RFM_EVENT_BIT(RFM_EVENT_INTR1)) ||
	      rfm_event_set_spin(cli->node, 0))) ||
	    /* Ring takes spin as spin mode does, then poll with yields. */
	    (p->mode == MODE_RING && rfm_event_set_spin(cli->node, YIELD_AFTER_NS)))
		return cli_fail(cli);
	/* Both slots (rings), at the largest payload the echoer will accept. */
	if (p->mode != MODE_RING) {
		ret = cli_check_range(cli, p->offset, slot_pair_span(p->size));
		if (!ret)
			ret = cli_guard_scratch(cli, p->offset, slot_pair_span(p->size),
						PING_OFFSET_HINT);
	} else if (!o->echo) {
		ret = ring_ping_setup(p);
	}
	return ret;
}

/*
 * The pinger, once set up (and its --local echoer started): the ring
 * handshake, the measurement, the stop request, the report and the
 * histogram file. 0, CLI_EXIT_INTERRUPTED (reported) or the exit status.
 */
static int ping_measure(struct ping *p, const struct ping_opts *o, struct cli_out_file *csv)
{
	struct cli *cli = p->cli;
	struct lhist *hist;
	uint64_t late = 0;
	int ret = 0;

	if (p->mode == MODE_RING) {
		ret = ring_open_peer(p, ring_reply_offset(p, p->size), "echo");
		if (!ret)
			ret = round_trip(p, 0, 0, FLAG_HELLO);
		if (ret && ret != PING_INTERRUPTED)
			return ret;
	}
	hist = malloc(sizeof(*hist));	/* 30 KiB: not on a stack */
	if (!hist)
		return cli_error(cli, "out of memory");
	lhist_init(hist);
	if (!ret)
		ret = measure(p, o, hist, &late);
	/* Ask the --local echoer to leave; it needs no answer. */
	if (o->local && !ret)
		ret = round_trip(p, p->last_seq + 1, 0, FLAG_STOP);
	/* Ctrl-C: report what was measured, honestly counted, and exit 130. */
	if (ret == PING_INTERRUPTED)
		ret = CLI_EXIT_INTERRUPTED;
	if (!ret || ret == CLI_EXIT_INTERRUPTED) {
		ping_report(p, o, hist, late, ret == CLI_EXIT_INTERRUPTED);
		if (csv->fp && lhist_write_csv(hist, csv->fp) && ret == CLI_EXIT_OK)
			ret = cli_error(cli, "cannot write '%s': %s", o->csv_path,
					strerror(errno));
	}
	free(hist);
	return ret;
}

int cli_run_ping(struct cli *cli, int argc, char **argv)
{
	struct ping p = { .cli = cli, .mode = MODE_SPIN, .timeout_ns = 1000 * MS };
	struct ping_opts o = { .count = 10000, .warmup = 1000 };
	struct cli_out_file csv = { 0 };
	struct ping_local *local = NULL;
	int ret;

	ret = ping_parse_options(cli, argc, argv, &p, &o);
	if (ret)
		return ret;
	p.session = new_session();
	cli_catch_interrupt();
	/* Opened first, so that an unwritable path fails before the run. */
	if (o.csv_path && cli_out_open(cli, &csv, o.csv_path, false))
		return CLI_EXIT_FAILED;
	ret = ping_setup(cli, &p, &o);
	if (!ret && o.echo)
		ret = ping_run_echo(&p, &o);
	else if (!ret && o.local)
		ret = ping_start_local_echoer(&p, &o, &local);
	if (!ret && !o.echo)
		ret = ping_measure(&p, &o, &csv);
	ret = ping_reap_local_echoer(cli, local, ret);
	/* A complete histogram (an interrupted run's too) replaces the file. */
	if (ret == CLI_EXIT_OK || ret == CLI_EXIT_INTERRUPTED) {
		int err = cli_out_commit(cli, &csv);
		ret = err ? err : ret;
	}
	cli_out_abort(&csv);
	rfm_ring_close(p.out);
	rfm_ring_consumer_close(p.in);
	free(p.msg);
	free(p.payload);
	return ret;
}

const char cli_help_ping[] =
	"Node A (this command) writes a timestamp, node B echoes it back, A measures\n"
	"the round trip; one way is half of it. Run 'rfm ping --echo' on the other\n"
	"node first, or use --local to fork the echoer on a second node of the same\n"
	"network. Both sides must use the same --mode and --offset.\n"
	"\n"
	"Modes:\n"
	"  spin    the peers spin on a sequence word (data, then the sequence)\n"
	"  event   the peers sleep in rfm_event_wait() for an INTR1 that follows the\n"
	"          data (network interrupts; blocking, no spinning)\n"
	"  ring    each side publishes on its own ring (rfm_ring_publish()) and\n"
	"          consumes the other's (rfm_ring_consume(), polling): the request\n"
	"          ring at --offset, the reply ring right after it\n"
	"\n"
	"Options:\n"
	"  -m, --mode MODE      spin (default), event or ring\n"
	"  -c, --count N        round trips to measure (default 10000); with --echo,\n"
	"                       requests to answer before exiting (default: no\n"
	"                       limit, the echoer runs until stopped)\n"
	"      --warmup N       round trips before measuring (default 1000)\n"
	"      --rate HZ        send HZ times a second on a fixed schedule, timing\n"
	"                       each round trip from its intended send time so that\n"
	"                       stalls are not hidden (default: back to back)\n"
	"      --size BYTES     payload carried each way, 0..65536 (default 0)\n"
	"      --cpu LIST       run on these CPUs, e.g. 1 or 2-3 (the --local echoer\n"
	"                       too, unless --echo-cpu)\n"
	"      --echo-cpu LIST  run the --local echoer on these CPUs\n"
	"      --rt-prio P      run SCHED_FIFO at priority P (the --local echoer too)\n"
	"      --lock-memory    mlockall and open the node with lock=1 (both sides)\n"
	"      --peer NODE      the echoer's node id (event mode without --local)\n"
	"      --timeout MS     give up on a round trip after MS ms (default 1000);\n"
	"                       with --echo, on a request (default: wait forever)\n"
	"      --offset OFF     where the two slots lie (default 0; multiple of 8);\n"
	"                       ping uses 2 x (32 + size rounded up to 64) bytes;\n"
	"                       ring mode: two rings of 8 slots of 16 + size bytes\n"
	"                       (multiple of 64)\n"
	"      --hist-csv FILE  write the histogram: low_ns,high_ns,count,cumulative\n"
	"      --echo           be the echo side\n"
	"      --local          fork the echo side on another node of this network\n"
	"\n"
	"Output: min, mean, P50, P90, P99, P99.9 and max of the round trip and of\n"
	"one way, then a histogram in powers of two. Percentiles come from a log\n"
	"histogram (64 buckets per power of two: within 1.6 %).\n"
	"A refused priority or lock is an error naming the missing right, never a\n"
	"run at normal priority (rfm selftest --system checks the machine).\n"
	"JSON keys: mode, count, warmup, size, rate_hz, late_sends, node, peer (event),\n"
	"offset, rt_prio, cpus, lock_memory, interrupted, min_ns, mean_ns, p50_ns, p90_ns, p99_ns, p999_ns, max_ns,\n"
	"and one_way with the same *_ns keys. --echo --json prints mode, echoed and interrupted.\n"
	"On a terminal, progress is shown on stderr once a second. Ctrl-C stops the\n"
	"run and prints what was measured (JSON \"interrupted\": true), exit 130;\n"
	"the echoer prints how many requests it answered.\n"
	"Each run opens a session with a handshake: a request left behind by an\n"
	"aborted run is ignored by later echoers and pingers.\n"
	"Exit 3 when no echo (or, with --echo, no request) came within the timeout.\n";
