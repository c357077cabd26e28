/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm nodes and rfm selftest: the node table and the own-node test.
 */
#include "config.h"

#include <string.h>
#include <time.h>

#include "cli.h"
#include "system-checks.h"

enum { OPT_TIME = 0x2000 };

static const struct option nodes_options[] = {
	{ "time", required_argument, NULL, OPT_TIME },
	{ NULL, 0, NULL, 0 },
};

/*
 * The nodes' status, up to RFM_MAX_NODES rows, their number in @np: 0, or
 * the exit status with the error reported. Off one host (dev:, rfm2g:) a
 * node's age is what we see its beat counter do on our clock: look again
 * a period later.
 */
static int read_nodes(struct cli *cli, struct rfm_node_status *rows, int *np)
{
	int n = rfm_health_nodes(cli->node, rows, RFM_MAX_NODES);
	uint64_t wait_ns = 0;

	if (n < 0)
		return cli_fail(cli);
	for (int i = 0; i < n && i < RFM_MAX_NODES; i++)
		if (rows[i].beats && rows[i].age_ns == UINT64_MAX && rows[i].period_ns > wait_ns)
			wait_ns = rows[i].period_ns;
	if (wait_ns) {
		wait_ns += wait_ns / 10;
		struct timespec ts = { .tv_sec = (time_t)(wait_ns / 1000000000u),
				       .tv_nsec = (long)(wait_ns % 1000000000u) };
		nanosleep(&ts, NULL);
		n = rfm_health_nodes(cli->node, rows, RFM_MAX_NODES);
		if (n < 0)
			return cli_fail(cli);
	}
	*np = n > RFM_MAX_NODES ? RFM_MAX_NODES : n;
	return 0;
}

static struct json_object *node_json(struct cli *cli, const struct rfm_node_status *r,
				     enum cli_clock clock, uint64_t now)
{
	struct json_object *o = json_object_new_object();

	cli_json_add_u64(o, "id", r->id);
	cli_json_add_string(o, "state", rfm_node_state_name(r->state));
	cli_json_add_bool(o, "attached", r->attached);
	cli_json_add_bool(o, "alive", r->alive);
	cli_json_add_u64(o, "incarnation", r->incarnation);
	if (r->age_ns == UINT64_MAX)
		json_object_object_add(o, "age_ns", NULL);
	else
		cli_json_add_u64(o, "age_ns", r->age_ns);
	if (r->age_ns == UINT64_MAX || r->age_ns > now)
		json_object_object_add(o, "last_beat", NULL);
	else
		cli_json_add_time(o, "last_beat", clock, now - r->age_ns);
	cli_json_add_u64(o, "beats", r->beats);
	cli_json_add_u64(o, "period_ns", r->period_ns);
	/* A departed node's process is unknown: null, never 0. */
	if (r->pid > 0)
		cli_json_add_int(o, "pid", r->pid);
	else
		json_object_object_add(o, "pid", NULL);
	cli_json_add_string(o, "host", r->host);
	cli_json_add_bool(o, "self", (int)r->id == rfm_node_id(cli->node));
	/* Its card's status at its last beat; null: no card status. */
	if (r->link & RFM_LINK_KNOWN)
		cli_json_add_bool(o, "link_up", (r->link & RFM_LINK_SIGNAL) &&
						!(r->link & RFM_LINK_SYNC_LOST));
	else
		json_object_object_add(o, "link_up", NULL);
	return o;
}

static void print_nodes_table(struct cli *cli, const struct rfm_node_status *rows, int n,
			      enum cli_clock clock, bool clock_given, uint64_t now)
{
	printf("%4s  %-8s %-8s %-5s %11s %12s %10s %8s  %s\n", "NODE", "STATE", "ATTACHED", "ALIVE",
	       "INCARNATION", "LAST BEAT", "PERIOD", "PID", "HOST");
	for (int i = 0; i < n; i++) {
		const struct rfm_node_status *r = &rows[i];
		char age[64] = "never", period[32] = "-", pid[16] = "-";

		if (r->age_ns != UINT64_MAX && clock_given && r->age_ns <= now)
			cli_format_time(clock, now - r->age_ns, age, sizeof(age));
		else if (r->age_ns != UINT64_MAX)
			snprintf(age, sizeof(age), "%.1f ms ago", (double)r->age_ns / 1e6);
		if (r->pid > 0)
			snprintf(pid, sizeof(pid), "%d", r->pid);
		if (r->period_ns)
			snprintf(period, sizeof(period), "%.1f ms", (double)r->period_ns / 1e6);
		printf("%4u%s %-8s %-8s %-5s %11u %12s %10s %8s  %s\n", r->id,
		       (int)r->id == rfm_node_id(cli->node) ? "*" : " ", rfm_node_state_name(r->state),
		       r->attached ? "yes" : "no", r->alive ? "yes" : "no", r->incarnation, age,
		       period, pid, r->host[0] ? r->host : "-");
	}
}

int cli_run_nodes(struct cli *cli, int argc, char **argv)
{
	struct rfm_node_status rows[RFM_MAX_NODES];
	enum cli_clock clock = CLI_CLOCK_REALTIME;
	bool clock_given = false;
	int ret, n = 0, opt;

	while ((opt = cli_getopt(cli, argc, argv, "", nodes_options)) > 0)
		if (opt == OPT_TIME) {
			ret = cli_parse_clock(cli, optarg, &clock);
			if (ret)
				return ret;
			clock_given = true;
		}
	ret = cli_options_end(cli, opt, argc, argv, 0, 0);
	if (ret)
		return ret;
	ret = cli_open(cli);
	if (ret)
		return ret;
	ret = read_nodes(cli, rows, &n);
	if (ret)
		return ret;
	uint64_t now = rfm_event_now_ns();
	if (!cli->json) {
		print_nodes_table(cli, rows, n, clock, clock_given, now);
		return CLI_EXIT_OK;
	}
	struct json_object *obj = json_object_new_object();
	struct json_object *arr = json_object_new_array();

	for (int i = 0; i < n; i++)
		json_object_array_add(arr, node_json(cli, &rows[i], clock, now));
	json_object_object_add(obj, "nodes", arr);
	cli_json_print(obj);
	return CLI_EXIT_OK;
}

const char cli_help_nodes[] =
	"Print the node table: every node id attached or that has beaten, and\n"
	"one whose process died without closing; its state: up (beating within\n"
	"its misses), attached (no heartbeat), silent (its beats stopped without\n"
	"a goodbye), left (it closed), crashed (its process died without closing,\n"
	"where the backend can tell: shm:); whether it is attached and alive, its\n"
	"incarnation (1: cold start, more: restarts), the age of its last\n"
	"heartbeat, its period, process (a crashed node's: the dead one) and host.\n"
	"The own node (this command's) is marked '*'; it only beats when a program\n"
	"runs a health monitor on it (rfm listen --event node_up does). PID and\n"
	"host are '-' when unknown (a node that left).\n"
	"\n"
	"Options:\n"
	"      --time CLOCK    show the last beat as a time in realtime (UTC, ISO\n"
	"                      8601) or monotonic (seconds) time, not as an age\n"
	"\n"
	"JSON: {\"nodes\": [{id, state, attached, alive, incarnation, age_ns (null: never),\n"
	"last_beat (in CLOCK, default realtime; null: never), beats, period_ns,\n"
	"pid (null: unknown), host, self, link_up (its card has signal and sync;\n"
	"null: no card status)}]}. Off a single host (dev:, rfm2g:) the age is what\n"
	"this command sees the node's beat counter do: it looks twice, a period apart.\n";

static const struct option selftest_options[] = {
	{ "offset", required_argument, NULL, 'o' },
	{ NULL, 0, NULL, 0 },
};

int cli_run_selftest(struct cli *cli, int argc, char **argv)
{
	struct rfm_selftest_result res = { .struct_size = sizeof(res) };
	uint64_t offset = RFM_SELFTEST_NO_MEMORY;
	int opt, ret;

	for (int i = 1; i < argc; i++) /* --system: the machine, not the node */
		if (!strcmp(argv[i], "--system"))
			return cli_selftest_system(cli, argc, argv);
	while ((opt = cli_getopt(cli, argc, argv, "o:", selftest_options)) > 0)
		/* UINT64_MAX is the library's "no memory test": never a silent skip. */
		if (opt == 'o' &&
		    (ret = cli_parse_bytes(cli, "offset", optarg, RFM_SELFTEST_NO_MEMORY - 1, &offset)))
			return ret;
	ret = cli_options_end(cli, opt, argc, argv, 0, 0);
	if (!ret)
		ret = cli_open(cli);
	if (ret)
		return ret;
	ret = rfm_selftest(cli->node, offset, &res);
	if (ret && ret != RFM_EIO)
		return cli_fail(cli);
	bool mem = offset != RFM_SELFTEST_NO_MEMORY;
	if (cli->json) {
		struct json_object *obj = json_object_new_object();

		cli_json_add_bool(obj, "passed", ret == 0);
		if (mem) {
			cli_json_add_bool(obj, "memory_ok", res.memory_ok);
			cli_json_add_u64(obj, "memory_errors", res.memory_errors);
		}
		cli_json_add_bool(obj, "event_ok", res.event_ok);
		cli_json_add_u64(obj, "event_latency_ns", res.event_latency_ns);
		cli_json_print(obj);
	} else {
		if (mem)
			printf("memory write/readback: %s (%u byte errors)\n",
			       res.memory_ok ? "ok" : "FAILED", res.memory_errors);
		printf("loopback event: %s", res.event_ok ? "ok" : "FAILED");
		if (res.event_ok)
			printf(" (%llu ns)", (unsigned long long)res.event_latency_ns);
		printf("\nself-test %s\n", ret ? "FAILED" : "passed");
	}
	return ret ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

const char cli_help_selftest[] =
	"Send an event to this node with loopback and take it back; with --offset,\n"
	"first write patterns to 64 bytes at OFFSET, read them back and restore\n"
	"the old contents (choose bytes no other node writes meanwhile).\n"
	"Exit 0 when every part passed, 1 otherwise.\n"
	"\n"
	"Options:\n"
	"  -o, --offset OFFSET  also test 64 bytes of the window at OFFSET\n"
	"      --system         check the machine instead (below); no node is opened\n"
	"      --cpu LIST       --system: the CPUs of the real-time loop, e.g. 1 or 2-3\n"
	"      --rt-prio P      --system: the loop's SCHED_FIFO priority\n"	"\n"
	"JSON keys: passed, memory_ok, memory_errors (with --offset), event_ok,\n"
	"event_latency_ns.\n"
	"\n"
	"With --system, opens no node: checks the machine for a real-time loop on\n"
	"the CPUs of --cpu LIST (default: all allowed), each finding with its fix\n"
	"(see docs/tuning.md); --rt-prio P is the loop's SCHED_FIFO priority, which\n"
	"the card's interrupt threads must be above. Exit 1 when a check fails for\n"
	"those CPUs or that priority. JSON keys:\n"
	"cpus, cpus_chosen, rt_prio, passed, failed, warnings, checks: {KEY: {status (ok,\n"
	"warn, fail, unknown), finding, fix}} for kernel_preempt, isolcpus,\n"
	"nohz_full, cpu_governor, cpu_idle, irqbalance, irq_affinity, irq_thread,\n"
	"transparent_hugepages, swap, timer_slack, rt_throttling, rt_permission,\n"
	"memlock_limit, hugepages.\n";
